#include "lib/worker/signal_watch.h"

#include <atomic>
#include <cstring>
#include <string>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace lqs::worker {

namespace {

// The write end of the installed watch's pipe; -1 when none is installed.
std::atomic<int> g_write_fd{-1};
constexpr char kQuit = 'q';

extern "C" void OnSignal(int signo) {
  const int saved_errno = errno;
  const int fd = g_write_fd.load();
  if (fd >= 0) {
    const char byte = static_cast<char>(signo);
    ssize_t n = write(fd, &byte, 1);  // full pipe: a stop is pending anyway
    (void)n;
  }
  errno = saved_errno;
}

Status Errno(const std::string& what) {
  return Status(ErrorCode::kInternal, what + ": " + std::strerror(errno));
}

}  // namespace

Status SignalWatch::Install(std::function<void(int)> on_signal) {
  if (installed_) {
    return Status(ErrorCode::kInvalidParameterValue,
                  "signal handlers are already installed by this worker");
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return Errno("pipe2");
  int expected = -1;
  if (!g_write_fd.compare_exchange_strong(expected, fds[1])) {
    close(fds[0]);
    close(fds[1]);
    return Status(ErrorCode::kInvalidParameterValue,
                  "another worker in this process already installed signal handlers");
  }
  read_fd_ = fds[0];
  write_fd_ = fds[1];
  on_signal_ = std::move(on_signal);

  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  if (sigaction(SIGTERM, &sa, &old_term_) != 0) {
    Status st = Errno("sigaction(SIGTERM)");
    g_write_fd.store(-1);
    close(read_fd_);
    close(write_fd_);
    read_fd_ = write_fd_ = -1;
    return st;
  }
  if (sigaction(SIGINT, &sa, &old_int_) != 0) {
    Status st = Errno("sigaction(SIGINT)");
    sigaction(SIGTERM, &old_term_, nullptr);
    g_write_fd.store(-1);
    close(read_fd_);
    close(write_fd_);
    read_fd_ = write_fd_ = -1;
    return st;
  }
  installed_ = true;
  thread_ = std::thread([this] { Run(); });
  return Status::OK();
}

void SignalWatch::Run() {
  for (;;) {
    pollfd p{read_fd_, POLLIN, 0};
    if (poll(&p, 1, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    char buf[16];
    const ssize_t n = read(read_fd_, buf, sizeof buf);
    if (n <= 0) {
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      return;
    }
    for (ssize_t i = 0; i < n; ++i) {
      if (buf[i] == kQuit) return;
      on_signal_(static_cast<unsigned char>(buf[i]));
    }
  }
}

SignalWatch::~SignalWatch() {
  if (!installed_) return;
  sigaction(SIGTERM, &old_term_, nullptr);
  sigaction(SIGINT, &old_int_, nullptr);
  g_write_fd.store(-1);
  // Tell the thread to quit (blocking write: the quit byte must get there).
  const int flags = fcntl(write_fd_, F_GETFL);
  fcntl(write_fd_, F_SETFL, flags & ~O_NONBLOCK);
  const char quit = kQuit;
  ssize_t n;
  do {
    n = write(write_fd_, &quit, 1);
  } while (n < 0 && errno == EINTR);
  if (thread_.joinable()) thread_.join();
  close(read_fd_);
  close(write_fd_);
}

}  // namespace lqs::worker
