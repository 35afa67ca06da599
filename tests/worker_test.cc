// tests/worker_test.cc — lqs::Worker (lqs/worker.h): success, retries and
// backoff, the dead-letter queue, heartbeats, shutdown, the inbox, FIFO
// order, pause, concurrency and rate limits, stats, options and signals.
//
// Time is a ManualClock shared with the Broker: tests advance it instead of
// sleeping. They wait only for worker threads (a condition polled with a
// bound, or a gate), never for a timeout to pass.

#include "lqs/worker.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <signal.h>

#include "lib/worker/backoff.h"
#include "lib/worker/rate_limiter.h"
#include "lib/worker/worker_log.h"
#include "lib/worker/worker_message.h"
#include "lib/worker/worker_stats.h"
#include "tests/worker_fixture.h"

namespace lqs::testing {
namespace {

using namespace std::chrono_literals;

class WorkerTest : public WorkerFixture {
 protected:
  // ClockedOptions(), logging into logs_ (Logged(), DumpLogs()).
  WorkerOptions Options() {
    WorkerOptions o = ClockedOptions();
    o.logger = [this](WorkerLogLevel level, const std::string& line) {
      std::lock_guard<std::mutex> lock(log_mu_);
      logs_.push_back(std::string(worker::WorkerLog::LevelName(level)) + " " + line);
    };
    return o;
  }

  bool Logged(const std::string& needle) {
    std::lock_guard<std::mutex> lock(log_mu_);
    return std::any_of(logs_.begin(), logs_.end(),
                       [&](const std::string& l) { return l.find(needle) != std::string::npos; });
  }

  std::string SendTo(Queue& q, const std::string& body,
                     std::optional<std::string> group = std::nullopt,
                     MessageAttributeMap attrs = {}) {
    SendMessageRequest r;
    r.body = body;
    r.message_group_id = std::move(group);
    r.message_attributes = std::move(attrs);
    auto res = q.SendMessage(r);
    EXPECT_TRUE(res.ok()) << res.status().ToString();
    return res.ok() ? res->message_id : "";
  }

  std::string DumpLogs() {
    std::lock_guard<std::mutex> lock(log_mu_);
    std::string out;
    for (const auto& l : logs_) {
      if (l.rfind("DEBUG", 0) != 0) out += "\n" + l;
    }
    return out;
  }

  std::mutex log_mu_;
  std::vector<std::string> logs_;
};

// ---- Options -----------------------------------------------------------------------

TEST_F(WorkerTest, InvalidOptionsAreRejectedNamingTheOption) {
  auto q = MakeQueue("jobs");
  MessageHandler ok = [](const WorkerMessage&) { return HandlerResult::Success(); };
  struct Case {
    const char* option;
    std::function<void(WorkerOptions&)> set;
  };
  const std::vector<Case> cases = {
      {"max_messages_per_receive", [](WorkerOptions& o) { o.max_messages_per_receive = 0; }},
      {"max_messages_per_receive", [](WorkerOptions& o) { o.max_messages_per_receive = 11; }},
      {"wait_time_seconds", [](WorkerOptions& o) { o.wait_time_seconds = 21; }},
      {"wait_time_seconds", [](WorkerOptions& o) { o.wait_time_seconds = -1; }},
      {"visibility_timeout_seconds", [](WorkerOptions& o) { o.visibility_timeout_seconds = 0; }},
      {"visibility_timeout_seconds",
       [](WorkerOptions& o) { o.visibility_timeout_seconds = 43201; }},
      {"concurrency", [](WorkerOptions& o) { o.concurrency = 0; }},
      {"max_in_progress", [](WorkerOptions& o) { o.max_in_progress = -1; }},
      {"rate_limit_per_second", [](WorkerOptions& o) { o.rate_limit_per_second = -1; }},
      {"rate_limit_per_group_per_second",
       [](WorkerOptions& o) { o.rate_limit_per_group_per_second = std::nan(""); }},
      {"backoff_base_seconds", [](WorkerOptions& o) { o.backoff_base_seconds = -1; }},
      {"backoff_max_seconds", [](WorkerOptions& o) { o.backoff_max_seconds = 43201; }},
      {"backoff_max_seconds",
       [](WorkerOptions& o) { o.backoff_base_seconds = 10, o.backoff_max_seconds = 5; }},
      {"backoff_jitter", [](WorkerOptions& o) { o.backoff_jitter = 1.5; }},
      {"error_attribute", [](WorkerOptions& o) { o.error_attribute = "AWS.Error"; }},
      {"error_attribute", [](WorkerOptions& o) { o.error_attribute = ""; }},
      {"idempotency_attribute", [](WorkerOptions& o) { o.idempotency_attribute = "bad key"; }},
      {"inbox_ttl_seconds", [](WorkerOptions& o) { o.inbox_ttl_seconds = 0; }},
      {"clock", [](WorkerOptions& o) { o.clock = nullptr; }},
  };
  for (const Case& c : cases) {
    WorkerOptions o = Options();
    c.set(o);
    auto w = Worker::Create(q, o, ok);
    ASSERT_FALSE(w.ok()) << c.option;
    EXPECT_EQ(w.status().code(), ErrorCode::kInvalidParameterValue) << c.option;
    EXPECT_NE(w.status().message().find(std::string("WorkerOptions.") + c.option),
              std::string::npos)
        << w.status().ToString();
  }
  EXPECT_CODE(Worker::Create(nullptr, Options(), ok), kInvalidParameterValue);
  EXPECT_CODE(Worker::Create(q, Options(), MessageHandler()), kInvalidParameterValue);
  EXPECT_CODE(Worker::Create(q, Options(), BatchHandler()), kInvalidParameterValue);

  auto w = Make(q, Options(), ok);
  ASSERT_NE(w, nullptr);
  ASSERT_OK(w->Start());
  EXPECT_CODE(w->Start(), kInvalidParameterValue);
  EXPECT_TRUE(w->Stop(5s));
  EXPECT_TRUE(w->Stop(5s));  // idempotent
}

// ---- Success ---------------------------------------------------------------------------

TEST_F(WorkerTest, SuccessDeletesAndHandlerSeesTheMessage) {
  auto q = MakeQueue("jobs");
  MessageAttributeMap attrs;
  attrs["tenant"] = MessageAttributeValue{"String", "acme", ""};
  const std::string id = SendTo(*q, "one", std::nullopt, attrs);
  SendTo(*q, "two");
  SendTo(*q, "three");

  std::mutex mu;
  std::map<std::string, WorkerMessage> seen;
  auto w = Make(q, Options(), [&](const WorkerMessage& m) {
    std::lock_guard<std::mutex> lock(mu);
    seen[m.message_id] = m;
    return HandlerResult::Success();
  });
  ASSERT_OK(w->Start());
  ASSERT_TRUE(WaitFor([&] { return w->stats().succeeded == 3; }));
  EXPECT_TRUE(w->Stop(5s));

  const QueueStats s = Stats(*q);
  EXPECT_EQ(s.visible + s.in_flight + s.delayed, 0);
  EXPECT_EQ(s.deleted_total, 3);
  const WorkerStats ws = w->stats();
  EXPECT_EQ(ws.received, 3);
  EXPECT_EQ(ws.retried, 0);
  EXPECT_EQ(ws.in_progress, 0);
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(seen.count(id), 1u);
  const WorkerMessage& m = seen[id];
  EXPECT_EQ(m.queue_name, "jobs");
  EXPECT_EQ(m.body, "one");
  EXPECT_EQ(m.receive_count, 1);
  EXPECT_EQ(m.attributes.count("SentTimestamp"), 1u);
  EXPECT_EQ(m.message_attributes.at("tenant").string_value, "acme");
  EXPECT_EQ(m.idempotency_key, id);  // no IdempotencyKey attribute: the MessageId
  EXPECT_FALSE(m.receipt_handle.empty());
}

// ---- Heartbeats --------------------------------------------------------------------------

TEST_F(WorkerTest, HandlerSlowerThanTheVisibilityTimeoutIsNotRunTwice) {
  auto q = MakeQueue("jobs");
  SendTo(*q, "slow");
  WorkerOptions o = Options();
  o.visibility_timeout_seconds = 30;
  o.concurrency = 1;
  Gate gate;
  std::atomic<int> calls{0};
  auto w = Make(q, o, [&](const WorkerMessage&) {
    ++calls;
    gate.Wait();
    return HandlerResult::Success();
  });
  ASSERT_OK(w->Start());
  ASSERT_TRUE(WaitFor([&] { return calls.load() == 1; }));

  // Four visibility timeouts: a second consumer never gets the message.
  ASSERT_TRUE(WalkLeaseRenewals(
      clock_.get(), [&] { return w->stats().lease_extensions; },
      [&](int t) {
        EXPECT_TRUE(Receive(*q, 10).empty()) << "another consumer got the message at t=" << t;
      }));
  EXPECT_EQ(w->stats().lease_extensions, 6);
  gate.Open();
  ASSERT_TRUE(WaitFor([&] { return w->stats().succeeded == 1; }));
  EXPECT_TRUE(w->Stop(5s));
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(w->stats().received, 1);
  EXPECT_EQ(w->stats().lease_extension_failures, 0);
  EXPECT_EQ(Stats(*q).deleted_total, 1);
}

TEST_F(WorkerTest, LeaseKeeperGivesUpAtTheTwelveHourBudget) {
  auto q = MakeQueue("jobs");
  SendTo(*q, "very slow");
  WorkerOptions o = Options();
  o.visibility_timeout_seconds = 21600;  // 6 h: renewals at 4 h and 8 h
  o.concurrency = 1;
  o.max_in_progress = 1;
  Gate gate;
  auto w = Make(q, o, [&](const WorkerMessage&) {
    gate.Wait();
    return HandlerResult::Success();
  });
  ASSERT_OK(w->Start());
  ASSERT_TRUE(WaitFor([&] { return w->stats().received == 1; }));
  clock_->AdvanceSeconds(14400);  // a third of 6 h left: renewed to 10 h
  ASSERT_TRUE(WaitFor([&] { return w->stats().lease_extensions == 1; }));
  clock_->AdvanceSeconds(14400);  // 8 h: renewed to the 12-hour limit only
  ASSERT_TRUE(WaitFor([&] { return w->stats().lease_extensions == 2; }));
  clock_->AdvanceSeconds(7200);  // 10 h: nothing left to extend by
  ASSERT_TRUE(WaitFor([&] { return Logged("12-hour lease budget"); }));
  EXPECT_EQ(w->stats().lease_extensions, 2);
  EXPECT_TRUE(Receive(*q, 10).empty());
  clock_->AdvanceSeconds(7201);  // past 12 h: the lease ended
  EXPECT_EQ(Receive(*q, 10).size(), 1u);
  gate.Open();
  EXPECT_TRUE(w->Stop(5s));
}

TEST_F(WorkerTest, RetryAfterALostLeaseLeavesTheNextConsumersLeaseAlone) {
  auto q = MakeQueue("jobs");
  SendTo(*q, "too slow");
  WorkerOptions o = Options();
  o.visibility_timeout_seconds = 43200;  // the whole budget: nothing to renew
  o.concurrency = 1;
  o.max_in_progress = 1;
  Gate gate;
  auto w = Make(q, o, [&](const WorkerMessage&) {
    gate.Wait();
    return HandlerResult::Retry("finished after its lease");
  });
  ASSERT_OK(w->Start());
  ASSERT_TRUE(WaitFor([&] { return w->stats().received == 1; }));
  clock_->AdvanceSeconds(43201);               // the worker's lease ended
  ASSERT_EQ(Receive(*q, 10, 600).size(), 1u);  // another consumer's 10-minute lease
  const int64_t theirs = VisibleAt(*q);
  EXPECT_EQ(theirs, clock_->NowMillis() + 600 * 1000);

  gate.Open();
  ASSERT_TRUE(WaitFor([&] { return w->stats().retried == 1; }));
  EXPECT_EQ(VisibleAt(*q), theirs) << "the retry's backoff moved the other consumer's lease";
  // The worker logs an outcome before it counts it (WorkerStats).
  EXPECT_TRUE(Logged("could not delay the retry")) << DumpLogs();
  EXPECT_TRUE(w->Stop(5s));
}

// ---- Failures, retries, the DLQ ------------------------------------------------------------

TEST_F(WorkerTest, PartialBatchFailureRetriesOnlyTheFailedMessages) {
  auto q = MakeQueue("jobs");
  for (int i = 0; i < 5; ++i) SendTo(*q, "b" + std::to_string(i));
  std::mutex mu;
  std::vector<std::vector<std::string>> calls;
  auto w = Worker::Create(q, Options(), [&](const std::vector<WorkerMessage>& batch) {
    std::vector<std::string> bodies;
    BatchItemFailures failures;
    for (const auto& m : batch) {
      bodies.push_back(m.body);
      if (m.receive_count == 1 && (m.body == "b1" || m.body == "b3")) {
        failures[m.message_id] = HandlerResult::Retry("downstream busy");
      }
    }
    std::sort(bodies.begin(), bodies.end());
    std::lock_guard<std::mutex> lock(mu);
    calls.push_back(bodies);
    return failures;
  });
  ASSERT_OK(w);
  ASSERT_OK((*w)->Start());
  ASSERT_TRUE(WaitFor([&] { return (*w)->stats().succeeded == 3 && (*w)->stats().retried == 2; }));
  clock_->AdvanceSeconds(1);  // backoff_base_seconds: the failed two return
  ASSERT_TRUE(WaitFor([&] { return (*w)->stats().succeeded == 5; }));
  EXPECT_TRUE((*w)->Stop(5s));

  std::lock_guard<std::mutex> lock(mu);
  ASSERT_GE(calls.size(), 2u);
  EXPECT_EQ(calls[0], (std::vector<std::string>{"b0", "b1", "b2", "b3", "b4"}));
  std::vector<std::string> again;
  for (size_t i = 1; i < calls.size(); ++i) {
    again.insert(again.end(), calls[i].begin(), calls[i].end());
  }
  std::sort(again.begin(), again.end());
  EXPECT_EQ(again, (std::vector<std::string>{"b1", "b3"}));
  EXPECT_EQ(Stats(*q).deleted_total, 5);
}

TEST_F(WorkerTest, ExceptionsAreRetriedWithTheirText) {
  auto q = MakeQueue("jobs");
  SendTo(*q, "x");
  std::atomic<int> calls{0};
  auto w = Make(q, Options(), [&](const WorkerMessage&) -> HandlerResult {
    if (++calls == 1) throw std::runtime_error("database is down");
    return HandlerResult::Success();
  });
  ASSERT_OK(w->Start());
  ASSERT_TRUE(WaitFor([&] { return w->stats().retried == 1; }));
  // The worker counts the retry, then logs it: wait for the line.
  EXPECT_TRUE(WaitFor([&] { return Logged("database is down"); }));
  EXPECT_TRUE(Logged("queue=jobs message_id="));
  EXPECT_TRUE(Logged("receive_count=1"));
  clock_->AdvanceSeconds(1);
  ASSERT_TRUE(WaitFor([&] { return w->stats().succeeded == 1; }));
  EXPECT_TRUE(w->Stop(5s));
  EXPECT_EQ(calls.load(), 2);
}

TEST_F(WorkerTest, BackoffGrowsWithTheReceiveCount) {
  auto q = MakeQueue("jobs");
  SendTo(*q, "flaky");
  WorkerOptions o = Options();
  o.backoff_base_seconds = 2;
  o.backoff_max_seconds = 20;
  std::mutex mu;
  std::vector<int> counts;
  auto w = Make(q, o, [&](const WorkerMessage& m) {
    std::lock_guard<std::mutex> lock(mu);
    counts.push_back(m.receive_count);
    return HandlerResult::Retry("not yet");
  });
  ASSERT_OK(w->Start());
  const int expected[] = {2, 4, 8, 16, 20, 20};
  for (int k = 1; k <= 6; ++k) {
    ASSERT_TRUE(WaitFor([&] { return w->stats().retried == k; })) << k;
    const int64_t now = clock_->NowMillis();
    EXPECT_EQ(VisibleAt(*q) - now, int64_t{expected[k - 1]} * 1000) << "receive " << k;
    // One millisecond short: still invisible; then due.
    clock_->AdvanceMillis(int64_t{expected[k - 1]} * 1000 - 1);
    EXPECT_TRUE(Receive(*q, 10).empty());
    clock_->AdvanceMillis(1);
  }
  ASSERT_TRUE(WaitFor([&] { return w->stats().retried == 7; }));
  EXPECT_TRUE(w->Stop(5s));
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(counts, (std::vector<int>{1, 2, 3, 4, 5, 6, 7}));
}

TEST_F(WorkerTest, MaxReceiveCountMovesToTheDeadLetterQueueByRedrive) {
  auto dlq = MakeQueue("jobs-dlq");
  auto q = MakeQueue("jobs", {{"RedrivePolicy", "{\"deadLetterTargetArn\":\"" + dlq->arn() +
                                                    "\",\"maxReceiveCount\":\"3\"}"}});
  SendTo(*q, "poison");
  std::atomic<int> calls{0};
  auto w = Make(q, Options(), [&](const WorkerMessage&) {
    ++calls;
    return HandlerResult::Retry("still failing");
  });
  ASSERT_OK(w->Start());
  for (int k = 1; k <= 3; ++k) {
    ASSERT_TRUE(WaitFor([&] { return w->stats().retried == k; })) << k;
    clock_->AdvanceSeconds(int64_t{1} << (k - 1));  // backoff 1, 2, 4 s
  }
  ASSERT_TRUE(WaitFor([&] { return Stats(*dlq).visible == 1; }));
  EXPECT_TRUE(w->Stop(5s));
  EXPECT_EQ(calls.load(), 3);
  EXPECT_EQ(Stats(*q).moved_to_dlq_total, 1);
  EXPECT_EQ(w->stats().dead_lettered, 0);  // the queue's redrive, not the worker
}

TEST_F(WorkerTest, NonRetryableGoesToTheDeadLetterQueueAtOnceWithTheError) {
  auto dlq = MakeQueue("jobs-dlq");
  auto q = MakeQueue("jobs", {{"RedrivePolicy", "{\"deadLetterTargetArn\":\"" + dlq->arn() +
                                                    "\",\"maxReceiveCount\":\"5\"}"}});
  const std::string id = SendTo(*q, "{bad json");
  std::atomic<int> calls{0};
  auto w = Make(q, Options(), [&](const WorkerMessage&) -> HandlerResult {
    ++calls;
    throw NonRetryableError(std::string("invalid body: \x01 at 0"));
  });
  ASSERT_OK(w->Start());
  ASSERT_TRUE(WaitFor([&] { return w->stats().dead_lettered == 1; }));
  EXPECT_TRUE(w->Stop(5s));
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(w->stats().retried, 0);
  const QueueStats s = Stats(*q);
  EXPECT_EQ(s.visible + s.in_flight + s.delayed, 0);
  auto got = Receive(*dlq, 10);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].message_id, id);
  ASSERT_EQ(got[0].message_attributes.count("lqs.Error"), 1u);
  EXPECT_EQ(got[0].message_attributes.at("lqs.Error").data_type, "String");
  EXPECT_EQ(got[0].message_attributes.at("lqs.Error").string_value, "invalid body: ? at 0");
}

TEST_F(WorkerTest, NonRetryableWithoutRedrivePolicyIsRetriedAfterTheMaximumBackoff) {
  auto q = MakeQueue("jobs");
  SendTo(*q, "bad");
  WorkerOptions o = Options();
  o.backoff_max_seconds = 600;
  auto w = Make(q, o, [&](const WorkerMessage&) { return HandlerResult::NonRetryable("nope"); });
  ASSERT_OK(w->Start());
  ASSERT_TRUE(WaitFor([&] { return w->stats().retried == 1; }));
  EXPECT_EQ(VisibleAt(*q) - clock_->NowMillis(), 600 * 1000);
  EXPECT_TRUE(Logged("no RedrivePolicy"));
  EXPECT_EQ(w->stats().dead_lettered, 0);
  EXPECT_TRUE(w->Stop(5s));
}

// ---- Shutdown ----------------------------------------------------------------------------

TEST_F(WorkerTest, ShutdownReleasesUnstartedMessagesAndFinishesRunningOnes) {
  auto q = MakeQueue("jobs");
  for (int i = 0; i < 5; ++i) SendTo(*q, "m" + std::to_string(i));
  WorkerOptions o = Options();
  o.concurrency = 1;
  o.max_messages_per_receive = 5;
  o.max_in_progress = 5;
  Gate gate;
  std::mutex mu;
  std::vector<std::string> ran;
  auto w = Make(q, o, [&](const WorkerMessage& m) {
    {
      std::lock_guard<std::mutex> lock(mu);
      ran.push_back(m.message_id);
    }
    gate.Wait();
    return HandlerResult::Success();
  });
  ASSERT_OK(w->Start());
  ASSERT_TRUE(WaitFor([&] {
    std::lock_guard<std::mutex> lock(mu);
    return w->stats().received == 5 && !ran.empty();
  }));

  auto stopped = std::async(std::launch::async, [&] { return w->Stop(20s); });
  ASSERT_TRUE(WaitFor([&] { return w->stats().released == 4; }));
  // Released messages are receivable at once, without moving the clock.
  auto again = Receive(*q, 10);
  EXPECT_EQ(again.size(), 4u);
  gate.Open();
  ASSERT_EQ(stopped.wait_for(20s), std::future_status::ready);
  EXPECT_TRUE(stopped.get());
  EXPECT_TRUE(w->Stop(1s));
  w->Wait();  // returns: Stop finished

  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(ran.size(), 1u);  // nothing ran twice, nothing unstarted ran
  for (const auto& m : again) EXPECT_NE(m.message_id, ran[0]);
  const WorkerStats ws = w->stats();
  EXPECT_EQ(ws.succeeded, 1);
  EXPECT_EQ(ws.in_progress, 0);
  const QueueStats s = Stats(*q);
  EXPECT_EQ(s.deleted_total, 1);
  EXPECT_EQ(s.in_flight, 4);  // the test's consumer holds the other four
}

TEST_F(WorkerTest, StopDeadlineReturnsFalseAndTheDestructorJoins) {
  auto q = MakeQueue("jobs");
  SendTo(*q, "long");
  Gate gate;
  std::atomic<bool> entered{false};
  auto w = Make(q, Options(), [&](const WorkerMessage&) {
    entered = true;
    gate.Wait();
    return HandlerResult::Success();
  });
  ASSERT_OK(w->Start());
  ASSERT_TRUE(WaitFor([&] { return entered.load(); }));
  EXPECT_FALSE(w->Stop(50ms));
  EXPECT_FALSE(w->Stop(50ms));  // idempotent: same answer
  gate.Open();
  w.reset();  // joins the handler, which deletes its message
  EXPECT_EQ(Stats(*q).deleted_total, 1);
}

TEST_F(WorkerTest, StopInterruptsALongPollAtOnce) {
  auto q = MakeQueue("jobs");
  auto w = Make(q, Options(), [](const WorkerMessage&) { return HandlerResult::Success(); });
  ASSERT_OK(w->Start());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(w->Stop(5s));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  // A message sent now is not taken by the abandoned poll for good: it is
  // released at once if that poll gets it.
  SendTo(*q, "after stop");
  ASSERT_TRUE(WaitFor([&] { return Stats(*q).visible == 1; }));
  EXPECT_EQ(w->stats().received, 0);
}

// ---- Inbox ---------------------------------------------------------------------------------

TEST_F(WorkerTest, InboxTurnsADuplicateIntoASkip) {
  auto q = MakeQueue("jobs");
  const MessageAttributeMap key = IdempotencyKey("order-42");
  WorkerOptions o = Options();
  o.inbox = true;
  std::atomic<int> calls{0};
  auto w = Make(q, o, [&](const WorkerMessage& m) {
    EXPECT_EQ(m.idempotency_key, "order-42");
    ++calls;
    return HandlerResult::Success();
  });
  ASSERT_OK(w->Start());
  SendTo(*q, "charge order 42", std::nullopt, key);
  ASSERT_TRUE(WaitFor([&] { return w->stats().succeeded == 1; }));
  SendTo(*q, "charge order 42 (redelivered by the producer)", std::nullopt, key);
  ASSERT_TRUE(WaitFor([&] { return w->stats().duplicates_skipped == 1; }));
  EXPECT_TRUE(w->Stop(5s));
  EXPECT_EQ(calls.load(), 1);
  const QueueStats s = Stats(*q);
  EXPECT_EQ(s.visible + s.in_flight, 0);
  EXPECT_EQ(s.deleted_total, 2);
  auto in = q->InboxContains("order-42");
  ASSERT_OK(in);
  EXPECT_TRUE(*in);
}

// ---- FIFO ------------------------------------------------------------------------------------

TEST_F(WorkerTest, FifoGroupOrderIsKeptUnderConcurrencyAndFailures) {
  auto q = MakeQueue("jobs.fifo", {{"FifoQueue", "true"}, {"ContentBasedDeduplication", "true"}});
  constexpr int kGroups = 4, kPerGroup = 25;
  for (int i = 0; i < kPerGroup; ++i) {
    for (int g = 0; g < kGroups; ++g) {
      SendTo(*q, std::to_string(g) + ":" + std::to_string(i), "g" + std::to_string(g));
    }
  }
  WorkerOptions o = Options();
  o.concurrency = 4;
  o.backoff_base_seconds = 0;  // retry at once: no clock moves needed
  std::mutex mu;
  std::map<std::string, std::vector<int>> done;
  std::map<std::string, int> attempts;
  std::set<std::string> running;
  std::atomic<bool> overlap{false};
  std::atomic<int> max_running{0};
  auto w = Make(q, o, [&](const WorkerMessage& m) {
    const std::string g = *m.message_group_id;
    const int i = std::stoi(m.body.substr(m.body.find(':') + 1));
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!running.insert(g).second) overlap = true;
      max_running = std::max<int>(max_running, static_cast<int>(running.size()));
    }
    std::this_thread::yield();
    std::lock_guard<std::mutex> lock(mu);
    running.erase(g);
    if ((i == 5 || i == 17) && ++attempts[m.body] == 1) return HandlerResult::Retry("transient");
    done[g].push_back(i);
    return HandlerResult::Success();
  });
  ASSERT_OK(w->Start());
  // No clock moves: a delete that unlocks a FIFO group must wake the
  // worker's parked long poll by itself.
  ASSERT_TRUE(WaitFor([&] { return w->stats().succeeded == kGroups * kPerGroup; }, 60s))
      << "succeeded " << w->stats().succeeded << " retried " << w->stats().retried << " released "
      << w->stats().released << DumpLogs();
  EXPECT_TRUE(w->Stop(5s));
  EXPECT_FALSE(overlap.load());
  std::vector<int> in_order(kPerGroup);
  for (int i = 0; i < kPerGroup; ++i) in_order[static_cast<size_t>(i)] = i;
  std::lock_guard<std::mutex> lock(mu);
  for (int g = 0; g < kGroups; ++g) EXPECT_EQ(done["g" + std::to_string(g)], in_order) << g;
  EXPECT_EQ(w->stats().retried, kGroups * 2);
}

// ---- Backpressure -----------------------------------------------------------------------------

TEST_F(WorkerTest, PauseStopsReceivingAndResumeGoesOn) {
  auto q = MakeQueue("jobs");
  std::atomic<int> calls{0};
  auto w = Make(q, Options(), [&](const WorkerMessage&) {
    ++calls;
    return HandlerResult::Success();
  });
  ASSERT_OK(w->Start());
  w->Pause();
  EXPECT_TRUE(w->paused());
  for (int i = 0; i < 3; ++i) SendTo(*q, "p" + std::to_string(i));
  // Nothing runs while paused (a bounded look, not a timeout under test).
  EXPECT_FALSE(WaitFor([&] { return calls.load() > 0; }, 300ms));
  EXPECT_EQ(w->stats().received, 0);
  ASSERT_TRUE(WaitFor([&] { return Stats(*q).visible == 3; }));
  w->Resume();
  EXPECT_FALSE(w->paused());
  ASSERT_TRUE(WaitFor([&] { return w->stats().succeeded == 3; }));
  EXPECT_TRUE(w->Stop(5s));
  EXPECT_EQ(calls.load(), 3);
}

// Pause races with a poll that is starting: once it returns, the poll is
// withdrawn or has given back what it took, so a send right after it stays
// visible. Each round parks a fresh poll on an empty queue and pauses it.
TEST_F(WorkerTest, NothingIsLeasedOncePauseReturns) {
  auto q = MakeQueue("jobs");
  auto w = Make(q, Options(), [](const WorkerMessage&) { return HandlerResult::Success(); });
  ASSERT_OK(w->Start());
  for (int round = 0; round < 200; ++round) {
    w->Pause();
    SendTo(*q, "p");
    ASSERT_EQ(Stats(*q).visible, 1) << "round " << round;
    ReceiveMessageRequest take;
    take.wait_time_seconds = 0;
    StatusOr<ReceiveMessageResult> got = q->ReceiveMessage(take);
    ASSERT_OK(got.status());
    ASSERT_EQ(got->messages.size(), 1U);
    ASSERT_OK(q->DeleteMessage(got->messages[0].receipt_handle));
    w->Resume();
  }
  EXPECT_TRUE(w->Stop(5s));
  EXPECT_EQ(w->stats().received, 0);
}

TEST_F(WorkerTest, ConcurrencyLimitHoldsWhileHandlersBlock) {
  auto q = MakeQueue("jobs");
  for (int i = 0; i < 8; ++i) SendTo(*q, "c" + std::to_string(i));
  WorkerOptions o = Options();
  o.concurrency = 3;
  o.max_in_progress = 5;
  Gate gate;
  std::atomic<int> running{0};
  auto w = Make(q, o, [&](const WorkerMessage&) {
    ++running;
    gate.Wait();
    --running;
    return HandlerResult::Success();
  });
  ASSERT_OK(w->Start());
  ASSERT_TRUE(WaitFor([&] { return running.load() == 3 && w->stats().received == 5; }));
  EXPECT_EQ(w->stats().in_progress, 5);
  EXPECT_EQ(Stats(*q).visible, 3);  // not received: no room
  gate.Open();
  ASSERT_TRUE(WaitFor([&] { return w->stats().succeeded == 8; }));
  EXPECT_TRUE(w->Stop(5s));
}

TEST_F(WorkerTest, ConcurrencyAndInProgressLimitsHoldUnderABurstOf10000) {
  auto q = MakeQueue("jobs");
  constexpr int kMessages = 10000;
  for (int b = 0; b < kMessages / 10; ++b) {
    std::vector<SendMessageBatchEntry> batch;
    for (int i = 0; i < 10; ++i) {
      SendMessageBatchEntry e;
      e.id = "e" + std::to_string(i);
      e.request.body = std::to_string(b * 10 + i);
      batch.push_back(e);
    }
    auto r = q->SendMessageBatch(batch);
    ASSERT_OK(r);
    ASSERT_EQ(r->successful.size(), 10u);
  }
  WorkerOptions o = Options();
  o.concurrency = 6;
  o.max_in_progress = 16;
  std::atomic<int> running{0}, max_running{0};
  std::atomic<int64_t> max_in_progress{0};
  std::atomic<int> calls{0};
  Worker* self = nullptr;
  auto w = Make(q, o, [&](const WorkerMessage&) {
    const int now = ++running;
    int prev = max_running.load();
    while (now > prev && !max_running.compare_exchange_weak(prev, now)) {
    }
    const int64_t ip = self->stats().in_progress;
    int64_t prev_ip = max_in_progress.load();
    while (ip > prev_ip && !max_in_progress.compare_exchange_weak(prev_ip, ip)) {
    }
    ++calls;
    --running;
    return HandlerResult::Success();
  });
  self = w.get();
  ASSERT_OK(w->Start());
  ASSERT_TRUE(WaitFor([&] { return w->stats().succeeded == kMessages; }, 180s));
  EXPECT_TRUE(w->Stop(5s));
  EXPECT_EQ(calls.load(), kMessages);
  EXPECT_LE(max_running.load(), 6);
  EXPECT_LE(max_in_progress.load(), 16);
  EXPECT_EQ(w->stats().received, kMessages);
  EXPECT_EQ(Stats(*q).deleted_total, kMessages);
}

// Drives the ManualClock in 100 ms steps until `done`, letting the worker
// catch up between steps. Returns false if it never got done.
template <typename Done>
bool DriveClock(ManualClock& clock, Done done, int max_steps = 2000) {
  for (int i = 0; i < max_steps && !done(); ++i) {
    clock.AdvanceMillis(100);
    WaitFor(done, 5ms);
  }
  return done();
}

TEST_F(WorkerTest, RateLimitHoldsOverall) {
  auto q = MakeQueue("jobs");
  constexpr int kMessages = 60;
  for (int i = 0; i < kMessages; ++i) SendTo(*q, std::to_string(i));
  WorkerOptions o = Options();
  o.rate_limit_per_second = 10;  // burst: one second's worth
  o.concurrency = 4;
  const int64_t t0 = clock_->NowMillis();
  std::mutex mu;
  std::vector<int64_t> starts;
  auto w = Make(q, o, [&](const WorkerMessage&) {
    std::lock_guard<std::mutex> lock(mu);
    starts.push_back(clock_->NowMillis());
    return HandlerResult::Success();
  });
  ASSERT_OK(w->Start());
  ASSERT_TRUE(DriveClock(*clock_, [&] { return w->stats().succeeded == kMessages; }));
  EXPECT_TRUE(w->Stop(5s));
  std::lock_guard<std::mutex> lock(mu);
  std::sort(starts.begin(), starts.end());
  for (size_t i = 0; i < starts.size(); ++i) {
    const double allowed = 10.0 * static_cast<double>(starts[i] - t0) / 1000.0 + 10.0;
    EXPECT_LE(static_cast<double>(i + 1), allowed + 1e-9)
        << "start " << i << " at " << starts[i] - t0;
  }
  EXPECT_GE(starts.back() - t0, 5000);  // 50 beyond the burst at 10/s
}

TEST_F(WorkerTest, RateLimitHoldsPerGroup) {
  auto q = MakeQueue("jobs");  // a fair queue: standard, with MessageGroupIds
  constexpr int kPerGroup = 12;
  for (int i = 0; i < kPerGroup; ++i) {
    SendTo(*q, "a" + std::to_string(i), "tenant-a");
    SendTo(*q, "b" + std::to_string(i), "tenant-b");
  }
  WorkerOptions o = Options();
  o.rate_limit_per_group_per_second = 2;
  o.concurrency = 4;
  const int64_t t0 = clock_->NowMillis();
  std::mutex mu;
  std::map<std::string, std::vector<int64_t>> starts;
  auto w = Make(q, o, [&](const WorkerMessage& m) {
    std::lock_guard<std::mutex> lock(mu);
    starts[*m.message_group_id].push_back(clock_->NowMillis());
    return HandlerResult::Success();
  });
  ASSERT_OK(w->Start());
  ASSERT_TRUE(DriveClock(*clock_, [&] { return w->stats().succeeded == 2 * kPerGroup; }));
  EXPECT_TRUE(w->Stop(5s));
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(starts.size(), 2u);
  for (auto& [group, s] : starts) {
    std::sort(s.begin(), s.end());
    ASSERT_EQ(s.size(), static_cast<size_t>(kPerGroup));
    for (size_t i = 0; i < s.size(); ++i) {
      const double allowed = 2.0 * static_cast<double>(s[i] - t0) / 1000.0 + 2.0;
      EXPECT_LE(static_cast<double>(i + 1), allowed + 1e-9) << group << " start " << i;
    }
  }
}

// ---- Stats ---------------------------------------------------------------------------------

TEST_F(WorkerTest, StatsCountAndHandlerPercentilesAreSane) {
  auto q = MakeQueue("jobs");
  for (int i = 1; i <= 100; ++i) SendTo(*q, std::to_string(i));
  WorkerOptions o = Options();
  o.concurrency = 1;  // one handler at a time: each one's clock time is its own
  auto w = Make(q, o, [&](const WorkerMessage& m) {
    clock_->AdvanceMillis(std::stoi(m.body));  // "takes" body milliseconds
    return HandlerResult::Success();
  });
  EXPECT_EQ(w->stats().handler_p50_ms, 0);
  ASSERT_OK(w->Start());
  ASSERT_TRUE(WaitFor([&] { return w->stats().succeeded == 100; }));
  EXPECT_TRUE(w->Stop(5s));
  const WorkerStats s = w->stats();
  EXPECT_EQ(s.received, 100);
  EXPECT_NEAR(s.handler_p50_ms, 50, 3);
  EXPECT_NEAR(s.handler_p99_ms, 99, 4);
  EXPECT_LE(s.handler_p50_ms, s.handler_p99_ms);
}

TEST(WorkerParts, HistogramPercentiles) {
  worker::DurationHistogram h;
  EXPECT_EQ(h.Percentile(50), 0);
  for (int i = 1; i <= 1000; ++i) h.Add(i);
  EXPECT_NEAR(h.Percentile(50), 500, 20);
  EXPECT_NEAR(h.Percentile(99), 990, 40);
  EXPECT_LE(h.Percentile(100), 1000);
}

TEST(WorkerParts, BackoffFormulaAndJitter) {
  using worker::Backoff;
  EXPECT_EQ(Backoff::Exponential(1, 900, 1), 1);
  EXPECT_EQ(Backoff::Exponential(1, 900, 4), 8);
  EXPECT_EQ(Backoff::Exponential(1, 900, 11), 900);
  EXPECT_EQ(Backoff::Exponential(5, 900, 1000), 900);
  EXPECT_EQ(Backoff::Exponential(0, 900, 7), 0);
  Backoff b(10, 900, 0.5, 42);
  for (int i = 0; i < 100; ++i) {
    const int s = b.Seconds(2);
    EXPECT_GE(s, 20);
    EXPECT_LE(s, 30);
  }
}

TEST(WorkerParts, TokenBucket) {
  worker::TokenBucket bucket(10, 10, 0);
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(bucket.CanTake(0, 1));
    bucket.Take(0, 1);
  }
  EXPECT_FALSE(bucket.CanTake(0, 1));
  EXPECT_EQ(bucket.ReadyAt(0, 1), 100);
  EXPECT_TRUE(bucket.CanTake(100, 1));
}

TEST(WorkerParts, AttributeTextAndKeys) {
  using worker::AttributeText;
  EXPECT_EQ(AttributeText("ok"), "ok");
  EXPECT_EQ(AttributeText(""), "(no error text)");
  EXPECT_EQ(AttributeText(std::string("a\x01"
                                      "b\xff")),
            "a?b?");
  EXPECT_EQ(AttributeText("h\xc3\xa9llo", 2), "h");  // never splits a character
  EXPECT_EQ(AttributeText(std::string(5000, 'x')).size(), worker::kMaxErrorText);
  ReceivedMessage r;
  r.message_id = "id-1";
  r.message_attributes["IdempotencyKey"] =
      MessageAttributeValue{"String", std::string(600, 'k'), ""};
  const WorkerMessage m = worker::ToWorkerMessage("q", r, "IdempotencyKey");
  EXPECT_EQ(m.idempotency_key.size(), worker::kMaxIdempotencyKey);
  r.message_attributes.clear();
  r.attributes["MessageDeduplicationId"] = "dedup-1";
  r.attributes["ApproximateReceiveCount"] = "3";
  const WorkerMessage f = worker::ToWorkerMessage("q", r, "IdempotencyKey");
  EXPECT_EQ(f.idempotency_key, "dedup-1");
  EXPECT_EQ(f.receive_count, 3);
}

// ---- Signals -------------------------------------------------------------------------------

TEST_F(WorkerTest, SigtermStopsAWorkerThatInstalledHandlers) {
  auto q = MakeQueue("jobs");
  struct sigaction before {};
  sigaction(SIGTERM, nullptr, &before);
  {
    auto w = Make(q, Options(), [](const WorkerMessage&) { return HandlerResult::Success(); });
    auto other = Make(q, Options(), [](const WorkerMessage&) { return HandlerResult::Success(); });
    ASSERT_OK(w->Start());
    ASSERT_OK(w->InstallSignalHandlers(5s));
    EXPECT_CODE(other->InstallSignalHandlers(5s), kInvalidParameterValue);  // one per process
    auto waited = std::async(std::launch::async, [&] { w->Wait(); });
    ASSERT_EQ(raise(SIGTERM), 0);
    if (waited.wait_for(20s) != std::future_status::ready) {
      ADD_FAILURE() << "SIGTERM did not stop the worker";
      w->Stop(1s);
    }
    EXPECT_TRUE(Logged("SIGTERM"));
  }
  struct sigaction after {};
  sigaction(SIGTERM, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler);  // restored
}

}  // namespace
}  // namespace lqs::testing
