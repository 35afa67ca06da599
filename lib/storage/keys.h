// lib/storage/keys.h — column families and order-preserving key encodings.
//
// Every key starts with the owning queue's id (8 bytes, big-endian) so that
// one queue's data is one contiguous range per column family, and numbers
// are big-endian so that byte order is numeric order.
//
//   messages  qid seq                -> MessageRecord (flatbuffer); written once
//   visible   qid visible_at_ms seq  -> VisibleEntry; ready (visible_at <= now)
//                                       and delayed (visible_at > now) messages
//   inflight  qid seq                -> LeaseEntry; received, not deleted
//   expiry    qid sent_ms seq        -> 'V' visible_at_ms | 'G' group id;
//                                       retention index for entries whose sent
//                                       time is not their place in `visible`
//                                       (delays, DLQ moves) and for every
//                                       entry of `grouped`
//   grouped   qid group 0x00 seq     -> VisibleEntry; queued messages of FIFO
//                                       queues, in group order
//   dedup     qid dedup-key          -> DedupEntry; FIFO deduplication window
//   inbox     qid 'R' key            -> expiry_ms (8 bytes, big-endian); the
//                                       idempotency inbox (Queue::
//                                       DeleteMessageAndRecord), one record
//                                       per key (1..512 arbitrary bytes)
//             qid 'X' expiry_ms key  -> empty; the sweep index: exactly one
//                                       entry per record, at its expiry, so
//                                       maintenance drops expired records
//                                       without reading live ones. PurgeQueue
//                                       keeps the inbox; DeleteQueue drops it
//   counters  'Q' qid                -> sparse counter record (merge: add/max)
//             'B' qid bucket_second  -> delayed messages becoming visible in
//                                       that second (merge: add)
//   catalog   'Q' name               -> QueueRecord (flatbuffer)
//             'D' name               -> deletion time (ms), for name reuse
//             'T' task_id            -> move task record
//             'M' meta-name          -> format version, secret, id counters
//
// Thread safety: pure functions.

#ifndef LQS_LIB_STORAGE_KEYS_H_
#define LQS_LIB_STORAGE_KEYS_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace lqs::storage {

enum class Cf : int {
  kCatalog = 0,
  kMessages,
  kVisible,
  kInflight,
  kExpiry,
  kCounters,
  kGrouped,
  kDedup,
  kInbox,
  kTables,
  kCount,  // number of column families
};

// Column family names on disk; index with Cf.
const char* CfName(Cf cf);

// Big-endian fixed-width integers.
void PutBE64(std::string* out, uint64_t v);
uint64_t GetBE64(const char* p);
void PutLE64(std::string* out, uint64_t v);
uint64_t GetLE64(const char* p);
void PutLE32(std::string* out, uint32_t v);
uint32_t GetLE32(const char* p);

// qid seq (messages, inflight)
std::string MessageKey(uint64_t qid, uint64_t seq);
// The first key of a queue's range and the first key after it.
std::string QueuePrefix(uint64_t qid);
std::string QueueEnd(uint64_t qid);

// qid time seq (visible, expiry)
std::string TimeKey(uint64_t qid, int64_t time_ms, uint64_t seq);

struct DecodedTimeKey {
  uint64_t qid;
  int64_t time_ms;
  uint64_t seq;
};
bool DecodeTimeKey(std::string_view key, DecodedTimeKey* out);
bool DecodeMessageKey(std::string_view key, uint64_t* qid, uint64_t* seq);

// grouped CF: qid | group bytes | 0x00 | seq. Group ids are printable ASCII
// (never 0x00), so a group's entries are contiguous and in seq order.
std::string GroupedKey(uint64_t qid, std::string_view group, uint64_t seq);
std::string GroupPrefix(uint64_t qid, std::string_view group);  // first key of the group
std::string GroupEnd(uint64_t qid, std::string_view group);     // first key after it
bool DecodeGroupedKey(std::string_view key, uint64_t* qid, std::string* group, uint64_t* seq);

// dedup CF: qid | dedup key.
std::string DedupKey(uint64_t qid, std::string_view dedup_key);

// inbox CF: records (qid 'R' key -> expiry) and their sweep index
// (qid 'X' expiry_ms key -> ""). Both sub-ranges lie inside the queue's
// range [QueuePrefix, QueueEnd).
inline constexpr char kInboxRecordTag = 'R';
inline constexpr char kInboxIndexTag = 'X';
std::string InboxRecordKey(uint64_t qid, std::string_view key);
std::string InboxIndexKey(uint64_t qid, int64_t expiry_ms, std::string_view key);
// The first index key whose expiry is `expiry_ms` or later (0: the start of
// the queue's sweep index).
std::string InboxIndexFrom(uint64_t qid, int64_t expiry_ms);
std::string EncodeInboxValue(int64_t expiry_ms);
bool DecodeInboxValue(std::string_view value, int64_t* expiry_ms);
struct DecodedInboxKey {
  uint64_t qid = 0;
  bool index = false;     // a sweep-index key (else a record key)
  int64_t expiry_ms = 0;  // index keys only
  std::string key;        // the idempotency key
};
bool DecodeInboxKey(std::string_view k, DecodedInboxKey* out);

// tables CF: len(table) (1 byte) | table | key. A table is one contiguous
// range, its keys in byte order (the engine checks names and limits).
std::string TableKey(std::string_view table, std::string_view key);
// The first key after every key of `table` that starts with `prefix`.
std::string TableScanEnd(std::string_view table, std::string_view prefix);
// Splits a tables key; false when it is malformed.
bool DecodeTableKey(std::string_view k, std::string* table, std::string* key);

// expiry CF values: where the entry lives.
std::string ExpiryValueVisible(int64_t visible_at_ms);
std::string ExpiryValueGrouped(std::string_view group);
struct ExpiryTarget {
  bool grouped = false;
  int64_t visible_at_ms = 0;  // !grouped
  std::string group;          // grouped
};
bool DecodeExpiryValue(std::string_view value, ExpiryTarget* out);

// counters CF
std::string CounterKey(uint64_t qid);
std::string BucketKey(uint64_t qid, int64_t second);
std::string BucketPrefix(uint64_t qid);
std::string BucketEnd(uint64_t qid);
bool DecodeBucketKey(std::string_view key, uint64_t* qid, int64_t* second);

// catalog CF
std::string QueueRecordKey(std::string_view name);
std::string DeletedNameKey(std::string_view name);
std::string TaskKey(std::string_view task_id);
std::string MetaKey(std::string_view name);
inline constexpr char kQueueRecordTag = 'Q';
inline constexpr char kDeletedNameTag = 'D';
inline constexpr char kTaskTag = 'T';

}  // namespace lqs::storage

#endif  // LQS_LIB_STORAGE_KEYS_H_
