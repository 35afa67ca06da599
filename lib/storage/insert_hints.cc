#include "lib/storage/insert_hints.h"

namespace lqs::storage {
namespace {

// Grouped keys (qid | group | 0x00 | seq): one stream per FIFO group (or
// fair-queue tenant), the prefix being qid | group. Other keys of the family
// (range bounds) are outside the domain.
class GroupStreamTransform final : public rocksdb::SliceTransform {
 public:
  const char* Name() const override { return "lqs.GroupStream"; }
  rocksdb::Slice Transform(const rocksdb::Slice& key) const override {
    return rocksdb::Slice(key.data(), key.size() - 9);
  }
  bool InDomain(const rocksdb::Slice& key) const override {
    return key.size() >= 17 && key[key.size() - 9] == '\0';
  }
};

// Counter records ('Q' qid): every state change merges into its queue's one
// key, and each operand sorts before the previous one (newer first), so
// each key is its own stream. Delay buckets ('B' ...) and their range bounds
// are outside the domain.
class CounterStreamTransform final : public rocksdb::SliceTransform {
 public:
  const char* Name() const override { return "lqs.CounterStream"; }
  rocksdb::Slice Transform(const rocksdb::Slice& key) const override { return key; }
  bool InDomain(const rocksdb::Slice& key) const override {
    return key.size() == 9 && key[0] == 'Q';
  }
};

}  // namespace

std::shared_ptr<const rocksdb::SliceTransform> InsertHintPrefix(Cf cf) {
  switch (cf) {
    case Cf::kMessages:
    case Cf::kVisible:
    case Cf::kInflight:
    case Cf::kExpiry:
    case Cf::kInbox:
      // One stream per queue (per queue and record kind for the inbox): the
      // queue id and one more byte, so the 8-byte QueuePrefix is out.
      return std::shared_ptr<const rocksdb::SliceTransform>(rocksdb::NewFixedPrefixTransform(9));
    case Cf::kGrouped:
      return std::make_shared<GroupStreamTransform>();
    case Cf::kCounters:
      return std::make_shared<CounterStreamTransform>();
    default:
      return nullptr;
  }
}

}  // namespace lqs::storage
