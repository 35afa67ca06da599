#include "lib/storage/counters.h"

#include <rocksdb/merge_operator.h>

#include "lib/storage/keys.h"

namespace lqs::storage {

bool CounterDelta::empty() const {
  for (bool p : present_) {
    if (p) return false;
  }
  return true;
}

std::string CounterDelta::Encode() const {
  std::string out;
  for (int i = 0; i < kNumSlots; ++i) {
    if (!present_[i]) continue;
    out.push_back(static_cast<char>(i));
    PutLE64(&out, static_cast<uint64_t>(values_[i]));
  }
  return out;
}

bool CounterDelta::Decode(std::string_view data, CounterDelta* out) {
  *out = CounterDelta();
  if (data.size() % 9 != 0) return false;
  for (size_t i = 0; i < data.size(); i += 9) {
    int slot = static_cast<unsigned char>(data[i]);
    if (slot >= kNumSlots) return false;
    out->values_[slot] = static_cast<int64_t>(GetLE64(data.data() + i + 1));
    out->present_[slot] = true;
  }
  return true;
}

void CounterDelta::MergeFrom(const CounterDelta& other) {
  for (int i = 0; i < kNumSlots; ++i) {
    if (!other.present_[i]) continue;
    if (i >= kFirstMaxSlot) {
      Max(static_cast<Slot>(i), other.values_[i]);
    } else {
      Add(static_cast<Slot>(i), other.values_[i]);
    }
  }
}

namespace {

class CounterMergeOperator : public rocksdb::AssociativeMergeOperator {
 public:
  bool Merge(const rocksdb::Slice& key, const rocksdb::Slice* existing_value,
             const rocksdb::Slice& value, std::string* new_value,
             rocksdb::Logger* logger) const override {
    CounterDelta acc;
    if (existing_value != nullptr &&
        !CounterDelta::Decode(std::string_view(existing_value->data(), existing_value->size()),
                              &acc)) {
      return false;
    }
    CounterDelta operand;
    if (!CounterDelta::Decode(std::string_view(value.data(), value.size()), &operand)) {
      return false;
    }
    acc.MergeFrom(operand);
    *new_value = acc.Encode();
    return true;
  }
  const char* Name() const override { return "lqs.CounterMergeOperator"; }
};

}  // namespace

std::shared_ptr<rocksdb::MergeOperator> NewCounterMergeOperator() {
  return std::make_shared<CounterMergeOperator>();
}

}  // namespace lqs::storage
