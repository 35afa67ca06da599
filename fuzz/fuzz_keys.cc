// fuzz/fuzz_keys.cc — key encodings (lib/storage/keys.h).
//
// Properties:
//   * every decoder rejects or decodes arbitrary bytes without reading past
//     them, and what decodes re-encodes to the same bytes;
//   * encode/decode round-trips every field value (times clamp at 0);
//   * byte order of encoded keys is the numeric order of their fields (the
//     engine's range scans and cursors depend on it), also for grouped keys
//     of printable group ids: a group's entries are contiguous and in seq
//     order, inside [GroupPrefix, GroupEnd).

#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>

#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_input.h"
#include "lib/storage/keys.h"

namespace {

using namespace lqs::storage;  // NOLINT
using lqs::fuzz::FuzzInput;

void Check(bool ok, const char* what) { lqs::fuzz::CheckProperty("fuzz_keys", ok, what); }

int Sign(int c) { return (c > 0) - (c < 0); }
template <typename T>
int Cmp(const T& a, const T& b) {
  return (a > b) - (a < b);
}

// A printable group id (what IsValidGroupOrDedupId allows).
std::string Group(FuzzInput& in) {
  std::string g = in.String(8);
  for (char& c : g) c = static_cast<char>(0x21 + static_cast<unsigned char>(c) % 94);
  return g;
}

void DecodeArbitrary(std::string_view v) {
  DecodedTimeKey t;
  if (DecodeTimeKey(v, &t)) {
    Check(TimeKey(t.qid, t.time_ms, t.seq) == v || t.time_ms < 0, "time key re-encoding");
  }
  uint64_t qid, seq;
  if (DecodeMessageKey(v, &qid, &seq)) Check(MessageKey(qid, seq) == v, "message key re-encoding");
  std::string group;
  if (DecodeGroupedKey(v, &qid, &group, &seq)) {
    Check(GroupedKey(qid, group, seq) == v, "grouped key re-encoding");
  }
  ExpiryTarget e;
  if (DecodeExpiryValue(v, &e)) {
    Check((e.grouped ? ExpiryValueGrouped(e.group) : ExpiryValueVisible(e.visible_at_ms)) == v,
          "expiry value re-encoding");
  }
  int64_t second;
  if (DecodeBucketKey(v, &qid, &second)) {
    Check(BucketKey(qid, second) == v || second < 0, "bucket key re-encoding");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  DecodeArbitrary(std::string_view(reinterpret_cast<const char*>(data), size));

  FuzzInput in(data, size);
  // Small values collide often (equal fields exercise the tie-breaks).
  auto u64 = [&in]() -> uint64_t {
    return in.Bool() ? in.Range<uint64_t>(0, 3) : in.Any<uint64_t>();
  };
  auto i64 = [&in]() -> int64_t {
    return in.Bool() ? in.Range<int64_t>(-1, 2) : in.Any<int64_t>();
  };
  const uint64_t q1 = u64(), q2 = u64(), s1 = u64(), s2 = u64();
  const int64_t t1 = i64(), t2 = i64();
  const std::string g1 = Group(in), g2 = Group(in);

  // Round trips.
  DecodedTimeKey t;
  Check(DecodeTimeKey(TimeKey(q1, t1, s1), &t) && t.qid == q1 && t.seq == s1 &&
            t.time_ms == (t1 < 0 ? 0 : t1),
        "time key round trip");
  uint64_t qid, seq;
  Check(DecodeMessageKey(MessageKey(q1, s1), &qid, &seq) && qid == q1 && seq == s1,
        "message key round trip");
  std::string group;
  Check(DecodeGroupedKey(GroupedKey(q1, g1, s1), &qid, &group, &seq) && qid == q1 && group == g1 &&
            seq == s1,
        "grouped key round trip");
  ExpiryTarget e;
  Check(DecodeExpiryValue(ExpiryValueVisible(t1), &e) && !e.grouped && e.visible_at_ms == t1,
        "expiry visible round trip");
  if (!g1.empty()) {
    Check(DecodeExpiryValue(ExpiryValueGrouped(g1), &e) && e.grouped && e.group == g1,
          "expiry grouped round trip");
  }
  int64_t second;
  Check(
      DecodeBucketKey(BucketKey(q1, t1), &qid, &second) && qid == q1 && second == (t1 < 0 ? 0 : t1),
      "bucket key round trip");

  // Order: bytes compare as the tuples do.
  const int64_t c1 = t1 < 0 ? 0 : t1, c2 = t2 < 0 ? 0 : t2;
  Check(Sign(MessageKey(q1, s1).compare(MessageKey(q2, s2))) ==
            Cmp(std::tie(q1, s1), std::tie(q2, s2)),
        "message key order");
  Check(Sign(TimeKey(q1, t1, s1).compare(TimeKey(q2, t2, s2))) ==
            Cmp(std::tie(q1, c1, s1), std::tie(q2, c2, s2)),
        "time key order");
  Check(
      Sign(BucketKey(q1, t1).compare(BucketKey(q2, t2))) == Cmp(std::tie(q1, c1), std::tie(q2, c2)),
      "bucket key order");
  // Every key of a queue lies in [QueuePrefix, QueueEnd) (no wrap at the
  // last queue id, which the engine never allocates).
  if (q1 != UINT64_MAX) {
    const std::string k = TimeKey(q1, t1, s1);
    Check(k >= QueuePrefix(q1) && k < QueueEnd(q1), "time key outside its queue range");
    const std::string b = BucketKey(q1, t1);
    Check(b >= BucketPrefix(q1) && b < BucketEnd(q1), "bucket key outside its range");
  }
  // Grouped keys: inside their group's range, outside every other group's,
  // and in seq order within a group.
  const std::string k1 = GroupedKey(q1, g1, s1);
  Check(k1 >= GroupPrefix(q1, g1) && k1 < GroupEnd(q1, g1), "grouped key outside its group");
  if (q1 != q2 || g1 != g2) {
    Check(!(k1 >= GroupPrefix(q2, g2) && k1 < GroupEnd(q2, g2)),
          "grouped key inside another group");
  }
  Check(Sign(GroupedKey(q1, g1, s1).compare(GroupedKey(q1, g1, s2))) == Cmp(s1, s2),
        "grouped key seq order");
  return 0;
}
