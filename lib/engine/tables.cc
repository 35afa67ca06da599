// lib/engine/tables.cc — table names, keys and values, and committed reads of
// the `tables` column family (lib/storage/keys.h: len(table) | table | key).

#include "lib/engine/tables.h"

#include <algorithm>
#include <memory>

#include <rocksdb/iterator.h>

#include "lib/storage/keys.h"
#include "lib/storage/range_iterator.h"

#include "lqs/limits.h"

namespace lqs::engine {

namespace {

bool TableNameChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

Status Invalid(std::string_view parameter, const std::string& value, const std::string& reason) {
  return Status(ErrorCode::kInvalidParameterValue, "Value " + value + " for parameter " +
                                                       std::string(parameter) +
                                                       " is invalid. Reason: " + reason);
}

std::string Bytes(size_t n) { return "(" + std::to_string(n) + " bytes)"; }

}  // namespace

Status ValidateTableName(std::string_view table) {
  bool ok = !table.empty() && table.size() <= limits::kMaxTableNameLength;
  for (char c : table) ok = ok && TableNameChar(c);
  if (ok) return Status::OK();
  return Invalid("Table", PrintableKey(table),
                 "A table name is 1 to " + std::to_string(limits::kMaxTableNameLength) +
                     " characters of A-Z, a-z, 0-9, '_', '.' and '-'.");
}

Status ValidateTableKey(std::string_view key) {
  if (!key.empty() && key.size() <= limits::kMaxTableKeyBytes) return Status::OK();
  return Invalid("Key", Bytes(key.size()),
                 "A key is 1 to " + std::to_string(limits::kMaxTableKeyBytes) + " bytes long.");
}

Status ValidateTablePrefix(std::string_view prefix) {
  if (prefix.size() <= limits::kMaxTableKeyBytes) return Status::OK();
  return Invalid(
      "Prefix", Bytes(prefix.size()),
      "A prefix is at most " + std::to_string(limits::kMaxTableKeyBytes) + " bytes long.");
}

Status ValidateTableValue(std::string_view value) {
  if (value.size() <= limits::kMaxTableValueBytes) return Status::OK();
  return Invalid(
      "Value", Bytes(value.size()),
      "A value is at most " + std::to_string(limits::kMaxTableValueBytes) + " bytes long.");
}

Status ReadTableRange(Core& core, const std::string& lo, const std::string& hi, RawEntries* out) {
  out->clear();
  storage::RangeIterator it(core.db(), storage::Cf::kTables, lo, hi);
  for (; it.Valid(); it.Next()) out->emplace_back(it.key(), it.value());
  return it.status("scanning a table");
}

StatusOr<std::optional<std::string>> ReadTableValue(Core& core, const std::string& encoded_key) {
  std::string value;
  bool found = false;
  Status st = core.db()->Get(storage::Cf::kTables, encoded_key, &value, &found);
  if (!st.ok()) return st;
  if (!found) return std::optional<std::string>();
  return std::optional<std::string>(std::move(value));
}

StatusOr<std::optional<std::string>> TableGet(Core& core, std::string_view table,
                                              std::string_view key) {
  if (core.closed()) return ClosedError();
  if (Status st = ValidateTableName(table); !st.ok()) return st;
  if (Status st = ValidateTableKey(key); !st.ok()) return st;
  return ReadTableValue(core, storage::TableKey(table, key));
}

StatusOr<std::vector<TableEntry>> TableScan(Core& core, std::string_view table,
                                            std::string_view prefix) {
  if (core.closed()) return ClosedError();
  if (Status st = ValidateTableName(table); !st.ok()) return st;
  if (Status st = ValidateTablePrefix(prefix); !st.ok()) return st;
  RawEntries raw;
  Status st = ReadTableRange(core, storage::TableKey(table, prefix),
                             storage::TableScanEnd(table, prefix), &raw);
  if (!st.ok()) return st;
  std::vector<TableEntry> out;
  out.reserve(raw.size());
  const size_t skip = 1 + table.size();
  for (auto& [k, v] : raw) out.push_back({k.substr(skip), std::move(v)});
  return out;
}

StatusOr<std::vector<std::string>> TableNames(Core& core) {
  if (core.closed()) return ClosedError();
  std::vector<std::string> names;
  std::unique_ptr<rocksdb::Iterator> it(
      core.db()->db()->NewIterator(rocksdb::ReadOptions(), core.db()->cf(storage::Cf::kTables)));
  for (it->SeekToFirst(); it->Valid();) {
    std::string table, key;
    if (!storage::DecodeTableKey(std::string_view(it->key().data(), it->key().size()), &table,
                                 &key)) {
      return Status(ErrorCode::kCorruption, "a key of the tables column family is malformed");
    }
    // The next table starts after every key of this one.
    it->Seek(storage::TableScanEnd(table, ""));
    names.push_back(std::move(table));
  }
  if (!it->status().ok()) return storage::FromRocks(it->status(), "listing tables");
  // Stored by length first (the length byte leads the key).
  std::sort(names.begin(), names.end());
  return names;
}

std::string PrintableKey(std::string_view key) {
  bool printable = true;
  for (char c : key) printable = printable && c >= 0x20 && c < 0x7f;
  if (printable) return "\"" + std::string(key) + "\"";
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "0x";
  for (char c : key) {
    out.push_back(kHex[(static_cast<unsigned char>(c) >> 4) & 0xf]);
    out.push_back(kHex[static_cast<unsigned char>(c) & 0xf]);
  }
  return out;
}

}  // namespace lqs::engine
