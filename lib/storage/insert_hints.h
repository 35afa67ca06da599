// lib/storage/insert_hints.h — which memtable insert hint each column family
// keeps (RocksDB's memtable_insert_with_hint_prefix_extractor).
//
// A RocksDB memtable is a skip list that remembers where it last inserted;
// a key that does not land right there is searched from the top. A queue
// inserts and deletes keys in order within "streams": one queue's index
// entries, leases and bodies, one FIFO group's entries, one queue's counter
// merges. Deletes are the costly case: each tombstone lands just before its
// own Put, so the next one (past that Put) never lands at the remembered
// spot. A hint per stream (keyed by the prefix returned here) lets each
// insert resume from the previous position of its stream. A hint costs a
// 224-byte position in the memtable's arena (counted in its write buffer)
// plus a map entry, and goes with the memtable at its flush.
//
// Contract: no DeleteRange start key may be in a hint domain. RocksDB 7.8
// (Debian 12) hands a point key's hint to the range-deletion skip list when
// it is, and aborts on an assertion. lqs's range deletions start at the
// 8-byte QueuePrefix, which every domain here excludes; the FIFO, consumer
// support, C API and engine fuzz-replay tests abort if that breaks.
//
// Thread safety: the transforms are immutable. RocksDB uses the hints only
// when one thread inserts a write group, so Database::Open turns concurrent
// memtable writes off.

#ifndef LQS_LIB_STORAGE_INSERT_HINTS_H_
#define LQS_LIB_STORAGE_INSERT_HINTS_H_

#include <memory>

#include <rocksdb/slice_transform.h>

#include "lib/storage/keys.h"

namespace lqs::storage {

// The hint prefix extractor for `cf`, or nullptr for none (catalog and
// dedup keys come in no order, nothing to resume).
std::shared_ptr<const rocksdb::SliceTransform> InsertHintPrefix(Cf cf);

}  // namespace lqs::storage

#endif  // LQS_LIB_STORAGE_INSERT_HINTS_H_
