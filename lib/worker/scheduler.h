// lib/worker/scheduler.h — which received message runs next.
//
// A bounded in-memory queue of jobs (one message, or one receive batch for
// batch handlers) between the receive loop and the handler threads. Next()
// hands out the oldest job that may start now:
//  - FIFO queues: a message group runs one message at a time, in receive
//    order; when one fails, Done() removes the group's waiting messages so
//    the worker can release them (the failed message keeps the group locked
//    on the queue, so it is redelivered first);
//  - rate limits: an overall token bucket and one per MessageGroupId; a job
//    whose group is over its rate waits while other groups go ahead.
// The receive loop bounds the number of jobs (WorkerOptions::max_in_progress).
//
// Thread safety: all methods are thread-safe.

#ifndef LQS_LIB_WORKER_SCHEDULER_H_
#define LQS_LIB_WORKER_SCHEDULER_H_

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "lib/worker/clock_wait.h"
#include "lib/worker/rate_limiter.h"

#include "lqs/worker.h"

namespace lqs::worker {

struct Job {
  std::vector<WorkerMessage> messages;  // one, or a receive batch
  int64_t lease_start_ms = 0;           // clock time at or before the receive
};

class Scheduler {
 public:
  // `fifo`: serialise message groups (per-message jobs only; a receive
  // never returns messages of a group another receive still holds).
  Scheduler(std::shared_ptr<Clock> clock, bool fifo, double rate_per_second,
            double per_group_rate_per_second);

  // Queues the jobs of one receive, all under one lock: a Done(failed) of
  // their group sees all of them or none (never the first of a receive
  // without the later ones, which would then run ahead of it). Moves from
  // *jobs; false (*jobs untouched) after Close().
  bool Push(std::vector<Job>* jobs);
  // Blocks until a job may start, then returns it (counted as running until
  // Done). False once closed.
  bool Next(Job* job);
  // The job's outcome is applied. `failed` (FIFO, per-message jobs): the
  // job's group failed, so its waiting jobs are removed and returned.
  std::vector<Job> Done(const Job& job, bool failed);
  // Stops handing out jobs and returns the waiting ones. Idempotent.
  std::vector<Job> Close();
  // Waits (real time) until no job is running. True if none is.
  bool WaitIdle(std::chrono::steady_clock::time_point deadline);
  size_t waiting() const;

 private:
  static std::string GroupOf(const WorkerMessage& m) { return m.message_group_id.value_or(""); }
  // A batch job's messages per group ("" for messages without one): what
  // MayStart, ReadyAt and Start charge to each group's rate bucket.
  static std::map<std::string, int> GroupCounts(const Job& job);
  // REQUIRES: mu held. Index of the first job that may start; else -1 and
  // *ready_at = when one may (kNever: none until something changes).
  int64_t Pick(int64_t now, int64_t* ready_at);
  bool MayStart(int64_t now, const Job& job);
  int64_t ReadyAt(int64_t now, const Job& job);
  void Start(int64_t now, const Job& job);

  mutable ClockWait wait_;
  const bool fifo_;
  RateLimiter limiter_;         // guarded by wait_.mu()
  std::deque<Job> jobs_;        // guarded by wait_.mu()
  std::set<std::string> busy_;  // FIFO groups running; guarded by wait_.mu()
  size_t running_ = 0;          // guarded by wait_.mu()
  bool closed_ = false;         // guarded by wait_.mu()
  uint64_t changes_ = 0;        // bumped on every state change; guarded
};

}  // namespace lqs::worker

#endif  // LQS_LIB_WORKER_SCHEDULER_H_
