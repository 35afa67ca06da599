// Long polling: a waiting receiver returns as soon as a message is
// available — from a send, the end of a delay or lease, or a visibility
// change — and returns empty when its wait ends. Time is a ManualClock:
// the waits end because the test moves the clock, never by sleeping out a
// timeout.

#include <atomic>
#include <functional>
#include <future>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/testutil.h"

namespace lqs::testing {
namespace {

class LongPollTest : public BrokerTest {
 protected:
  std::future<StatusOr<ReceiveMessageResult>> ReceiveAsync(std::shared_ptr<Queue> q, int wait) {
    return std::async(std::launch::async, [q, wait] {
      ReceiveMessageRequest r;
      r.wait_time_seconds = wait;
      r.max_number_of_messages = 10;
      return q->ReceiveMessage(r);
    });
  }
  // True when `f` is still blocked after a short real-time grace period.
  template <typename F>
  static bool StillWaiting(F& f) {
    return f.wait_for(std::chrono::milliseconds(50)) == std::future_status::timeout;
  }
  template <typename F>
  static StatusOr<ReceiveMessageResult> Get(F& f) {
    EXPECT_EQ(f.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    return f.get();
  }
  // The messages of the answer `f` brings (none, and the test fails, if the
  // answer is an error).
  template <typename F>
  static std::vector<ReceivedMessage> Messages(F& f) {
    auto r = Get(f);
    EXPECT_OK(r);
    return r.ok() ? r->messages : std::vector<ReceivedMessage>{};
  }
  // The messages that a 20 s long poll on `q`, still waiting before, gets
  // once `wake` has run.
  std::vector<ReceivedMessage> WokenBy(std::shared_ptr<Queue> q,
                                       const std::function<void()>& wake) {
    auto f = ReceiveAsync(std::move(q), 20);
    EXPECT_TRUE(StillWaiting(f));
    wake();
    return Messages(f);
  }
};

TEST_F(LongPollTest, SendWakesWaiter) {
  auto q = MakeQueue("q");
  auto f = ReceiveAsync(q, 20);
  EXPECT_TRUE(StillWaiting(f));
  Send(*q, "hello");
  auto r = Get(f);
  ASSERT_OK(r);
  ASSERT_EQ(r->messages.size(), 1u);
  EXPECT_EQ(r->messages[0].body, "hello");
}

TEST_F(LongPollTest, WaitEndsEmptyWhenClockPassesDeadline) {
  auto q = MakeQueue("q");
  auto f = ReceiveAsync(q, 5);
  EXPECT_TRUE(StillWaiting(f));
  clock_->AdvanceSeconds(4);
  EXPECT_TRUE(StillWaiting(f));
  clock_->AdvanceSeconds(1);
  EXPECT_TRUE(Messages(f).empty());
}

TEST_F(LongPollTest, QueueDefaultWaitTimeApplies) {
  auto q = MakeQueue("q", {{"ReceiveMessageWaitTimeSeconds", "3"}});
  auto f = std::async(std::launch::async, [q] { return q->ReceiveMessage({}); });
  EXPECT_TRUE(StillWaiting(f));
  clock_->AdvanceSeconds(3);
  EXPECT_TRUE(Messages(f).empty());
}

TEST_F(LongPollTest, EndOfDelayAndLeaseWakeWaiters) {
  auto q = MakeQueue("q", {{"VisibilityTimeout", "10"}});
  ASSERT_OK(SendDelayed(*q, "delayed", 5));
  ASSERT_EQ(WokenBy(q, [&] { clock_->AdvanceSeconds(5); }).size(), 1u);
  // Its lease ends after 10 s: a new waiter gets it then.
  const auto again = WokenBy(q, [&] { clock_->AdvanceSeconds(10); });
  ASSERT_EQ(again.size(), 1u);
  // A visibility change to 0 wakes at once.
  EXPECT_EQ(
      WokenBy(q, [&] { EXPECT_OK(q->ChangeMessageVisibility(again[0].receipt_handle, 0)); }).size(),
      1u);
}

TEST_F(LongPollTest, ManyWaitersAcrossThreadsEachGetOneMessage) {
  auto q = MakeQueue("q");
  std::vector<std::future<StatusOr<ReceiveMessageResult>>> waiters;
  for (int i = 0; i < 8; ++i) {
    waiters.push_back(std::async(std::launch::async, [q] {
      ReceiveMessageRequest r;
      r.wait_time_seconds = 20;
      r.max_number_of_messages = 1;
      return q->ReceiveMessage(r);
    }));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let them block
  for (int i = 0; i < 8; ++i) Send(*q, "m" + std::to_string(i));
  std::set<std::string> bodies;
  for (auto& w : waiters) {
    auto r = Get(w);
    ASSERT_OK(r);
    ASSERT_EQ(r->messages.size(), 1u);
    bodies.insert(r->messages[0].body);
  }
  EXPECT_EQ(bodies.size(), 8u);  // nobody got a message twice
}

TEST_F(LongPollTest, DeleteQueueAndCloseWakeWaiters) {
  auto q = MakeQueue("q");
  auto f = ReceiveAsync(q, 20);
  EXPECT_TRUE(StillWaiting(f));
  ASSERT_OK(broker_->DeleteQueue("q"));
  // The wait began while the queue existed: it ends at once, with nothing.
  auto cut = Get(f);
  ASSERT_OK(cut);
  EXPECT_TRUE(cut->messages.empty());
  // A receive that starts after the deletion is refused.
  ReceiveMessageRequest later;
  later.wait_time_seconds = 20;
  EXPECT_CODE(q->ReceiveMessage(later), kQueueDoesNotExist);
  auto q2 = MakeQueue("q2");
  auto g = ReceiveAsync(q2, 20);
  EXPECT_TRUE(StillWaiting(g));
  ExpectConsistent();
  ASSERT_OK(broker_->Close());
  EXPECT_CODE(Get(g), kClosed);
  broker_.reset();
}

// ---- ReceiveMessageAsync: parked receives, no thread each -------------------

class AsyncReceiveTest : public BrokerTest {
 protected:
  struct Outcome {
    std::promise<StatusOr<ReceiveMessageResult>> promise;
    std::future<StatusOr<ReceiveMessageResult>> future = promise.get_future();
  };
  std::shared_ptr<Outcome> Start(Queue& q, int wait, int max = 10) {
    auto out = std::make_shared<Outcome>();
    ReceiveMessageRequest r;
    r.wait_time_seconds = wait;
    r.max_number_of_messages = max;
    q.ReceiveMessageAsync(
        r, [out](StatusOr<ReceiveMessageResult> res) { out->promise.set_value(std::move(res)); });
    return out;
  }
};

TEST_F(AsyncReceiveTest, DeletingTheQueueEndsAParkedReceiveWithNothing) {
  auto q = MakeQueue("q");
  auto o = Start(*q, 20);
  EXPECT_EQ(o->future.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  ASSERT_OK(broker_->DeleteQueue("q"));
  ASSERT_EQ(o->future.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  auto r = o->future.get();
  ASSERT_OK(r);
  EXPECT_TRUE(r->messages.empty());
  auto late = Start(*q, 20);
  ASSERT_EQ(late->future.wait_for(std::chrono::seconds(0)), std::future_status::ready);
  EXPECT_CODE(late->future.get(), kQueueDoesNotExist);
}

TEST_F(AsyncReceiveTest, AnswersAtOnceWhenAMessageIsThere) {
  auto q = MakeQueue("q");
  Send(*q, "x");
  auto o = Start(*q, 20);
  ASSERT_EQ(o->future.wait_for(std::chrono::seconds(0)), std::future_status::ready);
  auto r = o->future.get();
  ASSERT_OK(r);
  EXPECT_EQ(r->messages.size(), 1u);
}

TEST_F(AsyncReceiveTest, ParkedUntilSendOrDeadline) {
  auto q = MakeQueue("q");
  auto a = Start(*q, 20);
  auto b = Start(*q, 5);
  EXPECT_EQ(a->future.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  clock_->AdvanceSeconds(5);
  auto rb = b->future.get();  // its wait ended
  ASSERT_OK(rb);
  EXPECT_TRUE(rb->messages.empty());
  EXPECT_EQ(a->future.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  Send(*q, "x");
  auto ra = a->future.get();
  ASSERT_OK(ra);
  ASSERT_EQ(ra->messages.size(), 1u);
  EXPECT_EQ(ra->messages[0].body, "x");
}

TEST_F(AsyncReceiveTest, ThousandParkedReceivesAllAnswered) {
  auto q = MakeQueue("q");
  std::vector<std::shared_ptr<Outcome>> parked;
  for (int i = 0; i < 1000; ++i) parked.push_back(Start(*q, 20, 1));
  for (int i = 0; i < 1000; i += 10) {
    std::vector<SendMessageBatchEntry> batch;
    for (int j = 0; j < 10; ++j) {
      SendMessageBatchEntry e;
      e.id = "e" + std::to_string(j);
      e.request.body = "m" + std::to_string(i + j);
      batch.push_back(std::move(e));
    }
    ASSERT_OK(q->SendMessageBatch(batch));
  }
  std::set<std::string> bodies;
  for (auto& o : parked) {
    ASSERT_EQ(o->future.wait_for(std::chrono::seconds(30)), std::future_status::ready);
    auto r = o->future.get();
    ASSERT_OK(r);
    ASSERT_EQ(r->messages.size(), 1u);
    bodies.insert(r->messages[0].body);
  }
  EXPECT_EQ(bodies.size(), 1000u);
}

TEST_F(AsyncReceiveTest, CloseCompletesParkedReceives) {
  auto q = MakeQueue("q");
  auto a = Start(*q, 20);
  ExpectConsistent();
  ASSERT_OK(broker_->Close());
  EXPECT_CODE(a->future.get(), kClosed);
  broker_.reset();
}

TEST_F(AsyncReceiveTest, InvalidRequestAnsweredAtOnce) {
  auto q = MakeQueue("q");
  auto o = Start(*q, 20, 11);
  EXPECT_CODE(o->future.get(), kInvalidParameterValue);
}

// ---- Cancelling a parked receive (lqsd: a client closed its connection) ----

TEST_F(AsyncReceiveTest, CancelledReceiveLeasesNothingAndNeverCompletes) {
  auto q = MakeQueue("q");
  auto called = std::make_shared<std::atomic<int>>(0);
  ReceiveMessageRequest r;
  r.wait_time_seconds = 20;
  r.max_number_of_messages = 10;
  const uint64_t id =
      q->ReceiveMessageAsync(r, [called](StatusOr<ReceiveMessageResult>) { ++*called; });
  ASSERT_NE(id, 0u);  // parked
  EXPECT_TRUE(q->CancelReceive(id));
  EXPECT_FALSE(q->CancelReceive(id));  // once
  Send(*q, "after");
  // The message is not leased: a short poll gets it on its first delivery.
  ReceiveMessageRequest now;
  now.max_number_of_messages = 10;
  now.message_system_attribute_names = {"ApproximateReceiveCount"};
  auto got = q->ReceiveMessage(now);
  ASSERT_OK(got);
  ASSERT_EQ(got->messages.size(), 1u);
  EXPECT_EQ(got->messages[0].body, "after");
  EXPECT_EQ(got->messages[0].attributes.at("ApproximateReceiveCount"), "1");
  clock_->AdvanceSeconds(30);  // past its deadline: still never completed
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(called->load(), 0);
  ExpectConsistent();
}

TEST_F(AsyncReceiveTest, CancelAfterCompletionReturnsFalse) {
  auto q = MakeQueue("q");
  Send(*q, "x");
  auto o = Start(*q, 20);  // answered at once
  ASSERT_EQ(o->future.wait_for(std::chrono::seconds(0)), std::future_status::ready);
  EXPECT_FALSE(q->CancelReceive(0));
  auto b = std::make_shared<Outcome>();
  ReceiveMessageRequest r;
  r.wait_time_seconds = 20;
  const uint64_t id = q->ReceiveMessageAsync(
      r, [b](StatusOr<ReceiveMessageResult> res) { b->promise.set_value(std::move(res)); });
  ASSERT_NE(id, 0u);
  Send(*q, "y");
  auto rb = b->future.get();
  ASSERT_OK(rb);
  ASSERT_EQ(rb->messages.size(), 1u);
  EXPECT_FALSE(q->CancelReceive(id));  // it completed: its message stays leased to it
}

TEST_F(AsyncReceiveTest, CancelOnlyOnItsOwnQueue) {
  auto a = MakeQueue("a");
  auto b = MakeQueue("b");
  ReceiveMessageRequest r;
  r.wait_time_seconds = 20;
  auto o = std::make_shared<Outcome>();
  const uint64_t id = a->ReceiveMessageAsync(
      r, [o](StatusOr<ReceiveMessageResult> res) { o->promise.set_value(std::move(res)); });
  ASSERT_NE(id, 0u);
  EXPECT_FALSE(b->CancelReceive(id));
  Send(*a, "x");
  auto got = o->future.get();
  ASSERT_OK(got);
  EXPECT_EQ(got->messages.size(), 1u);
}

TEST_F(AsyncReceiveTest, CancelRacingSendsNeverLosesAMessage) {
  // Park, send and cancel race; every message must end up either with a
  // receive that completed (Cancel returned false) or still receivable at
  // once: a receive whose cancel succeeded leased nothing.
  auto q = MakeQueue("q");
  constexpr int kRounds = 300;
  std::mutex mu;
  std::multiset<std::string> delivered;
  int completed = 0;
  int cancelled = 0;
  for (int i = 0; i < kRounds; ++i) {
    ReceiveMessageRequest r;
    r.wait_time_seconds = 20;
    r.max_number_of_messages = 10;
    auto fired = std::make_shared<std::atomic<bool>>(false);
    const uint64_t id = q->ReceiveMessageAsync(r, [&, fired](StatusOr<ReceiveMessageResult> res) {
      fired->store(true);
      std::lock_guard<std::mutex> lock(mu);
      ++completed;
      if (res.ok()) {
        for (const auto& m : res->messages) delivered.insert(m.body);
      }
    });
    std::thread sender([&, i] { Send(*q, "m" + std::to_string(i)); });
    if (i % 3 != 0) std::this_thread::yield();
    const bool ok = q->CancelReceive(id);
    sender.join();
    if (ok) {
      ++cancelled;
      EXPECT_FALSE(fired->load()) << "round " << i;
    }
  }
  // Drain what nobody leased.
  std::multiset<std::string> left;
  while (true) {
    ReceiveMessageRequest now;
    now.max_number_of_messages = 10;
    auto got = q->ReceiveMessage(now);
    ASSERT_OK(got);
    if (got->messages.empty()) break;
    for (const auto& m : got->messages) left.insert(m.body);
  }
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(delivered.size() + left.size(), static_cast<size_t>(kRounds));
  for (int i = 0; i < kRounds; ++i) {
    const std::string body = "m" + std::to_string(i);
    EXPECT_EQ(delivered.count(body) + left.count(body), 1u) << body;
  }
  EXPECT_GT(cancelled, 0);
  EXPECT_EQ(completed + cancelled, kRounds);
}

TEST_F(AsyncReceiveTest, EndsAtItsDeadlineOnTheSystemClock) {
  // The one test here on real time: a parked receive whose queue stays
  // quiet must end when its own (short) wait ends, even while the receiver
  // thread was sleeping towards a later deadline.
  ASSERT_OK(broker_->Close());
  Options o = MakeOptions();
  o.clock = SystemClock::Default();
  auto b = Broker::Open(o);
  ASSERT_OK(b);
  broker_ = std::move(b).value();
  auto q = MakeQueue("q");
  auto slow = Start(*q, 20);  // the thread now sleeps towards t+20 s
  const auto start = std::chrono::steady_clock::now();
  auto quick = Start(*q, 1);
  ASSERT_EQ(quick->future.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  auto r = quick->future.get();
  ASSERT_OK(r);
  EXPECT_TRUE(r->messages.empty());
  Send(*q, "x");
  ASSERT_EQ(slow->future.wait_for(std::chrono::seconds(10)), std::future_status::ready);
}

// ---- Both receives at the in-flight limit ------------------------------------

// At the queue's in-flight limit a short poll fails with OverLimit and a
// long poll waits, ending with no messages at its deadline
// (docs/sqs-reference.md §7.5): the blocking and the parked receive alike.
TEST_F(AsyncReceiveTest, AtTheInFlightLimitALongPollEndsEmptyOnBothPaths) {
  max_inflight_per_queue_ = 2;
  Reopen();
  auto q = MakeQueue("q", {{"VisibilityTimeout", "60"}});
  for (int i = 0; i < 3; ++i) Send(*q, "m");
  ASSERT_EQ(Receive(*q, 10).size(), 2u);  // the limit: one message left, not receivable

  ReceiveMessageRequest short_poll;
  short_poll.wait_time_seconds = 0;
  EXPECT_CODE(q->ReceiveMessage(short_poll), kOverLimit);
  auto parked_short = Start(*q, 0);
  ASSERT_EQ(parked_short->future.wait_for(std::chrono::seconds(0)), std::future_status::ready);
  EXPECT_CODE(parked_short->future.get(), kOverLimit);

  auto blocking = std::async(std::launch::async, [q] {
    ReceiveMessageRequest r;
    r.wait_time_seconds = 5;
    r.max_number_of_messages = 10;
    return q->ReceiveMessage(r);
  });
  auto parked = Start(*q, 5);
  EXPECT_EQ(blocking.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  EXPECT_EQ(parked->future.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);
  clock_->AdvanceSeconds(5);  // both deadlines; the leases (60 s) still hold
  ASSERT_EQ(blocking.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  ASSERT_EQ(parked->future.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  auto from_blocking = blocking.get();
  auto from_parked = parked->future.get();
  ASSERT_OK(from_blocking);
  ASSERT_OK(from_parked);
  EXPECT_TRUE(from_blocking->messages.empty());
  EXPECT_TRUE(from_parked->messages.empty());
}

}  // namespace
}  // namespace lqs::testing
