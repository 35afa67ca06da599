// Fair queues: standard queues whose messages carry a MessageGroupId. A
// tenant with a huge backlog must not starve the others; there is no
// ordering guarantee and no group locking.

#include <map>
#include <set>

#include <gtest/gtest.h>

#include "tests/testutil.h"

namespace lqs::testing {
namespace {

class FairQueueTest : public BrokerTest {
 protected:
  void SendGroup(Queue& q, const std::string& group, int n) {
    for (int i = 0; i < n; i += 10) {
      std::vector<SendMessageBatchEntry> batch;
      for (int j = i; j < std::min(n, i + 10); ++j) {
        SendMessageBatchEntry e;
        e.id = "e" + std::to_string(j - i);
        e.request.body = group + ":" + std::to_string(j);
        e.request.message_group_id = group;
        batch.push_back(std::move(e));
      }
      auto r = q.SendMessageBatch(batch);
      ASSERT_OK(r);
      ASSERT_TRUE(r->failed.empty());
    }
  }
};

TEST_F(FairQueueTest, NoisyTenantDoesNotStarveQuietOnes) {
  durability_ = Durability::kNone;
  Reopen();
  auto q = MakeQueue("tenants");
  SendGroup(*q, "noisy", 100000);
  for (int g = 0; g < 50; ++g) SendGroup(*q, "quiet" + std::to_string(g), 10);
  int deliveries = 0, quiet = 0;
  while (quiet < 500 && deliveries < 5000) {
    auto got = Receive(*q, 10);
    ASSERT_FALSE(got.empty());
    for (const auto& m : got) {
      ++deliveries;
      if (m.body.rfind("quiet", 0) == 0) ++quiet;
      ASSERT_OK(q->DeleteMessage(m.receipt_handle));
    }
  }
  EXPECT_EQ(quiet, 500);
  // Round robin over 51 tenants: 500 quiet messages within ~510 deliveries.
  EXPECT_LE(deliveries, 600);
  EXPECT_EQ(Counts(*q)[0], 100000 - (deliveries - 500));
}

TEST_F(FairQueueTest, GroupedAndUngroupedMessagesBothFlow) {
  auto q = MakeQueue("q");
  SendGroup(*q, "a", 3);
  Send(*q, "plain1");
  Send(*q, "plain2");
  SendGroup(*q, "b", 3);
  std::multiset<std::string> bodies;
  std::map<std::string, std::string> group_of;
  for (int i = 0; i < 5; ++i) {
    for (const auto& m : Receive(*q, 2)) {
      bodies.insert(m.body);
      auto g = m.attributes.find("MessageGroupId");
      group_of[m.body] = g == m.attributes.end() ? "" : g->second;
      EXPECT_EQ(m.attributes.count("SequenceNumber"), 0u);  // FIFO only
    }
  }
  EXPECT_EQ(bodies.size(), 8u);
  EXPECT_EQ(group_of["a:0"], "a");
  EXPECT_EQ(group_of["plain1"], "");
  // No group locking on standard queues: several of one group in flight.
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 8, 0}));
}

TEST_F(FairQueueTest, SurvivesReopenAndExpires) {
  auto q = MakeQueue("q", {{"MessageRetentionPeriod", "60"}});
  SendGroup(*q, "a", 5);
  auto first = Receive(*q, 2);
  ASSERT_EQ(first.size(), 2u);
  Reopen();
  q = *broker_->GetQueue("q");
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{3, 2, 0}));
  EXPECT_EQ(Receive(*q, 10).size(), 3u);
  SendGroup(*q, "b", 4);
  clock_->AdvanceSeconds(60);
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 0, 0}));
  EXPECT_TRUE(Receive(*q, 10).empty());
}

TEST_F(FairQueueTest, DelayedGroupedMessagesWaitTheirDelay) {
  auto q = MakeQueue("q");
  SendMessageRequest r;
  r.body = "later";
  r.message_group_id = "g";
  r.delay_seconds = 30;
  ASSERT_OK(q->SendMessage(r));
  EXPECT_TRUE(Receive(*q).empty());
  clock_->AdvanceSeconds(30);
  auto got = Receive(*q);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].attributes["MessageGroupId"], "g");
}

}  // namespace
}  // namespace lqs::testing
