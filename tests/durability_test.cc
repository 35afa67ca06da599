// The durability proof of the core library against kill -9: recovery
// checked against an external oracle (in the manner of RocksDB's db_stress),
// and the cross-process database lock. Power loss: power_loss.cc; full and
// failing disks: disk_fault_test.cc.
//
// The crash tests drive tests/crash_child.cc (path: LQS_CRASH_CHILD), which
// sends, receives, deletes and changes visibility from several threads on a
// standard queue, its DLQ and a FIFO queue, and logs what it did to
// per-thread oracle files. After each SIGKILL the test opens the database
// and checks it against the oracle (tests/crash_check.h).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "tests/crash_check.h"
#include "tests/crash_child_support.h"
#include "tests/crash_harness.h"
#include "tests/testutil.h"

namespace lqs::testing {
namespace {

namespace fs = std::filesystem;

// Where a long run takes its number of rounds (docs/reliability.md).
constexpr const char* kRoundsVar = "LQS_CRASH_ROUNDS";

struct RoundStats {
  size_t acked = 0, deleted = 0, present = 0, in_dlq = 0, in_fifo = 0, pending_only_present = 0;
};

// The checks after one SIGKILL (tests/crash_check.h): the database opens,
// verifies clean, holds no message twice and nothing never sent, its
// counters equal what a drain finds, and FIFO groups drain in order. In the
// durable modes it also holds every acknowledged and not deleted message,
// and nothing whose delete was acknowledged. (kNone promises no
// durability, only consistency.)
void CheckAfterCrash(const std::string& db, const std::string& oracle_dir,
                     const std::string& scratch, Durability durability, RoundStats* stats) {
  const CrashCheck c = CheckCrashedDatabase(db, oracle_dir, scratch, durability,
                                            /*deletes_durable=*/true);
  for (size_t i = 0; i < c.problems.size() && i < 10; ++i) ADD_FAILURE() << c.problems[i];
  EXPECT_TRUE(c.problems.empty()) << c.problems.size() << " problems after the crash";
  stats->acked = c.acked;
  stats->deleted = c.deleted;
  stats->present = c.present;
  stats->in_dlq = c.in_dlq;
  stats->in_fifo = c.in_fifo;
  stats->pending_only_present = c.pending_only_present;
  if (durability == Durability::kNone) return;
  for (size_t i = 0; i < c.lost.size() && i < 10; ++i) {
    ADD_FAILURE() << "acknowledged message " << c.lost[i] << " was lost";
  }
  EXPECT_EQ(c.lost.size(), 0u) << "acknowledged sends lost in the crash";
}

// Runs `rounds` of: start the child on the same database with a new seed,
// let it work 100..600 ms after "ready", SIGKILL it, check the database.
// `child_env` ("NAME=value") is added to the child's environment.
void RunKillNineRounds(Durability durability, int rounds,
                       const std::vector<std::string>& child_env = {}) {
  TempDir dir;
  const std::string db = dir.path() + "/db", oracle = dir.path() + "/oracle";
  fs::create_directories(oracle);
  if (durability == Durability::kNone) {
    // kNone keeps only what a clean Close() flushed: create the queues (as
    // the child would) and close, so that a crash cannot take them too.
    auto broker = OpenToCheck(db, durability);
    ASSERT_OK(broker);
    ASSERT_OK(CreateCrashQueues(**broker));
    ASSERT_OK((*broker)->Close());
  }
  std::mt19937 rng(std::random_device{}());
  for (int round = 0; round < rounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round) + " (" + DurabilityName(durability) + ")");
    const int run_ms = 100 + static_cast<int>(rng() % 501);
    ASSERT_NO_FATAL_FAILURE(RunChildAndKill(
        LQS_CRASH_CHILD, {db, oracle, std::to_string(round + 1), DurabilityName(durability)},
        std::chrono::milliseconds(run_ms), child_env));
    RoundStats stats;
    CheckAfterCrash(db, oracle, dir.path(), durability, &stats);
    if (::testing::Test::HasFailure()) return;
    std::printf(
        "[ round %2d ] %s: killed after %3d ms; in all %zu sends acked, %zu deletes; "
        "now %zu stored (%zu in or bound for the DLQ, %zu FIFO, %zu sent but not acked)\n",
        round, DurabilityName(durability), run_ms, stats.acked, stats.deleted, stats.present,
        stats.in_dlq, stats.in_fifo, stats.pending_only_present);
  }
}

// Proves, in mode `process`: after kill -9 at a random moment, while sends,
// receives, deletes, visibility changes, lease expiries, DLQ moves and
// background maintenance run concurrently, the database opens, Verify() is
// clean, no acknowledged send is lost, no message is stored twice, no
// deleted message comes back, nothing unsent appears, and the counters equal
// the data. The child continues on the same database each round, so later
// rounds recover databases that were themselves recovered.
TEST(DurabilityTest, KillNineRecovery) {
  RunKillNineRounds(Durability::kProcess, CrashRoundsFromEnv(kRoundsVar, 20));
}

// The same in mode `fsync` (group-committed synced sends).
TEST(DurabilityTest, KillNineRecoveryFsync) {
  RunKillNineRounds(Durability::kFsync, CrashRoundsFromEnv(kRoundsVar, 20, 4));
}

// The same with deferred commits (lqs/commit_scope.h), as lqsd runs: every
// thread works in a CommitScope and counts a call as acknowledged only after
// the Commit() that follows it, one to three calls later. Proves that a
// Commit() makes every earlier change of the thread durable, and that
// changes still waiting for one are lost whole or kept whole, never in part.
TEST(DurabilityTest, KillNineRecoveryDeferredCommits) {
  RunKillNineRounds(Durability::kProcess, CrashRoundsFromEnv(kRoundsVar, 20, 2),
                    {"LQS_CRASH_DEFERRED_COMMITS=1"});
}

TEST(DurabilityTest, KillNineRecoveryDeferredCommitsFsync) {
  RunKillNineRounds(Durability::kFsync, CrashRoundsFromEnv(kRoundsVar, 20, 4),
                    {"LQS_CRASH_DEFERRED_COMMITS=1"});
}

// Proves that in mode `none`, where a crash may lose everything since the
// last flush, what remains after kill -9 is still consistent: every message
// in exactly one state, counters equal to the data, no message twice. Small
// memtables (64 KiB) make RocksDB flush column families while the child
// runs, so the state on disk is whatever those flushes left.
//
// FAILS at the time of writing (bug): with the WAL disabled, RocksDB
// flushes each column family on its own (DBOptions::atomic_flush is off in
// lib/storage/database.cc), so after a kill the column families are from
// different moments: Verify() reports messages in no state, leases without
// messages and counters that disagree; without the pre-created queues, even
// "orphan data" of queues whose catalogue entry was never flushed.
TEST(DurabilityTest, KillNineNoneModeStaysConsistent) {
  RunKillNineRounds(Durability::kNone, CrashRoundsFromEnv(kRoundsVar, 20, 4),
                    {"LQS_CRASH_WRITE_BUFFER_BYTES=65536"});
}

// Proves that a second process cannot open a database in use: Broker::Open
// fails with kDatabaseLocked and says why, instead of corrupting it.
TEST(DurabilityTest, DatabaseLockedByAnotherProcess) {
  TempDir dir;
  const std::string db = dir.path() + "/db";
  ChildProcess child(LQS_CRASH_CHILD);
  std::string error;
  ASSERT_TRUE(child.Start({db, dir.path() + "/oracle", "1", "process"}, &error)) << error;
  ASSERT_TRUE(child.WaitReady(std::chrono::seconds(20), &error)) << error;

  Options o = TestProfileOptions();
  o.path = db;
  o.background_maintenance = false;
  auto broker = Broker::Open(o);
  ASSERT_FALSE(broker.ok());
  EXPECT_EQ(broker.status().code(), ErrorCode::kDatabaseLocked) << broker.status().ToString();
  EXPECT_NE(broker.status().message().find("in use by another process"), std::string::npos)
      << broker.status().ToString();

  EXPECT_EQ(child.Kill(), "killed by signal 9");
  // Once the holder is gone the lock is released with it.
  auto reopened = Broker::Open(o);
  ASSERT_OK(reopened);
  ExpectVerifyClean(**reopened, "the database after its holder was killed");
  EXPECT_OK((*reopened)->Close());
}

}  // namespace
}  // namespace lqs::testing
