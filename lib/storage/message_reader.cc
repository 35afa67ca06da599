#include "lib/storage/message_reader.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include "lib/storage/keys.h"
#include "lib/storage/range_iterator.h"

namespace lqs::storage {
namespace {

// A run is read with an iterator when it spans at most this many sequence
// numbers per wanted message: the steps over messages in between (other
// consumers' leases, deleted ones) stay few.
constexpr uint64_t kMaxSpanPerMessage = 4;

std::string Where(std::string_view queue_name, uint64_t seq) {
  return std::string(queue_name) + "/" + std::to_string(seq);
}

Status Decode(std::string_view raw, std::string_view queue_name, uint64_t seq,
              std::optional<Message>* out) {
  Message m;
  Status st = DecodeMessage(raw, Where(queue_name, seq), &m);
  if (!st.ok()) return st;
  *out = std::move(m);
  return Status::OK();
}

Status ReadByPointLookups(Database* db, uint64_t qid, const std::vector<uint64_t>& seqs,
                          std::string_view queue_name, std::vector<std::optional<Message>>* out) {
  std::vector<std::string> keys;
  keys.reserve(seqs.size());
  for (uint64_t seq : seqs) keys.push_back(MessageKey(qid, seq));
  std::vector<rocksdb::Slice> key_slices(keys.begin(), keys.end());
  std::vector<rocksdb::PinnableSlice> values(keys.size());
  std::vector<rocksdb::Status> statuses(keys.size());
  db->db()->MultiGet(rocksdb::ReadOptions(), db->cf(Cf::kMessages), keys.size(), key_slices.data(),
                     values.data(), statuses.data());
  for (size_t i = 0; i < seqs.size(); ++i) {
    if (statuses[i].IsNotFound()) continue;
    if (!statuses[i].ok()) return FromRocks(statuses[i], "reading a message");
    Status st = Decode(std::string_view(values[i].data(), values[i].size()), queue_name, seqs[i],
                       &(*out)[i]);
    if (!st.ok()) return st;
  }
  return Status::OK();
}

}  // namespace

Status ReadMessages(Database* db, uint64_t qid, const std::vector<uint64_t>& seqs,
                    std::string_view queue_name, std::vector<std::optional<Message>>* out) {
  out->assign(seqs.size(), std::nullopt);
  if (seqs.empty()) return Status::OK();
  auto [lo, hi] = std::minmax_element(seqs.begin(), seqs.end());
  const uint64_t span = *hi - *lo + 1;
  if (seqs.size() < 2 || span > kMaxSpanPerMessage * seqs.size() ||
      *hi == std::numeric_limits<uint64_t>::max()) {  // no key after it to bound the range
    return ReadByPointLookups(db, qid, seqs, queue_name, out);
  }
  // Visit the wanted messages in key order.
  std::vector<size_t> order(seqs.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return seqs[a] < seqs[b]; });
  RangeIterator it(db, Cf::kMessages, MessageKey(qid, *lo), MessageKey(qid, *hi + 1));
  for (size_t i : order) {
    uint64_t key_qid = 0, key_seq = 0;
    while (it.Valid()) {
      if (!DecodeMessageKey(it.key(), &key_qid, &key_seq)) {
        return Status(ErrorCode::kCorruption,
                      "message key of queue " + std::string(queue_name) + " is corrupt");
      }
      if (key_seq >= seqs[i]) break;
      it.Next();
    }
    if (!it.Valid()) break;  // the rest no longer exist
    if (key_seq != seqs[i]) continue;
    Status st = Decode(it.value(), queue_name, key_seq, &(*out)[i]);
    if (!st.ok()) return st;
  }
  return it.status("reading messages");
}

}  // namespace lqs::storage
