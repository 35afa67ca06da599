// tests/worker_crash_test.cc — kill -9 of a process running an lqs::Worker
// with the idempotency inbox, against an external oracle (see
// tests/worker_crash_child.cc, path LQS_WORKER_CRASH_CHILD, for what the
// child does and logs).
//
// The worker's handler records each completion in the same database as the
// messages: Queue::DeleteMessageAndRecord deletes the message and records
// its idempotency key in one atomic write. So after any crash every
// acknowledged send must be either still stored (in "jobs", visible or in
// flight, or in "jobs-dlq") or have its key in the inbox; a key in the inbox
// means its original message is gone; and a worker never runs a handler for
// a key that was recorded before the message reached it.
//
// Rounds: LQS_WORKER_CRASH_ROUNDS (default 20; docs/reliability.md).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/crash_harness.h"
#include "tests/testutil.h"

#include "lqs/worker.h"

namespace lqs::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kJobs = "jobs";
constexpr const char* kJobsDlq = "jobs-dlq";

// Where a long run takes its number of rounds (docs/reliability.md).
constexpr const char* kRoundsVar = "LQS_WORKER_CRASH_ROUNDS";

std::string KeyOf(const std::string& body) { return body.substr(0, body.find('/')); }
bool IsPoison(const std::string& key) { return !key.empty() && key.back() == 'x'; }
bool IsDuplicate(const std::string& body) { return body.find('/') != std::string::npos; }

struct Oracle {
  std::set<std::string> pending, acked;
  std::map<int, std::vector<std::string>> runs;  // by round (the child's seed)
  std::vector<std::string> violations;
};

// Reads every log in `dir`; a torn last line (no '\n') is ignored.
Oracle ReadOracle(const std::string& dir) {
  Oracle o;
  ReadOracleEvents(
      dir, [&o](const std::string& file_name, const std::string& event, const std::string& body) {
        if (event == "pending") {
          o.pending.insert(body);
        } else if (event == "acked") {
          o.acked.insert(body);
        } else if (event == "run") {
          o.runs[std::atoi(file_name.c_str())].push_back(body);  // "<seed>-handler.log"
        } else if (event == "violation") {
          o.violations.push_back(body);
        }
      });
  return o;
}

// The bodies stored in `q` (ScanMessages: visible, in flight and delayed);
// checks that the queue's counters agree.
std::vector<std::string> Stored(Queue& q) {
  std::vector<std::string> bodies;
  const Status scanned = q.ScanMessages([&](const StoredMessage& m) {
    bodies.push_back(m.body);
    return true;
  });
  EXPECT_TRUE(scanned.ok()) << q.name() << ": ScanMessages: " << scanned.ToString();
  auto s = q.GetStats();
  EXPECT_OK(s);
  if (s.ok()) {
    EXPECT_EQ(s->visible + s->in_flight + s->delayed, static_cast<int64_t>(bodies.size()))
        << q.name() << ": the counters disagree with the messages stored";
  }
  return bodies;
}

struct State {
  std::set<std::string> in_jobs, in_dlq;  // bodies
  std::set<std::string> recorded;         // keys in the inbox (of all keys ever sent)
};

// Reads the database after a crash: Verify(), the stored bodies (none
// twice) and which of `keys` the inbox holds.
void ReadState(Broker& broker, const std::set<std::string>& keys, State* out) {
  ExpectVerifyClean(broker, "the database after SIGKILL");
  auto jobs = broker.GetQueue(kJobs);
  auto dlq = broker.GetQueue(kJobsDlq);
  ASSERT_OK(jobs);
  ASSERT_OK(dlq);
  for (const auto& b : Stored(**jobs)) {
    EXPECT_TRUE(out->in_jobs.insert(b).second) << b << " is stored twice in jobs";
  }
  for (const auto& b : Stored(**dlq)) {
    EXPECT_TRUE(out->in_dlq.insert(b).second) << b << " is stored twice in jobs-dlq";
    EXPECT_FALSE(out->in_jobs.count(b)) << b << " is in jobs and in jobs-dlq";
  }
  for (const auto& k : keys) {
    auto in = (*jobs)->InboxContains(k);
    ASSERT_OK(in);
    if (*in) out->recorded.insert(k);
  }
}

std::set<std::string> KeysOf(const std::set<std::string>& bodies) {
  std::set<std::string> keys;
  for (const auto& b : bodies) keys.insert(KeyOf(b));
  return keys;
}

// The oracle's invariants on a state read after a crash.
void CheckInvariants(const Oracle& o, const State& s) {
  for (const auto& b : o.violations) {
    ADD_FAILURE() << "a handler ran for " << b << " whose key was already in the inbox";
  }
  for (const auto& set : {&s.in_jobs, &s.in_dlq}) {
    for (const auto& b : *set) EXPECT_TRUE(o.pending.count(b)) << b << " was never sent";
  }
  size_t lost = 0;
  for (const auto& b : o.acked) {
    const std::string key = KeyOf(b);
    const bool stored = s.in_jobs.count(b) || s.in_dlq.count(b);
    if (!stored && !s.recorded.count(key) && ++lost <= 10) {
      ADD_FAILURE() << "acknowledged " << b << " is gone but its key is not in the inbox";
    }
    // Only its own completion records an original's key (a duplicate is
    // sent after that): a recorded original still in jobs means the delete
    // and the record were not one write.
    if (!IsDuplicate(b) && s.in_jobs.count(b) && s.recorded.count(key)) {
      ADD_FAILURE() << b << " is still in jobs but its key is in the inbox";
    }
    if (IsPoison(key) && s.recorded.count(key)) {
      ADD_FAILURE() << "poison " << b << " was recorded as done";
    }
  }
  EXPECT_EQ(lost, 0u) << "acknowledged messages lost";
  for (const auto& [seed, bodies] : o.runs) {
    for (const auto& b : bodies) {
      EXPECT_FALSE(IsDuplicate(b))
          << "the handler ran for " << b << ", a duplicate sent after its key was recorded";
    }
  }
}

// After the crash rounds: a Worker in this process, on a ManualClock an
// hour ahead (every lease of a killed child has ended, every backoff
// passed), drains "jobs". Each message whose key is not recorded is handled
// once; each whose key is recorded is skipped (deleted unhandled).
void DrainWithWorker(const std::string& db, const Oracle& o, const State& before) {
  auto clock = std::make_shared<ManualClock>(SystemClock().NowMillis());
  auto broker = OpenToCheck(db, Durability::kProcess, clock);
  ASSERT_OK(broker);
  clock->AdvanceSeconds(3600);
  auto jobs = (*broker)->GetQueue(kJobs);
  ASSERT_OK(jobs);
  std::shared_ptr<Queue> q = *jobs;
  // A producer that, after the crash, sends again work it cannot know was
  // done: duplicates of up to 100 recorded keys, each to be skipped.
  std::vector<std::string> resent;
  for (const auto& key : before.recorded) {
    if (resent.size() >= 100) break;
    SendMessageRequest r;
    r.body = key + "/r" + std::to_string(resent.size());
    r.message_attributes["IdempotencyKey"] = MessageAttributeValue{"String", key, ""};
    ASSERT_OK(q->SendMessage(r));
    resent.push_back(r.body);
  }

  std::mutex mu;
  std::map<std::string, int> ran;  // body -> handler calls
  std::vector<std::string> violations;
  WorkerOptions wo;
  wo.clock = clock;
  wo.inbox = true;
  wo.concurrency = 4;
  wo.wait_time_seconds = 0;
  wo.visibility_timeout_seconds = 43200;  // the drain's leases never lapse
  wo.logger = [](WorkerLogLevel level, const std::string& line) {
    if (level == WorkerLogLevel::kError) std::fprintf(stderr, "drain worker: %s\n", line.c_str());
  };
  auto w = Worker::Create(q, wo, [&](const WorkerMessage& m) -> HandlerResult {
    auto seen = q->InboxContains(m.idempotency_key);
    {
      std::lock_guard<std::mutex> lock(mu);
      ++ran[m.body];
      if (!seen.ok() || *seen) violations.push_back(m.body);
    }
    if (IsPoison(m.idempotency_key)) return HandlerResult::NonRetryable("poison");
    return HandlerResult::Success();
  });
  ASSERT_OK(w);
  ASSERT_OK((*w)->Start());
  const auto limit = std::chrono::steady_clock::now() + 120s;
  for (;;) {
    auto s = q->GetStats();
    ASSERT_OK(s);
    if (s->visible + s->in_flight + s->delayed == 0 && (*w)->stats().in_progress == 0) break;
    ASSERT_LT(std::chrono::steady_clock::now(), limit) << "the drain did not finish";
    clock->AdvanceSeconds(1);  // ends short-poll pauses
    std::this_thread::sleep_for(5ms);
  }
  ASSERT_TRUE((*w)->Stop(30s));
  const WorkerStats ws = (*w)->stats();
  w->reset();

  for (const auto& b : violations) {
    ADD_FAILURE() << "the drain ran a handler for " << b << " whose key was in the inbox";
  }
  int64_t expected_skips = static_cast<int64_t>(resent.size());
  for (const auto& b : resent)
    EXPECT_EQ(ran.count(b), 0u) << b << " was resent after done, yet ran";
  std::set<std::string> handled_keys;
  for (const auto& b : before.in_jobs) {
    const auto it = ran.find(b);
    const int calls = it == ran.end() ? 0 : it->second;
    if (before.recorded.count(KeyOf(b))) {
      ++expected_skips;
      EXPECT_EQ(calls, 0) << b << ": its key was recorded before the drain, yet it ran";
    } else {
      // Run once, or moved to the DLQ by the RedrivePolicy on receive.
      EXPECT_LE(calls, 1) << b << " ran more than once in the drain";
      if (calls == 1) handled_keys.insert(KeyOf(b));
    }
  }
  EXPECT_EQ(ran.size(), handled_keys.size()) << "the drain ran handlers for unknown messages";
  EXPECT_EQ(ws.duplicates_skipped, expected_skips);

  State after;
  ReadState(**broker, KeysOf(o.pending), &after);
  EXPECT_TRUE(after.in_jobs.empty()) << after.in_jobs.size() << " messages left in jobs";
  for (const auto& b : o.acked) {
    const std::string key = KeyOf(b);
    if (IsPoison(key)) {
      EXPECT_TRUE(after.in_dlq.count(b)) << "poison " << b << " is not in the DLQ";
      EXPECT_FALSE(after.recorded.count(key)) << "poison " << b << " was recorded";
    } else {
      EXPECT_TRUE(after.recorded.count(key) || after.in_dlq.count(b))
          << "acknowledged " << b << " was neither done (inbox) nor dead-lettered";
    }
  }
  ASSERT_OK((*broker)->Close());
  std::printf(
      "[ drain    ] %zu left in jobs after the last kill + %zu resent duplicates of done "
      "work: %zu handled, %lld skipped as done (inbox), the rest moved to the DLQ by "
      "redrive; %zu in the DLQ in all\n",
      before.in_jobs.size(), resent.size(), handled_keys.size(),
      static_cast<long long>(expected_skips), after.in_dlq.size());
}

// Proves: a process running a Worker with the inbox, killed with SIGKILL
// at random moments while it receives, runs handlers, deletes-and-records,
// retries, dead-letters, heartbeats and sweeps, leaves a database that
// opens and verifies clean, in which every acknowledged send is still
// stored or recorded as done (never both for an original: the delete and
// the record are one write), no poison key is recorded, no handler ran for
// a key recorded before its message was received (within a run, and across
// restarts), and a worker run afterwards handles each remaining message
// once and skips those already done.
TEST(WorkerCrashTest, KillNineWithInbox) {
  TempDir dir;
  const std::string db = dir.path() + "/db", oracle_dir = dir.path() + "/oracle";
  fs::create_directories(oracle_dir);
  const int rounds = CrashRoundsFromEnv(kRoundsVar, 20);
  std::mt19937 rng(std::random_device{}());
  std::set<std::string> recorded_before;  // keys in the inbox when the round started
  State last;
  size_t total_runs = 0;
  for (int round = 0; round < rounds; ++round) {
    const int seed = round + 1;
    SCOPED_TRACE("round " + std::to_string(round));
    const int run_ms = 100 + static_cast<int>(rng() % 501);
    ASSERT_NO_FATAL_FAILURE(RunChildAndKill(LQS_WORKER_CRASH_CHILD,
                                            {db, oracle_dir, std::to_string(seed)},
                                            std::chrono::milliseconds(run_ms)));
    const Oracle o = ReadOracle(oracle_dir);
    State s;
    {
      auto broker = OpenToCheck(db);
      ASSERT_OK(broker);
      ReadState(**broker, KeysOf(o.pending), &s);
      ASSERT_OK((*broker)->Close());
    }
    CheckInvariants(o, s);
    size_t runs = 0, rerun_before = 0;
    if (auto it = o.runs.find(seed); it != o.runs.end()) {
      runs = it->second.size();
      for (const auto& b : it->second) {
        if (recorded_before.count(KeyOf(b)) && ++rerun_before <= 10) {
          ADD_FAILURE() << "round " << round << " ran a handler for " << b
                        << ", whose key was in the inbox before the round started";
        }
      }
    }
    total_runs += runs;
    if (::testing::Test::HasFailure()) return;
    const size_t dups = static_cast<size_t>(std::count_if(
        o.acked.begin(), o.acked.end(), [](const std::string& b) { return IsDuplicate(b); }));
    std::printf(
        "[ round %2d ] killed after %3d ms: %zu handler runs this round; in all %zu "
        "sends acked (%zu duplicates of done work), %zu keys recorded, %zu in jobs, "
        "%zu in the DLQ\n",
        round, run_ms, runs, o.acked.size(), dups, s.recorded.size(), s.in_jobs.size(),
        s.in_dlq.size());
    std::fflush(stdout);
    recorded_before = s.recorded;
    last = std::move(s);
  }
  std::printf("[ summary  ] %d kills survived, %zu handler runs\n", rounds, total_runs);
  DrainWithWorker(db, ReadOracle(oracle_dir), last);
}

}  // namespace
}  // namespace lqs::testing
