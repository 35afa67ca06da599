// lib/storage/range_iterator.h — an iterator over [lower, upper) of one
// column family that owns its bounds (RocksDB's ReadOptions only point at
// them), so range scans are one line and the bounds cannot dangle.
//
// The plain constructor seeks to `lower` at once. The DeferSeek one only
// creates the iterator, and with it the implicit snapshot (or uses the
// given one), so that a caller can fix the view under a lock and read it
// after releasing the lock: Seek/SeekToLower then position it.
//
// Not copyable or movable: the iterator holds pointers to the bounds.
//
// Thread safety: like rocksdb::Iterator, one thread at a time.

#ifndef LQS_LIB_STORAGE_RANGE_ITERATOR_H_
#define LQS_LIB_STORAGE_RANGE_ITERATOR_H_

#include <memory>
#include <string>
#include <string_view>

#include <rocksdb/db.h>
#include <rocksdb/iterator.h>

#include "lib/storage/database.h"

namespace lqs::storage {

class RangeIterator {
 public:
  struct DeferSeek {};

  RangeIterator(Database* db, Cf cf, std::string lower, std::string upper,
                const rocksdb::Snapshot* snapshot = nullptr)
      : RangeIterator(DeferSeek{}, db, cf, std::move(lower), std::move(upper), snapshot) {
    SeekToLower();
  }

  RangeIterator(DeferSeek /*unused*/, Database* db, Cf cf, std::string lower, std::string upper,
                const rocksdb::Snapshot* snapshot = nullptr)
      : lower_(std::move(lower)), upper_(std::move(upper)), lower_s_(lower_), upper_s_(upper_) {
    rocksdb::ReadOptions ro;
    ro.snapshot = snapshot;
    ro.iterate_lower_bound = &lower_s_;
    ro.iterate_upper_bound = &upper_s_;
    it_.reset(db->db()->NewIterator(ro, db->cf(cf)));
  }

  RangeIterator(const RangeIterator&) = delete;
  RangeIterator& operator=(const RangeIterator&) = delete;

  void SeekToLower() { it_->Seek(lower_s_); }
  // Positions at the first key >= `target` (clamped to the bounds).
  void Seek(std::string_view target) { it_->Seek(rocksdb::Slice(target.data(), target.size())); }

  bool Valid() const { return it_->Valid(); }
  void Next() { it_->Next(); }
  std::string_view key() const { return {it_->key().data(), it_->key().size()}; }
  std::string_view value() const { return {it_->value().data(), it_->value().size()}; }
  rocksdb::Slice key_slice() const { return it_->key(); }
  Status status(std::string_view context) const { return FromRocks(it_->status(), context); }
  bool ok() const { return it_->status().ok(); }

 private:
  std::string lower_, upper_;
  rocksdb::Slice lower_s_, upper_s_;
  std::unique_ptr<rocksdb::Iterator> it_;
};

}  // namespace lqs::storage

#endif  // LQS_LIB_STORAGE_RANGE_ITERATOR_H_
