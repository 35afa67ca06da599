// tests/worker_crash_child.cc — the process that worker_crash_test.cc kills
// with SIGKILL: an lqs::Worker with the idempotency inbox, and a producer.
//
//   lqs_worker_crash_child <db_dir> <oracle_dir> <seed>
//
// Opens the database at <db_dir> (real clock, durability `process`,
// background maintenance on, so inbox sweeps run too), creates (or reuses)
// the queue "jobs" (VisibilityTimeout 10 s, RedrivePolicy maxReceiveCount 5
// to "jobs-dlq") and its DLQ, then runs until it is killed:
//
//  - a producer sending messages whose IdempotencyKey attribute is the
//    message's key: originals "k<seed>-<n>" (key = body; a key ending in
//    'x', every 16th, is poison), and now and then a duplicate
//    "<key>/d<m>" of an earlier original of this run whose key it has just
//    seen recorded in the inbox (InboxContains), like a producer that sends
//    the same work twice after it was done;
//  - a Worker (inbox on, 4 handler threads, heartbeats, backoff 1..2 s)
//    whose handler fails poison messages as non-retryable (to the DLQ at
//    once, MoveToDeadLetterQueue), fails 1 in 8 first deliveries as
//    retryable, and succeeds otherwise (DeleteMessageAndRecord).
//
// The oracle, one append-only file per role in <oracle_dir>, one write(2)
// per line, no fsync (it must survive a kill of this process only):
//   <seed>-producer.log:  pending <body>   BEFORE a send is attempted
//                         acked <body>     AFTER the send returned OK
//   <seed>-handler.log:   run <body>       at the start of a handler call
//                         violation <body> the handler found its message's
//                                          key already in the inbox (the
//                                          worker should have skipped it)
// Prints "ready" on stdout once the worker and the producer run. Never
// exits on its own.

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <thread>

#include "tests/crash_child_support.h"

#include "lqs/lqs.h"
#include "lqs/worker.h"

namespace {

using lqs::testing::Die;
using lqs::testing::OracleLog;

constexpr int64_t kMaxBacklog = 500;

std::string KeyOf(const std::string& body) { return body.substr(0, body.find('/')); }
bool IsPoison(const std::string& key) { return !key.empty() && key.back() == 'x'; }

bool Send(lqs::Queue& q, OracleLog& log, const std::string& body) {
  lqs::SendMessageRequest r;
  r.body = body;
  r.message_attributes["IdempotencyKey"] = lqs::MessageAttributeValue{"String", KeyOf(body), ""};
  log.Record("pending", body);
  auto sent = q.SendMessage(r);
  if (!sent.ok()) {
    std::fprintf(stderr, "lqs_worker_crash_child: send failed: %s\n",
                 sent.status().ToString().c_str());
    return false;
  }
  log.Record("acked", body);
  return true;
}

void Produce(lqs::Queue& q, OracleLog& log, const std::string& prefix, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::deque<std::string> recent;  // originals sent (not poison), for duplicates
  int64_t dups = 0;
  for (int64_t n = 0;; ++n) {
    lqs::testing::PaceProducer(q, n, kMaxBacklog);
    if (!recent.empty() && rng() % 6 == 0) {
      const std::string& key = recent[rng() % recent.size()];
      auto done = q.InboxContains(key);
      if (done.ok() && *done) Send(q, log, key + "/d" + std::to_string(dups++));
    }
    const std::string key = prefix + std::to_string(n) + (n % 16 == 7 ? "x" : "");
    if (Send(q, log, key) && !IsPoison(key)) {
      recent.push_back(key);
      if (recent.size() > 200) recent.pop_front();
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const lqs::testing::ChildArgs args = lqs::testing::ParseChildArgs(argc, argv);
  const uint64_t seed = args.seed;
  const std::string& seed_text = args.seed_text;
  const std::string& oracle_dir = args.oracle_dir;
  std::unique_ptr<lqs::Broker> broker =
      lqs::testing::OpenOrDie(lqs::testing::ChildOptions(args, lqs::Durability::kProcess));
  auto queues = lqs::testing::CreateQueueWithDlq(*broker, "jobs", "jobs-dlq", 10, 5);
  if (!queues.ok()) Die("create jobs and jobs-dlq: " + queues.status().ToString());
  std::shared_ptr<lqs::Queue> q = queues->queue;

  OracleLog producer_log(oracle_dir + "/" + seed_text + "-producer.log");
  OracleLog handler_log(oracle_dir + "/" + seed_text + "-handler.log");

  lqs::WorkerOptions wo;
  wo.inbox = true;
  wo.concurrency = 4;
  wo.max_messages_per_receive = 10;
  wo.wait_time_seconds = 1;
  wo.visibility_timeout_seconds = 10;
  wo.backoff_base_seconds = 1;
  wo.backoff_max_seconds = 2;
  wo.logger = [](lqs::WorkerLogLevel level, const std::string& line) {
    if (level == lqs::WorkerLogLevel::kError) {
      std::fprintf(stderr, "lqs_worker_crash_child: %s\n", line.c_str());
    }
  };
  std::atomic<uint64_t> handler_seed{seed * 7919};
  auto worker = lqs::Worker::Create(q, wo, [&](const lqs::WorkerMessage& m) -> lqs::HandlerResult {
    thread_local std::mt19937_64 rng(handler_seed.fetch_add(1));
    handler_log.Record("run", m.body);
    if (m.idempotency_key != KeyOf(m.body)) Die("wrong idempotency key for " + m.body);
    auto seen = q->InboxContains(m.idempotency_key);
    if (seen.ok() && *seen) handler_log.Record("violation", m.body);
    if (rng() % 4 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (IsPoison(m.idempotency_key)) return lqs::HandlerResult::NonRetryable("poison");
    if (m.receive_count == 1 && rng() % 8 == 0) return lqs::HandlerResult::Retry("transient");
    return lqs::HandlerResult::Success();
  });
  if (!worker.ok()) Die("Worker::Create: " + worker.status().ToString());
  lqs::Status st = (*worker)->Start();
  if (!st.ok()) Die("Worker::Start: " + st.ToString());

  std::thread producer([&] { Produce(*q, producer_log, "k" + seed_text + "-", seed * 131); });

  lqs::testing::SignalReady();
  producer.join();  // never: runs until SIGKILL
  return 0;
}
