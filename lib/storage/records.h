// lib/storage/records.h — what the column families store, and how it is
// encoded and verified.
//
// Large records (messages, queues, move tasks) are flatbuffers
// (records.fbs), verified on every read: a record that fails verification is
// reported as kCorruption naming the queue and message, never returned as
// garbage. Small index values are fixed little-endian structs with a leading
// format-version byte.
//
// Thread safety: pure functions over values; EncodeMessageAround's parts
// live in a buffer of the calling thread (see there).

#ifndef LQS_LIB_STORAGE_RECORDS_H_
#define LQS_LIB_STORAGE_RECORDS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lqs/status.h"
#include "lqs/types.h"

namespace rocksdb {
class ColumnFamilyHandle;
class WriteBatch;
}  // namespace rocksdb

namespace lqs::storage {

// The content of a message, as stored in the messages CF.
struct Message {
  std::string message_id;
  std::string body;
  std::string md5_of_body;
  MessageAttributeMap attributes;
  std::string md5_of_attributes;
  std::string aws_trace_header;
  std::string message_group_id;
  std::string message_deduplication_id;
  std::string sequence_number;
  int64_t sent_timestamp_ms = 0;
  std::string sender_id;
  std::string dead_letter_source_arn;
  // No `visible` or `grouped` entry: queued by its sequence number alone.
  bool queued_by_seq = false;
};

std::string EncodeMessage(const Message& m);

// A message record in three parts around its body: head + body + tail is
// EncodeMessage's record of `m` with `body` in place of m.body. `body` is
// not copied; head and tail point into a buffer of the calling thread,
// valid until its next EncodeMessageAround (or EncodeMessage, PutMessage).
struct MessageRecordParts {
  std::string_view head;
  std::string_view body;
  std::string_view tail;
  size_t size() const { return head.size() + body.size() + tail.size(); }
};
MessageRecordParts EncodeMessageAround(const Message& m, std::string_view body);

// Adds `key` -> the record of `m` with `body` as its body to `batch` in
// `cf`: the body is copied once, into the batch (m.body is not read).
void PutMessage(rocksdb::WriteBatch* batch, rocksdb::ColumnFamilyHandle* cf, std::string_view key,
                const Message& m, std::string_view body);
// kCorruption (naming `where`) if `data` does not verify.
Status DecodeMessage(std::string_view data, std::string_view where, Message* out);
// The same check; decodes into *out only a record with queued_by_seq (the
// receive's scan of `messages` passes the others), and says which it was.
Status DecodeMessageIfQueuedBySeq(std::string_view data, std::string_view where, Message* out,
                                  bool* queued_by_seq);

struct QueueRecord {
  uint64_t id = 0;
  std::string name;
  bool fifo = false;
  int64_t created_ms = 0;
  int64_t modified_ms = 0;
  int64_t last_purge_ms = 0;
  std::vector<std::pair<std::string, std::string>> attributes;
  std::vector<std::pair<std::string, std::string>> tags;
  // FIFO: a DeduplicationScope change still on its way to deduplication
  // (api::QueueConfig::deduplication_scope_before / _changed_ms). "" and 0
  // (left out of the record): none.
  std::string deduplication_scope_before;
  int64_t deduplication_scope_changed_ms = 0;
};

std::string EncodeQueueRecord(const QueueRecord& q);
Status DecodeQueueRecord(std::string_view data, QueueRecord* out);

struct MoveTaskRecord {
  std::string task_id;
  std::string source_arn;
  std::string destination_arn;
  int rate = 0;
  std::string status;
  int64_t moved = 0;
  int64_t to_move = 0;
  std::string failure_reason;
  int64_t started_ms = 0;
};

std::string EncodeMoveTask(const MoveTaskRecord& t);
Status DecodeMoveTask(std::string_view data, MoveTaskRecord* out);

// Value of a `visible` entry: what a receive needs without reading the body.
struct VisibleEntry {
  uint32_t receive_count = 0;
  int64_t first_receive_ms = 0;
  int64_t sent_ms = 0;
  bool has_expiry_entry = false;  // an `expiry` index entry exists for it
};
std::string EncodeVisible(const VisibleEntry& e);
bool DecodeVisible(std::string_view data, VisibleEntry* out);

// Value of an `inflight` entry: one message's current lease.
struct LeaseEntry {
  int64_t visible_at_ms = 0;   // lease end; <= now means visible again
  uint32_t receive_count = 0;  // receives so far, incl. the current one
  int64_t first_receive_ms = 0;
  int64_t sent_ms = 0;
  int64_t lease_start_ms = 0;  // receive that started the lease (12 h budget)
  std::string group;           // FIFO: the message's group (empty otherwise)
};
std::string EncodeLease(const LeaseEntry& e);
bool DecodeLease(std::string_view data, LeaseEntry* out);

// Value of a `dedup` entry: the first message accepted with a dedup id.
struct DedupEntry {
  int64_t first_ms = 0;
  std::string message_id;
  std::string sequence_number;
};
std::string EncodeDedup(const DedupEntry& e);
bool DecodeDedup(std::string_view data, DedupEntry* out);

}  // namespace lqs::storage

#endif  // LQS_LIB_STORAGE_RECORDS_H_
