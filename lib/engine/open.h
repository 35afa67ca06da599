// lib/engine/open.h — Broker::Open with an injectable RocksDB Env, for the
// fault-injection tests (ENOSPC, write errors, dropped unsynced data).
#ifndef LQS_LIB_ENGINE_OPEN_H_
#define LQS_LIB_ENGINE_OPEN_H_

#include <memory>

#include "lqs/broker.h"

namespace rocksdb {
class Env;
}

namespace lqs::engine {

// As Broker::Open; `env` (may be null) replaces RocksDB's default Env.
StatusOr<std::unique_ptr<Broker>> OpenBroker(const Options& options, rocksdb::Env* env);

}  // namespace lqs::engine

#endif  // LQS_LIB_ENGINE_OPEN_H_
