#include "lib/sweep/maintenance.h"

namespace lqs::sweep {

MaintenanceThread::MaintenanceThread(std::chrono::milliseconds interval, std::function<void()> work)
    : interval_(interval), work_(std::move(work)), thread_([this] { Run(); }) {}

MaintenanceThread::~MaintenanceThread() { Stop(); }

void MaintenanceThread::Stop() {
  {
    notify::MutexLock lock(&mu_);
    stop_ = true;
  }
  cv_.SignalAll();
  if (thread_.joinable()) thread_.join();
}

void MaintenanceThread::Run() {
  mu_.Lock();
  while (!stop_) {
    // Sleeps one interval unless stopped meanwhile.
    const auto until = std::chrono::steady_clock::now() + interval_;
    while (!stop_ && cv_.WaitUntil(&mu_, until)) {
    }
    if (stop_) break;
    mu_.Unlock();
    work_();
    mu_.Lock();
  }
  mu_.Unlock();
}

}  // namespace lqs::sweep
