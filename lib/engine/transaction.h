// lib/engine/transaction.h — Broker::BeginTransaction's implementation
// (lqs/transaction.h; the design is docs/transactions.md).

#ifndef LQS_LIB_ENGINE_TRANSACTION_H_
#define LQS_LIB_ENGINE_TRANSACTION_H_

#include <memory>

#include "lib/engine/core.h"

#include "lqs/transaction.h"

namespace lqs::engine {

// A transaction on `core`'s database. Holds the Core: after Close() its
// calls fail with kClosed.
std::unique_ptr<Transaction> NewTransaction(std::shared_ptr<Core> core);

}  // namespace lqs::engine

#endif  // LQS_LIB_ENGINE_TRANSACTION_H_
