// tests/power_cut.h — simulated power loss: after the process that wrote a
// database through a journaling FaultFileSystem (tests/fault_fs.h) was
// killed, put its files in the state that a disk keeping only what was
// synced would show after a power cut. The model is LevelDB's
// fault-injection test and RocksDB's FaultInjectionTestFS:
//
//   - each file written since the journal began goes back to the length its
//     last Sync/Fsync covered (0 if none), optionally keeping a random part
//     of its unsynced tail (a write that reached the platter in part);
//   - files created since their directory's last sync vanish, and renames
//     made since then are undone (the old contents of a replaced file come
//     back from the journal's backup);
//   - deletions stay done (a deleted obsolete file that came back would only
//     be found obsolete again), and files the journal never names were
//     durable before it began.
//
// The journal's paths contain no spaces (the test makes its directories).
//
// Thread safety: none needed; call it while nothing has the files open.

#ifndef LQS_TESTS_POWER_CUT_H_
#define LQS_TESTS_POWER_CUT_H_

#include <cstdint>
#include <string>

namespace lqs::testing {

struct PowerCutStats {
  int64_t files_truncated = 0;
  int64_t bytes_dropped = 0;
  int64_t files_removed = 0;  // created since their directory's last sync
  int64_t renames_undone = 0;
};

// Applies the journal at `journal_path` to the files it names, then removes
// the journal and its backups, so that the next process starts a new one.
// `seed`: with `torn_tails`, chooses how much of each unsynced tail stays.
// Returns false with *error set if the journal or a file could not be
// handled (the disk's state is then unknown: the test must fail).
bool ApplyPowerCut(const std::string& journal_path, uint64_t seed, bool torn_tails,
                   PowerCutStats* stats, std::string* error);

}  // namespace lqs::testing

#endif  // LQS_TESTS_POWER_CUT_H_
