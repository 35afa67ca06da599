// fuzz/fuzz_records.cc — decoding of stored records (lib/storage/records.h,
// lib/storage/counters.h).
//
// The first byte picks the decoder; the rest is the stored value. Properties:
//   * garbage is rejected (kCorruption / false), never a crash or a read
//     outside the buffer: the flatbuffers verifier guards every table;
//   * whatever decodes re-encodes to a value that decodes to the same thing
//     (decode . encode . decode == decode).
// The value is copied into a buffer of exactly its size, so ASan reports
// any read past the end.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "lib/storage/counters.h"
#include "lib/storage/records.h"

namespace {

using namespace lqs::storage;  // NOLINT

void Check(bool ok, const char* what) { lqs::fuzz::CheckProperty("fuzz_records", ok, what); }

bool Same(const Message& a, const Message& b) {
  return a.message_id == b.message_id && a.body == b.body && a.md5_of_body == b.md5_of_body &&
         a.attributes == b.attributes && a.md5_of_attributes == b.md5_of_attributes &&
         a.aws_trace_header == b.aws_trace_header && a.message_group_id == b.message_group_id &&
         a.message_deduplication_id == b.message_deduplication_id &&
         a.sequence_number == b.sequence_number && a.sent_timestamp_ms == b.sent_timestamp_ms &&
         a.sender_id == b.sender_id && a.dead_letter_source_arn == b.dead_letter_source_arn;
}

bool Same(const QueueRecord& a, const QueueRecord& b) {
  return a.id == b.id && a.name == b.name && a.fifo == b.fifo && a.created_ms == b.created_ms &&
         a.modified_ms == b.modified_ms && a.last_purge_ms == b.last_purge_ms &&
         a.attributes == b.attributes && a.tags == b.tags;
}

bool Same(const MoveTaskRecord& a, const MoveTaskRecord& b) {
  return a.task_id == b.task_id && a.source_arn == b.source_arn &&
         a.destination_arn == b.destination_arn && a.rate == b.rate && a.status == b.status &&
         a.moved == b.moved && a.to_move == b.to_move && a.failure_reason == b.failure_reason &&
         a.started_ms == b.started_ms;
}

bool SameCounters(const CounterDelta& a, const CounterDelta& b) {
  for (int i = 0; i < kNumSlots; ++i) {
    const Slot s = static_cast<Slot>(i);
    if (a.Has(s) != b.Has(s) || a.Get(s) != b.Get(s)) return false;
  }
  return true;
}

// MergeFrom adds add-slots with signed arithmetic; decoded values near the
// int64 limits would overflow. Merge only operands whose sums stay in range
// (the counters saturate instead: lib/storage/counters.h).
bool MergeWouldOverflow(const CounterDelta& a, const CounterDelta& b) {
  for (int i = 0; i < kFirstMaxSlot; ++i) {
    const Slot s = static_cast<Slot>(i);
    int64_t r;
    if (b.Has(s) && __builtin_add_overflow(a.Get(s), b.Get(s), &r)) return true;
  }
  return false;
}

bool Same(const VisibleEntry& a, const VisibleEntry& b) {
  return a.receive_count == b.receive_count && a.first_receive_ms == b.first_receive_ms &&
         a.sent_ms == b.sent_ms && a.has_expiry_entry == b.has_expiry_entry;
}

bool Same(const DedupEntry& a, const DedupEntry& b) {
  return a.first_ms == b.first_ms && a.message_id == b.message_id &&
         a.sequence_number == b.sequence_number;
}

// decode . encode . decode == decode for a record `decode` accepts: its
// encoding decodes (else fails `not_decoded`) to the same record (`differs`).
template <typename T, typename Decode, typename Encode>
void CheckRoundTrip(std::string_view v, Decode decode, Encode encode, const char* not_decoded,
                    const char* differs) {
  T first;
  if (!decode(v, &first)) return;
  T second;
  Check(decode(encode(first), &second), not_decoded);
  Check(Same(first, second), differs);
}

void FuzzMessage(std::string_view v) {
  CheckRoundTrip<Message>(
      v, [](std::string_view s, Message* m) { return DecodeMessage(s, "fuzz", m).ok(); },
      EncodeMessage, "re-encoded message does not decode", "message round trip");
}

void FuzzQueue(std::string_view v) {
  CheckRoundTrip<QueueRecord>(
      v, [](std::string_view s, QueueRecord* q) { return DecodeQueueRecord(s, q).ok(); },
      EncodeQueueRecord, "re-encoded queue does not decode", "queue record round trip");
}

void FuzzMoveTask(std::string_view v) {
  CheckRoundTrip<MoveTaskRecord>(
      v, [](std::string_view s, MoveTaskRecord* t) { return DecodeMoveTask(s, t).ok(); },
      EncodeMoveTask, "re-encoded task does not decode", "move task round trip");
}

void FuzzVisible(std::string_view v) {
  CheckRoundTrip<VisibleEntry>(v, DecodeVisible, EncodeVisible,
                               "re-encoded visible entry does not decode",
                               "visible entry round trip");
}

void FuzzLease(std::string_view v) {
  LeaseEntry e;
  if (!DecodeLease(v, &e)) return;
  Check(EncodeLease(e) == v, "lease entry does not re-encode to the same bytes");
}

void FuzzDedup(std::string_view v) {
  CheckRoundTrip<DedupEntry>(v, DecodeDedup, EncodeDedup, "re-encoded dedup entry does not decode",
                             "dedup entry round trip");
}

void FuzzCounters(std::string_view v) {
  // Two operands, as the merge operator sees an existing value and a delta.
  const size_t cut = v.empty() ? 0 : static_cast<unsigned char>(v[0]) % (v.size() + 1);
  const std::string_view rest = v.empty() ? v : v.substr(1);
  const std::string_view a_text = rest.substr(0, std::min(cut, rest.size()));
  const std::string_view b_text = rest.substr(a_text.size());
  CounterDelta a, b;
  const bool a_ok = CounterDelta::Decode(a_text, &a);
  const bool b_ok = CounterDelta::Decode(b_text, &b);
  if (a_ok) {
    CounterDelta a2;
    Check(CounterDelta::Decode(a.Encode(), &a2) && SameCounters(a, a2), "counter round trip");
  }
  if (a_ok && b_ok && !MergeWouldOverflow(a, b)) {
    CounterDelta m = a;
    m.MergeFrom(b);
    for (int i = 0; i < kNumSlots; ++i) {
      const Slot s = static_cast<Slot>(i);
      Check(m.Has(s) == (a.Has(s) || b.Has(s)), "merged slot presence");
      if (i >= kFirstMaxSlot && a.Has(s) && b.Has(s)) {
        Check(m.Get(s) == std::max(a.Get(s), b.Get(s)), "max slot merge");
      }
    }
    CounterDelta m2;
    Check(CounterDelta::Decode(m.Encode(), &m2) && SameCounters(m, m2), "merged round trip");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t selector = data[0];
  const size_t n = size - 1;
  // An exactly sized heap copy, starting 8-byte aligned or (bit 3 of the
  // selector) at an odd address, as RocksDB may hand values out (iterator
  // values point into blocks). Decoders must cope with both: flatbuffers
  // read scalars in place, so records.cc copies misaligned input first
  // (UBSan's alignment check catches a regression).
  const size_t offset = (selector & 8) != 0 ? 1 : 0;
  std::unique_ptr<char[]> buf(new char[n + offset]);
  if (n > 0) std::memcpy(buf.get() + offset, data + 1, n);
  const std::string_view v(buf.get() + offset, n);
  switch (selector % 8) {
    case 0:
      FuzzMessage(v);
      break;
    case 1:
      FuzzQueue(v);
      break;
    case 2:
      FuzzMoveTask(v);
      break;
    case 3:
      FuzzVisible(v);
      break;
    case 4:
      FuzzLease(v);
      break;
    case 5:
      FuzzDedup(v);
      break;
    case 6:
      FuzzCounters(v);
      break;
    default:
      // Every decoder on the same bytes.
      FuzzMessage(v);
      FuzzQueue(v);
      FuzzMoveTask(v);
      FuzzVisible(v);
      FuzzLease(v);
      FuzzDedup(v);
      FuzzCounters(v);
      break;
  }
  return 0;
}
