// bench/rocksdb_ceiling.h — the raw RocksDB ceiling for a message lifecycle.
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

#ifndef LQS_BENCH_ROCKSDB_CEILING_H_
#define LQS_BENCH_ROCKSDB_CEILING_H_

#include <memory>

#include "bench/systems.h"

namespace lqs::bench {

std::unique_ptr<QueueSystem> OpenRocksDbCeiling(const SystemConfig& config);

}  // namespace lqs::bench

#endif  // LQS_BENCH_ROCKSDB_CEILING_H_
