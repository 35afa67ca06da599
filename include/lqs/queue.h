// lqs/queue.h — one queue: send, receive, delete, change visibility, and its
// attributes.
//
// A Queue is a handle obtained from Broker::CreateQueue or Broker::GetQueue.
// It stays valid as long as the caller holds it; once the queue is deleted
// (or the Broker is closed) every call on it fails with QueueDoesNotExist
// (kClosed after Close).
//
// Semantics are Amazon SQS's (API 2012-11-05); see docs/sqs_compat.md for the
// few places where lqs chooses among undocumented behaviours.
//
// Errors: every call validates its input first and returns the SQS error
// (ErrorCode) with a message naming the parameter and the rule. A call that
// fails changes nothing. Batch calls report per-entry failures in their
// result and fail as a whole only for whole-request errors (empty, too many
// entries, bad or repeated entry ids, too long).
//
// Atomicity: each message's change of state is one atomic write; a crash at
// any moment leaves every message in exactly one state.
//
// Thread safety: every method may be called concurrently from any number of
// threads, on the same or on different Queue handles.

#ifndef LQS_QUEUE_H_
#define LQS_QUEUE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lqs/status.h"
#include "lqs/types.h"

namespace lqs {

// One entry's outcome in Queue::SendMessagesAndRecord.
struct RecordedSend {
  Status status;                          // the entry's own error; not sent unless ok()
  std::optional<SendMessageResult> sent;  // nullopt with ok(): a duplicate, not sent
};

class Queue {
 public:
  virtual ~Queue() = default;

  // The queue's name (as given to CreateQueue) and ARN.
  virtual const std::string& name() const = 0;
  virtual const std::string& arn() const = 0;
  // True for FIFO queues (names ending in ".fifo").
  virtual bool is_fifo() const = 0;

  // ---- Messages ---------------------------------------------------------------

  // Stores one message. It becomes receivable after its delay (the request's
  // DelaySeconds, else the queue's). Durable, in the Options::durability mode,
  // before this returns OK.
  // Errors: MissingParameter (empty body), InvalidMessageContents (characters
  // outside XML 1.0), InvalidParameterValue (size over MaximumMessageSize,
  // DelaySeconds out of 0..900, bad attributes, bad group/dedup ids),
  // QueueDoesNotExist, kIOError.
  virtual StatusOr<SendMessageResult> SendMessage(const SendMessageRequest& request) = 0;

  // Stores 1..10 messages; each entry succeeds or fails on its own (entries
  // that pass validation are stored in one atomic write, in request order).
  // Whole-request errors: EmptyBatchRequest, TooManyEntriesInBatchRequest,
  // InvalidBatchEntryId, BatchEntryIdsNotDistinct, BatchRequestTooLong (the
  // sum of message sizes over 1 MiB).
  virtual StatusOr<SendMessageBatchResult> SendMessageBatch(
      const std::vector<SendMessageBatchEntry>& entries) = 0;

  // Leases up to max_number_of_messages visible messages for
  // visibility_timeout seconds, giving each a fresh receipt handle and
  // incrementing its receive count. A message whose receive count already
  // reached the RedrivePolicy's maxReceiveCount is moved to the dead-letter
  // queue instead of being returned.
  //
  // Long polling: when no message is visible and the effective wait time
  // (wait_time_seconds, else the queue's ReceiveMessageWaitTimeSeconds) is
  // positive, blocks the calling thread until a message becomes visible (a
  // send, the end of a delay or lease, a visibility change) or the wait ends,
  // and returns as soon as at least one message is available. Returns an
  // empty result when the wait ends with nothing; this is not an error. A
  // wait that the queue's deletion cuts short also ends with an empty result
  // (SQS: requests made while a queue is being deleted "might succeed"); a
  // receive that starts after the deletion gets QueueDoesNotExist.
  // Errors: InvalidParameterValue (ranges), OverLimit (in-flight limit,
  // short poll only), QueueDoesNotExist, kIOError.
  virtual StatusOr<ReceiveMessageResult> ReceiveMessage(const ReceiveMessageRequest& request) = 0;

  // Event-driven long polling, for callers that hold many waiting receives
  // without a thread each (lqsd). Same semantics as ReceiveMessage, but never
  // blocks: `done` is called exactly once — on the calling thread when the
  // answer is known at once (messages available, invalid request, no wait),
  // otherwise later from the Broker's receiver thread when a message becomes
  // available or the wait ends (kClosed if the Broker closes first). `done`
  // must be quick and must not block; hand the result to your own executor.
  // Returns an id for CancelReceive when the receive parked (never 0), or 0
  // when `done` was already called on this thread. A parked receive may
  // complete (call `done`) before this returns its id.
  using ReceiveCallback = std::function<void(StatusOr<ReceiveMessageResult>)>;
  virtual uint64_t ReceiveMessageAsync(const ReceiveMessageRequest& request,
                                       ReceiveCallback done) = 0;

  // Cancels a parked ReceiveMessageAsync (its caller went away, e.g. a client
  // closed its connection mid-long-poll). Returns true when the receive was
  // still waiting: it is withdrawn, `done` is never called (it is destroyed
  // before this returns), and no message was or will be leased for it.
  // Returns false when it already completed or is completing (`done` has
  // been or will be called exactly once, with whatever it leased), or when
  // `receive_id` is 0 or not a receive of this queue. If the receiver thread
  // is trying the receive at that moment, waits for that one attempt to end
  // (microseconds). Calling it from inside `done` is allowed (returns false
  // for that receive). Thread-safe.
  virtual bool CancelReceive(uint64_t receive_id) = 0;

  // Deletes the message that `receipt_handle` names.
  // Standard queues: any handle ever issued for the message works, also after
  // its lease expired; deleting an already deleted (or expired, purged, moved)
  // message succeeds. FIFO queues: only the handle of the current, unexpired
  // lease (InvalidParameterValue "The receipt handle has expired.").
  // Errors: ReceiptHandleIsInvalid (malformed, never issued, or issued by
  // another queue), QueueDoesNotExist, kIOError.
  virtual Status DeleteMessage(const std::string& receipt_handle) = 0;

  virtual StatusOr<BatchResult> DeleteMessageBatch(
      const std::vector<DeleteMessageBatchEntry>& entries) = 0;

  // Sets the message's lease to end `visibility_timeout` seconds from now
  // (0 makes it visible at once). The total lease since the receive that
  // started it may not exceed 12 hours: the whole seconds since that receive
  // plus visibility_timeout must be at most 43,200. Standard queues: a handle
  // whose lease already ended is accepted, also when nobody received the
  // message since; the change starts a new lease (and a new 12-hour budget)
  // from now, as SQS answers such a change with success. MessageNotInflight
  // is never returned.
  // Errors: ReceiptHandleIsInvalid; InvalidParameterValue when the message no
  // longer exists, when visibility_timeout is outside 0..43200 or exceeds the
  // 12-hour budget, or (FIFO) when the lease has expired.
  virtual Status ChangeMessageVisibility(const std::string& receipt_handle,
                                         int visibility_timeout) = 0;

  virtual StatusOr<BatchResult> ChangeMessageVisibilityBatch(
      const std::vector<ChangeMessageVisibilityBatchEntry>& entries) = 0;

  // Deletes every message of the queue (visible, in flight and delayed) and,
  // on FIFO queues, its deduplication history. Messages sent after the call
  // returns are kept, and so is the idempotency inbox (it records work done,
  // not messages; see DeleteMessageAndRecord).
  // Errors: PurgeQueueInProgress (a purge less than 60 s ago, when
  // Options::enforce_purge_interval), QueueDoesNotExist, kIOError.
  virtual Status PurgeQueue() = 0;

  // ---- Consumer support (lqs extensions; no SQS action maps to these) -------
  //
  // Used by lqs::Worker (lqs/worker.h); available to any consumer.

  // The idempotency inbox: a per-queue set of keys of work already done,
  // kept in the same database as the messages. Records expire `ttl_seconds`
  // after they were written (1..1209600) and disappear with the queue
  // (DeleteQueue); PurgeQueue keeps them. Expired records are reclaimed by
  // maintenance (Broker::RunMaintenance or the background thread).
  //
  // Deletes the message that `receipt_handle` names exactly as DeleteMessage
  // does and, in the same atomic write, records `idempotency_key` (1..512
  // bytes) in the inbox. Either both happen or neither does: a call that
  // fails records nothing. Recording a key that is already recorded renews
  // its expiry.
  // Standard queues: as with DeleteMessage, a handle of a message that is
  // already gone succeeds (and records). Durability: like DeleteMessage
  // (not synced in kFsync mode; if lost, both the delete and the record are).
  // Errors: those of DeleteMessage; InvalidParameterValue naming
  // IdempotencyKey (empty or too long) or TtlSeconds (out of range).
  virtual Status DeleteMessageAndRecord(const std::string& receipt_handle,
                                        const std::string& idempotency_key,
                                        int64_t ttl_seconds) = 0;

  // True when `idempotency_key` is recorded in the inbox and has not expired
  // (by the Broker's clock: an expired record is absent even before
  // maintenance reclaims it).
  // Errors: InvalidParameterValue (IdempotencyKey empty or too long),
  // QueueDoesNotExist, kIOError.
  virtual StatusOr<bool> InboxContains(const std::string& idempotency_key) = 0;

  // Sends `request` as SendMessage does and, in the same atomic write,
  // records `idempotency_key` in the inbox for `ttl_seconds` — unless the key
  // is recorded already (and not expired): then nothing is sent and the
  // result is nullopt. A message pulled from another queue, sent with its
  // MessageId as the key, so arrives once however often it is pulled
  // (lqs/bridge.h). Calls with the same key on one Queue are serialized.
  // Durability: that of a send (the record is in the send's write).
  // FIFO: a send that deduplication drops writes no record either.
  // Errors: those of SendMessage (OverStorageBudget included);
  // InvalidParameterValue naming IdempotencyKey or TtlSeconds, as
  // DeleteMessageAndRecord.
  virtual StatusOr<std::optional<SendMessageResult>> SendMessageAndRecord(
      const SendMessageRequest& request, const std::string& idempotency_key,
      int64_t ttl_seconds) = 0;

  // SendMessageAndRecord for up to 10 messages (limits::kMaxBatchEntries)
  // in one atomic write: entry i sends requests[i] and records
  // idempotency_keys[i] (same sizes), all for `ttl_seconds`. Each entry's
  // result (same order): OK with the send's result; OK with nullopt when its
  // key is recorded already or repeats an earlier entry's (nothing sent); or
  // the entry's own validation error (IdempotencyKey, the message), the
  // entry not sent — the others are. The call's error (sizes, TtlSeconds,
  // OverStorageBudget, IOError, Closed): nothing sent, nothing recorded.
  // Calls with the same keys on one Queue are serialized, as
  // SendMessageAndRecord's.
  virtual StatusOr<std::vector<RecordedSend>> SendMessagesAndRecord(
      const std::vector<SendMessageRequest>& requests,
      const std::vector<std::string>& idempotency_keys, int64_t ttl_seconds) = 0;

  // Moves the leased message that `receipt_handle` names to this queue's
  // dead-letter queue (its RedrivePolicy's deadLetterTargetArn) at once,
  // whatever its receive count, adding `extra_attributes` to its message
  // attributes (overwriting same-named ones; the 10-attribute send limit does
  // not apply). One atomic write, like a redrive at maxReceiveCount:
  // DeadLetterQueueSourceArn is set and the source's counters move. The
  // extra attributes follow SendMessage's rules for names and values; the
  // moved message's MD5OfMessageAttributes covers the merged set. FIFO: the
  // message's group is unlocked at once (its next message is receivable).
  // Errors: ReceiptHandleIsInvalid; InvalidParameterValue when the queue has
  // no RedrivePolicy, when the message no longer exists or its lease has
  // ended (another consumer may hold it), or a bad extra attribute;
  // QueueDoesNotExist (the queue or its dead-letter queue), kIOError.
  virtual Status MoveToDeadLetterQueue(const std::string& receipt_handle,
                                       const MessageAttributeMap& extra_attributes) = 0;

  // ---- Operations -----------------------------------------------------------------

  // Counters and the age of the oldest message. Cheap: no scan.
  virtual StatusOr<QueueStats> GetStats() = 0;

  // Calls `fn` for each message of the queue without changing anything:
  // first the received ones (in flight, or visible again after their lease
  // ended), then the queued ones in delivery order (FIFO: group by group).
  // `fn` returns false to stop. Reads a consistent snapshot; O(messages
  // visited). For peeking, exporting and operators' tools.
  virtual Status ScanMessages(const std::function<bool(const StoredMessage&)>& fn) = 0;

  // ---- Attributes ---------------------------------------------------------------

  // Returns the attributes named (see lqs/attributes.h; "All" for all).
  // No names returns an empty map. Errors: InvalidAttributeName.
  virtual StatusOr<AttributeMap> GetAttributes(const std::vector<std::string>& names) = 0;

  // Validates all of `attributes`, then applies them at once.
  // Errors: InvalidAttributeName (unknown or read-only name, FIFO-only name
  // on a standard queue), InvalidAttributeValue / InvalidParameterValue (bad
  // value, malformed or disallowed RedrivePolicy).
  virtual Status SetAttributes(const AttributeMap& attributes) = 0;

  // ---- Tags and permissions ------------------------------------------------------

  // Adds or overwrites tags. At most 50 tags per queue.
  virtual Status TagQueue(const TagMap& tags) = 0;
  // Removes tags; unknown keys are ignored.
  virtual Status UntagQueue(const std::vector<std::string>& keys) = 0;
  virtual StatusOr<TagMap> ListQueueTags() = 0;

  // Adds a statement labelled `label` to the queue's Policy granting
  // `actions` (e.g. "SendMessage", "*") to `account_ids`.
  // Errors: InvalidParameterValue (label exists or invalid, an account id
  // that is not 12 digits, an unknown action, or an action only the queue
  // owner may use: AddPermission, CancelMessageMoveTask, CreateQueue,
  // DeleteQueue, ListMessageMoveTasks, ListQueues, ListQueueTags,
  // RemovePermission, SetQueueAttributes, StartMessageMoveTask, TagQueue,
  // UntagQueue), OverLimit (more than 7 actions, or a Policy over SQS's
  // quotas). A refused call leaves the Policy unchanged.
  virtual Status AddPermission(const std::string& label,
                               const std::vector<std::string>& account_ids,
                               const std::vector<std::string>& actions) = 0;
  virtual Status RemovePermission(const std::string& label) = 0;
};

}  // namespace lqs

#endif  // LQS_QUEUE_H_
