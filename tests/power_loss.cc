// tests/power_loss.cc — the simulated power-loss campaign (scripts/power-loss.sh).
//
//   lqs_power_loss [--rounds N] [--durability fsync|process] [--seed S]
//                  [--expect-loss] [--dir DIR] [--child PATH]
//
// Each round starts tests/crash_child.cc on the same database over a
// journaling FaultFileSystem (tests/fault_fs.h): two producers and two
// consumers on a standard queue, one on its DLQ, a producer and a consumer
// on a FIFO queue (singles and batches, deletes, visibility changes,
// redeliveries, DLQ moves, background maintenance), with small memtables so
// that RocksDB flushes and compacts as it goes, and, every other round at
// random, deferred commits as lqsd runs them. After 100-600 ms the round
// SIGKILLs the child and cuts the power (tests/power_cut.h: every file back
// to what was synced, half the time keeping a random part of each unsynced
// tail; unsynced directory entries gone), then checks the database against
// the oracle the child wrote outside the simulated disk (tests/crash_check.h):
// it opens, Verify() is clean, no message is stored twice or in two states,
// nothing unsent appears, counters equal the data, FIFO groups drain in
// order, and no acknowledged send is lost. (An acknowledged delete may come
// back: mode fsync syncs sends, not deletes, and a lost delete only
// redelivers.) The next round continues on the recovered database.
//
// The last line is "N power cuts, M acknowledged sends, K lost". Exit 0
// when no check failed and K is 0, or K > 0 with --expect-loss (mode
// process: the proof that the simulation does drop what was not synced);
// 1 otherwise; 2 for a bad command line.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/crash_check.h"
#include "tests/crash_child_support.h"
#include "tests/crash_harness.h"
#include "tests/power_cut.h"
#include "tests/testutil.h"

namespace lqs::testing {
namespace {

namespace fs = std::filesystem;

struct Flags {
  int rounds = 50;
  Durability durability = Durability::kFsync;
  std::string durability_name = "fsync";
  uint64_t seed = 0;
  bool expect_loss = false;
  std::string dir;
  std::string child = LQS_CRASH_CHILD;  // tests/crash_child.cc, as built
};

[[noreturn]] void Usage(const char* why) {
  std::fprintf(stderr,
               "lqs_power_loss: %s\nusage: lqs_power_loss [--rounds N] [--durability "
               "fsync|process] [--seed S] [--expect-loss] [--dir DIR] [--child PATH]\n",
               why);
  std::exit(2);
}

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  f.seed = std::random_device{}();
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Usage(("missing value for " + arg).c_str());
      return argv[++i];
    };
    if (arg == "--rounds") {
      f.rounds = std::atoi(value().c_str());
      if (f.rounds < 1) Usage("--rounds must be a positive number");
    } else if (arg == "--durability") {
      f.durability_name = value();
      if (f.durability_name == "fsync") {
        f.durability = Durability::kFsync;
      } else if (f.durability_name == "process") {
        f.durability = Durability::kProcess;
      } else {
        Usage("--durability must be fsync or process");
      }
    } else if (arg == "--seed") {
      f.seed = std::strtoull(value().c_str(), nullptr, 10);
    } else if (arg == "--expect-loss") {
      f.expect_loss = true;
    } else if (arg == "--dir") {
      f.dir = value();
    } else if (arg == "--child") {
      f.child = value();
    } else {
      Usage(("unknown argument " + arg).c_str());
    }
  }
  return f;
}

int Run(const Flags& flags) {
  std::unique_ptr<TempDir> temp;
  std::string dir = flags.dir;
  if (dir.empty()) {
    temp = std::make_unique<TempDir>();
    dir = temp->path();
  }
  const std::string db = dir + "/db", oracle = dir + "/oracle", journal = dir + "/journal";
  fs::create_directories(oracle);
  std::printf("power loss: %d rounds, durability %s, seed %llu, in %s\n", flags.rounds,
              flags.durability_name.c_str(), static_cast<unsigned long long>(flags.seed),
              dir.c_str());
  if (flags.durability != Durability::kFsync) {
    // Mode process syncs nothing, not even the catalogue: make the queues
    // durable first (a clean Close), so that the rounds lose messages, not
    // the queues.
    auto broker = OpenToCheck(db, flags.durability);
    if (!broker.ok() || !CreateCrashQueues(**broker).ok() || !(*broker)->Close().ok()) {
      std::printf("cannot create the queues in %s\n", db.c_str());
      return 1;
    }
  }

  std::mt19937_64 rng(flags.seed);
  std::set<std::string> lost;
  size_t acked = 0;
  int cuts = 0;
  bool failed = false;
  for (int round = 0; round < flags.rounds && !failed; ++round) {
    const int run_ms = 100 + static_cast<int>(rng() % 501);
    const bool deferred = rng() % 2 == 0;
    const bool torn_tails = rng() % 2 == 0;
    const uint64_t cut_seed = rng();
    {
      ChildProcess child(flags.child);
      std::string error;
      std::vector<std::string> env = {"LQS_POWER_LOSS_JOURNAL=" + journal,
                                      "LQS_CRASH_WRITE_BUFFER_BYTES=262144"};
      if (deferred) env.emplace_back("LQS_CRASH_DEFERRED_COMMITS=1");
      if (!child.Start({db, oracle, std::to_string(round + 1), flags.durability_name}, &error,
                       env) ||
          !child.WaitReady(std::chrono::seconds(20), &error)) {
        std::printf("round %d: the child did not start: %s\n", round, error.c_str());
        failed = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(run_ms));
      const std::string how = child.Kill();
      if (how != "killed by signal 9") {
        std::printf("round %d: the child died before the power cut (%s)\n", round, how.c_str());
        failed = true;
        break;
      }
    }
    PowerCutStats cut;
    std::string error;
    if (!ApplyPowerCut(journal, cut_seed, torn_tails, &cut, &error)) {
      std::printf("round %d: power cut failed: %s\n", round, error.c_str());
      failed = true;
      break;
    }
    ++cuts;
    const CrashCheck check = CheckCrashedDatabase(db, oracle, dir, flags.durability,
                                                  /*deletes_durable=*/false);
    for (size_t i = 0; i < check.problems.size() && i < 10; ++i) {
      std::printf("round %d: PROBLEM: %s\n", round, check.problems[i].c_str());
    }
    if (!check.problems.empty()) failed = true;
    size_t new_losses = 0;
    for (const auto& id : check.lost) new_losses += lost.insert(id).second ? 1 : 0;
    acked = check.acked;
    std::printf(
        "[ cut %3d ] after %3d ms%s: %lld files cut (%lld bytes), %lld entries gone, "
        "%lld renames undone%s; %zu acked in all, %zu stored (%zu DLQ, %zu FIFO), "
        "%zu newly lost\n",
        round, run_ms, deferred ? ", deferred commits" : "",
        static_cast<long long>(cut.files_truncated), static_cast<long long>(cut.bytes_dropped),
        static_cast<long long>(cut.files_removed), static_cast<long long>(cut.renames_undone),
        torn_tails ? ", torn tails" : "", check.acked, check.present, check.in_dlq, check.in_fifo,
        new_losses);
    if (!flags.expect_loss) {
      for (const auto& id : check.lost) std::printf("round %d: LOST: %s\n", round, id.c_str());
    }
    std::fflush(stdout);
  }
  std::printf("%d power cuts, %zu acknowledged sends, %zu lost\n", cuts, acked, lost.size());
  if (failed) return 1;
  return flags.expect_loss ? (lost.empty() ? 1 : 0) : (lost.empty() ? 0 : 1);
}

}  // namespace
}  // namespace lqs::testing

int main(int argc, char** argv) { return lqs::testing::Run(lqs::testing::ParseFlags(argc, argv)); }
