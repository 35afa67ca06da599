// lib/worker/worker.cc — Worker::Create and WorkerImpl: the receive loop, the
// handler threads, applying outcomes, and shutdown (see lqs/worker.h).
//
// Threads: one receive loop (long polls with ReceiveMessageAsync so that
// Stop and Pause abandon a poll at once), `concurrency` handler threads
// taking jobs from the Scheduler, the LeaseKeeper's heartbeat thread, and
// optionally the SignalWatch thread. A message is held (its lease kept by
// the LeaseKeeper and counted in in_progress) from its receive until its
// outcome is applied or it is released.
//
// A TransactionalHandler's transaction, and the lease-checked visibility
// change that delays a retry, are begun through the engine's
// NewTransactionFor (lib/engine/transaction.h), the one place the worker
// reaches past the public Queue API: a Queue has no way to begin one.

#include "lqs/worker.h"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "lib/engine/transaction.h"
#include "lib/worker/backoff.h"
#include "lib/worker/clock_wait.h"
#include "lib/worker/lease_keeper.h"
#include "lib/worker/receive_slot.h"
#include "lib/worker/scheduler.h"
#include "lib/worker/signal_watch.h"
#include "lib/worker/worker_log.h"
#include "lib/worker/worker_message.h"
#include "lib/worker/worker_options.h"
#include "lib/worker/worker_stats.h"

namespace lqs {

namespace worker {
namespace {

constexpr int64_t kFirstErrorPauseMs = 1000;
constexpr int64_t kMaxErrorPauseMs = 30000;
constexpr int64_t kEmptyShortPollPauseMs = 1000;
constexpr auto kDefaultStopDeadline = std::chrono::seconds(30);

class WorkerImpl final : public Worker {
 public:
  WorkerImpl(std::shared_ptr<Queue> queue, WorkerOptions options, MessageHandler handler,
             BatchHandler batch_handler, TransactionalHandler tx_handler)
      : queue_(std::move(queue)),
        options_(std::move(options)),
        handler_(std::move(handler)),
        batch_handler_(std::move(batch_handler)),
        tx_handler_(std::move(tx_handler)),
        max_in_progress_(EffectiveMaxInProgress(options_)),
        stats_(std::make_shared<StatsBlock>()),
        log_(queue_->name(), options_.logger),
        wait_(options_.clock),
        backoff_(options_.backoff_base_seconds, options_.backoff_max_seconds,
                 options_.backoff_jitter, std::random_device{}()),
        keeper_(queue_, options_.clock, options_.visibility_timeout_seconds, &log_, stats_.get()),
        scheduler_(options_.clock, queue_->is_fifo() && !batch_handler_,
                   options_.rate_limit_per_second, options_.rate_limit_per_group_per_second) {}

  ~WorkerImpl() override {
    signals_.reset();  // restores the previous handlers; joins its thread
    Stop(kDefaultStopDeadline);
    for (std::thread& t : handler_threads_) {
      if (t.joinable()) t.join();  // handlers that outlived the deadline
    }
    keeper_.Stop();
  }

  Status Start() override {
    std::lock_guard<std::mutex> stop_lock(stop_mu_);
    {
      std::lock_guard<std::mutex> lock(wait_.mu());
      if (started_ || stopping_) {
        return Status(ErrorCode::kInvalidParameterValue, std::string("the worker was already ") +
                                                             (started_ ? "started" : "stopped") +
                                                             "; a Worker starts once");
      }
      started_ = true;
    }
    keeper_.Start();
    for (int i = 0; i < options_.concurrency; ++i) {
      handler_threads_.emplace_back([this] { HandlerLoop(); });
    }
    receive_thread_ = std::thread([this] { ReceiveLoop(); });
    log_.Queue(WorkerLogLevel::kInfo,
               "worker started (concurrency " + std::to_string(options_.concurrency) +
                   ", max in progress " + std::to_string(max_in_progress_) + ")");
    return Status::OK();
  }

  void Pause() override {
    bool first = false;
    {
      std::unique_lock<std::mutex> lock(wait_.mu());
      first = !paused_;
      paused_ = true;
      if (std::shared_ptr<ReceiveSlot> slot = current_slot_) {
        if (first) slot->Abandon();
        // Until the receive loop lets go of the slot, its poll may still be
        // starting and lease messages (which it then gives back): wait, so
        // that nothing is leased once any Pause call returns.
        wait_.WaitUntil(lock, ClockWait::kNever, [&] { return current_slot_ != slot; });
      }
    }
    if (!first) return;
    wait_.Notify();
    log_.Queue(WorkerLogLevel::kInfo, "worker paused");
  }

  void Resume() override {
    {
      std::lock_guard<std::mutex> lock(wait_.mu());
      if (!paused_) return;
      paused_ = false;
    }
    wait_.Notify();
    log_.Queue(WorkerLogLevel::kInfo, "worker resumed");
  }

  bool paused() const override {
    std::lock_guard<std::mutex> lock(wait_.mu());
    return paused_;
  }

  bool Stop(std::chrono::milliseconds deadline) override {
    const auto real_deadline = std::chrono::steady_clock::now() + deadline;
    std::lock_guard<std::mutex> stop_lock(stop_mu_);
    {
      std::lock_guard<std::mutex> lock(wait_.mu());
      if (stop_finished_) return stop_result_;
      stopping_ = true;
      if (current_slot_) current_slot_->Abandon();
    }
    wait_.Notify();
    if (receive_thread_.joinable()) receive_thread_.join();
    // Give back what no handler started.
    for (Job& job : scheduler_.Close()) Release(job.messages, "not started before the stop");
    const bool idle = scheduler_.WaitIdle(real_deadline);
    // Nothing is left to keep, or (deadline passed) leases are no longer kept.
    keeper_.Stop();
    if (idle) {
      for (std::thread& t : handler_threads_) {
        if (t.joinable()) t.join();
      }
      log_.Queue(WorkerLogLevel::kInfo, "worker stopped");
    } else {
      log_.Queue(WorkerLogLevel::kWarning,
                 "worker stopped with handlers still running after the deadline; their leases "
                 "are no longer extended");
    }
    {
      std::lock_guard<std::mutex> lock(wait_.mu());
      stop_finished_ = true;
      stop_result_ = idle;
    }
    stopped_cv_.notify_all();
    return idle;
  }

  void Wait() override {
    std::unique_lock<std::mutex> lock(wait_.mu());
    stopped_cv_.wait(lock, [this] { return stop_finished_; });
  }

  Status InstallSignalHandlers(std::chrono::milliseconds deadline) override {
    std::lock_guard<std::mutex> stop_lock(stop_mu_);
    if (signals_ != nullptr) {
      return Status(ErrorCode::kInvalidParameterValue,
                    "this worker already installed signal handlers");
    }
    auto watch = std::make_unique<SignalWatch>();
    Status st = watch->Install([this, deadline](int signo) {
      log_.Queue(WorkerLogLevel::kWarning,
                 std::string("caught ") + (signo == SIGINT ? "SIGINT" : "SIGTERM") + "; stopping");
      Stop(deadline);
    });
    if (!st.ok()) return st;
    signals_ = std::move(watch);
    return Status::OK();
  }

  WorkerStats stats() const override { return stats_->Snapshot(); }

 private:
  // ---- Receiving ---------------------------------------------------------------

  void ReceiveLoop() {
    int64_t error_pause_ms = 0;
    for (;;) {
      std::shared_ptr<ReceiveSlot> slot;
      int room = 0;
      {
        std::unique_lock<std::mutex> lock(wait_.mu());
        wait_.WaitUntil(lock, ClockWait::kNever, [this] {
          return stopping_ || (!paused_ && in_progress_ < max_in_progress_);
        });
        if (stopping_) return;
        room = std::min(options_.max_messages_per_receive, max_in_progress_ - in_progress_);
        slot = std::make_shared<ReceiveSlot>(queue_, stats_);
        current_slot_ = slot;
      }
      ReceiveMessageRequest request;
      request.max_number_of_messages = room;
      request.visibility_timeout = options_.visibility_timeout_seconds;
      request.wait_time_seconds = options_.wait_time_seconds;
      request.message_system_attribute_names = {"All"};
      request.message_attribute_names = {"All"};
      const int64_t lease_start = options_.clock->NowMillis();
      slot->SetReceiveId(queue_->ReceiveMessageAsync(
          request, [slot](StatusOr<ReceiveMessageResult> r) { slot->Complete(std::move(r)); }));
      std::optional<StatusOr<ReceiveMessageResult>> result = slot->Wait();
      {
        std::lock_guard<std::mutex> lock(wait_.mu());
        current_slot_.reset();
      }
      wait_.Notify();         // a Pause waits for the slot to be let go
      if (!result) continue;  // abandoned by Stop or Pause
      if (!result->ok()) {
        error_pause_ms =
            std::min(kMaxErrorPauseMs, std::max(kFirstErrorPauseMs, error_pause_ms * 2));
        log_.Queue(WorkerLogLevel::kError, "receive failed (next try in " +
                                               std::to_string(error_pause_ms / 1000) +
                                               " s): " + result->status().ToString());
        PauseReceiving(error_pause_ms);
        continue;
      }
      error_pause_ms = 0;
      if ((*result)->messages.empty()) {
        if (options_.wait_time_seconds == 0) PauseReceiving(kEmptyShortPollPauseMs);
        continue;
      }
      Accept(lease_start, std::move((*result)->messages));
    }
  }

  // Waits `ms` of clock time, or until Stop().
  void PauseReceiving(int64_t ms) {
    std::unique_lock<std::mutex> lock(wait_.mu());
    wait_.WaitUntil(lock, options_.clock->NowMillis() + ms, [this] { return stopping_; });
  }

  void Accept(int64_t lease_start, std::vector<ReceivedMessage> received) {
    std::vector<WorkerMessage> messages;
    messages.reserve(received.size());
    const int64_t lease_end = lease_start + int64_t{options_.visibility_timeout_seconds} * 1000;
    for (const ReceivedMessage& r : received) {
      messages.push_back(ToWorkerMessage(queue_->name(), r, options_.idempotency_attribute));
      const WorkerMessage& m = messages.back();
      keeper_.Add(m.receipt_handle, m.message_id, m.receive_count, lease_start, lease_end);
      log_.Message(WorkerLogLevel::kDebug, m, "received");
    }
    stats_->received.fetch_add(static_cast<int64_t>(messages.size()));
    AddInProgress(static_cast<int>(messages.size()));
    std::vector<Job> jobs;
    if (batch_handler_) {
      jobs.push_back(Job{std::move(messages), lease_start});
    } else {
      for (WorkerMessage& m : messages) jobs.push_back(Job{{std::move(m)}, lease_start});
    }
    // One push for the whole receive (see Scheduler::Push). Closed cannot
    // happen (Stop joins this thread first); be safe anyway.
    if (!scheduler_.Push(&jobs)) {
      for (Job& job : jobs) Release(job.messages, "received while stopping");
    }
  }

  void AddInProgress(int delta) {
    {
      std::lock_guard<std::mutex> lock(wait_.mu());
      in_progress_ += delta;
      stats_->in_progress.store(in_progress_);
    }
    wait_.Notify();
  }

  // ---- Handling ------------------------------------------------------------------

  void HandlerLoop() {
    Job job;
    while (scheduler_.Next(&job)) {
      if (batch_handler_) {
        RunBatch(job);
      } else {
        RunOne(job);
      }
      job = Job();
    }
  }

  void RunOne(const Job& job) {
    const WorkerMessage& m = job.messages.front();
    bool failed = false;
    if (tx_handler_) {
      if (!(options_.inbox && SkipDuplicate(m))) failed = !RunTransactional(m);
    } else if (!(options_.inbox && SkipDuplicate(m))) {
      const int64_t start = options_.clock->NowMillis();
      HandlerResult result = Invoke([&] { return handler_(m); });
      stats_->handler_ms.Add(static_cast<double>(options_.clock->NowMillis() - start));
      failed = result.outcome != HandlerResult::Outcome::kSuccess;
      Apply(m, result);
    }
    std::vector<Job> behind = scheduler_.Done(job, failed);
    for (Job& b : behind) Release(b.messages, "behind a failed message of its group");
    AddInProgress(-1);
  }

  void RunBatch(const Job& job) {
    std::vector<WorkerMessage> run;
    for (const WorkerMessage& m : job.messages) {
      if (!(options_.inbox && SkipDuplicate(m))) run.push_back(m);
    }
    if (!run.empty()) {
      BatchItemFailures failures;
      const int64_t start = options_.clock->NowMillis();
      HandlerResult thrown = Invoke([&] {
        failures = batch_handler_(run);
        return HandlerResult::Success();
      });
      stats_->handler_ms.Add(static_cast<double>(options_.clock->NowMillis() - start));
      if (thrown.outcome != HandlerResult::Outcome::kSuccess) {
        failures.clear();
        for (const WorkerMessage& m : run) failures[m.message_id] = thrown;
      }
      std::set<std::string> ids;
      for (const WorkerMessage& m : run) ids.insert(m.message_id);
      for (const auto& [id, r] : failures) {
        if (ids.count(id) == 0) {
          log_.Queue(WorkerLogLevel::kWarning,
                     "the batch handler reported a failure for message_id=" + id +
                         ", which is not in its batch; ignored");
        }
      }
      // FIFO: a group's messages after its first failure are given back
      // unfinished, so that the group is redelivered in order.
      const bool fifo = queue_->is_fifo();
      std::set<std::string> failed_groups;
      std::vector<WorkerMessage> behind;
      for (const WorkerMessage& m : run) {
        if (fifo && m.message_group_id && failed_groups.count(*m.message_group_id) != 0) {
          behind.push_back(m);
          continue;
        }
        auto it = failures.find(m.message_id);
        const HandlerResult r = it == failures.end() ? HandlerResult::Success() : it->second;
        if (fifo && m.message_group_id && r.outcome != HandlerResult::Outcome::kSuccess) {
          failed_groups.insert(*m.message_group_id);
        }
        Apply(m, r);
      }
      Release(behind, "behind a failed message of its group");
    }
    scheduler_.Done(job, false);
    AddInProgress(-static_cast<int>(job.messages.size()));
  }

  template <typename Fn>
  static HandlerResult Invoke(Fn&& fn) {
    try {
      return fn();
    } catch (const NonRetryableError& e) {
      return HandlerResult::NonRetryable(e.what());
    } catch (const std::exception& e) {
      return HandlerResult::Retry(e.what());
    } catch (...) {
      return HandlerResult::Retry("unknown exception");
    }
  }

  // Runs the TransactionalHandler on `m` and commits its transaction with
  // the delete (and the inbox record); true when that commit succeeded.
  bool RunTransactional(const WorkerMessage& m) {
    std::unique_ptr<Transaction> tx = engine::NewTransactionFor(*queue_);
    HandlerResult result;
    if (tx == nullptr) {  // Create checked the queue: cannot happen
      result = HandlerResult::Retry("the queue cannot begin a transaction");
    } else {
      const int64_t start = options_.clock->NowMillis();
      result = Invoke([&] { return tx_handler_(m, *tx); });
      stats_->handler_ms.Add(static_cast<double>(options_.clock->NowMillis() - start));
    }
    if (result.outcome != HandlerResult::Outcome::kSuccess) {
      tx.reset();  // rolled back: nothing of the handler's effect is applied
      Apply(m, result);
      return false;
    }
    keeper_.Remove(m.receipt_handle);
    Status st = options_.inbox
                    ? engine::DeleteMessageAndRecord(*tx, queue_->name(), m.receipt_handle,
                                                     m.idempotency_key, options_.inbox_ttl_seconds)
                    : tx->DeleteMessage(queue_->name(), m.receipt_handle);
    if (st.ok()) st = tx->Commit().status();
    if (st.ok()) {
      log_.Message(WorkerLogLevel::kDebug, m, "done; committed with the delete");
      stats_->succeeded.fetch_add(1);
      return true;
    }
    const bool conflict = st.code() == ErrorCode::kTransactionConflict;
    const int seconds = backoff_.Seconds(m.receive_count);
    const bool delayed = DelayWhileLeased(m, seconds).ok();
    log_.Message(WorkerLogLevel::kWarning, m,
                 std::string(conflict ? "transaction conflict" : "the commit failed") +
                     ", nothing applied; the message will be redelivered" +
                     (delayed ? " in " + std::to_string(seconds) + " s" : std::string()) + ": " +
                     st.ToString());
    (conflict ? stats_->transaction_conflicts : stats_->retried).fetch_add(1);
    return false;
  }

  // Inbox: true when `m`'s key is recorded, after deleting `m`.
  bool SkipDuplicate(const WorkerMessage& m) {
    StatusOr<bool> seen = queue_->InboxContains(m.idempotency_key);
    if (!seen.ok()) {
      log_.Message(WorkerLogLevel::kWarning, m,
                   "inbox lookup failed; running the handler: " + seen.status().ToString());
      return false;
    }
    if (!*seen) return false;
    keeper_.Remove(m.receipt_handle);
    Status st = queue_->DeleteMessage(m.receipt_handle);
    if (st.ok()) {
      log_.Message(WorkerLogLevel::kInfo, m,
                   "duplicate of completed work (idempotency key " + m.idempotency_key +
                       "); deleted without running the handler");
      stats_->duplicates_skipped.fetch_add(1);
    } else {
      log_.Message(WorkerLogLevel::kWarning, m,
                   "duplicate of completed work, but the delete failed: " + st.ToString());
      stats_->delete_failures.fetch_add(1);
    }
    return true;
  }

  void Apply(const WorkerMessage& m, const HandlerResult& r) {
    keeper_.Remove(m.receipt_handle);
    switch (r.outcome) {
      case HandlerResult::Outcome::kSuccess:
        Succeeded(m);
        return;
      case HandlerResult::Outcome::kRetry:
        Retry(m, r.error, backoff_.Seconds(m.receive_count), "handler failed");
        return;
      case HandlerResult::Outcome::kNonRetryable:
        DeadLetter(m, r.error);
        return;
    }
  }

  void Succeeded(const WorkerMessage& m) {
    Status st = options_.inbox ? queue_->DeleteMessageAndRecord(m.receipt_handle, m.idempotency_key,
                                                                options_.inbox_ttl_seconds)
                               : queue_->DeleteMessage(m.receipt_handle);
    if (st.ok()) {
      log_.Message(WorkerLogLevel::kDebug, m, "done; deleted");
      stats_->succeeded.fetch_add(1);
    } else {
      log_.Message(WorkerLogLevel::kWarning, m,
                   "handler succeeded but the delete failed (the message will be redelivered): " +
                       st.ToString());
      stats_->delete_failures.fetch_add(1);
    }
  }

  // Delays `m`'s next delivery by `seconds`, but only while its lease is
  // still this worker's. A plain ChangeMessageVisibility on a standard queue
  // accepts an older receipt handle (as SQS does), so after a lost lease it
  // would move the lease of whoever received the message since. The check
  // needs the engine's transaction; a Queue of another kind gets the plain
  // call. Errors: kTransactionConflict when the lease was lost, and those of
  // ChangeMessageVisibility.
  Status DelayWhileLeased(const WorkerMessage& m, int seconds) {
    std::unique_ptr<Transaction> tx = engine::NewTransactionFor(*queue_);
    if (tx == nullptr) return queue_->ChangeMessageVisibility(m.receipt_handle, seconds);
    Status st = tx->ChangeMessageVisibility(queue_->name(), m.receipt_handle, seconds);
    if (st.ok()) st = tx->Commit().status();
    return st;
  }

  void Retry(const WorkerMessage& m, const std::string& error, int seconds, const char* what) {
    Status st = DelayWhileLeased(m, seconds);
    if (st.ok()) {
      log_.Message(WorkerLogLevel::kInfo, m,
                   std::string(what) + ", retry in " + std::to_string(seconds) + " s: " + error);
    } else {
      log_.Message(WorkerLogLevel::kWarning, m,
                   std::string(what) + ": " + error + "; could not delay the retry (" +
                       st.ToString() + "), the message returns when its lease ends");
    }
    stats_->retried.fetch_add(1);
  }

  void DeadLetter(const WorkerMessage& m, const std::string& error) {
    MessageAttributeMap extra;
    extra[options_.error_attribute] = MessageAttributeValue{"String", AttributeText(error), ""};
    Status st = queue_->MoveToDeadLetterQueue(m.receipt_handle, extra);
    if (st.ok()) {
      log_.Message(WorkerLogLevel::kWarning, m,
                   "non-retryable failure, moved to the dead-letter queue: " + error);
      stats_->dead_lettered.fetch_add(1);
      return;
    }
    if (!HasRedrivePolicy()) {
      log_.Message(WorkerLogLevel::kWarning, m,
                   "non-retryable failure but the queue has no RedrivePolicy (no dead-letter "
                   "queue); retrying later instead");
      Retry(m, error, options_.backoff_max_seconds, "non-retryable failure");
      return;
    }
    log_.Message(WorkerLogLevel::kError, m,
                 "non-retryable failure: " + error +
                     "; moving it to the dead-letter queue failed (it returns when its lease "
                     "ends): " +
                     st.ToString());
  }

  bool HasRedrivePolicy() {
    StatusOr<AttributeMap> a = queue_->GetAttributes({"RedrivePolicy"});
    if (!a.ok()) return true;  // unknown: do not pretend there is none
    auto it = a->find("RedrivePolicy");
    return it != a->end() && !it->second.empty();
  }

  // Makes unstarted messages visible again at once.
  void Release(const std::vector<WorkerMessage>& messages, const char* why) {
    if (messages.empty()) return;
    std::vector<std::string> handles;
    for (const WorkerMessage& m : messages) {
      keeper_.Remove(m.receipt_handle);
      handles.push_back(m.receipt_handle);
    }
    std::vector<std::string> errors;
    const int64_t released = ReleaseNow(*queue_, handles, &errors);
    for (const std::string& e : errors) {
      const size_t i = static_cast<size_t>(std::stoul(e.substr(0, e.find(' '))));
      log_.Message(WorkerLogLevel::kWarning, messages[i],
                   std::string("could not release it (") + why + "): " + e.substr(e.find(' ') + 1));
    }
    for (const WorkerMessage& m : messages) {
      log_.Message(WorkerLogLevel::kDebug, m, std::string("released: ") + why);
    }
    stats_->released.fetch_add(released);
    AddInProgress(-static_cast<int>(messages.size()));
  }

  const std::shared_ptr<Queue> queue_;
  const WorkerOptions options_;
  const MessageHandler handler_;
  const BatchHandler batch_handler_;
  const TransactionalHandler tx_handler_;
  const int max_in_progress_;
  const std::shared_ptr<StatsBlock> stats_;  // shared with abandoned polls
  const WorkerLog log_;
  mutable ClockWait wait_;  // its mu() guards the fields below
  Backoff backoff_;
  LeaseKeeper keeper_;
  Scheduler scheduler_;

  bool started_ = false;
  bool stopping_ = false;
  bool paused_ = false;
  int in_progress_ = 0;
  std::shared_ptr<ReceiveSlot> current_slot_;
  bool stop_finished_ = false;
  bool stop_result_ = false;
  std::condition_variable stopped_cv_;

  std::mutex stop_mu_;  // serialises Start, Stop and InstallSignalHandlers
  std::thread receive_thread_;
  std::vector<std::thread> handler_threads_;
  std::unique_ptr<SignalWatch> signals_;
};

Status CheckCreate(const std::shared_ptr<Queue>& queue, const WorkerOptions& options,
                   bool has_handler) {
  if (queue == nullptr) {
    return Status(ErrorCode::kInvalidParameterValue, "Worker::Create: queue must not be null");
  }
  if (!has_handler) {
    return Status(ErrorCode::kInvalidParameterValue, "Worker::Create: handler must not be empty");
  }
  return ValidateOptions(options);
}

}  // namespace
}  // namespace worker

StatusOr<std::unique_ptr<Worker>> Worker::Create(std::shared_ptr<Queue> queue,
                                                 WorkerOptions options, MessageHandler handler) {
  Status st = worker::CheckCreate(queue, options, static_cast<bool>(handler));
  if (!st.ok()) return st;
  return std::unique_ptr<Worker>(
      std::make_unique<worker::WorkerImpl>(std::move(queue), std::move(options), std::move(handler),
                                           BatchHandler(), TransactionalHandler()));
}

StatusOr<std::unique_ptr<Worker>> Worker::Create(std::shared_ptr<Queue> queue,
                                                 WorkerOptions options, BatchHandler handler) {
  Status st = worker::CheckCreate(queue, options, static_cast<bool>(handler));
  if (!st.ok()) return st;
  return std::unique_ptr<Worker>(
      std::make_unique<worker::WorkerImpl>(std::move(queue), std::move(options), MessageHandler(),
                                           std::move(handler), TransactionalHandler()));
}

StatusOr<std::unique_ptr<Worker>> Worker::Create(std::shared_ptr<Queue> queue,
                                                 WorkerOptions options,
                                                 TransactionalHandler handler) {
  Status st = worker::CheckCreate(queue, options, static_cast<bool>(handler));
  if (!st.ok()) return st;
  if (engine::NewTransactionFor(*queue) == nullptr) {
    return Status(ErrorCode::kInvalidParameterValue,
                  "Worker::Create: a transactional handler needs a queue of an lqs Broker");
  }
  return std::unique_ptr<Worker>(std::make_unique<worker::WorkerImpl>(
      std::move(queue), std::move(options), MessageHandler(), BatchHandler(), std::move(handler)));
}

}  // namespace lqs
