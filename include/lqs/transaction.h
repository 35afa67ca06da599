// lqs/transaction.h — the application's records and its queue operations in
// one atomic commit (docs/transactions.md).
//
// Tables are named namespaces of key/value records kept in lqs's database.
// A Transaction reads and writes them and sends, deletes and changes the
// visibility of messages; Commit() applies all of it as one RocksDB
// WriteBatch, or nothing.
//
//   auto tx = broker->BeginTransaction();
//   tx->Put("exports", request_id, "ACCEPTED");
//   lqs::SendMessageRequest job;
//   job.body = request_id;
//   if (!tx->SendMessage("jobs", job).ok()) { ... }
//   auto done = tx->Commit();
//   if (done.status().code() == lqs::ErrorCode::kTransactionConflict) { ... run it again ... }
//
// Every call checks its arguments at once, with the error the
// non-transactional call would give (the parameter and SQS's code); a call
// that fails records nothing and the transaction stays usable. Nothing a
// transaction does is visible to anyone else before Commit() returns OK;
// the transaction sees its own table writes (Get, Scan), not its own sends.
//
// Conflicts are optimistic. Commit() fails with kTransactionConflict, and
// applies nothing, when
//   - a table key that the transaction read (Get, or a key or gap a Scan
//     covered) was changed by another commit since it was read, or
//   - the lease behind one of its DeleteMessage or ChangeMessageVisibility
//     calls was lost: the visibility timeout ended, the message was received
//     again, or it was deleted, moved or expired meanwhile.
// kTransactionConflict is the only error that running the same transaction
// again can fix (for a lost lease: after receiving the message again).
// Commit() can also fail with kQueueDoesNotExist (a queue was deleted),
// kOverStorageBudget, kInvalidParameterValue (a visibility change beyond
// the 12-hour lease budget), kClosed and kIOError.
//
// Durability: a commit is as durable as a send (Options::durability; inside
// a CommitScope, durable after the scope's Commit()). Long-polling receivers
// of a queue the transaction sent to are woken after the commit.
//
// Not over HTTP: SQS has no such action, so lqsd does not offer one.
//
// Thread safety: a Transaction is used by one thread at a time; any number
// of transactions may run and commit concurrently. It shares the Broker's
// state: after Broker::Close() its calls fail with kClosed.

#ifndef LQS_TRANSACTION_H_
#define LQS_TRANSACTION_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lqs/status.h"
#include "lqs/types.h"

namespace lqs {

// One record of a table.
struct TableEntry {
  std::string key;
  std::string value;
};

// What a commit sent: one result per message sent, in the order of the
// SendMessage calls (a SendMessageBatch's entries in their order).
struct TransactionResult {
  std::vector<SendMessageResult> sent;
};

class Transaction {
 public:
  // Rolls back a transaction that was not committed.
  virtual ~Transaction() = default;

  // Limits (lqs/limits.h): `table` 1..64 characters of [A-Za-z0-9_.-];
  // `key` 1..1024 bytes; `value` 0..256 KiB. Errors: kInvalidParameterValue
  // naming Table, Key or Value.
  virtual Status Put(std::string_view table, std::string_view key, std::string_view value) = 0;
  // The value, or nullopt when the key is absent; sees this transaction's
  // own Put and Delete calls.
  virtual StatusOr<std::optional<std::string>> Get(std::string_view table,
                                                   std::string_view key) = 0;
  // Deleting an absent key succeeds (and conflicts with nothing).
  virtual Status Delete(std::string_view table, std::string_view key) = 0;
  // The records of `table` whose key starts with `prefix` (empty: all), in
  // byte order of the keys, with this transaction's own writes merged in.
  // Loads them all into memory: meant for small tables and narrow prefixes.
  virtual StatusOr<std::vector<TableEntry>> Scan(std::string_view table,
                                                 std::string_view prefix) = 0;

  // Queue operations, checked now as the Queue calls check them, applied at
  // Commit(). Errors: kQueueDoesNotExist, and those of Queue::SendMessage
  // (a SendMessageBatch fails whole on its first bad entry).
  virtual Status SendMessage(const std::string& queue_name, const SendMessageRequest& request) = 0;
  virtual Status SendMessageBatch(const std::string& queue_name,
                                  const std::vector<SendMessageBatchEntry>& entries) = 0;
  // Deletes the message at commit, if `receipt_handle` is still its current
  // lease then (otherwise the commit fails with kTransactionConflict).
  // Errors now: kQueueDoesNotExist, kReceiptHandleIsInvalid,
  // kInvalidParameterValue (the message is already deleted in this
  // transaction).
  virtual Status DeleteMessage(const std::string& queue_name,
                               const std::string& receipt_handle) = 0;
  // Changes the visibility at commit, if `receipt_handle` is still the
  // current lease then. Errors now: as DeleteMessage, and
  // kInvalidParameterValue for a timeout outside 0..43200.
  virtual Status ChangeMessageVisibility(const std::string& queue_name,
                                         const std::string& receipt_handle,
                                         int visibility_timeout) = 0;

  // Applies everything as one atomic write. Afterwards (whatever the
  // outcome) the transaction is finished: further calls fail with
  // kInvalidParameterValue. Errors: see above.
  virtual StatusOr<TransactionResult> Commit() = 0;
};

}  // namespace lqs

#endif  // LQS_TRANSACTION_H_
