#include "lib/storage/keys.h"

namespace lqs::storage {

const char* CfName(Cf cf) {
  switch (cf) {
    case Cf::kCatalog: return "default";
    case Cf::kMessages: return "messages";
    case Cf::kVisible: return "visible";
    case Cf::kInflight: return "inflight";
    case Cf::kExpiry: return "expiry";
    case Cf::kCounters: return "counters";
    case Cf::kCount: break;
  }
  return "?";
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

void PutLE64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    out->push_back(static_cast<char>(v & 0xff));
    v >>= 8;
  }
}

uint64_t GetLE64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

void PutLE32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) {
    out->push_back(static_cast<char>(v & 0xff));
    v >>= 8;
  }
}

uint32_t GetLE32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

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

std::string QueueRecordKey(std::string_view name) {
  std::string k(1, kQueueRecordTag);
  k.append(name);
  return k;
}

std::string DeletedNameKey(std::string_view name) {
  std::string k(1, kDeletedNameTag);
  k.append(name);
  return k;
}

std::string TaskKey(std::string_view task_id) {
  std::string k(1, kTaskTag);
  k.append(task_id);
  return k;
}

std::string MetaKey(std::string_view name) {
  std::string k("M");
  k.append(name);
  return k;
}

}  // namespace lqs::storage
