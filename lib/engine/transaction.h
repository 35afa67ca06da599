// lib/engine/transaction.h — Broker::BeginTransaction's implementation
// (lqs/transaction.h; the design is docs/transactions.md).

#ifndef LQS_LIB_ENGINE_TRANSACTION_H_
#define LQS_LIB_ENGINE_TRANSACTION_H_

#include <cstdint>
#include <memory>
#include <string>

#include "lib/engine/core.h"

#include "lqs/queue.h"
#include "lqs/transaction.h"

namespace lqs::engine {

// A transaction on `core`'s database. Holds the Core: after Close() its
// calls fail with kClosed.
std::unique_ptr<Transaction> NewTransaction(std::shared_ptr<Core> core);

// For lqs::Worker's transactional handlers (lib/worker/worker.cc), which
// hold only a Queue: a transaction on the database `queue` belongs to, or
// nullptr when `queue` is not a queue of this engine.
std::unique_ptr<Transaction> NewTransactionFor(Queue& queue);

// Transaction::DeleteMessage that also records `idempotency_key` in the
// queue's inbox for `ttl_seconds` from the commit's time, as
// Queue::DeleteMessageAndRecord does, in the same commit. `tx` must come
// from NewTransaction or NewTransactionFor. Errors: DeleteMessage's, and
// kInvalidParameterValue naming IdempotencyKey or TtlSeconds.
Status DeleteMessageAndRecord(Transaction& tx, const std::string& queue_name,
                              const std::string& receipt_handle, const std::string& idempotency_key,
                              int64_t ttl_seconds);

}  // namespace lqs::engine

#endif  // LQS_LIB_ENGINE_TRANSACTION_H_
