#include "lib/engine/seq_lane.h"

#include <string_view>
#include <utility>

#include <rocksdb/db.h>

#include "lib/storage/keys.h"

namespace lqs::engine {

SeqLane::SeqLane(storage::Database* db, uint64_t qid, uint64_t from_seq, std::string where,
                 size_t limit, const rocksdb::Snapshot* snapshot)
    : lower_(storage::MessageKey(qid, from_seq)),
      upper_(storage::QueueEnd(qid)),
      lower_s_(lower_),
      upper_s_(upper_),
      where_(std::move(where)),
      limit_(limit),
      resume_(from_seq) {
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;
  ro.iterate_lower_bound = &lower_s_;
  ro.iterate_upper_bound = &upper_s_;
  it_.reset(db->db()->NewIterator(ro, db->cf(storage::Cf::kMessages)));
}

void SeqLane::Start(absl::FunctionRef<bool(uint64_t)> taken) {
  it_->Seek(lower_s_);
  Settle(taken);
}

void SeqLane::Next(absl::FunctionRef<bool(uint64_t)> taken) {
  if (!valid_) return;
  valid_ = false;
  it_->Next();
  Settle(taken);
}

void SeqLane::Settle(absl::FunctionRef<bool(uint64_t)> taken) {
  for (; it_->Valid(); it_->Next()) {
    if (limit_ != 0 && examined_ >= limit_) return;
    uint64_t qid = 0, seq = 0;
    const std::string_view key(it_->key().data(), it_->key().size());
    if (!storage::DecodeMessageKey(key, &qid, &seq)) {
      status_ = Status(ErrorCode::kCorruption, "a message key of queue " + where_ + " is corrupt");
      return;
    }
    ++examined_;
    resume_ = seq + 1;
    if (taken(seq)) continue;
    bool queued_by_seq = false;
    Status st = storage::DecodeMessageIfQueuedBySeq(
        std::string_view(it_->value().data(), it_->value().size()), where_, &message_,
        &queued_by_seq);
    if (!st.ok()) {
      status_ = Status(ErrorCode::kCorruption,
                       "stored message " + where_ + "/" + std::to_string(seq) + " failed verification");
      return;
    }
    if (!queued_by_seq) continue;
    seq_ = seq;
    valid_ = true;
    return;
  }
  if (!it_->status().ok()) status_ = storage::FromRocks(it_->status(), "reading " + where_);
}

}  // namespace lqs::engine
