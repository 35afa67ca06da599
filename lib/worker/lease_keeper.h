// lib/worker/lease_keeper.h — heartbeats for every message a worker holds.
//
// From the moment a message is received until its handler's outcome is
// applied (or it is released), the worker holds its lease. The keeper renews
// each lease when a third of the visibility timeout is left, with
// ChangeMessageVisibilityBatch (up to 10 per call), for messages running and
// for messages still waiting for a handler thread or a rate-limit token.
// A lease cannot outlive SQS's 12-hour budget counted from the receive: the
// last renewal is shortened to fit, and then the keeper gives up with a
// warning (the message returns to the queue when that lease ends).
//
// Thread safety: all methods are thread-safe.

#ifndef LQS_LIB_WORKER_LEASE_KEEPER_H_
#define LQS_LIB_WORKER_LEASE_KEEPER_H_

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "lib/worker/clock_wait.h"
#include "lib/worker/worker_log.h"
#include "lib/worker/worker_stats.h"

#include "lqs/limits.h"
#include "lqs/queue.h"

namespace lqs::worker {

class LeaseKeeper {
 public:
  static constexpr int64_t kMaxLeaseMs = limits::kMaxLeaseBudgetMs;

  LeaseKeeper(std::shared_ptr<Queue> queue, std::shared_ptr<Clock> clock,
              int visibility_timeout_seconds, const WorkerLog* log, StatsBlock* stats);
  ~LeaseKeeper();  // Stop()

  void Start();
  // Stops renewing and joins the thread. Idempotent.
  void Stop();

  // Starts keeping the lease of the message received with `receipt_handle`.
  // `lease_start_ms`: a clock time at or before the receive (the budget's
  // start); `lease_end_ms`: when the lease received ends.
  void Add(const std::string& receipt_handle, const std::string& message_id, int receive_count,
           int64_t lease_start_ms, int64_t lease_end_ms);
  // Stops keeping it (the message is finished or released). If a renewal
  // call covering it is in flight, waits for that call to return, so that
  // the caller's own visibility change (a delete, a retry's backoff, a
  // release) is never overtaken by a late heartbeat.
  void Remove(const std::string& receipt_handle);
  size_t held() const;

 private:
  struct Lease {
    std::string message_id;
    int receive_count = 0;
    int64_t start_ms = 0;
    int64_t end_ms = 0;
    int64_t next_try_ms = 0;  // renewal due (a third of the timeout left)
    bool exhausted = false;   // 12-hour budget used up or renewal refused
  };
  void Run();
  int64_t RenewAt(int64_t end_ms) const { return end_ms - vt_ms_ / 3; }

  const std::shared_ptr<Queue> queue_;
  mutable ClockWait wait_;
  const int64_t vt_ms_;
  const WorkerLog* log_;
  StatsBlock* stats_;

  bool started_ = false;                 // guarded by wait_.mu()
  bool stop_ = false;                    // guarded by wait_.mu()
  std::map<std::string, Lease> leases_;  // by receipt handle; guarded by wait_.mu()
  uint64_t added_ = 0;                   // Add() calls; guarded by wait_.mu()
  // Handles in the renewal call now in flight; guarded by wait_.mu().
  std::set<std::string> in_call_;
  std::condition_variable call_done_;  // in_call_ emptied
  std::thread thread_;
};

}  // namespace lqs::worker

#endif  // LQS_LIB_WORKER_LEASE_KEEPER_H_
