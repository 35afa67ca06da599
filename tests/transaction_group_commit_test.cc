// Group commit of transactions (docs/transactions.md, "What a commit does"):
// a commit leaves the transaction mutex before its write, so that concurrent
// commits share an fsync, and a later commit that read, scanned or writes a
// key an earlier one is still writing waits for that write before it
// validates. The earlier commit is held in its log sync by the fault file
// system's sync hook.

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include <gtest/gtest.h>

#include "lib/engine/queue_impl.h"
#include "tests/faulty_broker.h"
#include "tests/testutil.h"

namespace lqs::testing {
namespace {

class TransactionGroupCommitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Options options = TestProfileOptions();
    options.path = dir_.path() + "/db";
    options.durability = Durability::kFsync;
    options.clock = std::make_shared<ManualClock>();
    options.background_maintenance = false;
    auto opened = OpenFaultyBroker(options);
    ASSERT_OK(opened);
    db_ = std::move(opened).value();
    auto q = db_.broker->CreateQueue("q", {}, {});
    ASSERT_OK(q);
    queue_ = *q;
    // The first send reserves a block of sequence numbers with a write of
    // its own; a held commit's sync must be its commit's.
    SendMessageRequest warm;
    warm.body = "warm-up";
    ASSERT_OK(queue_->SendMessage(warm));
    in_flight_ = &dynamic_cast<engine::QueueImpl&>(*queue_).core()->table_writes_in_flight();
    in_flight_->SetWaitHookForTest([this] {
      waits_.fetch_add(1);
      waiting_.Open();
    });
  }

  void TearDown() override {
    release_.Open();
    db_.fs->SetSyncHook({});
    if (db_.broker) {
      EXPECT_OK(db_.broker->Close());
    }
  }

  // Holds the next sync of a log file until release_ opens; in_sync_ opens
  // when it starts.
  void HoldNextLogSync() {
    auto armed = std::make_shared<std::atomic<bool>>(true);
    db_.fs->SetSyncHook([this, armed](const std::string& path) {
      const std::string suffix = ".log";
      if (path.size() < suffix.size() ||
          path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0) {
        return;
      }
      if (!armed->exchange(false)) return;
      in_sync_.Open();
      release_.Wait();
    });
  }

  void Commit(Transaction& tx) { ASSERT_OK(tx.Commit()); }

  std::optional<std::string> Committed(const std::string& key) {
    auto v = db_.broker->Get("t", key);
    EXPECT_OK(v);
    return v.ok() ? *v : std::nullopt;
  }

  // Commits "t"/"k" = "A" (with a message) in a thread and holds it in its
  // log sync; returns the thread.
  std::thread StartHeldWriterOfK() {
    HoldNextLogSync();
    std::thread a([this] {
      auto tx = db_.broker->BeginTransaction();
      ASSERT_OK(tx->Put("t", "k", "A"));
      SendMessageRequest r;
      r.body = "order A";
      ASSERT_OK(tx->SendMessage("q", r));
      Commit(*tx);
    });
    EXPECT_TRUE(in_sync_.Wait()) << "the first commit never reached its log sync";
    return a;
  }

  // Commits `b` in a thread while `a` (StartHeldWriterOfK) is held in its
  // sync; when `waits`, first checks that `b` waits for the key in flight.
  // Then lets `a` finish; returns b's outcome.
  Status CommitBesideHeldWriter(std::thread a, Transaction& b, bool waits) {
    Status b_result;
    std::thread bt([&] { b_result = b.Commit().status(); });
    if (waits) {
      EXPECT_TRUE(waiting_.Wait()) << "the second commit did not wait for the key in flight";
    }
    release_.Open();
    a.join();
    bt.join();
    return b_result;
  }

  TempDir dir_;
  FaultyBroker db_;
  std::shared_ptr<Queue> queue_;
  engine::TableWritesInFlight* in_flight_ = nullptr;
  Gate in_sync_, release_, waiting_;
  std::atomic<int> waits_{0};
};

TEST_F(TransactionGroupCommitTest, ReadOfAKeyBeingWrittenWaitsThenConflicts) {
  {
    auto tx = db_.broker->BeginTransaction();
    ASSERT_OK(tx->Put("t", "k", "0"));
    Commit(*tx);
  }
  std::thread a = StartHeldWriterOfK();
  // The first commit left the transaction mutex before its write: this one
  // gets it, and its read of "k" (still "0" in the database) must wait for
  // the write instead of validating against the old value.
  auto b = db_.broker->BeginTransaction();
  auto seen = b->Get("t", "k");
  ASSERT_OK(seen);
  EXPECT_EQ(*seen, std::optional<std::string>("0"));
  ASSERT_OK(b->Put("t", "k", "B"));
  const Status b_result = CommitBesideHeldWriter(std::move(a), *b, /*waits=*/true);
  EXPECT_CODE(b_result, kTransactionConflict);
  EXPECT_EQ(Committed("k"), std::optional<std::string>("A"));
}

TEST_F(TransactionGroupCommitTest, ScanOverAKeyBeingWrittenWaitsThenConflicts) {
  std::thread a = StartHeldWriterOfK();
  auto b = db_.broker->BeginTransaction();
  auto seen = b->Scan("t", "");
  ASSERT_OK(seen);
  EXPECT_TRUE(seen->empty());
  ASSERT_OK(b->Put("t", "count", "0"));
  const Status b_result = CommitBesideHeldWriter(std::move(a), *b, /*waits=*/true);
  EXPECT_CODE(b_result, kTransactionConflict);
  EXPECT_EQ(Committed("count"), std::nullopt);
}

TEST_F(TransactionGroupCommitTest, BlindWriteOfAKeyBeingWrittenLandsAfterIt) {
  std::thread a = StartHeldWriterOfK();
  auto b = db_.broker->BeginTransaction();
  ASSERT_OK(b->Put("t", "k", "B"));
  const Status b_result = CommitBesideHeldWriter(std::move(a), *b, /*waits=*/true);
  EXPECT_OK(b_result);
  // Commit order is write order: the later commit's value stays.
  EXPECT_EQ(Committed("k"), std::optional<std::string>("B"));
}

TEST_F(TransactionGroupCommitTest, CommitOfOtherKeysDoesNotWait) {
  std::thread a = StartHeldWriterOfK();
  auto b = db_.broker->BeginTransaction();
  auto seen = b->Get("t", "other");
  ASSERT_OK(seen);
  ASSERT_OK(b->Put("t", "other", "B"));
  SendMessageRequest r;
  r.body = "order B";
  ASSERT_OK(b->SendMessage("q", r));
  const Status b_result = CommitBesideHeldWriter(std::move(a), *b, /*waits=*/false);
  EXPECT_OK(b_result);
  EXPECT_EQ(waits_.load(), 0);
  EXPECT_EQ(Committed("k"), std::optional<std::string>("A"));
  EXPECT_EQ(Committed("other"), std::optional<std::string>("B"));
  auto attrs = queue_->GetAttributes({"ApproximateNumberOfMessages"});
  ASSERT_OK(attrs);
  EXPECT_EQ(attrs->at("ApproximateNumberOfMessages"), "3");  // with the warm-up
}

}  // namespace
}  // namespace lqs::testing
