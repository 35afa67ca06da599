// tests/transaction_crash_child.cc — the process that
// transaction_crash_test.cc kills with SIGKILL (and, over a journaling file
// system, cuts the power of): an order workload in transactions.
//
//   lqs_transaction_crash_child <db_dir> <oracle_dir> <seed> <process|fsync>
//
// Opens the database at <db_dir> (real clock, the durability given,
// background maintenance on), creates (or reuses) the queue "jobs"
// (VisibilityTimeout 2 s) and runs until it is killed:
//
//  - two producers, each committing transactions that Put("orders", id,
//    "ACCEPTED") and send a message with body id to "jobs" (every 8th
//    commit sends two orders in one transaction);
//  - two consumers, each receiving up to 5 messages from "jobs" and, per
//    message, committing a transaction that checks Get("results", id) is
//    absent (a message whose effect exists must be gone), Puts
//    ("results", id, "DONE"), increments the counter ("stats", "done")
//    (read-modify-write: the two consumers conflict on it) and deletes the
//    message. A kTransactionConflict runs the transaction again (up to 5
//    times: after a lost lease it cannot succeed, the message comes back).
//    1 in 10 transactions is abandoned instead of committed (a rollback:
//    the message comes back after its visibility timeout).
//
// The oracle, one append-only file per thread in <oracle_dir>, one write(2)
// per line, no fsync (it only has to survive the kill of this process):
//   order-pending <id>    BEFORE the producer's Commit()
//   ordered <id>          AFTER it returned OK
//   consume-pending <id>  BEFORE the consumer's Commit()
//   consumed <id>         AFTER it returned OK
//   violation <id>        a consumer holding <id>'s message found its result
// Prints "ready" on stdout once the threads run. Never exits on its own.
//
// LQS_CRASH_WRITE_BUFFER_BYTES=<n> sets Options::write_buffer_bytes (small
// memtables make RocksDB flush often). LQS_POWER_LOSS_JOURNAL=<path> opens
// the database over a journaling FaultFileSystem (tests/fault_fs.h), so that
// the test can cut the power after the kill; keep <path> outside <db_dir>.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/crash_child_support.h"

#include "lqs/lqs.h"

namespace {

using lqs::testing::Die;
using lqs::testing::OracleLog;

constexpr int kProducers = 2;
constexpr int kConsumers = 2;
constexpr int64_t kMaxBacklog = 300;
constexpr int kMaxAttempts = 5;

void Produce(lqs::Broker& broker, lqs::Queue& jobs, OracleLog& log, const std::string& prefix,
             uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int64_t n = 0;; ++n) {
    lqs::testing::PaceProducer(jobs, n, kMaxBacklog);
    std::vector<std::string> ids = {prefix + std::to_string(n)};
    if (rng() % 8 == 0) ids.push_back(prefix + std::to_string(n) + "b");
    auto tx = broker.BeginTransaction();
    for (const auto& id : ids) {
      if (!tx->Put("orders", id, "ACCEPTED").ok()) Die("Put orders " + id);
      lqs::SendMessageRequest r;
      r.body = id;
      if (auto st = tx->SendMessage("jobs", r); !st.ok()) Die("SendMessage: " + st.ToString());
    }
    if (rng() % 10 == 0) continue;  // abandoned: rolled back by the destructor
    log.Record("order-pending", ids);
    auto done = tx->Commit();
    if (!done.ok()) Die("producer Commit: " + done.status().ToString());
    log.Record("ordered", ids);
  }
}

// One consumer transaction for message `m`; true once committed.
bool ConsumeOne(lqs::Broker& broker, OracleLog& log, const lqs::ReceivedMessage& m,
                std::mt19937_64& rng) {
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    auto tx = broker.BeginTransaction();
    auto result = tx->Get("results", m.body);
    if (!result.ok()) Die("Get results: " + result.status().ToString());
    if (result->has_value()) log.Record("violation", m.body);
    auto count = tx->Get("stats", "done");
    if (!count.ok()) Die("Get stats: " + count.status().ToString());
    const int64_t n = count->has_value() ? std::stoll(**count) : 0;
    if (!tx->Put("results", m.body, "DONE").ok() ||
        !tx->Put("stats", "done", std::to_string(n + 1)).ok()) {
      Die("Put results " + m.body);
    }
    if (auto st = tx->DeleteMessage("jobs", m.receipt_handle); !st.ok()) {
      Die("DeleteMessage: " + st.ToString());
    }
    if (rng() % 10 == 0) return false;  // abandoned: the message comes back
    log.Record("consume-pending", m.body);
    auto done = tx->Commit();
    if (done.ok()) {
      log.Record("consumed", m.body);
      return true;
    }
    if (done.status().code() != lqs::ErrorCode::kTransactionConflict) {
      Die("consumer Commit: " + done.status().ToString());
    }
  }
  return false;
}

void Consume(lqs::Broker& broker, lqs::Queue& jobs, OracleLog& log, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (;;) {
    lqs::ReceiveMessageRequest r;
    r.max_number_of_messages = 5;
    r.wait_time_seconds = 1;
    auto got = jobs.ReceiveMessage(r);
    if (!got.ok()) Die("ReceiveMessage: " + got.status().ToString());
    for (const auto& m : got->messages) ConsumeOne(broker, log, m, rng);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const lqs::testing::ChildArgs args =
      lqs::testing::ParseChildArgs(argc, argv, 1, "<process|fsync>");
  const std::optional<lqs::Durability> durability = lqs::ParseDurability(argv[4]);
  if (!durability) Die(std::string("unknown durability ") + argv[4]);
  lqs::Options options = lqs::testing::ChildOptions(args, *durability);
  // Simulated power loss: the file system and its Env live until the kill.
  lqs::testing::ChildDatabase db = lqs::testing::OpenChildDatabase(options);
  std::unique_ptr<lqs::Broker>& broker = db.broker;
  auto jobs = broker->CreateQueue("jobs", {{"VisibilityTimeout", "2"}}, {});
  if (!jobs.ok()) Die("create jobs: " + jobs.status().ToString());
  std::shared_ptr<lqs::Queue> q = *jobs;

  lqs::testing::ChildThreads threads(args);
  for (int p = 0; p < kProducers; ++p) {
    const std::string prefix = "s" + args.seed_text + "p" + std::to_string(p) + "-";
    const uint64_t seed = args.seed * 131 + static_cast<uint64_t>(p);
    threads.Start("p" + std::to_string(p), [&b = *broker, &q = *q, prefix, seed](auto& log) {
      Produce(b, q, log, prefix, seed);
    });
  }
  for (int c = 0; c < kConsumers; ++c) {
    const uint64_t seed = args.seed * 137 + static_cast<uint64_t>(c);
    threads.Start("c" + std::to_string(c),
                  [&b = *broker, &q = *q, seed](auto& log) { Consume(b, q, log, seed); });
  }
  threads.RunUntilKilled();
  return 0;
}
