// lib/sweep/maintenance.h — a background thread that calls a function every
// interval (real time) until stopped. The Broker gives it RunMaintenance:
// retention expiry on idle queues, move-task progress, space reclamation.
// Correctness never depends on it; it only keeps idle queues tidy.
//
// Thread safety: construct and Stop from one owner thread; mu_ (a leaf)
// guards stop_. Ownership: owns its thread and `work`. Errors: none; `work`
// reports its own.

#ifndef LQS_LIB_SWEEP_MAINTENANCE_H_
#define LQS_LIB_SWEEP_MAINTENANCE_H_

#include <chrono>
#include <functional>
#include <thread>

#include "lib/notify/mutex.h"

namespace lqs::sweep {

class MaintenanceThread {
 public:
  MaintenanceThread(std::chrono::milliseconds interval, std::function<void()> work);
  ~MaintenanceThread();  // stops
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  void Run() ABSL_LOCKS_EXCLUDED(mu_);
  const std::chrono::milliseconds interval_;
  const std::function<void()> work_;
  notify::Mutex mu_;
  notify::CondVar cv_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace lqs::sweep

#endif  // LQS_LIB_SWEEP_MAINTENANCE_H_
