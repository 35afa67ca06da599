// The FIFO deduplication window in memory: what it matches, what it forgets,
// and in which order.

#include "lib/fifo/dedup_table.h"

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace lqs::fifo {
namespace {

using Keys = std::vector<std::string>;

storage::DedupEntry Entry(int64_t first_ms, uint64_t seq) {
  storage::DedupEntry e;
  e.first_ms = first_ms;
  e.message_id = "id-" + std::to_string(seq);
  e.sequence_number = FormatSequenceNumber(seq);
  return e;
}

TEST(SequenceNumberTest, FormatsTwentyDigitsAndParsesBack) {
  EXPECT_EQ(FormatSequenceNumber(0), "10000000000000000000");
  EXPECT_EQ(FormatSequenceNumber(42), "10000000000000000042");
  for (uint64_t seq : {uint64_t{0}, uint64_t{1}, uint64_t{123456789}, uint64_t{1} << 60}) {
    uint64_t parsed = 7;
    ASSERT_TRUE(ParseSequenceNumber(FormatSequenceNumber(seq), &parsed)) << seq;
    EXPECT_EQ(parsed, seq);
  }
}

TEST(SequenceNumberTest, RejectsAnyOtherText) {
  uint64_t seq = 0;
  EXPECT_FALSE(ParseSequenceNumber("", &seq));
  EXPECT_FALSE(ParseSequenceNumber("1000000000000000042", &seq));    // 19 digits
  EXPECT_FALSE(ParseSequenceNumber("100000000000000000042", &seq));  // 21 digits
  EXPECT_FALSE(ParseSequenceNumber("0999999999999999999x", &seq));
  EXPECT_FALSE(ParseSequenceNumber("09999999999999999999", &seq));  // below the base
  EXPECT_FALSE(ParseSequenceNumber("99999999999999999999", &seq));  // above 2^64
}

TEST(DedupTableTest, MatchesInsideTheWindowOnly) {
  DedupTable t;
  ASSERT_TRUE(t.Put("a", Entry(1000, 5)));
  std::optional<storage::DedupEntry> seen = t.Find("a", 1000 + kDedupWindowMs - 1);
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(seen->first_ms, 1000);
  EXPECT_EQ(seen->message_id, "id-5");
  EXPECT_EQ(seen->sequence_number, FormatSequenceNumber(5));
  EXPECT_FALSE(t.Find("a", 1000 + kDedupWindowMs).has_value());
  EXPECT_FALSE(t.Find("b", 1000).has_value());
}

TEST(DedupTableTest, PutReplacesAndEraseForgets) {
  DedupTable t;
  ASSERT_TRUE(t.Put("a", Entry(1000, 1)));
  ASSERT_TRUE(t.Put("a", Entry(2000, 2)));
  EXPECT_EQ(t.size(), 1u);
  EXPECT_EQ(t.Find("a", 2000)->message_id, "id-2");
  t.Erase("a");
  EXPECT_EQ(t.size(), 0u);
  EXPECT_FALSE(t.Find("a", 2000).has_value());
  t.Erase("a");  // erasing what is not there is harmless
  // The replaced and the erased entries are not handed out as expired.
  EXPECT_EQ(t.TakeExpired(2000 + kDedupWindowMs, 10), Keys{});
}

TEST(DedupTableTest, RefusesAMalformedSequenceNumberAndChangesNothing) {
  DedupTable t;
  ASSERT_TRUE(t.Put("a", Entry(1000, 1)));
  storage::DedupEntry bad = Entry(2000, 2);
  bad.sequence_number = "42";
  EXPECT_FALSE(t.Put("a", bad));
  EXPECT_EQ(t.Find("a", 2000)->message_id, "id-1");
  EXPECT_FALSE(t.Put("b", bad));
  EXPECT_EQ(t.size(), 1u);
}

TEST(DedupTableTest, TakeExpiredForgetsTheOldestFirstUpToTheLimit) {
  DedupTable t;
  ASSERT_TRUE(t.Put("a", Entry(1000, 1)));
  ASSERT_TRUE(t.Put("b", Entry(2000, 2)));
  ASSERT_TRUE(t.Put("c", Entry(3000, 3)));
  ASSERT_TRUE(t.Put("d", Entry(4000, 4)));
  t.Erase("b");
  EXPECT_EQ(t.TakeExpired(2999 + kDedupWindowMs, 10), (Keys{"a"}));
  EXPECT_EQ(t.TakeExpired(5000 + kDedupWindowMs, 1), (Keys{"c"}));
  EXPECT_EQ(t.size(), 1u);
  EXPECT_TRUE(t.Find("d", 4000).has_value());
  EXPECT_EQ(t.TakeExpired(5000 + kDedupWindowMs, 10), (Keys{"d"}));
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.TakeExpired(5000 + kDedupWindowMs, 10), Keys{});
}

TEST(DedupTableTest, AKeyAcceptedAgainAfterItsWindowIsNotForgottenWithTheOldEntry) {
  DedupTable t;
  ASSERT_TRUE(t.Put("a", Entry(1000, 1)));
  const int64_t later = 1000 + kDedupWindowMs;
  ASSERT_FALSE(t.Find("a", later).has_value());
  ASSERT_TRUE(t.Put("a", Entry(later, 2)));
  EXPECT_EQ(t.TakeExpired(later + 1, 10), Keys{});
  EXPECT_EQ(t.Find("a", later + 1)->message_id, "id-2");
}

TEST(DedupTableTest, AClockThatWentBackDelaysForgettingButNotMatching) {
  DedupTable t;
  ASSERT_TRUE(t.Put("late", Entry(50000, 1)));
  ASSERT_TRUE(t.Put("early", Entry(1000, 2)));  // accepted after the clock went back
  const int64_t now = 1000 + kDedupWindowMs;
  EXPECT_FALSE(t.Find("early", now).has_value());
  EXPECT_TRUE(t.Find("late", now).has_value());
  // "early" waits behind "late", which is still inside its window.
  EXPECT_EQ(t.TakeExpired(now, 10), Keys{});
  EXPECT_EQ(t.TakeExpired(50000 + kDedupWindowMs, 10), (Keys{"late", "early"}));
}

TEST(DedupTableTest, ManyEntriesStayFindableWhileTheTableGrowsAndDrains) {
  DedupTable t;
  constexpr int kN = 100000;
  for (int i = 0; i < kN; ++i) {
    ASSERT_TRUE(t.Put("dedup-id-" + std::to_string(i), Entry(i, static_cast<uint64_t>(i))));
  }
  for (int i = 0; i < kN; i += 997) {
    std::optional<storage::DedupEntry> seen = t.Find("dedup-id-" + std::to_string(i), kN);
    ASSERT_TRUE(seen.has_value()) << i;
    EXPECT_EQ(seen->sequence_number, FormatSequenceNumber(static_cast<uint64_t>(i)));
  }
  std::vector<std::string> first = t.TakeExpired(kDedupWindowMs + kN / 2 - 1, kN);
  ASSERT_EQ(first.size(), static_cast<size_t>(kN / 2));
  EXPECT_EQ(first.front(), "dedup-id-0");
  EXPECT_EQ(first.back(), "dedup-id-" + std::to_string(kN / 2 - 1));
  EXPECT_FALSE(t.Find("dedup-id-0", kN / 2).has_value());
  EXPECT_TRUE(t.Find("dedup-id-" + std::to_string(kN - 1), kN).has_value());
  t.Clear();
  EXPECT_EQ(t.size(), 0u);
  EXPECT_FALSE(t.Find("dedup-id-" + std::to_string(kN - 1), kN).has_value());
}

}  // namespace
}  // namespace lqs::fifo
