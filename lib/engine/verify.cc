#include "lib/engine/verify.h"

#include <set>
#include <string>
#include <string_view>

#include <absl/functional/function_ref.h>
#include <rocksdb/iterator.h>

#include "lib/engine/queue_impl.h"
#include "lib/engine/tables.h"
#include "lib/storage/counters.h"
#include "lib/storage/keys.h"
#include "lib/storage/range_iterator.h"
#include "lib/storage/records.h"

#include "lqs/limits.h"

namespace lqs::engine {
using storage::Cf;

StatusOr<std::vector<std::string>> VerifyDatabase(Core& core) {
  std::vector<std::string> problems;
  storage::Database* db = core.db();
  const rocksdb::Snapshot* snap = db->db()->GetSnapshot();
  struct Release {
    rocksdb::DB* db;
    const rocksdb::Snapshot* s;
    ~Release() { db->ReleaseSnapshot(s); }
  } release{db->db(), snap};

  std::set<uint64_t> live_ids;
  for (const auto& q : core.AllQueues()) {
    live_ids.insert(q->id());
    const std::string where = "queue " + q->name() + ": ";
    // Calls fn with each entry of this queue's range of `cf`.
    Status read_error;
    auto scan = [&](Cf cf, absl::FunctionRef<void(std::string_view, std::string_view)> fn) {
      storage::RangeIterator it(db, cf, storage::QueuePrefix(q->id()), storage::QueueEnd(q->id()),
                                snap);
      for (; it.Valid(); it.Next()) fn(it.key(), it.value());
      if (read_error.ok()) read_error = it.status(std::string("verifying ") + storage::CfName(cf));
    };

    std::string raw;
    rocksdb::ReadOptions gro;
    gro.snapshot = snap;
    storage::CounterDelta counters;
    rocksdb::Status s =
        db->db()->Get(gro, db->cf(Cf::kCounters), storage::CounterKey(q->id()), &raw);
    if (s.ok() && !storage::CounterDelta::Decode(raw, &counters))
      problems.push_back(where + "corrupt counters");
    const auto seq_cursor = static_cast<uint64_t>(counters.Get(storage::kSeqCursor));

    std::set<uint64_t> visible, inflight, messages;
    int64_t queued_by_seq = 0;
    std::set<std::pair<int64_t, uint64_t>> expiry_expected;
    scan(Cf::kVisible, [&](std::string_view key, std::string_view value) {
      storage::DecodedTimeKey k;
      storage::VisibleEntry e;
      if (!storage::DecodeTimeKey(key, &k) || !storage::DecodeVisible(value, &e)) {
        problems.push_back(where + "undecodable visible entry");
        return;
      }
      if (!visible.insert(k.seq).second)
        problems.push_back(where + "message " + std::to_string(k.seq) + " twice in visible");
      if (e.has_expiry_entry) expiry_expected.emplace(e.sent_ms, k.seq);
    });
    scan(Cf::kGrouped, [&](std::string_view key, std::string_view value) {
      uint64_t qid = 0, seq = 0;
      std::string group;
      storage::VisibleEntry e;
      if (!storage::DecodeGroupedKey(key, &qid, &group, &seq) ||
          !storage::DecodeVisible(value, &e)) {
        problems.push_back(where + "undecodable grouped entry");
        return;
      }
      if (!visible.insert(seq).second)
        problems.push_back(where + "message " + std::to_string(seq) + " queued twice");
      if (e.has_expiry_entry) expiry_expected.emplace(e.sent_ms, seq);
    });
    scan(Cf::kInflight, [&](std::string_view key, std::string_view value) {
      uint64_t qid = 0, seq = 0;
      storage::LeaseEntry lease;
      if (!storage::DecodeMessageKey(key, &qid, &seq) || !storage::DecodeLease(value, &lease)) {
        problems.push_back(where + "undecodable lease");
        return;
      }
      inflight.insert(seq);
      if (visible.count(seq))
        problems.push_back(where + "message " + std::to_string(seq) +
                           " both visible and in flight");
    });
    scan(Cf::kMessages, [&](std::string_view key, std::string_view value) {
      uint64_t qid = 0, seq = 0;
      storage::Message m;
      if (!storage::DecodeMessageKey(key, &qid, &seq)) {
        problems.push_back(where + "undecodable message key");
        return;
      }
      Status st = storage::DecodeMessage(value, q->name() + "/" + std::to_string(seq), &m);
      if (!st.ok()) problems.push_back(where + st.message());
      messages.insert(seq);
      if (st.ok() && m.queued_by_seq) {
        // Queued by its seq (seq_lane.h): never indexed; leased, or queued
        // at or above the seq cursor.
        if (visible.count(seq)) {
          problems.push_back(where + "message " + std::to_string(seq) +
                             " queued by seq has an index entry");
        } else if (!inflight.count(seq)) {
          if (seq < seq_cursor) {
            problems.push_back(where + "message " + std::to_string(seq) +
                               " is below the seq cursor and not leased");
          }
          ++queued_by_seq;
        }
      } else if (!visible.count(seq) && !inflight.count(seq)) {
        problems.push_back(where + "message " + std::to_string(seq) + " is in no state");
      }
    });
    for (uint64_t seq : visible) {
      if (!messages.count(seq))
        problems.push_back(where + "visible entry " + std::to_string(seq) + " has no message");
    }
    for (uint64_t seq : inflight) {
      if (!messages.count(seq))
        problems.push_back(where + "lease " + std::to_string(seq) + " has no message");
    }
    std::set<std::pair<int64_t, uint64_t>> expiry_found;
    scan(Cf::kExpiry, [&](std::string_view key, std::string_view /*value*/) {
      storage::DecodedTimeKey k;
      if (!storage::DecodeTimeKey(key, &k)) {
        problems.push_back(where + "undecodable expiry entry");
        return;
      }
      expiry_found.emplace(k.time_ms, k.seq);
    });
    if (expiry_found != expiry_expected)
      problems.push_back(where + "expiry index disagrees with visible entries");

    // The idempotency inbox: well-formed records (a key of 1..kMaxIdempotencyKeyBytes bytes, an
    // 8-byte expiry), each with exactly one sweep-index entry at its expiry.
    std::set<std::pair<int64_t, std::string>> inbox_records, inbox_index;
    scan(Cf::kInbox, [&](std::string_view key, std::string_view value) {
      storage::DecodedInboxKey k;
      int64_t expiry = 0;
      if (!storage::DecodeInboxKey(key, &k) || k.key.empty() ||
          k.key.size() > limits::kMaxIdempotencyKeyBytes) {
        problems.push_back(where + "undecodable inbox key");
        return;
      }
      if (k.index) {
        if (!value.empty()) problems.push_back(where + "inbox index entry with a value");
        inbox_index.emplace(k.expiry_ms, std::move(k.key));
      } else if (!storage::DecodeInboxValue(value, &expiry)) {
        problems.push_back(where + "undecodable inbox record");
      } else {
        inbox_records.emplace(expiry, std::move(k.key));
      }
    });
    if (inbox_records != inbox_index) {
      problems.push_back(where + "inbox index disagrees with inbox records");
    }

    if (!read_error.ok()) return read_error;

    const int64_t queued = static_cast<int64_t>(visible.size()) + queued_by_seq;
    if (counters.Get(storage::kStored) != queued) {
      problems.push_back(where +
                         "counter stored=" + std::to_string(counters.Get(storage::kStored)) +
                         " but " + std::to_string(queued) + " queued messages");
    }
    if (counters.Get(storage::kLeases) != static_cast<int64_t>(inflight.size())) {
      problems.push_back(where +
                         "counter leases=" + std::to_string(counters.Get(storage::kLeases)) +
                         " but " + std::to_string(inflight.size()) + " leases");
    }
  }

  // Data of queues that no longer exist.
  for (Cf cf : {Cf::kMessages, Cf::kVisible, Cf::kInflight, Cf::kExpiry, Cf::kGrouped, Cf::kDedup,
                Cf::kInbox}) {
    rocksdb::ReadOptions ro;
    ro.snapshot = snap;
    std::unique_ptr<rocksdb::Iterator> it(db->db()->NewIterator(ro, db->cf(cf)));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      if (it->key().size() < 8) continue;
      uint64_t qid = storage::GetBE64(it->key().data());
      if (!live_ids.count(qid)) {
        problems.push_back(std::string("orphan data of queue id ") + std::to_string(qid) + " in " +
                           storage::CfName(cf));
        // Skip the rest of that queue's range.
        it->Seek(storage::QueueEnd(qid));
        if (!it->Valid()) break;
        it->Prev();
      }
    }
    if (!it->status().ok()) return storage::FromRocks(it->status(), "verifying orphan data");
  }

  // Tables: every key splits into a valid table name and key, and every
  // value is within the limit.
  rocksdb::ReadOptions tro;
  tro.snapshot = snap;
  std::unique_ptr<rocksdb::Iterator> tables(db->db()->NewIterator(tro, db->cf(Cf::kTables)));
  for (tables->SeekToFirst(); tables->Valid(); tables->Next()) {
    const std::string_view raw_key(tables->key().data(), tables->key().size());
    std::string table, key;
    if (!storage::DecodeTableKey(raw_key, &table, &key) || !ValidateTableName(table).ok() ||
        !ValidateTableKey(key).ok()) {
      problems.push_back("malformed key " + PrintableKey(raw_key) + " in tables");
      continue;
    }
    if (!ValidateTableValue(std::string_view(tables->value().data(), tables->value().size()))
             .ok()) {
      problems.push_back("value of key " + PrintableKey(key) + " of table " + table +
                         " is over the limit");
    }
  }
  if (!tables->status().ok()) return storage::FromRocks(tables->status(), "verifying tables");
  return problems;
}

}  // namespace lqs::engine
