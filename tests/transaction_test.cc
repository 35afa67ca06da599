// Transactions (lqs/transaction.h): tables, atomic commits with queue
// operations, rollback, call-time validation, and both kinds of conflict.

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include "tests/testutil.h"

namespace lqs::testing {
namespace {

class TransactionTest : public BrokerTest {
 protected:
  std::optional<std::string> Committed(const std::string& table, const std::string& key) {
    auto v = broker_->Get(table, key);
    EXPECT_OK(v);
    return v.ok() ? *v : std::nullopt;
  }

  // Sends `body`, receives it with a `visibility_timeout` lease; the handle.
  std::string SendAndReceive(Queue& q, const std::string& body, int visibility_timeout = 30) {
    Send(q, body);
    auto got = Receive(q, 1, visibility_timeout);
    EXPECT_EQ(got.size(), 1u);
    return got.empty() ? "" : got[0].receipt_handle;
  }

  static SendMessageRequest Body(const std::string& body) {
    SendMessageRequest r;
    r.body = body;
    return r;
  }
};

TEST_F(TransactionTest, PutGetDeleteScanSeeOwnWritesInKeyOrder) {
  auto tx = broker_->BeginTransaction();
  ASSERT_OK(tx->Put("t", "b", "2"));
  ASSERT_OK(tx->Put("t", "a", "1"));
  ASSERT_OK(tx->Put("t", "c", "3"));
  ASSERT_OK(tx->Put("other", "a", "x"));
  auto got = tx->Get("t", "a");
  ASSERT_OK(got);
  EXPECT_EQ(*got, std::optional<std::string>("1"));
  ASSERT_OK(tx->Delete("t", "c"));
  EXPECT_EQ(*tx->Get("t", "c"), std::nullopt);
  EXPECT_EQ(Committed("t", "a"), std::nullopt);  // nothing visible before commit
  ASSERT_OK(tx->Commit());
  EXPECT_EQ(Committed("t", "a"), std::optional<std::string>("1"));
  EXPECT_EQ(Committed("t", "c"), std::nullopt);

  auto tx2 = broker_->BeginTransaction();
  ASSERT_OK(tx2->Put("t", "ab", "12"));
  ASSERT_OK(tx2->Delete("t", "b"));
  ASSERT_OK(tx2->Put("t", std::string("a\xff", 2), "hi"));
  auto all = tx2->Scan("t", "");
  ASSERT_OK(all);
  std::vector<std::string> keys;
  for (const auto& e : *all) keys.push_back(e.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "ab", std::string("a\xff", 2)}));
  auto prefixed = tx2->Scan("t", "a");
  ASSERT_OK(prefixed);
  EXPECT_EQ(prefixed->size(), 3u);
  ASSERT_OK(tx2->Commit());
  auto committed = broker_->Scan("t", "");
  ASSERT_OK(committed);
  ASSERT_EQ(committed->size(), 3u);
  EXPECT_EQ((*committed)[1].key, "ab");
  EXPECT_EQ((*committed)[1].value, "12");
  // Tables are namespaces: "other" sees none of "t".
  auto other = broker_->Scan("other", "");
  ASSERT_OK(other);
  ASSERT_EQ(other->size(), 1u);
  EXPECT_EQ((*other)[0].value, "x");
  ExpectConsistent();
}

TEST_F(TransactionTest, SendAndPutBecomeVisibleTogetherOnlyAtCommit) {
  auto q = MakeQueue("jobs");
  auto tx = broker_->BeginTransaction();
  ASSERT_OK(tx->Put("exports", "r1", "ACCEPTED"));
  ASSERT_OK(tx->SendMessage("jobs", Body("r1")));
  SendMessageBatchEntry e1{"e1", Body("r2")};
  SendMessageBatchEntry e2{"e2", Body("r3")};
  ASSERT_OK(tx->SendMessageBatch("jobs", {e1, e2}));
  EXPECT_TRUE(Receive(*q).empty());
  EXPECT_EQ(Committed("exports", "r1"), std::nullopt);
  auto done = tx->Commit();
  ASSERT_OK(done);
  ASSERT_EQ(done->sent.size(), 3u);
  EXPECT_FALSE(done->sent[0].message_id.empty());
  EXPECT_EQ(Committed("exports", "r1"), std::optional<std::string>("ACCEPTED"));
  auto got = Receive(*q);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].body, "r1");
  EXPECT_EQ(got[0].message_id, done->sent[0].message_id);
  // A finished transaction takes no more calls.
  EXPECT_CODE(tx->Put("exports", "r9", "x"), kInvalidParameterValue);
  ExpectConsistent();
}

TEST_F(TransactionTest, DestroyedWithoutCommitRollsBack) {
  auto q = MakeQueue("jobs");
  const std::string handle = SendAndReceive(*q, "m");
  {
    auto tx = broker_->BeginTransaction();
    ASSERT_OK(tx->Put("t", "k", "v"));
    ASSERT_OK(tx->SendMessage("jobs", Body("never")));
    ASSERT_OK(tx->DeleteMessage("jobs", handle));
  }
  EXPECT_EQ(Committed("t", "k"), std::nullopt);
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 1, 0}));
  ASSERT_OK(q->DeleteMessage(handle));
  ExpectConsistent();
}

TEST_F(TransactionTest, ValidationErrorsAtCallTimeNameTheParameter) {
  auto q = MakeQueue("jobs");
  auto fifo = MakeQueue("f.fifo", {{"FifoQueue", "true"}});
  auto tx = broker_->BeginTransaction();
  auto fails = [](const Status& st, ErrorCode code, const std::string& word) {
    EXPECT_EQ(st.code(), code) << st.ToString();
    EXPECT_NE(st.message().find(word), std::string::npos) << st.ToString();
  };
  fails(tx->Put("", "k", "v"), ErrorCode::kInvalidParameterValue, "parameter Table");
  fails(tx->Put("bad/name", "k", "v"), ErrorCode::kInvalidParameterValue, "parameter Table");
  fails(tx->Put(std::string(65, 't'), "k", "v"), ErrorCode::kInvalidParameterValue,
        "parameter Table");
  fails(tx->Put("t", "", "v"), ErrorCode::kInvalidParameterValue, "parameter Key");
  fails(tx->Put("t", std::string(1025, 'k'), "v"), ErrorCode::kInvalidParameterValue,
        "parameter Key");
  fails(tx->Put("t", "k", std::string(256 * 1024 + 1, 'v')), ErrorCode::kInvalidParameterValue,
        "parameter Value");
  EXPECT_OK(tx->Put("t", std::string(1024, 'k'), std::string(256 * 1024, 'v')));
  fails(tx->Get("t", "").status(), ErrorCode::kInvalidParameterValue, "parameter Key");
  fails(tx->SendMessage("nope", Body("x")), ErrorCode::kQueueDoesNotExist, "queue");
  fails(tx->SendMessage("jobs", Body("")), ErrorCode::kMissingParameter, "");
  SendMessageRequest delayed = Body("x");
  delayed.delay_seconds = 901;
  fails(tx->SendMessage("jobs", delayed), ErrorCode::kInvalidParameterValue, "DelaySeconds");
  fails(tx->SendMessage("f.fifo", Body("x")), ErrorCode::kMissingParameter, "MessageGroupId");
  fails(tx->DeleteMessage("jobs", "garbage"), ErrorCode::kReceiptHandleIsInvalid, "garbage");
  fails(tx->ChangeMessageVisibility("jobs", "garbage", 43201), ErrorCode::kInvalidParameterValue,
        "VisibilityTimeout");
  const std::string handle = SendAndReceive(*q, "m");
  fails(tx->DeleteMessage("f.fifo", handle), ErrorCode::kReceiptHandleIsInvalid, "");
  // Nothing failed is recorded: the transaction commits what succeeded.
  ASSERT_OK(tx->Commit());
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 1, 0}));
  EXPECT_TRUE(Committed("t", std::string(1024, 'k')).has_value());
  ExpectConsistent();
}

TEST_F(TransactionTest, ReadConflictFailsRetryablyAndAppliesNothing) {
  auto q = MakeQueue("jobs");
  auto seed = broker_->BeginTransaction();
  ASSERT_OK(seed->Put("t", "k", "0"));
  ASSERT_OK(seed->Commit());

  auto a = broker_->BeginTransaction();
  auto b = broker_->BeginTransaction();
  ASSERT_OK(a->Get("t", "k"));
  ASSERT_OK(b->Get("t", "k"));
  ASSERT_OK(a->Put("t", "k", "a"));
  ASSERT_OK(b->Put("t", "k", "b"));
  ASSERT_OK(b->Put("t", "other", "b"));
  ASSERT_OK(b->SendMessage("jobs", Body("from b")));
  ASSERT_OK(a->Commit());
  auto lost = b->Commit();
  EXPECT_CODE(lost, kTransactionConflict);
  EXPECT_EQ(Committed("t", "k"), std::optional<std::string>("a"));
  EXPECT_EQ(Committed("t", "other"), std::nullopt);
  EXPECT_TRUE(Receive(*q).empty());

  // A scan conflicts with a key inserted into its range (a phantom)...
  auto c = broker_->BeginTransaction();
  ASSERT_OK(c->Scan("t", "p"));
  ASSERT_OK(c->Put("t", "summary", "none"));
  auto d = broker_->BeginTransaction();
  ASSERT_OK(d->Put("t", "p1", "x"));
  ASSERT_OK(d->Commit());
  EXPECT_CODE(c->Commit(), kTransactionConflict);
  EXPECT_EQ(Committed("t", "summary"), std::nullopt);
  // ... and blind writes conflict with nothing.
  auto e = broker_->BeginTransaction();
  auto f = broker_->BeginTransaction();
  ASSERT_OK(e->Put("t", "blind", "e"));
  ASSERT_OK(f->Put("t", "blind", "f"));
  ASSERT_OK(f->Commit());
  ASSERT_OK(e->Commit());
  EXPECT_EQ(Committed("t", "blind"), std::optional<std::string>("e"));
}

// The three ways to lose a lease, for DeleteMessage and for
// ChangeMessageVisibility: nothing of the transaction is applied.
TEST_F(TransactionTest, LostLeaseFailsTheCommit) {
  auto q = MakeQueue("jobs");
  for (bool change : {false, true}) {
    for (int how = 0; how < 3; ++how) {
      SCOPED_TRACE(std::string(change ? "change" : "delete") + " case " + std::to_string(how));
      const std::string body = "m" + std::to_string(how) + (change ? "c" : "d");
      const std::string handle = SendAndReceive(*q, body, 10);
      auto tx = broker_->BeginTransaction();
      ASSERT_OK(tx->Put("effects", body, "done"));
      ASSERT_OK(change ? tx->ChangeMessageVisibility("jobs", handle, 60)
                       : tx->DeleteMessage("jobs", handle));
      std::string again;
      if (how == 0) {  // expired and received again
        clock_->AdvanceSeconds(11);
        auto got = Receive(*q, 1, 10);
        ASSERT_EQ(got.size(), 1u);
        again = got[0].receipt_handle;
      } else if (how == 1) {  // expired only
        clock_->AdvanceSeconds(11);
      } else {  // deleted by someone else
        ASSERT_OK(q->DeleteMessage(handle));
      }
      EXPECT_CODE(tx->Commit(), kTransactionConflict);
      EXPECT_EQ(Committed("effects", body), std::nullopt);
      // The message is where the others left it.
      if (how == 0) {
        ASSERT_OK(q->DeleteMessage(again));
      }
      if (how == 1) {
        auto got = Receive(*q, 1, 10);
        ASSERT_EQ(got.size(), 1u);
        ASSERT_OK(q->DeleteMessage(got[0].receipt_handle));
      }
      EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 0, 0}));
    }
  }
  ExpectConsistent();
}

TEST_F(TransactionTest, DeleteAndChangeVisibilityApplyWithTheRecords) {
  auto q = MakeQueue("jobs");
  auto out = MakeQueue("results");
  const std::string done = SendAndReceive(*q, "done");
  const std::string later = SendAndReceive(*q, "later");
  auto tx = broker_->BeginTransaction();
  ASSERT_OK(tx->Put("effects", "done", "ok"));
  ASSERT_OK(tx->DeleteMessage("jobs", done));
  ASSERT_OK(tx->ChangeMessageVisibility("jobs", later, 0));
  ASSERT_OK(tx->SendMessage("results", Body("result of done")));
  EXPECT_CODE(tx->DeleteMessage("jobs", done), kInvalidParameterValue);  // twice
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 2, 0}));
  ASSERT_OK(tx->Commit());
  EXPECT_EQ(Committed("effects", "done"), std::optional<std::string>("ok"));
  auto got = Receive(*q);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].body, "later");
  EXPECT_EQ(Receive(*out).size(), 1u);
  // A change and then a delete of one message in one transaction: the lease
  // the transaction found decides, not its own change to 0.
  auto both = broker_->BeginTransaction();
  ASSERT_OK(both->ChangeMessageVisibility("jobs", got[0].receipt_handle, 0));
  ASSERT_OK(both->DeleteMessage("jobs", got[0].receipt_handle));
  ASSERT_OK(both->Commit());
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 0, 0}));
  ExpectConsistent();
}

// The commit writes one batch built from every queue's part (the first
// part's batch takes the others): each part must reach the disk, not only
// the in-memory state, so this reads them back after a reopen.
TEST_F(TransactionTest, EveryQueuePartIsInTheWrittenBatch) {
  auto jobs = MakeQueue("jobs");
  MakeQueue("results");
  MakeQueue("audit");
  const std::string handle = SendAndReceive(*jobs, "job");
  auto tx = broker_->BeginTransaction();
  ASSERT_OK(tx->SendMessage("results", Body("r")));
  ASSERT_OK(tx->SendMessage("audit", Body("a")));
  ASSERT_OK(tx->DeleteMessage("jobs", handle));
  ASSERT_OK(tx->Put("t", "k", "v"));
  ASSERT_OK(tx->Commit());
  jobs.reset();
  Reopen();
  clock_->AdvanceSeconds(31);  // a delete that was not written would be visible again
  EXPECT_EQ(Committed("t", "k"), std::optional<std::string>("v"));
  for (const auto& [name, n] :
       {std::pair<const char*, size_t>{"jobs", 0}, {"results", 1}, {"audit", 1}}) {
    auto q = broker_->GetQueue(name);
    ASSERT_OK(q);
    EXPECT_EQ(Receive(**q).size(), n) << name;
  }
  ExpectConsistent();
}

TEST_F(TransactionTest, FifoSendsAndDeletesInATransaction) {
  auto q = MakeQueue("f.fifo", {{"FifoQueue", "true"}, {"ContentBasedDeduplication", "true"}});
  SendMessageRequest r = Body("one");
  r.message_group_id = "g";
  auto tx = broker_->BeginTransaction();
  ASSERT_OK(tx->SendMessage("f.fifo", r));
  ASSERT_OK(tx->Put("t", "k", "1"));
  ASSERT_OK(tx->Commit());
  auto got = Receive(*q);
  ASSERT_EQ(got.size(), 1u);
  // A duplicate send writes nothing for the queue; the records still commit.
  auto dup = broker_->BeginTransaction();
  ASSERT_OK(dup->SendMessage("f.fifo", r));
  ASSERT_OK(dup->DeleteMessage("f.fifo", got[0].receipt_handle));
  ASSERT_OK(dup->Put("t", "k", "2"));
  ASSERT_OK(dup->Commit());
  EXPECT_EQ(Committed("t", "k"), std::optional<std::string>("2"));
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 0, 0}));
  ExpectConsistent();
}

TEST_F(TransactionTest, ConcurrentIncrementsCountEveryCommit) {
  auto q = MakeQueue("jobs");
  constexpr int kThreads = 4;
  constexpr int kAttempts = 50;
  std::atomic<int> committed{0};
  std::atomic<int> conflicts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kAttempts; ++i) {
        auto tx = broker_->BeginTransaction();
        auto v = tx->Get("c", "n");
        if (!v.ok()) {
          ADD_FAILURE() << v.status().ToString();
          return;
        }
        const int n = v->has_value() ? std::stoi(**v) : 0;
        if (!tx->Put("c", "n", std::to_string(n + 1)).ok() ||
            !tx->SendMessage("jobs", Body(std::to_string(n + 1))).ok()) {
          ADD_FAILURE();
          return;
        }
        auto done = tx->Commit();
        if (done.ok()) {
          committed.fetch_add(1);
        } else if (done.status().code() == ErrorCode::kTransactionConflict) {
          conflicts.fetch_add(1);
        } else {
          ADD_FAILURE() << done.status().ToString();
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(committed + conflicts, kThreads * kAttempts);
  EXPECT_GT(committed.load(), 0);
  EXPECT_EQ(Committed("c", "n"), std::optional<std::string>(std::to_string(committed.load())));
  EXPECT_EQ(Counts(*q)[0], committed.load());
  ExpectConsistent();
}

// Read conflicts from several threads: each thread makes 60 read-modify-write
// increments of two of three shared counters, running a transaction again
// on kTransactionConflict until it commits. No update is lost: each counter
// ends equal to the number of commits that incremented it, and each commit's
// message was sent exactly once.
TEST_F(TransactionTest, ConcurrentReadModifyWritesWithRetryLoseNoUpdate) {
  auto q = MakeQueue("jobs");
  constexpr int kThreads = 4;
  constexpr int kIncrements = 60;
  constexpr int kKeys = 3;
  std::atomic<int> expected[kKeys] = {};
  std::atomic<int> conflicts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kIncrements; ++i) {
        // The two counters this commit increments: all pairs, in turn.
        const int a = (t + i) % kKeys, b = (t + i + 1) % kKeys;
        for (int attempt = 0;; ++attempt) {
          ASSERT_LT(attempt, 1000) << "a transaction never committed";
          auto tx = broker_->BeginTransaction();
          bool ok = true;
          for (int k : {a, b}) {
            auto v = tx->Get("c", "k" + std::to_string(k));
            ASSERT_OK(v);
            const int n = v->has_value() ? std::stoi(**v) : 0;
            ok = ok && tx->Put("c", "k" + std::to_string(k), std::to_string(n + 1)).ok();
          }
          ASSERT_TRUE(ok);
          // Between the reads and the commit, let the other threads run:
          // their commits are what this one must notice.
          std::this_thread::yield();
          ASSERT_OK(tx->SendMessage("jobs", Body(std::to_string(t) + "-" + std::to_string(i))));
          auto done = tx->Commit();
          if (done.ok()) break;
          ASSERT_CODE(done, kTransactionConflict);
          conflicts.fetch_add(1);
        }
        expected[a].fetch_add(1);
        expected[b].fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int k = 0; k < kKeys; ++k) {
    EXPECT_EQ(Committed("c", "k" + std::to_string(k)),
              std::optional<std::string>(std::to_string(expected[k].load())))
        << "counter k" << k << " lost updates (" << conflicts.load() << " conflicts retried)";
  }
  EXPECT_EQ(Counts(*q)[0], kThreads * kIncrements);
  ExpectConsistent();
}

// Lease conflicts from several threads: four threads each try to consume
// every one of 20 received messages in a transaction (record the effect,
// delete the message). For each message exactly one commit wins; the others
// fail with kTransactionConflict (the message was deleted meanwhile) and
// apply nothing: the effect records name the winners.
TEST_F(TransactionTest, ConcurrentConsumersOfOneLeaseCommitOnce) {
  auto q = MakeQueue("jobs");
  constexpr int kThreads = 4;
  constexpr int kMessages = 20;
  std::vector<std::string> handles;
  for (int m = 0; m < kMessages; ++m) {
    handles.push_back(SendAndReceive(*q, "m" + std::to_string(m), 600));
  }
  std::atomic<int> wins[kMessages] = {};
  std::atomic<int> winner[kMessages];
  for (auto& w : winner) w = -1;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kMessages; ++i) {
        const int m = (i + t * 5) % kMessages;
        auto tx = broker_->BeginTransaction();
        ASSERT_OK(tx->Put("effects", "m" + std::to_string(m), std::to_string(t)));
        ASSERT_OK(tx->DeleteMessage("jobs", handles[m]));
        auto done = tx->Commit();
        if (done.ok()) {
          wins[m].fetch_add(1);
          winner[m] = t;
        } else {
          ASSERT_CODE(done, kTransactionConflict);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int m = 0; m < kMessages; ++m) {
    EXPECT_EQ(wins[m].load(), 1) << "message m" << m;
    EXPECT_EQ(Committed("effects", "m" + std::to_string(m)),
              std::optional<std::string>(std::to_string(winner[m].load())))
        << "a losing commit wrote its effect for m" << m;
  }
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 0, 0}));
  ExpectConsistent();
}

TEST_F(TransactionTest, TablesSurviveReopen) {
  MakeQueue("jobs");
  auto tx = broker_->BeginTransaction();
  ASSERT_OK(tx->Put("t", "k", "v"));
  ASSERT_OK(tx->SendMessage("jobs", Body("m")));
  ASSERT_OK(tx->Commit());
  Reopen();
  EXPECT_EQ(Committed("t", "k"), std::optional<std::string>("v"));
  auto q = broker_->GetQueue("jobs");
  ASSERT_OK(q);
  EXPECT_EQ(Receive(**q).size(), 1u);
  ExpectConsistent();
}

TEST_F(TransactionTest, ClosedBrokerFailsTransactions) {
  auto tx = broker_->BeginTransaction();
  ASSERT_OK(tx->Put("t", "k", "v"));
  ASSERT_OK(broker_->Close());
  EXPECT_CODE(tx->Commit(), kClosed);
  EXPECT_CODE(broker_->Get("t", "k"), kClosed);
  Reopen();
  EXPECT_EQ(Committed("t", "k"), std::nullopt);
}

TEST_F(TransactionTest, VerifyChecksTables) {
  auto tx = broker_->BeginTransaction();
  ASSERT_OK(tx->Put("t", "k", "v"));
  ASSERT_OK(tx->Commit());
  ExpectConsistent();
  WithRawDb(/*read_only=*/false, "tables", [](rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf) {
    ASSERT_NE(cf, nullptr);
    // A key whose table name has a character names may not have, and a
    // value over the limit.
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), cf, std::string("\x03") + "a/bk", "v").ok());
    ASSERT_TRUE(
        db->Put(rocksdb::WriteOptions(), cf, std::string("\x01") + "tk2", std::string(300000, 'v'))
            .ok());
  });
  auto problems = broker_->Verify();
  ASSERT_OK(problems);
  ASSERT_EQ(problems->size(), 2u);
  EXPECT_EQ((*problems)[0], "value of key \"k2\" of table t is over the limit");
  EXPECT_EQ((*problems)[1], "malformed key 0x03612f626b in tables");
  WithRawDb(/*read_only=*/false, "tables", [](rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf) {
    ASSERT_TRUE(db->Delete(rocksdb::WriteOptions(), cf, std::string("\x03") + "a/bk").ok());
    ASSERT_TRUE(db->Delete(rocksdb::WriteOptions(), cf, std::string("\x01") + "tk2").ok());
  });
}

TEST_F(TransactionTest, DatabaseWithoutTablesColumnFamilyOpens) {
  auto q = MakeQueue("q");
  Send(*q, "kept");
  DropRawColumnFamily("tables");
  EXPECT_EQ(Committed("t", "k"), std::nullopt);
  auto tx = broker_->BeginTransaction();
  ASSERT_OK(tx->Put("t", "k", "v"));
  ASSERT_OK(tx->Commit());
  EXPECT_EQ(Committed("t", "k"), std::optional<std::string>("v"));
  auto reopened = broker_->GetQueue("q");
  ASSERT_OK(reopened);
  EXPECT_EQ(Receive(**reopened).size(), 1u);
}

}  // namespace
}  // namespace lqs::testing
