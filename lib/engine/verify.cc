#include "lib/engine/verify.h"

#include <rocksdb/iterator.h>

#include <set>

#include "lib/engine/queue_impl.h"
#include "lib/storage/counters.h"
#include "lib/storage/keys.h"
#include "lib/storage/records.h"

namespace lqs::engine {
namespace {

using storage::Cf;

std::string_view View(const rocksdb::Slice& s) { return std::string_view(s.data(), s.size()); }

}  // namespace

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
    const std::string lo = storage::QueuePrefix(q->id()), hi = storage::QueueEnd(q->id());
    rocksdb::Slice lo_s(lo), hi_s(hi);
    rocksdb::ReadOptions ro;
    ro.snapshot = snap;
    ro.iterate_lower_bound = &lo_s;
    ro.iterate_upper_bound = &hi_s;

    std::string raw;
    rocksdb::ReadOptions gro;
    gro.snapshot = snap;
    storage::CounterDelta counters;
    rocksdb::Status s = db->db()->Get(gro, db->cf(Cf::kCounters), storage::CounterKey(q->id()), &raw);
    if (s.ok() && !storage::CounterDelta::Decode(raw, &counters)) problems.push_back(where + "corrupt counters");
    const auto seq_cursor = static_cast<uint64_t>(counters.Get(storage::kSeqCursor));

    std::set<uint64_t> visible, inflight, messages;
    int64_t queued_by_seq = 0;
    std::set<std::pair<int64_t, uint64_t>> expiry_expected;
    std::unique_ptr<rocksdb::Iterator> it(db->db()->NewIterator(ro, db->cf(Cf::kVisible)));
    for (it->Seek(lo_s); it->Valid(); it->Next()) {
      storage::DecodedTimeKey k;
      storage::VisibleEntry e;
      if (!storage::DecodeTimeKey(View(it->key()), &k) || !storage::DecodeVisible(View(it->value()), &e)) {
        problems.push_back(where + "undecodable visible entry");
        continue;
      }
      if (!visible.insert(k.seq).second) problems.push_back(where + "message " + std::to_string(k.seq) + " twice in visible");
      if (e.has_expiry_entry) expiry_expected.emplace(e.sent_ms, k.seq);
    }
    it.reset(db->db()->NewIterator(ro, db->cf(Cf::kGrouped)));
    for (it->Seek(lo_s); it->Valid(); it->Next()) {
      uint64_t qid = 0, seq = 0;
      std::string group;
      storage::VisibleEntry e;
      if (!storage::DecodeGroupedKey(View(it->key()), &qid, &group, &seq) ||
          !storage::DecodeVisible(View(it->value()), &e)) {
        problems.push_back(where + "undecodable grouped entry");
        continue;
      }
      if (!visible.insert(seq).second) problems.push_back(where + "message " + std::to_string(seq) + " queued twice");
      if (e.has_expiry_entry) expiry_expected.emplace(e.sent_ms, seq);
    }
    it.reset(db->db()->NewIterator(ro, db->cf(Cf::kInflight)));
    for (it->Seek(lo_s); it->Valid(); it->Next()) {
      uint64_t qid = 0, seq = 0;
      storage::LeaseEntry lease;
      if (!storage::DecodeMessageKey(View(it->key()), &qid, &seq) || !storage::DecodeLease(View(it->value()), &lease)) {
        problems.push_back(where + "undecodable lease");
        continue;
      }
      inflight.insert(seq);
      if (visible.count(seq)) problems.push_back(where + "message " + std::to_string(seq) + " both visible and in flight");
    }
    it.reset(db->db()->NewIterator(ro, db->cf(Cf::kMessages)));
    for (it->Seek(lo_s); it->Valid(); it->Next()) {
      uint64_t qid = 0, seq = 0;
      storage::Message m;
      if (!storage::DecodeMessageKey(View(it->key()), &qid, &seq)) {
        problems.push_back(where + "undecodable message key");
        continue;
      }
      Status st = storage::DecodeMessage(View(it->value()), q->name() + "/" + std::to_string(seq), &m);
      if (!st.ok()) problems.push_back(where + st.message());
      messages.insert(seq);
      if (st.ok() && m.queued_by_seq) {
        // Queued by its seq (seq_lane.h): never indexed; leased, or queued
        // at or above the seq cursor.
        if (visible.count(seq)) {
          problems.push_back(where + "message " + std::to_string(seq) + " queued by seq has an index entry");
        } else if (!inflight.count(seq)) {
          if (seq < seq_cursor) {
            problems.push_back(where + "message " + std::to_string(seq) + " is below the seq cursor and not leased");
          }
          ++queued_by_seq;
        }
      } else if (!visible.count(seq) && !inflight.count(seq)) {
        problems.push_back(where + "message " + std::to_string(seq) + " is in no state");
      }
    }
    for (uint64_t seq : visible) {
      if (!messages.count(seq)) problems.push_back(where + "visible entry " + std::to_string(seq) + " has no message");
    }
    for (uint64_t seq : inflight) {
      if (!messages.count(seq)) problems.push_back(where + "lease " + std::to_string(seq) + " has no message");
    }
    std::set<std::pair<int64_t, uint64_t>> expiry_found;
    it.reset(db->db()->NewIterator(ro, db->cf(Cf::kExpiry)));
    for (it->Seek(lo_s); it->Valid(); it->Next()) {
      storage::DecodedTimeKey k;
      if (!storage::DecodeTimeKey(View(it->key()), &k)) {
        problems.push_back(where + "undecodable expiry entry");
        continue;
      }
      expiry_found.emplace(k.time_ms, k.seq);
    }
    if (expiry_found != expiry_expected) problems.push_back(where + "expiry index disagrees with visible entries");

    // The idempotency inbox: well-formed records (a key of 1..512 bytes, an
    // 8-byte expiry), each with exactly one sweep-index entry at its expiry.
    std::set<std::pair<int64_t, std::string>> inbox_records, inbox_index;
    it.reset(db->db()->NewIterator(ro, db->cf(Cf::kInbox)));
    for (it->Seek(lo_s); it->Valid(); it->Next()) {
      storage::DecodedInboxKey k;
      int64_t expiry = 0;
      if (!storage::DecodeInboxKey(View(it->key()), &k) || k.key.empty() || k.key.size() > 512) {
        problems.push_back(where + "undecodable inbox key");
        continue;
      }
      if (k.index) {
        if (!it->value().empty()) problems.push_back(where + "inbox index entry with a value");
        inbox_index.emplace(k.expiry_ms, std::move(k.key));
      } else if (!storage::DecodeInboxValue(View(it->value()), &expiry)) {
        problems.push_back(where + "undecodable inbox record");
      } else {
        inbox_records.emplace(expiry, std::move(k.key));
      }
    }
    if (inbox_records != inbox_index) {
      problems.push_back(where + "inbox index disagrees with inbox records");
    }

    const int64_t queued = static_cast<int64_t>(visible.size()) + queued_by_seq;
    if (counters.Get(storage::kStored) != queued) {
      problems.push_back(where + "counter stored=" + std::to_string(counters.Get(storage::kStored)) +
                         " but " + std::to_string(queued) + " queued messages");
    }
    if (counters.Get(storage::kLeases) != static_cast<int64_t>(inflight.size())) {
      problems.push_back(where + "counter leases=" + std::to_string(counters.Get(storage::kLeases)) +
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
        problems.push_back(std::string("orphan data of queue id ") + std::to_string(qid) + " in " + storage::CfName(cf));
        // Skip the rest of that queue's range.
        it->Seek(storage::QueueEnd(qid));
        if (!it->Valid()) break;
        it->Prev();
      }
    }
  }
  return problems;
}

}  // namespace lqs::engine
