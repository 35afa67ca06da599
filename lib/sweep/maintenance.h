// lib/sweep/maintenance.h — a background thread that calls a function every
// interval (real time) until stopped. The Broker gives it RunMaintenance:
// retention expiry on idle queues, move-task progress, space reclamation.
// Correctness never depends on it; it only keeps idle queues tidy.
//
// Thread safety: Start/Stop from one owner thread.

#ifndef LQS_LIB_SWEEP_MAINTENANCE_H_
#define LQS_LIB_SWEEP_MAINTENANCE_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace lqs::sweep {

class MaintenanceThread {
 public:
  MaintenanceThread(std::chrono::milliseconds interval, std::function<void()> work);
  ~MaintenanceThread();  // stops
  void Stop();

 private:
  void Run();
  const std::chrono::milliseconds interval_;
  const std::function<void()> work_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace lqs::sweep

#endif  // LQS_LIB_SWEEP_MAINTENANCE_H_
