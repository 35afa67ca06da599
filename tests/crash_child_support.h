// tests/crash_child_support.h — the child side of the SIGKILL crash tests
// (crash_child.cc, worker_crash_child.cc; tests/crash_harness.h is the test
// process's side): dying loudly, the append-only oracle log, and the
// database and queues a child works on.
//
// A child never exits on its own: every failure is fatal at once (Die), and
// the test sees it as a child that ended before its SIGKILL.

#ifndef LQS_TESTS_CRASH_CHILD_SUPPORT_H_
#define LQS_TESTS_CRASH_CHILD_SUPPORT_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/faulty_broker.h"

#include "lqs/lqs.h"

namespace lqs::testing {

// Prints "<program name>: <what>" to stderr and ends the process with
// status 2 at once (std::_Exit: no destructors while other threads run).
[[noreturn]] void Die(const std::string& what);

// The arguments every child takes first: <db_dir> <oracle_dir> <seed>.
struct ChildArgs {
  std::string db_dir;
  std::string oracle_dir;  // created if missing
  uint64_t seed = 0;       // a new one each round
  std::string seed_text;   // `seed` in decimal (file names, message ids)
};

// Reads argv as "<db_dir> <oracle_dir> <seed>" and `extra_args` more
// arguments (named in `extra_usage`), which the caller reads from argv[4]
// on; prints the usage and exits with status 2 on a wrong count. Creates
// the oracle directory (Die()s if it cannot).
ChildArgs ParseChildArgs(int argc, char** argv, int extra_args = 0, const char* extra_usage = "");

// The Options a child opens its database with: `args.db_dir`, `durability`,
// the real clock and background maintenance every 200 ms (so that
// maintenance runs too when the child is killed).
Options ChildOptions(const ChildArgs& args, Durability durability);

// An append-only oracle file (opened with O_APPEND, created if missing).
// Each Record() is one write(2) without fsync: the oracle needs to survive
// a kill of the process, not a power loss, and the kernel keeps what was
// written. Several threads may share one. Every failure Die()s.
class OracleLog {
 public:
  explicit OracleLog(const std::string& path);
  ~OracleLog();
  OracleLog(const OracleLog&) = delete;
  OracleLog& operator=(const OracleLog&) = delete;

  // "<event> <value>\n".
  void Record(const char* event, const std::string& value);
  // "<event> <value>\n" for every value, all in one write (none if empty).
  void Record(const char* event, const std::vector<std::string>& values);

 private:
  void Append(const std::string& lines);

  int fd_ = -1;
};

// Broker::Open, or Die().
std::unique_ptr<Broker> OpenOrDie(const Options& options);

// A child's database and, for simulated power loss, the file system under it
// (fs and env are null when the child runs without a journal).
using ChildDatabase = FaultyBroker;

// Opens `options.path` as a crash child does: with LQS_POWER_LOSS_JOURNAL
// set, on a journaling FaultFileSystem (tests/fault_fs.h) that records what
// was synced, for the power cut the test applies after the kill; else
// plainly. LQS_CRASH_WRITE_BUFFER_BYTES, when set, overrides
// Options::write_buffer_bytes. Die()s if the database does not open.
ChildDatabase OpenChildDatabase(Options options);

// A queue and its dead-letter queue.
struct QueueWithDlq {
  std::shared_ptr<Queue> queue;
  std::shared_ptr<Queue> dlq;
};

// Creates (or reuses, with the same attributes) the queue `dlq_name`, then
// the queue `name` with the VisibilityTimeout `visibility_timeout_seconds`
// and a RedrivePolicy to it after `max_receive_count` receives.
StatusOr<QueueWithDlq> CreateQueueWithDlq(Broker& broker, const std::string& name,
                                          const std::string& dlq_name,
                                          int visibility_timeout_seconds, int max_receive_count);

// The queues of tests/crash_child.cc: "work" (VisibilityTimeout 2 s,
// RedrivePolicy maxReceiveCount 3 to "work-dlq"), its DLQ, and the FIFO
// queue "work.fifo" (VisibilityTimeout 2 s).
inline constexpr const char* kCrashWorkQueue = "work";
inline constexpr const char* kCrashDeadLetterQueue = "work-dlq";
inline constexpr const char* kCrashFifoQueue = "work.fifo";
struct CrashQueues {
  std::shared_ptr<Queue> work;
  std::shared_ptr<Queue> dlq;
  std::shared_ptr<Queue> fifo;
};
// Creates (or reuses) them; the child calls it, and so does a test whose
// database must have them before any crash (kNone, power cuts in mode
// process).
StatusOr<CrashQueues> CreateCrashQueues(Broker& broker);

// A producer's pacing, called at the top of its loop step `step`: every
// tenth step waits while `q` has more than `max_backlog` visible messages
// (so that the test's drain of the database stays fast however many rounds
// run on it), then every step pauses `pause`.
void PaceProducer(Queue& q, int64_t step, int64_t max_backlog,
                  std::chrono::milliseconds pause = std::chrono::milliseconds(1));

// Prints "ready" on stdout (what the test waits for) and flushes it.
void SignalReady();

// A child's worker threads, each with its own oracle log
// "<oracle_dir>/<seed>-<name>.log". Call it from the main thread only.
class ChildThreads {
 public:
  explicit ChildThreads(const ChildArgs& args) : args_(args) {}
  ChildThreads(const ChildThreads&) = delete;
  ChildThreads& operator=(const ChildThreads&) = delete;

  // Opens the log `name` and runs fn(log) on a new thread.
  void Start(const std::string& name, std::function<void(OracleLog&)> fn);
  // SignalReady(), then waits for the threads, which run until the SIGKILL.
  void RunUntilKilled();

 private:
  const ChildArgs& args_;
  std::vector<std::unique_ptr<OracleLog>> logs_;
  std::vector<std::thread> threads_;
};

}  // namespace lqs::testing

#endif  // LQS_TESTS_CRASH_CHILD_SUPPORT_H_
