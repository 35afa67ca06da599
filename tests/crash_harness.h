// tests/crash_harness.h — the test-process side of the SIGKILL crash tests
// (durability_test.cc, worker_crash_test.cc): starting a child process,
// waiting for it to say "ready", killing it, and reading the oracle files
// it wrote (tests/crash_child_support.h is the child's side).
//
// The contract with a child: it takes its arguments on the command line,
// writes "ready\n" to stdout once its work runs, never exits on its own,
// and logs what it did to append-only files in an oracle directory, one
// line "<event> <value>\n" per event, each line a single write(2).

#ifndef LQS_TESTS_CRASH_HARNESS_H_
#define LQS_TESTS_CRASH_HARNESS_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <sys/types.h>

#include "lqs/lqs.h"

namespace lqs::testing {

// The number of rounds a crash test runs: the environment variable
// `env_var` when it holds a positive integer, else `default_rounds`; divided
// by `divisor` (a slower variant runs a share of the rounds), and at least 1.
int CrashRoundsFromEnv(const char* env_var, int default_rounds, int divisor = 1);

// One run of a child program, its stdout read through a pipe. The
// destructor kills it if the test did not.
class ChildProcess {
 public:
  explicit ChildProcess(std::string program);
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();

  // Spawns the program with `args` and this process's environment plus
  // `extra_env` ("NAME=value"); true on success (*error says why not).
  bool Start(const std::vector<std::string>& args, std::string* error,
             const std::vector<std::string>& extra_env = {});

  // Waits (up to `timeout`) for the line "ready". False if the child died
  // or said nothing in time (*error says which).
  bool WaitReady(std::chrono::milliseconds timeout, std::string* error);

  // SIGKILLs the child and reaps it; returns how it ended ("killed by
  // signal 9" is the expected answer: anything else means it died first).
  std::string Kill();

 private:
  std::string Reap();

  const std::string program_;
  pid_t pid_ = -1;
  int out_fd_ = -1;
};

// One crash round's child: starts `program` with `args` (and `extra_env`),
// waits up to 20 s for "ready", lets it work for `run_for` (the random point
// in its work at which it dies: the point of the test, not a wait for a
// timeout) and SIGKILLs it. A fatal test failure if it does not start, is
// not ready in time, or died before the SIGKILL (check HasFatalFailure()).
void RunChildAndKill(const std::string& program, const std::vector<std::string>& args,
                     std::chrono::milliseconds run_for,
                     const std::vector<std::string>& extra_env = {});

// Calls `on_event(file_name, event, value)` for each line "<event> <value>"
// of every file in the oracle directory `dir`, file by file. A torn last
// line (no '\n' after it: impossible with one small write(2) per event,
// but cheap to tolerate) and lines without a space are skipped.
void ReadOracleEvents(
    const std::string& dir,
    const std::function<void(const std::string& file_name, const std::string& event,
                             const std::string& value)>& on_event);

// Opens the database at `path` as the checks after a kill do: background
// maintenance off (nothing changes but what the test does), `durability`,
// and `clock` when given (else the system clock).
StatusOr<std::unique_ptr<Broker>> OpenToCheck(const std::string& path,
                                              Durability durability = Durability::kProcess,
                                              std::shared_ptr<Clock> clock = nullptr);

// Fails the test if broker.Verify() finds problems (lists the first ten);
// `what` names the database in the message.
void ExpectVerifyClean(Broker& broker, const std::string& what);

}  // namespace lqs::testing

#endif  // LQS_TESTS_CRASH_HARNESS_H_
