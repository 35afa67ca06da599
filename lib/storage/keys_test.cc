#include "lib/storage/keys.h"

#include <random>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

namespace lqs::storage {
namespace {

TEST(KeysTest, TimeKeysOrderByQueueThenTimeThenSeq) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 10000; ++i) {
    uint64_t q1 = rng() % 4, q2 = rng() % 4, s1 = rng(), s2 = rng();
    int64_t t1 = static_cast<int64_t>(rng() >> 20), t2 = static_cast<int64_t>(rng() >> 20);
    auto a = std::make_tuple(q1, t1, s1), b = std::make_tuple(q2, t2, s2);
    EXPECT_EQ(a < b, TimeKey(q1, t1, s1) < TimeKey(q2, t2, s2));
    DecodedTimeKey d;
    ASSERT_TRUE(DecodeTimeKey(TimeKey(q1, t1, s1), &d));
    EXPECT_EQ(d.qid, q1);
    EXPECT_EQ(d.time_ms, t1);
    EXPECT_EQ(d.seq, s1);
  }
}

TEST(KeysTest, QueueRangesAreContiguous) {
  EXPECT_LT(QueuePrefix(5), MessageKey(5, 0));
  EXPECT_LT(MessageKey(5, UINT64_MAX), QueueEnd(5));
  EXPECT_LT(TimeKey(5, INT64_MAX, UINT64_MAX), QueueEnd(5));
  EXPECT_LE(QueueEnd(5), MessageKey(6, 0));
  uint64_t q = 0, s = 0;
  ASSERT_TRUE(DecodeMessageKey(MessageKey(9, 42), &q, &s));
  EXPECT_EQ(q, 9u);
  EXPECT_EQ(s, 42u);
  EXPECT_FALSE(DecodeMessageKey("short", &q, &s));
}

TEST(KeysTest, BucketsAndCatalogKeys) {
  uint64_t q = 0;
  int64_t sec = 0;
  ASSERT_TRUE(DecodeBucketKey(BucketKey(3, 1767225600), &q, &sec));
  EXPECT_EQ(q, 3u);
  EXPECT_EQ(sec, 1767225600);
  EXPECT_LT(BucketPrefix(3), BucketKey(3, 0));
  EXPECT_LT(BucketKey(3, INT64_MAX), BucketEnd(3));
  EXPECT_NE(QueueRecordKey("a"), DeletedNameKey("a"));
  EXPECT_EQ(QueueRecordKey("a")[0], kQueueRecordTag);
}

TEST(KeysTest, FixedWidthIntegersRoundTrip) {
  for (uint64_t v : std::vector<uint64_t>{0, 1, 0x0102030405060708ULL, UINT64_MAX}) {
    std::string be, le;
    PutBE64(&be, v);
    PutLE64(&le, v);
    EXPECT_EQ(GetBE64(be.data()), v);
    EXPECT_EQ(GetLE64(le.data()), v);
  }
}

}  // namespace
}  // namespace lqs::storage
