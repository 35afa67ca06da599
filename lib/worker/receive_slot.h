// lib/worker/receive_slot.h — one outstanding long poll of a worker.
//
// The receive loop starts a long poll with Queue::ReceiveMessageAsync and
// waits on its slot, so that Stop() and Pause() can abandon the poll at once
// instead of waiting up to 20 s for it to end. The slot outlives the worker
// if need be: messages a poll delivers after it was abandoned are released
// right away (visibility 0), from the Broker's receiver thread.
//
// Thread safety: all methods are thread-safe.

#ifndef LQS_LIB_WORKER_RECEIVE_SLOT_H_
#define LQS_LIB_WORKER_RECEIVE_SLOT_H_

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>

#include "lib/worker/worker_stats.h"

#include "lqs/queue.h"

namespace lqs::worker {

class ReceiveSlot {
 public:
  ReceiveSlot(std::shared_ptr<Queue> queue, std::shared_ptr<StatsBlock> stats)
      : queue_(std::move(queue)), stats_(std::move(stats)) {}

  // The poll's answer (Queue::ReceiveCallback); called exactly once.
  void Complete(StatusOr<ReceiveMessageResult> result);
  // The id ReceiveMessageAsync returned for the poll (0: it answered at
  // once). If the slot was abandoned before the id was known, cancels now.
  void SetReceiveId(uint64_t receive_id);
  // Gives up on the poll unless it already answered, withdrawing it from the
  // queue (Queue::CancelReceive) so that it leases nothing more. Wakes
  // Wait(). Must not be called from inside the poll's callback.
  void Abandon();
  // Blocks until the poll answered (returns the answer) or was abandoned
  // (returns nothing; the messages it may still deliver are released).
  std::optional<StatusOr<ReceiveMessageResult>> Wait();

 private:
  const std::shared_ptr<Queue> queue_;
  const std::shared_ptr<StatsBlock> stats_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool abandoned_ = false;                                // guarded by mu_
  std::optional<StatusOr<ReceiveMessageResult>> result_;  // guarded by mu_
  bool taken_ = false;                                    // guarded by mu_
  uint64_t receive_id_ = 0;                               // guarded by mu_
};

// Makes `messages` visible at once (ChangeMessageVisibilityBatch, 10 at a
// time); returns how many were released.
int64_t ReleaseNow(Queue& queue, const std::vector<std::string>& receipt_handles,
                   std::vector<std::string>* errors);

}  // namespace lqs::worker

#endif  // LQS_LIB_WORKER_RECEIVE_SLOT_H_
