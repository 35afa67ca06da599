#include "lib/storage/keys.h"

#include <cstddef>
#include <iterator>

namespace lqs::storage {

namespace {

// The column families' names on disk, indexed by Cf: never change one.
constexpr const char* kCfNames[] = {"default",  "messages", "visible", "inflight", "expiry",
                                    "counters", "grouped",  "dedup",   "inbox",    "tables"};
static_assert(std::size(kCfNames) == static_cast<size_t>(Cf::kCount),
              "one name for each column family");

}  // namespace

const char* CfName(Cf cf) {
  const auto i = static_cast<size_t>(cf);
  return i < std::size(kCfNames) ? kCfNames[i] : "?";
}

void PutBE64(std::string* out, uint64_t v) {
  char buf[8];
  for (int i = 7; i >= 0; --i) {
    buf[i] = static_cast<char>(v & 0xff);
    v >>= 8;
  }
  out->append(buf, 8);
}

uint64_t GetBE64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

namespace {

// Little-endian encoding of an unsigned integer, sizeof(T) bytes.
template <typename T>
void PutLE(std::string* out, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) {
    out->push_back(static_cast<char>(v & 0xff));
    v >>= 8;
  }
}

template <typename T>
T GetLE(const char* p) {
  T v = 0;
  for (size_t i = sizeof(T); i-- > 0;)
    v = static_cast<T>((v << 8) | static_cast<unsigned char>(p[i]));
  return v;
}

}  // namespace

void PutLE64(std::string* out, uint64_t v) { PutLE(out, v); }
uint64_t GetLE64(const char* p) { return GetLE<uint64_t>(p); }
void PutLE32(std::string* out, uint32_t v) { PutLE(out, v); }
uint32_t GetLE32(const char* p) { return GetLE<uint32_t>(p); }

std::string MessageKey(uint64_t qid, uint64_t seq) {
  std::string k;
  k.reserve(16);
  PutBE64(&k, qid);
  PutBE64(&k, seq);
  return k;
}

std::string QueuePrefix(uint64_t qid) {
  std::string k;
  PutBE64(&k, qid);
  return k;
}

std::string QueueEnd(uint64_t qid) { return QueuePrefix(qid + 1); }

// Times are never negative in practice; clamp so the encoding stays ordered.
static uint64_t TimeBits(int64_t t) { return t < 0 ? 0 : static_cast<uint64_t>(t); }

std::string TimeKey(uint64_t qid, int64_t time_ms, uint64_t seq) {
  std::string k;
  k.reserve(24);
  PutBE64(&k, qid);
  PutBE64(&k, TimeBits(time_ms));
  PutBE64(&k, seq);
  return k;
}

bool DecodeTimeKey(std::string_view key, DecodedTimeKey* out) {
  if (key.size() != 24) return false;
  out->qid = GetBE64(key.data());
  out->time_ms = static_cast<int64_t>(GetBE64(key.data() + 8));
  out->seq = GetBE64(key.data() + 16);
  return true;
}

bool DecodeMessageKey(std::string_view key, uint64_t* qid, uint64_t* seq) {
  if (key.size() != 16) return false;
  *qid = GetBE64(key.data());
  *seq = GetBE64(key.data() + 8);
  return true;
}

namespace {

// The queue id, the group and `end`: '\0' starts the group's keys, '\1' is
// just past them. Reserves room for `more` bytes after it.
std::string GroupKeyHead(uint64_t qid, std::string_view group, char end, size_t more = 0) {
  std::string k;
  k.reserve(9 + group.size() + more);
  PutBE64(&k, qid);
  k.append(group);
  k.push_back(end);
  return k;
}

}  // namespace

std::string GroupedKey(uint64_t qid, std::string_view group, uint64_t seq) {
  std::string k = GroupKeyHead(qid, group, '\0', 8);
  PutBE64(&k, seq);
  return k;
}

std::string GroupPrefix(uint64_t qid, std::string_view group) {
  return GroupKeyHead(qid, group, '\0');
}

std::string GroupEnd(uint64_t qid, std::string_view group) {
  return GroupKeyHead(qid, group, '\1');
}

bool DecodeGroupedKey(std::string_view key, uint64_t* qid, std::string* group, uint64_t* seq) {
  if (key.size() < 17 || key[key.size() - 9] != '\0') return false;
  *qid = GetBE64(key.data());
  group->assign(key.data() + 8, key.size() - 17);
  *seq = GetBE64(key.data() + key.size() - 8);
  return true;
}

std::string DedupKey(uint64_t qid, std::string_view dedup_key) {
  std::string k;
  PutBE64(&k, qid);
  k.append(dedup_key);
  return k;
}

std::string InboxRecordKey(uint64_t qid, std::string_view key) {
  std::string k;
  k.reserve(9 + key.size());
  PutBE64(&k, qid);
  k.push_back(kInboxRecordTag);
  k.append(key);
  return k;
}

std::string InboxIndexKey(uint64_t qid, int64_t expiry_ms, std::string_view key) {
  std::string k = InboxIndexFrom(qid, expiry_ms);
  k.append(key);
  return k;
}

std::string InboxIndexFrom(uint64_t qid, int64_t expiry_ms) {
  std::string k;
  k.reserve(17);
  PutBE64(&k, qid);
  k.push_back(kInboxIndexTag);
  PutBE64(&k, TimeBits(expiry_ms));
  return k;
}

std::string EncodeInboxValue(int64_t expiry_ms) {
  std::string v;
  PutBE64(&v, TimeBits(expiry_ms));
  return v;
}

bool DecodeInboxValue(std::string_view value, int64_t* expiry_ms) {
  if (value.size() != 8) return false;
  *expiry_ms = static_cast<int64_t>(GetBE64(value.data()));
  return true;
}

bool DecodeInboxKey(std::string_view k, DecodedInboxKey* out) {
  if (k.size() < 10) return false;  // qid, tag, at least one key byte
  out->qid = GetBE64(k.data());
  if (k[8] == kInboxRecordTag) {
    out->index = false;
    out->expiry_ms = 0;
    out->key.assign(k.data() + 9, k.size() - 9);
    return true;
  }
  if (k[8] == kInboxIndexTag && k.size() >= 18) {
    out->index = true;
    out->expiry_ms = static_cast<int64_t>(GetBE64(k.data() + 9));
    out->key.assign(k.data() + 17, k.size() - 17);
    return true;
  }
  return false;
}

std::string ExpiryValueVisible(int64_t visible_at_ms) {
  std::string v("V");
  PutBE64(&v, static_cast<uint64_t>(visible_at_ms));
  return v;
}

std::string ExpiryValueGrouped(std::string_view group) {
  std::string v("G");
  v.append(group);
  return v;
}

bool DecodeExpiryValue(std::string_view value, ExpiryTarget* out) {
  if (value.size() == 9 && value[0] == 'V') {
    out->grouped = false;
    out->visible_at_ms = static_cast<int64_t>(GetBE64(value.data() + 1));
    return true;
  }
  if (value.size() >= 2 && value[0] == 'G') {
    out->grouped = true;
    out->group.assign(value.data() + 1, value.size() - 1);
    return true;
  }
  return false;
}

std::string CounterKey(uint64_t qid) {
  std::string k("Q");
  PutBE64(&k, qid);
  return k;
}

std::string BucketKey(uint64_t qid, int64_t second) {
  std::string k("B");
  PutBE64(&k, qid);
  PutBE64(&k, TimeBits(second));
  return k;
}

std::string BucketPrefix(uint64_t qid) {
  std::string k("B");
  PutBE64(&k, qid);
  return k;
}

std::string BucketEnd(uint64_t qid) { return BucketPrefix(qid + 1); }

bool DecodeBucketKey(std::string_view key, uint64_t* qid, int64_t* second) {
  if (key.size() != 17 || key[0] != 'B') return false;
  *qid = GetBE64(key.data() + 1);
  *second = static_cast<int64_t>(GetBE64(key.data() + 9));
  return true;
}

namespace {

// A catalog key: its one-byte tag, then `name`.
std::string TaggedKey(char tag, std::string_view name) {
  std::string k(1, tag);
  k.append(name);
  return k;
}

}  // namespace

std::string QueueRecordKey(std::string_view name) { return TaggedKey(kQueueRecordTag, name); }
std::string DeletedNameKey(std::string_view name) { return TaggedKey(kDeletedNameTag, name); }
std::string TaskKey(std::string_view task_id) { return TaggedKey(kTaskTag, task_id); }
std::string MetaKey(std::string_view name) { return TaggedKey('M', name); }

std::string TableKey(std::string_view table, std::string_view key) {
  std::string k;
  k.reserve(1 + table.size() + key.size());
  k.push_back(static_cast<char>(table.size()));
  k.append(table);
  k.append(key);
  return k;
}

std::string TableScanEnd(std::string_view table, std::string_view prefix) {
  std::string k = TableKey(table, prefix);
  // The successor of the prefix: drop trailing 0xff bytes, increment the
  // last. The length byte (at most 255, in practice at most 64) stops it.
  while (!k.empty() && static_cast<unsigned char>(k.back()) == 0xff) k.pop_back();
  if (!k.empty()) k.back() = static_cast<char>(static_cast<unsigned char>(k.back()) + 1);
  return k;
}

bool DecodeTableKey(std::string_view k, std::string* table, std::string* key) {
  if (k.empty()) return false;
  const size_t n = static_cast<unsigned char>(k[0]);
  if (n == 0 || k.size() < 1 + n) return false;
  table->assign(k.substr(1, n));
  key->assign(k.substr(1 + n));
  return true;
}

}  // namespace lqs::storage
