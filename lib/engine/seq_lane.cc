#include "lib/engine/seq_lane.h"

#include <string>
#include <string_view>

#include "lib/storage/keys.h"

namespace lqs::engine {

SeqLane::SeqLane(storage::Database* db, uint64_t qid, uint64_t from_seq, std::string_view where,
                 size_t limit, const rocksdb::Snapshot* snapshot)
    : it_(storage::RangeIterator::DeferSeek{}, db, storage::Cf::kMessages,
          storage::MessageKey(qid, from_seq), storage::QueueEnd(qid), snapshot),
      where_(where),
      limit_(limit),
      resume_(from_seq) {}

void SeqLane::Start(absl::FunctionRef<bool(uint64_t)> taken) {
  it_.SeekToLower();
  Settle(taken);
}

void SeqLane::Next(absl::FunctionRef<bool(uint64_t)> taken) {
  if (!valid_) return;
  valid_ = false;
  it_.Next();
  Settle(taken);
}

void SeqLane::Settle(absl::FunctionRef<bool(uint64_t)> taken) {
  for (; it_.Valid(); it_.Next()) {
    if (limit_ != 0 && examined_ >= limit_) return;
    uint64_t qid = 0, seq = 0;
    if (!storage::DecodeMessageKey(it_.key(), &qid, &seq)) {
      status_ = Status(ErrorCode::kCorruption,
                       "a message key of queue " + std::string(where_) + " is corrupt");
      return;
    }
    ++examined_;
    resume_ = seq + 1;
    if (taken(seq)) continue;
    bool queued_by_seq = false;
    Status st = storage::DecodeMessageIfQueuedBySeq(it_.value(), where_, &message_, &queued_by_seq);
    if (!st.ok()) {
      status_ = Status(ErrorCode::kCorruption, "stored message " + std::string(where_) + "/" +
                                                   std::to_string(seq) + " failed verification");
      return;
    }
    if (!queued_by_seq) continue;
    seq_ = seq;
    valid_ = true;
    return;
  }
  if (!it_.ok()) status_ = it_.status("reading " + std::string(where_));
}

}  // namespace lqs::engine
