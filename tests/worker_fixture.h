// tests/worker_fixture.h — the fixture the lqs::Worker suites share
// (worker_test.cc, worker_transaction_test.cc): a broker on a ManualClock
// (testutil.h's BrokerTest), worker options on that clock without jitter,
// and the checks those suites make on a worker and its queue.
//
// Not thread-safe beyond what BrokerTest is: call it from the test's thread.

#ifndef LQS_TESTS_WORKER_FIXTURE_H_
#define LQS_TESTS_WORKER_FIXTURE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "tests/testutil.h"

#include "lqs/worker.h"

namespace lqs::testing {

class WorkerFixture : public BrokerTest {
 protected:
  // The fixture's clock and no backoff jitter (retries land at exact times);
  // the rest as WorkerOptions' defaults.
  WorkerOptions ClockedOptions() {
    WorkerOptions o;
    o.clock = clock_;
    o.backoff_jitter = 0;
    return o;
  }

  // Worker::Create with any handler kind; fails the test (and returns
  // nullptr) on error.
  template <typename Handler>
  std::unique_ptr<Worker> Make(std::shared_ptr<Queue> q, WorkerOptions o, Handler h) {
    auto w = Worker::Create(std::move(q), std::move(o), std::move(h));
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    return w.ok() ? std::move(w).value() : nullptr;
  }

  // The queue's counters; fails the test (and returns zeros) on error.
  static QueueStats Stats(Queue& q) {
    auto s = q.GetStats();
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? *s : QueueStats{};
  }

  // Message attributes carrying `key` as WorkerOptions' default
  // idempotency_attribute ("IdempotencyKey"), for the inbox.
  static MessageAttributeMap IdempotencyKey(const std::string& key) {
    return {{WorkerOptions().idempotency_attribute, MessageAttributeValue{"String", key, ""}}};
  }

  // When the queue's one message becomes visible again (testutil.h).
  static int64_t VisibleAt(Queue& q) { return LoneMessageVisibleAt(q); }
};

}  // namespace lqs::testing

#endif  // LQS_TESTS_WORKER_FIXTURE_H_
