// tests/crash_child.cc — the process that durability_test.cc kills with
// SIGKILL.
//
//   lqs_crash_child <db_dir> <oracle_dir> <seed> <none|process|fsync>
//
// Opens the database at <db_dir> (real clock, background maintenance on),
// creates (or reuses) the queue "work" (VisibilityTimeout 2 s, RedrivePolicy
// maxReceiveCount 3 to "work-dlq") and its DLQ, and the FIFO queue
// "work.fifo" (VisibilityTimeout 2 s), then runs producer and consumer
// threads on all three until it is killed. It never exits on its own.
//
// The oracle: like RocksDB's db_stress, every thread appends what it did to
// its own append-only file in <oracle_dir>, one line per event:
//   pending <id>      written BEFORE a send of the message <id> is attempted
//   acked <id>        written AFTER that send returned OK
//   deleting <id>     written BEFORE a DeleteMessage(Batch) of <id> (either queue)
//   deleted <id>      written AFTER DeleteMessage on "work" returned OK
//   dlq-deleted <id>  written AFTER DeleteMessage on "work-dlq" returned OK
//   fifo-deleted <id> written AFTER DeleteMessage on "work.fifo" returned OK
// Each event is one write(2) without fsync: the oracle needs to survive a
// kill of this process, not a power loss, and the kernel keeps what was
// written. Message bodies are the ids: "s<seed>p<thread>-<n>" on "work" and
// "s<seed>g<group>-<n>" on "work.fifo" (n counts up within each of four
// message groups, so a group's order is its ids' order), unique across
// rounds because every round gets a different seed.
//
// Prints "ready" on stdout once all threads run.
//
// Environment: LQS_CRASH_WRITE_BUFFER_BYTES, if set, replaces
// Options::write_buffer_bytes (small memtables make RocksDB flush often).
// LQS_CRASH_DEFERRED_COMMITS=1 opens the database with
// Options::deferred_commits and runs every thread in a lqs::CommitScope, as
// lqsd's I/O threads do: a thread makes one to three calls, commits, and
// only then records their "acked" and "deleted" events (a server answers
// only then). LQS_POWER_LOSS_JOURNAL=<path> opens the database over a
// journaling FaultFileSystem (tests/fault_fs.h), so that the test can cut
// the power after the kill (tests/power_loss.cc); keep <path> outside
// <db_dir>.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/crash_child_support.h"

#include "lqs/lqs.h"

namespace {

using lqs::testing::Die;
using lqs::testing::OracleLog;

constexpr int kProducers = 2;
constexpr int kConsumers = 2;
// Producers pause while the backlog is above this, and pace their calls, so
// that the test's drain of the database stays fast however many rounds run
// on it (unpaced, in-flight leases pile up into the tens of thousands).
constexpr int64_t kMaxBacklog = 1000;
constexpr auto kProducerPause = std::chrono::milliseconds(1);
constexpr int kFifoGroups = 4;

lqs::Durability DurabilityOrDie(const std::string& s) {
  if (const std::optional<lqs::Durability> d = lqs::ParseDurability(s)) return *d;
  Die("unknown durability '" + s + "' (want none, process or fsync)");
}

// Records events once the calls behind them are durable: at once, or with
// deferred commits after the thread's next Commit().
class DurableRecords {
 public:
  DurableRecords(lqs::Broker* broker, bool deferred) {
    if (deferred) scope_.emplace(broker);
  }

  // Records `event` for `values` now, or holds it for Commit().
  void Record(OracleLog& log, const char* event, std::vector<std::string> values) {
    if (!scope_) return log.Record(event, values);
    held_.emplace_back(event, std::move(values));
  }

  // With deferred commits: after one to three calls (at random), commits
  // and records what was held.
  void MaybeCommit(OracleLog& log, std::mt19937_64& rng) {
    if (!scope_ || ++calls_ < 1 + static_cast<int>(rng() % 3)) return;
    calls_ = 0;
    const lqs::Status st = scope_->Commit();
    if (!st.ok()) Die("commit: " + st.ToString());
    for (const auto& [event, values] : held_) log.Record(event, values);
    held_.clear();
  }

 private:
  std::optional<lqs::CommitScope> scope_;
  std::vector<std::pair<const char*, std::vector<std::string>>> held_;
  int calls_ = 0;
};

// A producer's loop step: every tenth loop waits while the backlog is over
// kMaxBacklog; each pauses kProducerPause, then picks how many messages to
// send: one, or (a third of the time) a batch of 2..10.
int PaceAndPickBatch(lqs::Queue& q, int loop, std::mt19937_64& rng) {
  lqs::testing::PaceProducer(q, loop, kMaxBacklog, kProducerPause);
  return (rng() % 3 == 0) ? 2 + static_cast<int>(rng() % 9) : 1;
}

// Sends single messages and batches of 2..10, recording pending/acked.
void Produce(lqs::Queue& q, OracleLog& log, DurableRecords& durable, const std::string& prefix,
             uint64_t seed) {
  std::mt19937_64 rng(seed);
  int64_t n = 0;
  for (int loop = 0;; ++loop) {
    const int batch = PaceAndPickBatch(q, loop, rng);
    std::vector<std::string> ids;
    for (int i = 0; i < batch; ++i) ids.push_back(prefix + std::to_string(n++));
    log.Record("pending", ids);
    if (batch == 1) {
      lqs::SendMessageRequest r;
      r.body = ids[0];
      auto sent = q.SendMessage(r);
      if (sent.ok()) {
        durable.Record(log, "acked", ids);
        durable.MaybeCommit(log, rng);
      } else {
        std::fprintf(stderr, "lqs_crash_child: send failed: %s\n",
                     sent.status().ToString().c_str());
      }
      continue;
    }
    std::vector<lqs::SendMessageBatchEntry> entries;
    for (int i = 0; i < batch; ++i) {
      lqs::SendMessageBatchEntry e;
      e.id = "e" + std::to_string(i);
      e.request.body = ids[static_cast<size_t>(i)];
      entries.push_back(std::move(e));
    }
    auto sent = q.SendMessageBatch(entries);
    if (!sent.ok()) {
      std::fprintf(stderr, "lqs_crash_child: batch failed: %s\n", sent.status().ToString().c_str());
      continue;
    }
    std::vector<std::string> acked;
    for (const auto& s : sent->successful) {
      acked.push_back(ids[static_cast<size_t>(std::stoi(s.id.substr(1)))]);
    }
    durable.Record(log, "acked", acked);
    durable.MaybeCommit(log, rng);
    for (const auto& f : sent->failed) {
      std::fprintf(stderr, "lqs_crash_child: batch entry failed: %s %s\n", f.code.c_str(),
                   f.message.c_str());
    }
  }
}

// A long poll (1 s) for up to 10 messages; a failure is reported, and the
// caller tries again after a pause.
lqs::StatusOr<lqs::ReceiveMessageResult> ReceiveUpTo10(lqs::Queue& q) {
  lqs::ReceiveMessageRequest r;
  r.max_number_of_messages = 10;
  r.wait_time_seconds = 1;
  auto got = q.ReceiveMessage(r);
  if (!got.ok()) {
    std::fprintf(stderr, "lqs_crash_child: receive from %s failed: %s\n", q.name().c_str(),
                 got.status().ToString().c_str());
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return got;
}

// Receives up to 10 and deletes most (singly or in a batch), extends or
// shortens the lease of some, and leaves the rest to expire, so that
// messages are redelivered and, after 3 receives, moved to the DLQ.
void Consume(lqs::Queue& q, OracleLog& log, DurableRecords& durable, uint64_t seed,
             const char* deleted_event, int delete_percent) {
  std::mt19937_64 rng(seed);
  for (;;) {
    auto got = ReceiveUpTo10(q);
    if (!got.ok()) continue;
    std::vector<lqs::DeleteMessageBatchEntry> batch;
    std::vector<std::string> batch_bodies;
    for (const auto& m : got->messages) {
      const int dice = static_cast<int>(rng() % 100);
      if (dice < delete_percent / 2) {
        log.Record("deleting", {m.body});
        if (q.DeleteMessage(m.receipt_handle).ok()) durable.Record(log, deleted_event, {m.body});
      } else if (dice < delete_percent) {
        batch.push_back({"d" + std::to_string(batch.size()), m.receipt_handle});
        batch_bodies.push_back(m.body);
      } else if (dice < delete_percent + 10) {
        q.ChangeMessageVisibility(m.receipt_handle, static_cast<int>(rng() % 4)).IgnoreError();
      }  // else: left to expire
    }
    if (!batch.empty()) {
      log.Record("deleting", batch_bodies);
      auto res = q.DeleteMessageBatch(batch);
      if (res.ok()) {
        std::vector<std::string> deleted;
        for (const auto& id : res->successful) {
          deleted.push_back(batch_bodies[static_cast<size_t>(std::stoi(id.substr(1)))]);
        }
        durable.Record(log, deleted_event, deleted);
      }
    }
    durable.MaybeCommit(log, rng);
  }
}

// Sends to the FIFO queue: singles and batches of 2..10, each message in one
// of kFifoGroups groups and numbered within it, recording pending/acked.
void ProduceFifo(lqs::Queue& q, OracleLog& log, DurableRecords& durable,
                 const std::string& seed_text, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> next(kFifoGroups, 0);
  for (int loop = 0;; ++loop) {
    const int batch = PaceAndPickBatch(q, loop, rng);
    std::vector<lqs::SendMessageBatchEntry> entries;
    std::vector<std::string> ids;
    for (int i = 0; i < batch; ++i) {
      const int g = static_cast<int>(rng() % kFifoGroups);
      lqs::SendMessageBatchEntry e;
      e.id = "e" + std::to_string(i);
      e.request.body = "s" + seed_text + "g" + std::to_string(g) + "-" + std::to_string(next[g]++);
      e.request.message_group_id = "g" + std::to_string(g);
      e.request.message_deduplication_id = e.request.body;
      ids.push_back(e.request.body);
      entries.push_back(std::move(e));
    }
    log.Record("pending", ids);
    if (batch == 1) {
      auto sent = q.SendMessage(entries[0].request);
      if (sent.ok()) {
        durable.Record(log, "acked", ids);
        durable.MaybeCommit(log, rng);
      } else {
        // The group's next message must not overtake this one: stop the group.
        Die("fifo send failed: " + sent.status().ToString());
      }
      continue;
    }
    auto sent = q.SendMessageBatch(entries);
    if (!sent.ok() || !sent->failed.empty()) {
      Die("fifo batch failed: " + (sent.ok() ? sent->failed[0].message : sent.status().ToString()));
    }
    durable.Record(log, "acked", ids);
    durable.MaybeCommit(log, rng);
  }
}

// Receives from the FIFO queue and deletes in order; now and then gives a
// message up (visibility 0), which locks nothing and redelivers it, and
// leaves the rest of that receive to expire.
void ConsumeFifo(lqs::Queue& q, OracleLog& log, DurableRecords& durable, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (;;) {
    auto got = ReceiveUpTo10(q);
    if (!got.ok()) continue;
    for (const auto& m : got->messages) {
      if (rng() % 100 < 10) {
        q.ChangeMessageVisibility(m.receipt_handle, 0).IgnoreError();
        break;
      }
      log.Record("deleting", {m.body});
      if (q.DeleteMessage(m.receipt_handle).ok()) durable.Record(log, "fifo-deleted", {m.body});
    }
    durable.MaybeCommit(log, rng);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const lqs::testing::ChildArgs args =
      lqs::testing::ParseChildArgs(argc, argv, 1, "<none|process|fsync>");
  const uint64_t seed = args.seed;
  const std::string& seed_text = args.seed_text;
  lqs::Options options = lqs::testing::ChildOptions(args, DurabilityOrDie(argv[4]));
  const char* deferred_env = std::getenv("LQS_CRASH_DEFERRED_COMMITS");
  const bool deferred = deferred_env != nullptr && std::string(deferred_env) == "1";
  options.deferred_commits = deferred;
  // Simulated power loss: the file system and its Env live until the kill.
  lqs::testing::ChildDatabase db = lqs::testing::OpenChildDatabase(options);
  std::unique_ptr<lqs::Broker>& broker = db.broker;
  auto queues = lqs::testing::CreateCrashQueues(*broker);
  if (!queues.ok()) Die("create the queues: " + queues.status().ToString());
  lqs::Queue& work = *queues->work;
  lqs::Queue& dlq = *queues->dlq;
  lqs::Queue& fifo = *queues->fifo;
  lqs::Broker* b = broker.get();

  lqs::testing::ChildThreads threads(args);
  for (int p = 0; p < kProducers; ++p) {
    const std::string prefix = "s" + seed_text + "p" + std::to_string(p) + "-";
    threads.Start("p" + std::to_string(p), [&q = work, b, deferred, prefix, seed, p](auto& log) {
      DurableRecords durable(b, deferred);
      Produce(q, log, durable, prefix, seed * 131 + static_cast<uint64_t>(p));
    });
  }
  for (int c = 0; c < kConsumers; ++c) {
    threads.Start("c" + std::to_string(c), [&q = work, b, deferred, seed, c](auto& log) {
      DurableRecords durable(b, deferred);
      Consume(q, log, durable, seed * 137 + static_cast<uint64_t>(c), "deleted", 70);
    });
  }
  threads.Start("dlq", [&q = dlq, b, deferred, seed](auto& log) {
    DurableRecords durable(b, deferred);
    Consume(q, log, durable, seed * 139, "dlq-deleted", 50);
  });
  threads.Start("fp", [&q = fifo, b, deferred, seed_text, seed](auto& log) {
    DurableRecords durable(b, deferred);
    ProduceFifo(q, log, durable, seed_text, seed * 149);
  });
  threads.Start("fc", [&q = fifo, b, deferred, seed](auto& log) {
    DurableRecords durable(b, deferred);
    ConsumeFifo(q, log, durable, seed * 151);
  });
  threads.RunUntilKilled();
  return 0;
}
