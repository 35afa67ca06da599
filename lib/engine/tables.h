// lib/engine/tables.h — the `tables` column family (lqs/transaction.h): the
// checks of table names, keys and values, and committed reads.
//
// Thread safety: every function may be called from any thread. Errors:
// kInvalidParameterValue naming Table, Key, Prefix or Value; kClosed;
// kIOError from RocksDB.

#ifndef LQS_LIB_ENGINE_TABLES_H_
#define LQS_LIB_ENGINE_TABLES_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/engine/core.h"

#include "lqs/status.h"
#include "lqs/transaction.h"

namespace lqs::engine {

Status ValidateTableName(std::string_view table);
Status ValidateTableKey(std::string_view key);
Status ValidateTablePrefix(std::string_view prefix);
Status ValidateTableValue(std::string_view value);

// Raw (encoded key, value) pairs of the tables column family in [lo, hi).
using RawEntries = std::vector<std::pair<std::string, std::string>>;
Status ReadTableRange(Core& core, const std::string& lo, const std::string& hi, RawEntries* out);
// A committed value by encoded key.
StatusOr<std::optional<std::string>> ReadTableValue(Core& core, const std::string& encoded_key);

// Broker::Get and Broker::Scan.
StatusOr<std::optional<std::string>> TableGet(Core& core, std::string_view table,
                                              std::string_view key);
StatusOr<std::vector<TableEntry>> TableScan(Core& core, std::string_view table,
                                            std::string_view prefix);

// Broker::ListTables: one seek per table.
StatusOr<std::vector<std::string>> TableNames(Core& core);

// A key for an error message: as it is when printable ASCII, else hex.
std::string PrintableKey(std::string_view key);

}  // namespace lqs::engine

#endif  // LQS_LIB_ENGINE_TABLES_H_
