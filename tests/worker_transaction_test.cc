// tests/worker_transaction_test.cc — lqs::Worker with a TransactionalHandler
// (lqs/worker.h): the handler's records commit with the message's delete (and
// the inbox record), or neither does; conflicts, lost leases, retries and
// heartbeats.
//
// Time is a ManualClock shared with the Broker: tests advance it instead of
// sleeping. They wait only for worker threads (a condition polled with a
// bound, or a gate), never for a timeout to pass.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/worker_fixture.h"

#include "lqs/transaction.h"
#include "lqs/worker.h"

namespace lqs::testing {
namespace {

using namespace std::chrono_literals;

class WorkerTransactionTest : public WorkerFixture {
 protected:
  // One handler at a time, and no logging.
  WorkerOptions Options() {
    WorkerOptions o = ClockedOptions();
    o.concurrency = 1;
    o.max_in_progress = 1;
    o.logger = [](WorkerLogLevel, const std::string&) {};
    return o;
  }

  std::optional<std::string> Record(const std::string& key) {
    auto v = broker_->Get("effects", key);
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    return v.ok() ? *v : std::nullopt;
  }

  // Adds one to the "count" record in `tx` (read, then written).
  static void Increment(Transaction& tx) {
    auto v = tx.Get("effects", "count");
    ASSERT_OK(v);
    const int n = v->has_value() ? std::stoi(**v) : 0;
    ASSERT_OK(tx.Put("effects", "count", std::to_string(n + 1)));
  }
};

TEST_F(WorkerTransactionTest, EffectCommitsWithTheDelete) {
  auto q = MakeQueue("jobs");
  Send(*q, "order-1");
  std::atomic<int> calls{0};
  auto w = Make(q, Options(), [&](const WorkerMessage& m, Transaction& tx) {
    ++calls;
    EXPECT_OK(tx.Put("effects", m.body, "shipped"));
    Increment(tx);
    return HandlerResult::Success();
  });
  ASSERT_OK(w->Start());
  ASSERT_TRUE(WaitFor([&] { return w->stats().succeeded == 1; }));
  EXPECT_TRUE(w->Stop(5s));
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(Record("order-1"), "shipped");
  EXPECT_EQ(Record("count"), "1");
  const QueueStats s = Stats(*q);
  EXPECT_EQ(s.visible + s.in_flight, 0);
  EXPECT_EQ(s.deleted_total, 1);
  EXPECT_EQ(w->stats().transaction_conflicts, 0);
}

// A key the handler read changes under it: the commit applies neither the
// records, nor the inbox record, nor the delete; the message comes back
// after the backoff and its second run commits everything once.
TEST_F(WorkerTransactionTest, KeyConflictAppliesNothingAndRedelivers) {
  auto q = MakeQueue("jobs");
  const MessageAttributeMap key = IdempotencyKey("order-7");
  ASSERT_OK(SendWithAttributes(*q, "order-7", key));
  WorkerOptions o = Options();
  o.inbox = true;
  std::atomic<int> calls{0};
  auto w = Make(q, o, [&](const WorkerMessage& m, Transaction& tx) {
    EXPECT_OK(tx.Put("effects", m.body, "shipped"));
    Increment(tx);
    if (++calls == 1) {  // another writer changes what this one read
      auto other = broker_->BeginTransaction();
      EXPECT_OK(other->Put("effects", "count", "10"));
      EXPECT_OK(other->Commit());
    }
    return HandlerResult::Success();
  });
  ASSERT_OK(w->Start());
  ASSERT_TRUE(WaitFor([&] { return w->stats().transaction_conflicts == 1; }));
  EXPECT_EQ(w->stats().succeeded, 0);
  EXPECT_EQ(Record("order-7"), std::nullopt);
  EXPECT_EQ(Record("count"), "10");
  auto in = q->InboxContains("order-7");
  ASSERT_OK(in);
  EXPECT_FALSE(*in);
  // The lease was still held: backed off by 1 s (receive 1), not deleted.
  ASSERT_TRUE(WaitFor([&] { return VisibleAt(*q) == clock_->NowMillis() + 1000; }));

  clock_->AdvanceSeconds(1);
  ASSERT_TRUE(WaitFor([&] { return w->stats().succeeded == 1; }));
  EXPECT_TRUE(w->Stop(5s));
  EXPECT_EQ(calls.load(), 2);
  EXPECT_EQ(Record("order-7"), "shipped");
  EXPECT_EQ(Record("count"), "11");
  in = q->InboxContains("order-7");
  ASSERT_OK(in);
  EXPECT_TRUE(*in);
  EXPECT_EQ(Stats(*q).deleted_total, 1);
}

// The handler outlives its lease (the clock jumps past it, so no heartbeat
// can run) and another consumer receives the message: the commit is refused,
// that consumer's lease is left alone, and the effect is applied once, by
// the delivery that still held its lease.
TEST_F(WorkerTransactionTest, LostLeaseAppliesNothingAndTheEffectHappensOnce) {
  auto q = MakeQueue("jobs");
  Send(*q, "order-9");
  WorkerOptions o = Options();
  o.visibility_timeout_seconds = 30;
  Gate gate;
  std::atomic<int> calls{0};
  auto w = Make(q, o, [&](const WorkerMessage&, Transaction& tx) {
    if (++calls == 1) gate.Wait();
    Increment(tx);
    return HandlerResult::Success();
  });
  ASSERT_OK(w->Start());
  ASSERT_TRUE(WaitFor([&] { return calls.load() == 1; }));
  clock_->AdvanceSeconds(31);
  auto other = Receive(*q, 10, /*visibility_timeout=*/60);
  ASSERT_EQ(other.size(), 1u);
  const int64_t other_lease_end = VisibleAt(*q);
  gate.Open();
  ASSERT_TRUE(WaitFor([&] { return w->stats().transaction_conflicts == 1; }));
  EXPECT_EQ(w->stats().succeeded, 0);
  EXPECT_EQ(Record("count"), std::nullopt);
  EXPECT_EQ(VisibleAt(*q), other_lease_end);  // not moved by the worker's backoff

  // The other consumer gives up; the worker gets the message again.
  clock_->AdvanceSeconds(61);
  ASSERT_TRUE(WaitFor([&] { return w->stats().succeeded == 1; }));
  EXPECT_TRUE(w->Stop(5s));
  EXPECT_EQ(calls.load(), 2);
  EXPECT_EQ(Record("count"), "1");
  EXPECT_EQ(Stats(*q).deleted_total, 1);
}

TEST_F(WorkerTransactionTest, RetryAndExceptionsRollTheRecordsBack) {
  auto q = MakeQueue("jobs");
  Send(*q, "order-3");
  std::atomic<int> calls{0};
  auto w = Make(q, Options(), [&](const WorkerMessage&, Transaction& tx) {
    Increment(tx);
    const int n = ++calls;
    if (n == 1) return HandlerResult::Retry("downstream busy");
    if (n == 2) throw std::runtime_error("downstream down");
    return HandlerResult::Success();
  });
  ASSERT_OK(w->Start());
  ASSERT_TRUE(WaitFor([&] { return w->stats().retried == 1; }));
  EXPECT_EQ(Record("count"), std::nullopt);
  clock_->AdvanceSeconds(1);  // backoff of receive 1
  ASSERT_TRUE(WaitFor([&] { return w->stats().retried == 2; }));
  EXPECT_EQ(Record("count"), std::nullopt);
  clock_->AdvanceSeconds(2);  // backoff of receive 2
  ASSERT_TRUE(WaitFor([&] { return w->stats().succeeded == 1; }));
  EXPECT_TRUE(w->Stop(5s));
  EXPECT_EQ(calls.load(), 3);
  EXPECT_EQ(Record("count"), "1");
}

TEST_F(WorkerTransactionTest, NonRetryableRollsBackAndDeadLetters) {
  auto dlq = MakeQueue("jobs-dlq");
  auto q = MakeQueue("jobs", {{"RedrivePolicy", Redrive("jobs-dlq", 5)}});
  Send(*q, "bad order");
  auto w = Make(q, Options(), [&](const WorkerMessage&, Transaction& tx) {
    Increment(tx);
    return HandlerResult::NonRetryable("malformed");
  });
  ASSERT_OK(w->Start());
  ASSERT_TRUE(WaitFor([&] { return w->stats().dead_lettered == 1; }));
  EXPECT_TRUE(w->Stop(5s));
  EXPECT_EQ(Record("count"), std::nullopt);
  EXPECT_EQ(Receive(*dlq, 10).size(), 1u);
}

TEST_F(WorkerTransactionTest, InboxSkipsADuplicateOfACommittedMessage) {
  auto q = MakeQueue("jobs");
  const MessageAttributeMap key = IdempotencyKey("order-42");
  WorkerOptions o = Options();
  o.inbox = true;
  std::atomic<int> calls{0};
  auto w = Make(q, o, [&](const WorkerMessage& m, Transaction& tx) {
    EXPECT_EQ(m.idempotency_key, "order-42");
    ++calls;
    Increment(tx);
    return HandlerResult::Success();
  });
  ASSERT_OK(w->Start());
  ASSERT_OK(SendWithAttributes(*q, "charge order 42", key));
  ASSERT_TRUE(WaitFor([&] { return w->stats().succeeded == 1; }));
  auto in = q->InboxContains("order-42");
  ASSERT_OK(in);
  EXPECT_TRUE(*in);
  ASSERT_OK(SendWithAttributes(*q, "charge order 42 (sent again)", key));
  ASSERT_TRUE(WaitFor([&] { return w->stats().duplicates_skipped == 1; }));
  EXPECT_TRUE(w->Stop(5s));
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(Record("count"), "1");
  EXPECT_EQ(Stats(*q).deleted_total, 2);
}

// Heartbeats extend the lease with the same receipt handle, so a handler
// that runs four visibility timeouts long still commits.
TEST_F(WorkerTransactionTest, HeartbeatsKeepTheLeaseTheCommitChecks) {
  auto q = MakeQueue("jobs");
  Send(*q, "slow order");
  WorkerOptions o = Options();
  o.visibility_timeout_seconds = 30;
  Gate gate;
  std::atomic<int> calls{0};
  auto w = Make(q, o, [&](const WorkerMessage&, Transaction& tx) {
    ++calls;
    gate.Wait();
    Increment(tx);
    return HandlerResult::Success();
  });
  ASSERT_OK(w->Start());
  ASSERT_TRUE(WaitFor([&] { return calls.load() == 1; }));
  ASSERT_TRUE(WalkLeaseRenewals(clock_.get(), [&] { return w->stats().lease_extensions; }));
  gate.Open();
  ASSERT_TRUE(WaitFor([&] { return w->stats().succeeded == 1; }));
  EXPECT_TRUE(w->Stop(5s));
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(w->stats().transaction_conflicts, 0);
  EXPECT_EQ(Record("count"), "1");
  EXPECT_EQ(Stats(*q).deleted_total, 1);
}

TEST_F(WorkerTransactionTest, CreateRejectsAnEmptyHandler) {
  auto q = MakeQueue("jobs");
  auto w = Worker::Create(q, Options(), TransactionalHandler());
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), ErrorCode::kInvalidParameterValue);
}

}  // namespace
}  // namespace lqs::testing
