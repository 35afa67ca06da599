// tests/crash_check.h — the check after a crash of tests/crash_child.cc
// (kill -9 in durability_test.cc, a power cut in power_loss.cc): the
// database against the oracle the child wrote outside it.
//
// The check opens the database and runs Broker::Verify() (every message in
// exactly one state, counters equal to the data, every record verifies),
// then drains a copy on a ManualClock an hour ahead (every lease over):
// "work" and "work-dlq" are received without deleting, "work.fifo" is
// received and deleted in order. It finds:
//   - problems: Verify() findings, a message stored twice (in one queue or
//     two), a message never sent, counters that disagree with the drain, a
//     FIFO group drained out of order, and (when deletes are durable) a
//     message whose delete was acknowledged back in its queue;
//   - lost: acknowledged sends that are neither stored nor being deleted
//     when the child died (a loss only where sends are durable).
//
// No gtest here: the caller decides what is a failure.
//
// Thread safety: none needed (one call at a time, on a database no one
// else has open).

#ifndef LQS_TESTS_CRASH_CHECK_H_
#define LQS_TESTS_CRASH_CHECK_H_

#include <cstddef>
#include <string>
#include <vector>

#include "lqs/lqs.h"

namespace lqs::testing {

struct CrashCheck {
  std::vector<std::string> problems;  // empty: every promise checked held
  std::vector<std::string> lost;      // acknowledged sends not found
  size_t acked = 0;                   // acknowledged sends in the oracle
  size_t deleted = 0;                 // acknowledged deletes (all queues)
  size_t present = 0;                 // messages stored (all queues)
  size_t in_dlq = 0;                  // ... of them in (or bound for) the DLQ
  size_t in_fifo = 0;                 // ... of them in the FIFO queue
  size_t pending_only_present = 0;    // stored, sent but never acknowledged
};

// Checks the database at `db` against the oracle files in `oracle_dir`,
// using `scratch` for the drained copy. `deletes_durable`: an acknowledged
// delete must stay done (kill -9 in the modes with a log; not a power cut
// in mode fsync, which syncs sends only).
CrashCheck CheckCrashedDatabase(const std::string& db, const std::string& oracle_dir,
                                const std::string& scratch, Durability durability,
                                bool deletes_durable);

}  // namespace lqs::testing

#endif  // LQS_TESTS_CRASH_CHECK_H_
