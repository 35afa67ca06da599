// tests/transaction_crash_test.cc — kill -9 and simulated power loss of a
// process committing transactions (lqs/transaction.h), against an external
// oracle (tests/transaction_crash_child.cc, path LQS_TRANSACTION_CRASH_CHILD,
// says what the child does and logs).
//
// Producers commit an "orders" record with its message to "jobs"; consumers
// commit a "results" record, a counter increment and the message's delete.
// Since each is one atomic write, after any crash the tables and the queue
// agree: every order has its message still stored (visible or in flight) or
// its result, never both; no message or result without its order; the
// counter equals the number of results; and every commit acknowledged before
// the crash is there (kill -9 in modes process and fsync; a power cut in mode
// fsync, while in mode process a power cut loses commits, whole).
//
// Rounds: LQS_TRANSACTION_CRASH_ROUNDS (default 20; docs/reliability.md).
// CTest names: transaction_crash.* and power_loss.* (cmake/LqsTests.cmake).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/crash_harness.h"
#include "tests/power_cut.h"
#include "tests/testutil.h"

namespace lqs::testing {
namespace {

namespace fs = std::filesystem;

// Where a long run takes its number of rounds (docs/reliability.md).
constexpr const char* kRoundsVar = "LQS_TRANSACTION_CRASH_ROUNDS";

struct Oracle {
  std::set<std::string> order_pending, ordered, consume_pending, consumed, violations;
};

Oracle ReadOracle(const std::string& dir) {
  Oracle o;
  const std::map<std::string, std::set<std::string>*> sets = {
      {"order-pending", &o.order_pending},
      {"ordered", &o.ordered},
      {"consume-pending", &o.consume_pending},
      {"consumed", &o.consumed},
      {"violation", &o.violations}};
  ReadOracleEvents(
      dir, [&sets](const std::string& /*file*/, const std::string& event, const std::string& id) {
        if (auto it = sets.find(event); it != sets.end()) it->second->insert(id);
      });
  return o;
}

// What the database holds after a crash.
struct State {
  std::set<std::string> queued;  // bodies in "jobs": visible, in flight or delayed
  std::map<std::string, std::string> orders, results;
  std::optional<std::string> done_counter;
};

std::map<std::string, std::string> Table(Broker& broker, const char* table) {
  std::map<std::string, std::string> out;
  auto entries = broker.Scan(table, "");
  EXPECT_OK(entries);
  if (entries.ok()) {
    for (auto& e : *entries) out.emplace(std::move(e.key), std::move(e.value));
  }
  return out;
}

// Verify() is clean, no message is stored twice, the queue's counters equal
// its messages; then the tables.
void ReadState(Broker& broker, State* s) {
  ExpectVerifyClean(broker, "the database after the crash");
  auto jobs = broker.GetQueue("jobs");
  ASSERT_OK(jobs);
  int64_t stored = 0;
  ASSERT_OK((*jobs)->ScanMessages([&](const StoredMessage& m) {
    ++stored;
    EXPECT_TRUE(s->queued.insert(m.body).second) << m.body << " is stored twice in jobs";
    return true;
  }));
  auto stats = (*jobs)->GetStats();
  ASSERT_OK(stats);
  EXPECT_EQ(stats->visible + stats->in_flight + stats->delayed, stored)
      << "the counters of jobs disagree with its messages";
  s->orders = Table(broker, "orders");
  s->results = Table(broker, "results");
  auto counter = broker.Get("stats", "done");
  ASSERT_OK(counter);
  s->done_counter = *counter;
}

struct Check {
  size_t lost = 0;  // acknowledged commits not in the database
};

// The invariants; `acks_durable`: every acknowledged commit must be there.
Check CheckInvariants(const Oracle& o, const State& s, bool acks_durable) {
  Check c;
  for (const auto& id : o.violations) {
    ADD_FAILURE() << "a consumer holding " << id << "'s message found its result";
  }
  size_t problems = 0;
  auto problem = [&problems](const std::string& what) {
    if (++problems <= 10) ADD_FAILURE() << what;
  };
  for (const auto& [id, value] : s.orders) {
    if (value != "ACCEPTED") problem("order " + id + " holds " + value);
    if (!o.order_pending.count(id)) problem("order " + id + " was never committed");
    const bool queued = s.queued.count(id) != 0, done = s.results.count(id) != 0;
    if (queued && done) problem("order " + id + " has its result and is still queued");
    if (!queued && !done) problem("order " + id + " has neither its message nor its result");
  }
  for (const auto& id : s.queued) {
    if (!s.orders.count(id)) problem("message " + id + " has no order");
  }
  for (const auto& [id, value] : s.results) {
    if (value != "DONE") problem("result " + id + " holds " + value);
    if (!s.orders.count(id)) problem("result " + id + " has no order");
    if (!o.consume_pending.count(id)) problem("result " + id + " was never committed");
  }
  const std::string count = std::to_string(s.results.size());
  if (s.done_counter.value_or("0") != count) {
    problem("the counter says " + s.done_counter.value_or("nothing") + ", but " + count +
            " results are stored (a lost update or a torn commit)");
  }
  for (const auto& id : o.ordered) {
    if (!s.orders.count(id) && ++c.lost <= 10 && acks_durable) {
      ADD_FAILURE() << "acknowledged order " << id << " was lost";
    }
  }
  for (const auto& id : o.consumed) {
    if (!s.results.count(id) && ++c.lost <= 10 && acks_durable) {
      ADD_FAILURE() << "acknowledged result " << id << " was lost";
    }
  }
  EXPECT_EQ(problems, 0u) << "the tables and the queue disagree";
  if (acks_durable) {
    EXPECT_EQ(c.lost, 0u) << "acknowledged commits lost";
  }
  return c;
}

// After the last round: consumers in this process, on a ManualClock an hour
// ahead (every lease of the killed child has ended), consume what is left
// in transactions; then every order has its result and the queue is empty.
void Drain(const std::string& db, Durability durability) {
  auto clock = std::make_shared<ManualClock>(SystemClock().NowMillis());
  auto broker = OpenToCheck(db, durability, clock);
  ASSERT_OK(broker);
  clock->AdvanceSeconds(3600);
  auto jobs = (*broker)->GetQueue("jobs");
  ASSERT_OK(jobs);
  size_t drained = 0;
  for (;;) {
    ReceiveMessageRequest r;
    r.max_number_of_messages = 10;
    r.wait_time_seconds = 0;
    r.visibility_timeout = 600;
    auto got = (*jobs)->ReceiveMessage(r);
    ASSERT_OK(got);
    if (got->messages.empty()) break;
    for (const auto& m : got->messages) {
      auto tx = (*broker)->BeginTransaction();
      auto result = tx->Get("results", m.body);
      ASSERT_OK(result);
      EXPECT_FALSE(result->has_value()) << m.body << " is queued but has its result";
      auto count = tx->Get("stats", "done");
      ASSERT_OK(count);
      const int64_t n = count->has_value() ? std::stoll(**count) : 0;
      ASSERT_OK(tx->Put("results", m.body, "DONE"));
      ASSERT_OK(tx->Put("stats", "done", std::to_string(n + 1)));
      ASSERT_OK(tx->DeleteMessage("jobs", m.receipt_handle));
      ASSERT_OK(tx->Commit());
      ++drained;
    }
  }
  State s;
  ReadState(**broker, &s);
  EXPECT_TRUE(s.queued.empty());
  EXPECT_EQ(s.orders.size(), s.results.size()) << "orders without results after the drain";
  EXPECT_EQ(s.done_counter.value_or("0"), std::to_string(s.results.size()));
  ASSERT_OK((*broker)->Close());
  std::printf("[ drain    ] %zu left in jobs consumed; %zu orders, all with their results\n",
              drained, s.orders.size());
}

struct RoundsConfig {
  Durability durability = Durability::kProcess;
  int rounds = 20;
  bool power_cut = false;  // cut the power after each kill (tests/power_cut.h)
  bool drain = false;      // Drain() after the last round
};

// Runs the rounds: start the child on the same database with a new seed,
// let it work 100..600 ms after "ready", SIGKILL it (and cut the power),
// check. Returns the acknowledged commits lost in all.
size_t RunRounds(const RoundsConfig& cfg) {
  TempDir dir;
  const std::string db = dir.path() + "/db", oracle = dir.path() + "/oracle",
                    journal = dir.path() + "/journal";
  fs::create_directories(oracle);
  std::vector<std::string> env;
  if (cfg.power_cut) {
    env = {"LQS_POWER_LOSS_JOURNAL=" + journal, "LQS_CRASH_WRITE_BUFFER_BYTES=262144"};
    if (cfg.durability != Durability::kFsync) {
      // Mode process syncs nothing, not even the catalogue: create the queue
      // durably first (a clean Close), so that the cuts lose commits, not it.
      auto broker = OpenToCheck(db, cfg.durability);
      EXPECT_OK(broker);
      if (!broker.ok()) return 0;
      EXPECT_OK((*broker)->CreateQueue("jobs", {{"VisibilityTimeout", "2"}}, {}));
      EXPECT_OK((*broker)->Close());
    }
  }
  const uint64_t seed = std::random_device{}();
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  std::set<std::string> lost;
  for (int round = 0; round < cfg.rounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round) + " (" + DurabilityName(cfg.durability) +
                 (cfg.power_cut ? ", power cut" : "") + ")");
    const int run_ms = 100 + static_cast<int>(rng() % 501);
    RunChildAndKill(LQS_TRANSACTION_CRASH_CHILD,
                    {db, oracle, std::to_string(round + 1), DurabilityName(cfg.durability)},
                    std::chrono::milliseconds(run_ms), env);
    if (::testing::Test::HasFatalFailure()) return lost.size();
    PowerCutStats cut;
    if (cfg.power_cut) {
      std::string error;
      const bool torn_tails = rng() % 2 == 0;
      if (!ApplyPowerCut(journal, rng(), torn_tails, &cut, &error)) {
        ADD_FAILURE() << "power cut: " << error;
        return lost.size();
      }
    }
    const Oracle o = ReadOracle(oracle);
    State s;
    {
      auto broker = OpenToCheck(db, cfg.durability);
      EXPECT_OK(broker);
      if (!broker.ok()) return lost.size();
      ReadState(**broker, &s);
      EXPECT_OK((*broker)->Close());
    }
    const bool acks_durable = !cfg.power_cut || cfg.durability == Durability::kFsync;
    CheckInvariants(o, s, acks_durable);
    for (const auto& id : o.ordered) {
      if (!s.orders.count(id)) lost.insert("order " + id);
    }
    for (const auto& id : o.consumed) {
      if (!s.results.count(id)) lost.insert("result " + id);
    }
    if (::testing::Test::HasFailure()) return lost.size();
    std::printf(
        "[ round %2d ] killed after %3d ms%s: in all %zu orders and %zu results acked; now "
        "%zu orders, %zu results, %zu queued; %zu acked commits lost in all\n",
        round, run_ms,
        cfg.power_cut ? (", power cut (" + std::to_string(cut.bytes_dropped) + " bytes)").c_str()
                      : "",
        o.ordered.size(), o.consumed.size(), s.orders.size(), s.results.size(), s.queued.size(),
        lost.size());
    std::fflush(stdout);
  }
  if (cfg.drain) Drain(db, cfg.durability);
  return lost.size();
}

// Proves: a process committing order and consumer transactions from four
// threads (with conflicts on a shared counter and rollbacks), killed with
// SIGKILL at random moments, leaves a database that verifies clean in which
// the tables and the queue agree (see the file comment) and every
// acknowledged commit is present; consumers run afterwards finish every
// order exactly once.
TEST(TransactionCrashTest, KillNine) {
  RoundsConfig cfg;
  cfg.rounds = CrashRoundsFromEnv(kRoundsVar, 20);
  cfg.drain = true;
  RunRounds(cfg);
}

TEST(TransactionCrashTest, KillNineFsync) {
  RoundsConfig cfg;
  cfg.durability = Durability::kFsync;
  cfg.rounds = CrashRoundsFromEnv(kRoundsVar, 20, 4);
  RunRounds(cfg);
}

// The same after a simulated power cut following each kill, in mode fsync:
// a commit is synced before Commit() returns, so none acknowledged is lost.
TEST(PowerLossTransactions, FsyncKeepsEveryAcknowledgedCommit) {
  RoundsConfig cfg;
  cfg.durability = Durability::kFsync;
  cfg.rounds = CrashRoundsFromEnv(kRoundsVar, 20, 2);
  cfg.power_cut = true;
  cfg.drain = true;
  RunRounds(cfg);
}

// In mode process a power cut takes acknowledged commits (the proof that
// the simulation drops what was not synced), but whole: the tables and the
// queue still agree after every cut.
TEST(PowerLossTransactions, ProcessModeLosesWholeCommits) {
  RoundsConfig cfg;
  cfg.rounds = CrashRoundsFromEnv(kRoundsVar, 20, 4);
  cfg.power_cut = true;
  EXPECT_GT(RunRounds(cfg), 0u) << "no power cut took an acknowledged commit";
}

}  // namespace
}  // namespace lqs::testing
