#include "lib/sweep/maintenance.h"

namespace lqs::sweep {

MaintenanceThread::MaintenanceThread(std::chrono::milliseconds interval,
                                     std::function<void()> work)
    : interval_(interval), work_(std::move(work)), thread_([this] { Run(); }) {}

MaintenanceThread::~MaintenanceThread() { Stop(); }

void MaintenanceThread::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void MaintenanceThread::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (cv_.wait_for(lock, interval_, [this] { return stop_; })) break;
    lock.unlock();
    work_();
    lock.lock();
  }
}

}  // namespace lqs::sweep
