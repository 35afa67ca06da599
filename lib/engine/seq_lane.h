// lib/engine/seq_lane.h — a standard queue's messages queued by their
// sequence number alone.
//
// A standard queue's message sent without delay and without MessageGroupId
// has no `visible` entry: its `messages` record carries queued_by_seq, and
// its key (queue id, seq) is its place in the queue. Sequence numbers are
// taken with the clock under the queue's pending_mu_, so seq order is send
// order. A receive leases such a message without deleting anything (its
// `inflight` entry is the only trace), so the queue's seq cursor, persisted
// with the batch that moves it, is what says the message left the queue:
// every queued_by_seq record below the cursor is leased or gone. A record
// at or above the cursor that is leased (taken while an earlier send was
// still unwritten, so the cursor could not pass it) is named by the
// caller's `taken` predicate and passed over.
//
// SeqLane walks [cursor, end of queue) of `messages`, stopping on each
// queued_by_seq record that is not taken, decoded. Records of other
// messages (delayed, grouped, dead-lettered, or written by earlier builds)
// are passed over: their index entries queue them.
//
// Thread safety: one thread at a time; `taken` is called from Next/Start.
// Lifetime: `where` (the queue's name, for error texts) must outlive the
// lane.
// Errors: a record that fails verification or a RocksDB error makes the
// lane invalid with status() set.

#ifndef LQS_LIB_ENGINE_SEQ_LANE_H_
#define LQS_LIB_ENGINE_SEQ_LANE_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include <absl/functional/function_ref.h>

#include "lib/storage/database.h"
#include "lib/storage/range_iterator.h"
#include "lib/storage/records.h"

#include "lqs/status.h"

namespace lqs::engine {

class SeqLane {
 public:
  // Creates the iterator (its implicit snapshot is taken now, or `snapshot`
  // is used); reads nothing until Start. `limit` bounds the records examined
  // in all (0: no bound); reaching it ends the lane.
  SeqLane(storage::Database* db, uint64_t qid, uint64_t from_seq, std::string_view where,
          size_t limit = 0, const rocksdb::Snapshot* snapshot = nullptr);

  // Positions on the first queued_by_seq record at or after from_seq that
  // `taken` does not name.
  void Start(absl::FunctionRef<bool(uint64_t)> taken);
  // Passes the current record (the caller consumed it) and moves on.
  void Next(absl::FunctionRef<bool(uint64_t)> taken);

  bool Valid() const { return valid_; }
  uint64_t seq() const { return seq_; }
  const storage::Message& message() const { return message_; }
  storage::Message& mutable_message() { return message_; }
  // Where a cursor may resume: the current record's seq while Valid (it is
  // not consumed yet), else one past the last record examined.
  uint64_t resume_seq() const { return valid_ ? seq_ : resume_; }
  size_t examined() const { return examined_; }
  const Status& status() const { return status_; }

 private:
  void Settle(absl::FunctionRef<bool(uint64_t)> taken);

  storage::RangeIterator it_;
  std::string_view where_;
  size_t limit_;
  size_t examined_ = 0;
  bool valid_ = false;
  uint64_t seq_ = 0;
  uint64_t resume_;
  storage::Message message_;
  Status status_;
};

}  // namespace lqs::engine

#endif  // LQS_LIB_ENGINE_SEQ_LANE_H_
