// lib/engine/verify.h — the consistency checker behind Broker::Verify and the
// crash tests: every message in exactly one state, every index entry backed
// by a verifiable record, counters equal to the data.
//
// Thread safety: reads a consistent RocksDB snapshot; safe while the
// database is in use (counts may then disagree by in-progress calls).

#ifndef LQS_LIB_ENGINE_VERIFY_H_
#define LQS_LIB_ENGINE_VERIFY_H_

#include <string>
#include <vector>

#include "lib/engine/core.h"

namespace lqs::engine {

// Problems found, one line each (empty: consistent).
StatusOr<std::vector<std::string>> VerifyDatabase(Core& core);

}  // namespace lqs::engine

#endif  // LQS_LIB_ENGINE_VERIFY_H_
