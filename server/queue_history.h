// server/queue_history.h — what lqsd's web console charts: for each queue of
// a Broker, its depth (visible, in flight, delayed) and the age of its
// oldest message, sampled at a fixed interval into a bounded ring in memory.
//
// QueueHistory holds the rings and takes one sample of every queue when
// Sample() is called, through the Broker's public API (ListQueues, GetQueue,
// Queue::GetStats); the time of a sample is the clock's (lqs/clock.h), so a
// test drives it with a ManualClock and calls Sample() itself. A queue that
// is no longer listed (deleted) loses its history at the next sample; one
// deleted between the listing and its GetStats is skipped. Each ring keeps
// the last `capacity` samples (360: an hour at the default 10 s interval);
// older ones are dropped. Nothing is written to disk: a restart starts the
// history anew.
//
// HistorySampler calls Sample() on a thread of its own: once when started,
// then every `interval` of real time until Stop() (or its destruction),
// which must come before the Broker is closed.
//
// Thread safety: QueueHistory is thread-safe (one mutex; Sample() reads the
// Broker outside it). HistorySampler's Start() and Stop() are called from
// one thread.

#ifndef LQS_SERVER_QUEUE_HISTORY_H_
#define LQS_SERVER_QUEUE_HISTORY_H_

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "lqs/broker.h"
#include "lqs/clock.h"

namespace lqsd {

struct HistorySample {
  int64_t at_ms = 0;  // the clock's time of the sample (Unix epoch, ms)
  int64_t visible = 0;
  int64_t in_flight = 0;
  int64_t delayed = 0;
  int64_t oldest_age_seconds = 0;  // 0 when the queue was empty
};

class QueueHistory {
 public:
  static constexpr size_t kDefaultCapacity = 360;

  // `clock` is shared; `capacity` >= 1 samples per queue.
  explicit QueueHistory(std::shared_ptr<lqs::Clock> clock, size_t capacity = kDefaultCapacity);

  // Samples every queue of `broker` (borrowed for the call) at the clock's
  // now; forgets the queues it no longer lists. A failed listing (the Broker
  // closed) changes nothing.
  void Sample(lqs::Broker* broker);

  // The samples of `queue`, oldest first; empty for a queue never sampled
  // (or forgotten).
  std::vector<HistorySample> Get(const std::string& queue) const;
  // The queues that have a history, in name order.
  std::vector<std::string> Queues() const;
  size_t capacity() const { return capacity_; }

 private:
  std::shared_ptr<lqs::Clock> clock_;
  const size_t capacity_;
  mutable std::mutex mu_;
  std::map<std::string, std::deque<HistorySample>> rings_;
};

class HistorySampler {
 public:
  HistorySampler(QueueHistory* history, lqs::Broker* broker, std::chrono::milliseconds interval);
  ~HistorySampler();
  HistorySampler(const HistorySampler&) = delete;
  HistorySampler& operator=(const HistorySampler&) = delete;

  void Start();
  // Waits for a sample in progress; later calls do nothing.
  void Stop();

 private:
  void Run();

  QueueHistory* history_;
  lqs::Broker* broker_;
  const std::chrono::milliseconds interval_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace lqsd

#endif  // LQS_SERVER_QUEUE_HISTORY_H_
