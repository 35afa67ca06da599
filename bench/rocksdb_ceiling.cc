// bench/rocksdb_ceiling.cc — the raw RocksDB ceiling for a message lifecycle.
//
// A separate RocksDB instance with the same column families (storage::Cf) and the same
// per-family options as lib/storage/database.cc (write buffer, block cache,
// bloom filters, the counters merge operator, compact-on-deletion), WAL off
// for Durability::kNone, WAL on otherwise, and sync=true on sends only in
// kFsync (lqs syncs sends, not receives or deletes).
//
// It issues exactly the WriteBatches lqs issues, with the same keys, value
// sizes and merge operands (encoded with lqs's own record encoders), and no
// queue logic: no reads, no iterators, no leases, no validation, no MD5.
// With SystemConfig::ceiling_reads (the large-body rows) its receive also
// reads each record it claims (a Get into a pinned slice), the read-inclusive
// ceiling: lqs must read a body to return it.
//   send of n     : 1 batch = n x (Put messages + Put visible) + 1 Merge counters
//   receive of n  : 1 batch = n x (Delete visible + Put inflight) + 1 Merge
//   delete of n   : 1 batch = n x (Delete messages + Delete inflight) + 1 Merge
// "Receiving" claims the next n sequence numbers already sent (an atomic).
//
// FIFO (SystemConfig::fifo_groups > 0), the writes lib/engine/fifo_queue.cc
// makes, with the group of seq s = GroupName(s % groups) and no group locks:
//   send of n     : n x (Put messages + Put grouped + Put expiry + Put dedup) + Merge
//   receive of n  : n x (Delete grouped + Delete expiry + Put inflight) + Merge
//   delete of n   : as standard
// Close flushes the memtables in every mode, as lqs's Broker::Close does.

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include "bench/systems.h"
#include "lib/fifo/dedup_table.h"
#include "lib/storage/counters.h"
#include "lib/storage/database.h"
#include "lib/storage/keys.h"
#include "lib/storage/records.h"

namespace lqs::bench {
namespace {

using storage::Cf;
constexpr uint64_t kQid = 1;
constexpr int kNumCf = static_cast<int>(Cf::kCount);
constexpr char kMetaKey[] = "bench-ceiling-state";

class Ceiling final : public QueueSystem {
 public:
  bool Init(const SystemConfig& config) {
    config_ = config;
    // lqs's default tuning, in this workload's durability mode: the same
    // RocksDB options as Database::Open (lib/storage/database.h).
    Options defaults;
    defaults.durability = config.durability;
    rocksdb::DBOptions db_options = storage::DatabaseOptionsFor(defaults);
    auto cache = rocksdb::NewLRUCache(static_cast<size_t>(defaults.block_cache_bytes));
    std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
    for (int i = 0; i < kNumCf; ++i) {
      Cf which = static_cast<Cf>(i);
      descriptors.emplace_back(storage::CfName(which),
                               storage::ColumnFamilyOptionsFor(which, defaults, cache));
    }
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(db_options, config.dir, descriptors, &handles, &raw);
    if (!s.ok()) {
      std::fprintf(stderr, "ceiling: open %s: %s\n", config.dir.c_str(), s.ToString().c_str());
      return false;
    }
    db_.reset(raw);
    for (int i = 0; i < kNumCf; ++i) cf_[i] = handles[i];
    plain_.disableWAL = config.durability == Durability::kNone;
    sync_ = plain_;
    sync_.sync = config.durability == Durability::kFsync;

    // Values of the exact sizes lqs writes, built with lqs's encoders.
    const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    time_ms_ = now;
    storage::Message m;
    m.message_id = "0f8fad5b-d9cb-469f-a165-70867728950e";  // a UUID's length
    m.body = MakeBody(config.body_bytes);
    record_value_ = m.body;
    m.md5_of_body = std::string(32, 'f');
    m.sent_timestamp_ms = now;
    m.sender_id = defaults.sender_id;
    groups_ = config.fifo_groups;
    reads_ = config.ceiling_reads;
    config_body_bytes_ = config.body_bytes;
    if (groups_ > 0) {
      // FIFO messages also carry their group, dedup id and sequence number.
      m.message_group_id = GroupName(0);
      m.message_deduplication_id = "1234567890123456789-1234567";
      m.sequence_number = fifo::FormatSequenceNumber(1);
      dedup_value_.first_ms = now;
      dedup_value_.message_id = m.message_id;
      dedup_value_.sequence_number = m.sequence_number;
    }
    message_value_ = storage::EncodeMessage(m);
    storage::VisibleEntry v;
    v.sent_ms = now;
    v.has_expiry_entry = groups_ > 0;
    visible_value_ = storage::EncodeVisible(v);
    storage::LeaseEntry lease;
    lease.visible_at_ms = now + 30000;
    lease.receive_count = 1;
    lease.first_receive_ms = now;
    lease.sent_ms = now;
    lease.lease_start_ms = now;
    if (groups_ > 0) lease.group = GroupName(0);
    lease_value_ = storage::EncodeLease(lease);

    // Bench bookkeeping (not part of the measured shape): where a previous
    // session of this directory stopped, so a prefilled ceiling can be
    // reopened in another durability mode, as lqs and SQLite can.
    std::string meta;
    if (db_->Get(rocksdb::ReadOptions(), cf(Cf::kCatalog), kMetaKey, &meta).ok() &&
        meta.size() == 24) {
      uint64_t state[3];
      std::memcpy(state, meta.data(), sizeof(state));
      next_seq_ = state[0];
      sent_ = state[1];
      next_recv_ = state[2];
    }
    return true;
  }

  bool Send(int n) override {
    rocksdb::WriteBatch batch;
    AddSends(n, &batch);
    if (!Write(sync_, &batch)) return false;
    sent_.fetch_add(static_cast<uint64_t>(n));
    return true;
  }

  int Receive(int max, std::vector<std::string>* handles) override {
    uint64_t first = next_recv_.load();
    uint64_t k = 0;
    while (true) {
      const uint64_t avail = sent_.load();
      if (first >= avail) return 0;
      k = std::min<uint64_t>(static_cast<uint64_t>(max), avail - first);
      if (next_recv_.compare_exchange_weak(first, first + k)) break;
    }
    storage::CounterDelta delta;
    delta.Add(storage::kStored, -static_cast<int64_t>(k));
    delta.Add(storage::kLeases, static_cast<int64_t>(k));
    delta.Add(storage::kReceivedTotal, static_cast<int64_t>(k));
    delta.Max(storage::kCursorMs, time_ms_);
    rocksdb::WriteBatch batch;
    rocksdb::PinnableSlice record;
    for (uint64_t i = 0; i < k; ++i) {
      const uint64_t seq = first + i;
      if (reads_) {
        record.Reset();
        if (!db_->Get(rocksdb::ReadOptions(), cf(Cf::kMessages), storage::MessageKey(kQid, seq),
                      &record)
                 .ok() ||
            record.size() < config_body_bytes_) {
          std::fprintf(stderr, "ceiling: message %llu was not read\n",
                       static_cast<unsigned long long>(seq));
          return -1;
        }
      }
      if (groups_ > 0) {
        batch.Delete(cf(Cf::kGrouped), storage::GroupedKey(kQid, GroupOf(seq), seq));
        batch.Delete(cf(Cf::kExpiry), storage::TimeKey(kQid, time_ms_, seq));
      } else {
        batch.Delete(cf(Cf::kVisible), storage::TimeKey(kQid, time_ms_, seq));
      }
      batch.Put(cf(Cf::kInflight), storage::MessageKey(kQid, seq), lease_value_);
      std::string h(sizeof(seq), '\0');
      std::memcpy(h.data(), &seq, sizeof(seq));
      handles->push_back(std::move(h));
    }
    batch.Merge(cf(Cf::kCounters), storage::CounterKey(kQid), delta.Encode());
    if (!Write(plain_, &batch)) return -1;
    return static_cast<int>(k);
  }

  bool Delete(const std::vector<std::string>& handles) override {
    storage::CounterDelta delta;
    delta.Add(storage::kLeases, -static_cast<int64_t>(handles.size()));
    delta.Add(storage::kDeletedTotal, static_cast<int64_t>(handles.size()));
    rocksdb::WriteBatch batch;
    for (const std::string& h : handles) {
      uint64_t seq = 0;
      std::memcpy(&seq, h.data(), sizeof(seq));
      const std::string key = storage::MessageKey(kQid, seq);
      batch.Delete(cf(Cf::kMessages), key);
      batch.Delete(cf(Cf::kInflight), key);
    }
    batch.Merge(cf(Cf::kCounters), storage::CounterKey(kQid), delta.Encode());
    return Write(plain_, &batch);
  }

  // The commit's writes without a transaction: the record (in the tables
  // column family, keyed as lqs keys it) and one send, in one batch synced
  // as a send. No validation, no locks: what the disk and RocksDB cost.
  bool TxSend() override {
    rocksdb::WriteBatch batch;
    char key[24];
    std::snprintf(key, sizeof(key), "rec-%016llu",
                  static_cast<unsigned long long>(next_record_.fetch_add(1)));
    batch.Put(cf(Cf::kTables), storage::TableKey("bench", key), record_value_);
    AddSends(1, &batch);
    if (!Write(sync_, &batch)) return false;
    sent_.fetch_add(1);
    return true;
  }

  bool Close() override {
    if (!db_) return true;
    const uint64_t v[3] = {next_seq_.load(), sent_.load(), next_recv_.load()};
    rocksdb::Status s = db_->Put(rocksdb::WriteOptions(), cf(Cf::kCatalog), kMetaKey,
                                 rocksdb::Slice(reinterpret_cast<const char*>(v), sizeof(v)));
    if (!s.ok()) {
      std::fprintf(stderr, "ceiling: meta: %s\n", s.ToString().c_str());
    } else {
      // As lqs's Close: flush the memtables in every mode, sync the log
      // unless the WAL is off.
      std::vector<rocksdb::ColumnFamilyHandle*> all(cf_.begin(), cf_.end());
      s = db_->Flush(rocksdb::FlushOptions(), all);
      if (s.ok() && config_.durability != Durability::kNone) s = db_->FlushWAL(true);
    }
    for (auto* h : cf_) db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
    rocksdb::Status c = db_->Close();
    db_.reset();
    if (!s.ok() || !c.ok()) {
      std::fprintf(stderr, "ceiling: close: %s %s\n", s.ToString().c_str(), c.ToString().c_str());
      return false;
    }
    return true;
  }

  ~Ceiling() override { Close(); }

 private:
  rocksdb::ColumnFamilyHandle* cf(Cf which) const { return cf_[static_cast<int>(which)]; }
  std::string GroupOf(uint64_t seq) const {
    return GroupName(static_cast<int64_t>(seq % static_cast<uint64_t>(groups_)));
  }
  // The send of n messages's writes (Send), added to `batch`.
  void AddSends(int n, rocksdb::WriteBatch* batch) {
    // The counter delta lqs merges for a send of n.
    storage::CounterDelta delta;
    delta.Add(storage::kStored, n);
    delta.Add(storage::kSentTotal, n);
    const uint64_t first = next_seq_.fetch_add(static_cast<uint64_t>(n));
    for (int i = 0; i < n; ++i) {
      const uint64_t seq = first + static_cast<uint64_t>(i);
      batch->Put(cf(Cf::kMessages), storage::MessageKey(kQid, seq), message_value_);
      if (groups_ > 0) {
        // The FIFO send: grouped index, expiry index, dedup record.
        const std::string group = GroupOf(seq);
        batch->Put(cf(Cf::kGrouped), storage::GroupedKey(kQid, group, seq), visible_value_);
        batch->Put(cf(Cf::kExpiry), storage::TimeKey(kQid, time_ms_, seq),
                   storage::ExpiryValueGrouped(group));
        batch->Put(cf(Cf::kDedup),
                   storage::DedupKey(kQid, "1234567890123456789-" + std::to_string(seq)),
                   storage::EncodeDedup(dedup_value_));
      } else {
        batch->Put(cf(Cf::kVisible), storage::TimeKey(kQid, time_ms_, seq), visible_value_);
      }
    }
    batch->Merge(cf(Cf::kCounters), storage::CounterKey(kQid), delta.Encode());
  }
  bool Write(const rocksdb::WriteOptions& wo, rocksdb::WriteBatch* batch) {
    rocksdb::Status s = db_->Write(wo, batch);
    if (!s.ok()) {
      std::fprintf(stderr, "ceiling: write: %s\n", s.ToString().c_str());
      return false;
    }
    return true;
  }

  SystemConfig config_;
  std::unique_ptr<rocksdb::DB> db_;
  std::array<rocksdb::ColumnFamilyHandle*, kNumCf> cf_{};
  rocksdb::WriteOptions plain_, sync_;
  int64_t time_ms_ = 0;
  std::string message_value_, visible_value_, lease_value_;
  std::string record_value_;  // TxSend's record: config.body_bytes
  std::atomic<uint64_t> next_record_{0};
  int groups_ = 0;
  bool reads_ = false;  // SystemConfig::ceiling_reads
  size_t config_body_bytes_ = 0;
  storage::DedupEntry dedup_value_;
  std::atomic<uint64_t> next_seq_{1};
  std::atomic<uint64_t> sent_{1};  // seqs [1, sent_) are written (approx.)
  std::atomic<uint64_t> next_recv_{1};
};

}  // namespace

std::unique_ptr<QueueSystem> OpenRocksDbCeiling(const SystemConfig& config) {
  return MakeSystem<Ceiling>(config);
}

}  // namespace lqs::bench
