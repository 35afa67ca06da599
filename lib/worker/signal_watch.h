// lib/worker/signal_watch.h — SIGTERM/SIGINT turned into a call on a thread.
//
// Install() sets handlers for SIGTERM and SIGINT that only write a byte to
// a pipe (async-signal-safe); a dedicated thread reads the pipe and calls
// `on_signal` there, never in signal context. At most one SignalWatch may
// be installed per process. The destructor restores the previous handlers
// and joins the thread.
//
// Thread safety: Install and the destructor must not run concurrently.

#ifndef LQS_LIB_WORKER_SIGNAL_WATCH_H_
#define LQS_LIB_WORKER_SIGNAL_WATCH_H_

#include <functional>
#include <thread>

#include <signal.h>

#include "lqs/status.h"

namespace lqs::worker {

class SignalWatch {
 public:
  SignalWatch() = default;
  ~SignalWatch();
  SignalWatch(const SignalWatch&) = delete;
  SignalWatch& operator=(const SignalWatch&) = delete;

  // Errors: InvalidParameterValue when this or another SignalWatch is
  // installed; kInternal when a pipe or sigaction call fails.
  Status Install(std::function<void(int signo)> on_signal);

 private:
  void Run();

  std::function<void(int)> on_signal_;
  int read_fd_ = -1;
  int write_fd_ = -1;
  bool installed_ = false;
  struct sigaction old_term_ {};
  struct sigaction old_int_ {};
  std::thread thread_;
};

}  // namespace lqs::worker

#endif  // LQS_LIB_WORKER_SIGNAL_WATCH_H_
