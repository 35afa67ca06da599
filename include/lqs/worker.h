// lqs/worker.h — the SQS consumer loop, done right.
//
// A Worker long-polls one queue and calls your handler for each message (or
// each received batch) on a bounded pool of threads. It deletes a message
// only after its handler succeeded, keeps the lease alive while the handler
// runs (heartbeats through ChangeMessageVisibility), retries failures with a
// backoff that grows with the receive count, sends non-retryable failures to
// the dead-letter queue at once, limits how much work is in progress and how
// fast it starts, and on Stop() releases what it received but did not start.
//
//   auto worker = lqs::Worker::Create(queue, lqs::WorkerOptions{},
//       [](const lqs::WorkerMessage& m) -> lqs::HandlerResult {
//         if (!valid(m.body)) return lqs::HandlerResult::NonRetryable("bad body");
//         apply(m.body);                       // may throw: retried later
//         return lqs::HandlerResult::Success();
//       });
//   (*worker)->Start();
//   ...
//   (*worker)->Stop(std::chrono::seconds(30));
//
// Delivery is at least once: a handler can run twice for one message when a
// process dies after the handler's effect but before the delete, or when a
// lease cannot be extended (the 12-hour lease budget ran out). With
// `WorkerOptions::inbox` the worker records each completion atomically with
// the delete (Queue::DeleteMessageAndRecord) and acknowledges a redelivered
// duplicate without running the handler again. A TransactionalHandler
// records its effect in the database itself, in the transaction that also
// deletes the message: effect and acknowledgement commit together or not at
// all (see TransactionalHandler; docs/worker.md, "Transactional handlers").
//
// FIFO queues: the messages of one MessageGroupId run one at a time, in
// receive order. When one fails, the group's other received messages are
// released unstarted (visibility 0); the failed one keeps the group locked
// on the queue, so it is redelivered first.
//
// Time: leases, heartbeats, backoffs and rate limits read
// WorkerOptions::clock, which must be the clock the Broker was opened with
// (tests pass the same ManualClock to both and advance it). Only Stop()'s
// deadline is real (steady) time: it bounds how long a process shutdown
// waits.
//
// Thread safety: all methods may be called from any thread, except that the
// handler must not call Stop() or destroy the Worker. Handlers run
// concurrently (up to WorkerOptions::concurrency at once) and must be
// thread-safe.

#ifndef LQS_WORKER_H_
#define LQS_WORKER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "lqs/clock.h"
#include "lqs/limits.h"
#include "lqs/queue.h"
#include "lqs/status.h"
#include "lqs/transaction.h"
#include "lqs/types.h"

namespace lqs {

// Throw from a handler for a failure that retrying cannot fix (invalid
// input, a permanent refusal downstream). The message goes to the queue's
// dead-letter queue at once. Any other exception is a retryable failure.
class NonRetryableError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a handler sees of a received message.
struct WorkerMessage {
  std::string queue_name;
  std::string message_id;
  std::string receipt_handle;
  std::string body;
  // All system attributes (SentTimestamp, ApproximateReceiveCount,
  // MessageGroupId, MessageDeduplicationId, ...).
  std::map<std::string, std::string> attributes;
  // All user message attributes.
  MessageAttributeMap message_attributes;
  // ApproximateReceiveCount: 1 on the first delivery.
  int receive_count = 1;
  std::optional<std::string> message_group_id;
  // The key the inbox uses: the message attribute named
  // WorkerOptions::idempotency_attribute if present, else the
  // MessageDeduplicationId (FIFO), else the MessageId.
  std::string idempotency_key;
};

// A handler's verdict on one message.
struct HandlerResult {
  enum class Outcome { kSuccess, kRetry, kNonRetryable };
  Outcome outcome = Outcome::kSuccess;
  std::string error;  // why, for kRetry and kNonRetryable

  static HandlerResult Success() { return {}; }
  static HandlerResult Retry(std::string why) { return {Outcome::kRetry, std::move(why)}; }
  static HandlerResult NonRetryable(std::string why) {
    return {Outcome::kNonRetryable, std::move(why)};
  }
};

// Per-message handler. Throwing NonRetryableError equals returning
// NonRetryable(what()); throwing anything else equals Retry(what()).
using MessageHandler = std::function<HandlerResult(const WorkerMessage&)>;

// Batch handler (the SQS/Lambda "batch item failures" model): called with
// every message of one receive (up to max_messages_per_receive); returns the
// failed ones, keyed by message_id. Messages not listed succeeded and are
// deleted. Throwing fails the whole batch (as above). FIFO queues: after a
// group's first failed message, the group's later messages in the batch are
// neither deleted nor retried but released (visibility 0), whatever the
// handler said, so the group is redelivered in order.
using BatchItemFailures = std::map<std::string, HandlerResult>;
using BatchHandler = std::function<BatchItemFailures(const std::vector<WorkerMessage>&)>;

// Transactional handler (docs/transactions.md): records its effect in the
// transaction it is given (table records, sends, other queues' deletes ...)
// instead of applying it elsewhere. On Success the worker adds the
// message's DeleteMessage — and with WorkerOptions::inbox, the inbox record
// of its idempotency key — to that transaction and commits it: one atomic
// write, so the effect is applied exactly when the message is acknowledged.
//   - The commit fails with kTransactionConflict (the lease was lost: the
//     handler outlived a lease that could not be extended, or a key it read
//     was changed by another commit): nothing is applied, the handler is
//     not run again on that delivery, the message comes back (after the
//     retry backoff if the lease is still held) and is counted in
//     WorkerStats::transaction_conflicts.
//   - Any other commit error: nothing is applied; handled as Retry.
//   - Retry, NonRetryable or an exception: the transaction is rolled back
//     (nothing of it is applied) and the message is retried or
//     dead-lettered as for a MessageHandler.
// The handler must neither Commit() the transaction nor delete or change
// the visibility of its own message in it (the worker does); heartbeats
// keep the receipt handle's lease current until the commit. The
// transaction is only valid during the call. There is no transactional
// batch handler: a batch's items succeed and fail one by one, which one
// commit cannot express.
// Requires a queue of an lqs Broker (Broker::CreateQueue / GetQueue).
using TransactionalHandler = std::function<HandlerResult(const WorkerMessage&, Transaction&)>;

enum class WorkerLogLevel { kDebug, kInfo, kWarning, kError };
// Receives one line per event; lines about a message name the queue, the
// MessageId and the receive count. Called from worker threads; must be
// thread-safe. Default: kWarning and above to stderr.
using WorkerLogger = std::function<void(WorkerLogLevel, const std::string&)>;

struct WorkerOptions {
  // ---- Receiving ------------------------------------------------------------
  int max_messages_per_receive = 10;  // 1..10
  // Long-poll wait, 0..20. Stop() and Pause() abandon a poll at once.
  // 0 (short polls) pauses 1 s of clock time after an empty receive.
  int wait_time_seconds = 20;
  // The lease each receive asks for and each heartbeat renews, in seconds
  // (1..43200). A heartbeat runs when a third of it is left.
  int visibility_timeout_seconds = 30;

  // ---- Concurrency and backpressure -------------------------------------------
  int concurrency = 4;  // handler threads, >= 1
  // The most messages received and not yet finished (running, or waiting
  // for a handler thread). Receives ask for no more than the room left.
  // 0 means concurrency + max_messages_per_receive.
  int max_in_progress = 0;
  // Handler starts per second, overall and per MessageGroupId (0 = no
  // limit), as token buckets on `clock` holding one second's worth of starts
  // (at least 1): over any t seconds at most rate * t + max(1, rate) start.
  // A message over its group's rate waits in memory, its lease kept alive,
  // while messages of other groups go ahead. A batch handler's call counts
  // as one start per message.
  double rate_limit_per_second = 0;
  double rate_limit_per_group_per_second = 0;

  // ---- Retries and the dead-letter queue ----------------------------------------
  // A retryable failure on receive n makes the message visible again after
  // min(backoff_max_seconds, backoff_base_seconds * 2^(n-1)) seconds, plus
  // up to backoff_jitter of that at random. The queue's RedrivePolicy moves
  // it to the DLQ once its receive count reaches maxReceiveCount.
  int backoff_base_seconds = 1;
  int backoff_max_seconds = 900;
  double backoff_jitter = 0.1;  // 0..1
  // A non-retryable failure moves the message to the DLQ at once with the
  // error text in this message attribute (String). Without a RedrivePolicy
  // on the queue, the message is retried after backoff_max_seconds instead
  // and a warning is logged.
  std::string error_attribute = "lqs.Error";

  // ---- Idempotency inbox --------------------------------------------------------
  // Record each completion in the queue's inbox and skip (delete without
  // running the handler) a message whose idempotency key is recorded.
  bool inbox = false;
  std::string idempotency_attribute = "IdempotencyKey";
  int64_t inbox_ttl_seconds = limits::kDefaultInboxTtlSeconds;  // 1..kMaxInboxTtlSeconds

  // ---- Environment ---------------------------------------------------------------
  // Must be the Broker's clock (Options::clock).
  std::shared_ptr<Clock> clock = SystemClock::Default();
  WorkerLogger logger;  // empty: kWarning and above to stderr
};

// Counters since Start(), and handler durations. An outcome's log line
// (WorkerOptions::logger) is written before its counter moves: a caller that
// reads a count can already read the lines of the outcomes it counts.
struct WorkerStats {
  int64_t received = 0;            // messages received
  int64_t succeeded = 0;           // handler succeeded and message deleted
  int64_t retried = 0;             // retryable failures (made visible later)
  int64_t dead_lettered = 0;       // non-retryable failures moved to the DLQ
  int64_t duplicates_skipped = 0;  // inbox hits acknowledged without handler
  // Given back unstarted (visibility 0): at Stop(), behind a failed message
  // of the same FIFO group, or delivered to a poll abandoned by Stop/Pause.
  int64_t released = 0;
  int64_t lease_extensions = 0;  // successful heartbeats
  int64_t lease_extension_failures = 0;
  int64_t delete_failures = 0;  // handler succeeded, delete failed
  // TransactionalHandler: commits refused with kTransactionConflict
  // (nothing applied; the message is redelivered).
  int64_t transaction_conflicts = 0;
  int64_t in_progress = 0;  // gauge: received and not finished
  // Handler wall time (clock time), over all finished calls; 0 when none.
  double handler_p50_ms = 0;
  double handler_p99_ms = 0;
};

class Worker {
 public:
  // Validates the options (InvalidParameterValue naming the option) and
  // builds a stopped worker. The worker holds `queue` until destroyed.
  static StatusOr<std::unique_ptr<Worker>> Create(std::shared_ptr<Queue> queue,
                                                  WorkerOptions options, MessageHandler handler);
  static StatusOr<std::unique_ptr<Worker>> Create(std::shared_ptr<Queue> queue,
                                                  WorkerOptions options, BatchHandler handler);
  // InvalidParameterValue also when `queue` is not a queue of an lqs Broker.
  static StatusOr<std::unique_ptr<Worker>> Create(std::shared_ptr<Queue> queue,
                                                  WorkerOptions options,
                                                  TransactionalHandler handler);

  // Stops (with the default 30 s deadline) if running, and joins every
  // thread, waiting for handlers that outlived a Stop() deadline.
  virtual ~Worker() = default;

  // Starts the receive loop and the handler threads. Errors:
  // InvalidParameterValue if already started (a Worker starts once).
  virtual Status Start() = 0;

  // Stops receiving new messages (handlers in progress go on, heartbeats
  // too) until Resume(). For a downstream that is unhealthy. A long poll
  // waiting at the time is abandoned: a message it still delivers is given
  // back at once (visibility 0; its receive count has gone up by one).
  // Returns once that poll is withdrawn or given back (microseconds), so
  // nothing is leased for the worker after Pause returns.
  virtual void Pause() = 0;
  virtual void Resume() = 0;
  virtual bool paused() const = 0;

  // Graceful shutdown: stops receiving, releases (visibility 0) messages
  // received but not started, lets running handlers finish and deletes or
  // retries their messages as usual, for at most `deadline` of real time.
  // Returns true when every handler finished in time; otherwise their
  // leases are no longer extended (the messages return when the leases
  // end) and the threads are joined by the destructor. Idempotent.
  virtual bool Stop(std::chrono::milliseconds deadline) = 0;

  // Blocks until Stop() was called (from another thread or by a signal
  // handler installed with InstallSignalHandlers) and has finished.
  virtual void Wait() = 0;

  // Makes SIGTERM and SIGINT call Stop(deadline) on this worker. At most one
  // worker per process may install them; the previous handlers are restored
  // when the worker is destroyed.
  virtual Status InstallSignalHandlers(std::chrono::milliseconds deadline) = 0;

  virtual WorkerStats stats() const = 0;
};

}  // namespace lqs

#endif  // LQS_WORKER_H_
