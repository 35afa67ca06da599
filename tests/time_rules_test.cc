// Delay and retention, driven by the injectable clock (no sleeping).

#include <gtest/gtest.h>

#include "tests/testutil.h"

namespace lqs::testing {
namespace {

class TimeRulesTest : public BrokerTest {};

TEST(ManualClockTest, FrozenMovesOnlyWhenTold) {
  ManualClock clock(1000);
  EXPECT_FALSE(clock.running());
  EXPECT_EQ(clock.NowMillis(), 1000);
  EXPECT_EQ(clock.RealTimeUntil(61000), std::chrono::milliseconds(1000));  // re-check cap
  clock.AdvanceMillis(60000);
  EXPECT_EQ(clock.NowMillis(), 61000);
  EXPECT_EQ(clock.RealTimeUntil(61000), std::chrono::milliseconds(0));
}

TEST(ManualClockTest, RunningFollowsRealTimeAndJumps) {
  auto clock = ManualClock::Running(1000);
  EXPECT_TRUE(clock->running());
  const int64_t t0 = clock->NowMillis();
  EXPECT_GE(t0, 1000);
  // A deadline 60 s ahead is reached in real time, not at a re-check cap.
  EXPECT_GT(clock->RealTimeUntil(t0 + 60000), std::chrono::milliseconds(50000));
  clock->AdvanceSeconds(3600);
  const int64_t t1 = clock->NowMillis();
  EXPECT_GE(t1, t0 + 3600 * 1000);
  EXPECT_EQ(clock->RealTimeUntil(t0 + 60000), std::chrono::milliseconds(0));
  clock->SetMillis(5000);
  EXPECT_GE(clock->NowMillis(), 5000);
  EXPECT_LT(clock->NowMillis(), t1);
}

TEST_F(TimeRulesTest, PerMessageDelay) {
  auto q = MakeQueue("q");
  ASSERT_OK(SendDelayed(*q, "later", 5));
  Send(*q, "now");
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{1, 0, 1}));
  auto got = Receive(*q);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].body, "now");
  clock_->AdvanceMillis(4999);
  EXPECT_TRUE(Receive(*q).empty());
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 1, 1}));
  clock_->AdvanceMillis(1);
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{1, 1, 0}));
  got = Receive(*q);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].body, "later");
  EXPECT_CODE(SendDelayed(*q, "later", 901), kInvalidParameterValue);
}

TEST_F(TimeRulesTest, QueueDelayAppliesAtSendTimeOnly) {
  auto q = MakeQueue("q", {{"DelaySeconds", "10"}});
  Send(*q, "a");
  ASSERT_OK(q->SetAttributes({{"DelaySeconds", "0"}}));
  Send(*q, "b");
  auto got = Receive(*q, 10);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].body, "b");
  clock_->AdvanceSeconds(10);
  EXPECT_EQ(Receive(*q, 10).size(), 1u);
}

TEST_F(TimeRulesTest, DelayedMessagesSurviveReopen) {
  auto q = MakeQueue("q");
  ASSERT_OK(SendDelayed(*q, "later", 100));
  Reopen();
  auto q2 = *broker_->GetQueue("q");
  EXPECT_EQ(Counts(*q2), (std::array<int64_t, 3>{0, 0, 1}));
  clock_->AdvanceSeconds(100);
  EXPECT_EQ(Receive(*q2).size(), 1u);
}

TEST_F(TimeRulesTest, RetentionExpiresEveryState) {
  auto q = MakeQueue("q", {{"MessageRetentionPeriod", "60"}});
  Send(*q, "visible");
  Send(*q, "leased");
  auto leased = Receive(*q, 1, 3600);
  ASSERT_EQ(leased.size(), 1u);
  ASSERT_OK(SendDelayed(*q, "delayed", 900));
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{1, 1, 1}));
  clock_->AdvanceSeconds(59);
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{1, 1, 1}));
  clock_->AdvanceSeconds(1);
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 0, 0}));
  EXPECT_TRUE(Receive(*q).empty());
  // Deleting an expired message with its handle succeeds silently.
  EXPECT_OK(q->DeleteMessage(leased[0].receipt_handle));
  // Newer messages are untouched.
  Send(*q, "fresh");
  EXPECT_EQ(Receive(*q).size(), 1u);
}

TEST_F(TimeRulesTest, FourDayDefaultRetentionInMilliseconds) {
  auto q = MakeQueue("q");
  for (int i = 0; i < 100; ++i) Send(*q, "m" + std::to_string(i));
  clock_->AdvanceSeconds(345599);
  ASSERT_OK(broker_->RunMaintenance());
  EXPECT_EQ(Counts(*q)[0], 100);
  clock_->AdvanceSeconds(1);
  ASSERT_OK(broker_->RunMaintenance());
  EXPECT_EQ(Counts(*q)[0], 0);
  auto attrs = q->GetAttributes({"All"});
  ASSERT_OK(attrs);
}

TEST_F(TimeRulesTest, LoweringRetentionExpiresOlderMessages) {
  auto q = MakeQueue("q");
  Send(*q, "old");
  clock_->AdvanceSeconds(120);
  Send(*q, "new");
  ASSERT_OK(q->SetAttributes({{"MessageRetentionPeriod", "60"}}));
  auto got = Receive(*q, 10);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].body, "new");
}

}  // namespace
}  // namespace lqs::testing
