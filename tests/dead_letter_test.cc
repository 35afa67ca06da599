// Dead-letter queues: maxReceiveCount moves, RedriveAllowPolicy,
// ListDeadLetterSourceQueues, a DLQ's MaximumMessageSize, and moves that
// meet a DLQ being purged or deleted.

#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "lib/engine/queue_impl.h"
#include "tests/testutil.h"

namespace lqs::testing {
namespace {

class DeadLetterTest : public BrokerTest {
 protected:
  // Queue "q", whose dead letters go to a new queue "dlq" (*dlq) after
  // `max_receive_count` receives.
  std::shared_ptr<Queue> WithDlq(int max_receive_count, std::shared_ptr<Queue>* dlq) {
    *dlq = MakeQueue("dlq");
    return MakeQueue("q", {{"RedrivePolicy", Redrive("dlq", max_receive_count)}});
  }
  // `dlq` holds exactly the message `id`, and the database is consistent.
  void ExpectOnlyInDlq(Queue& dlq, const std::string& id) {
    auto moved = Receive(dlq);
    ASSERT_EQ(moved.size(), 1u);
    EXPECT_EQ(moved[0].message_id, id);
    ExpectConsistent();
  }
};

engine::QueueImpl& Impl(Queue& q) { return static_cast<engine::QueueImpl&>(q); }

// Holds a queue's gate exclusively, as a purge or DeleteQueue in progress
// does, on a thread of its own (a thread that holds a shared_mutex must not
// lock it again) from construction until Release().
class GateHolder {
 public:
  explicit GateHolder(Queue& q) {
    std::future<void> held = held_.get_future();
    thread_ = std::thread([this, &q, release = release_.get_future()] {
      auto gate = Impl(q).LockGateForTest();
      held_.set_value();
      release.wait();
    });
    held.wait();
  }
  ~GateHolder() { Release(); }
  void Release() {
    if (!thread_.joinable()) return;
    release_.set_value();
    thread_.join();
  }

 private:
  std::promise<void> held_;
  std::promise<void> release_;
  std::thread thread_;
};

TEST_F(DeadLetterTest, MovedAfterMaxReceiveCount) {
  auto dlq = MakeQueue("dlq");
  auto q = MakeQueue("q", {{"RedrivePolicy", Redrive("dlq", 2)}, {"VisibilityTimeout", "10"}});
  ASSERT_TRUE(q);
  auto sent = SendWithAttributes(*q, "poison", {{"k", {"Number", "42", ""}}});
  ASSERT_OK(sent);
  const int64_t sent_at = clock_->NowMillis();
  ASSERT_EQ(Receive(*q).size(), 1u);
  clock_->AdvanceSeconds(10);
  ASSERT_EQ(Receive(*q).size(), 1u);
  clock_->AdvanceSeconds(10);
  // The third receive moves it instead of delivering it.
  EXPECT_TRUE(Receive(*q).empty());
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 0, 0}));
  EXPECT_EQ(Counts(*dlq), (std::array<int64_t, 3>{1, 0, 0}));
  auto got = Receive(*dlq);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].message_id, sent->message_id);
  EXPECT_EQ(got[0].body, "poison");
  EXPECT_EQ(got[0].attributes["ApproximateReceiveCount"], "3");
  EXPECT_EQ(got[0].attributes["SentTimestamp"], std::to_string(sent_at));
  EXPECT_EQ(got[0].attributes["DeadLetterQueueSourceArn"], q->arn());
  EXPECT_EQ(got[0].message_attributes.at("k").string_value, "42");
  // The source keeps working.
  Send(*q, "fine");
  EXPECT_EQ(Receive(*q).size(), 1u);
}

TEST_F(DeadLetterTest, MaxReceiveCountOneDeliversOnce) {
  MakeQueue("dlq");
  auto q = MakeQueue("q", {{"RedrivePolicy", Redrive("dlq", 1)}});
  Send(*q, "x");
  auto got = Receive(*q, 1, 0);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(Receive(*q).empty());
  auto dlq = *broker_->GetQueue("dlq");
  EXPECT_EQ(Receive(*dlq).size(), 1u);
  // The old handle no longer does anything, and does not fail.
  EXPECT_OK(q->DeleteMessage(got[0].receipt_handle));
}

TEST_F(DeadLetterTest, DlqKeepsOriginalSendTimeForRetention) {
  auto dlq = MakeQueue("dlq", {{"MessageRetentionPeriod", "120"}});
  auto q = MakeQueue("q", {{"RedrivePolicy", Redrive("dlq", 1)}});
  Send(*q, "x");
  ASSERT_EQ(Receive(*q, 1, 100).size(), 1u);
  clock_->AdvanceSeconds(100);
  EXPECT_TRUE(Receive(*q).empty());  // moved at t=100 s
  EXPECT_EQ(Counts(*dlq)[0], 1);
  clock_->AdvanceSeconds(20);  // 120 s since the original send
  EXPECT_EQ(Counts(*dlq)[0], 0);
  EXPECT_TRUE(Receive(*dlq).empty());
}

TEST_F(DeadLetterTest, RedrivePolicyValidation) {
  MakeQueue("dlq");
  auto q = MakeQueue("q");
  EXPECT_CODE(q->SetAttributes({{"RedrivePolicy", Redrive("missing", 3)}}), kInvalidParameterValue);
  EXPECT_CODE(q->SetAttributes({{"RedrivePolicy", "{\"maxReceiveCount\":3}"}}),
              kInvalidParameterValue);
  EXPECT_CODE(q->SetAttributes({{"RedrivePolicy", Redrive("dlq", 0)}}), kInvalidParameterValue);
  EXPECT_CODE(q->SetAttributes({{"RedrivePolicy", Redrive("dlq", 1001)}}), kInvalidParameterValue);
  ASSERT_OK(
      q->SetAttributes({{"RedrivePolicy", "{\"deadLetterTargetArn\":\"" + broker_->ArnFor("dlq") +
                                              "\",\"maxReceiveCount\":\"7\"}"}}));
  EXPECT_EQ(q->GetAttributes({"RedrivePolicy"})->at("RedrivePolicy"), Redrive("dlq", 7));
  ASSERT_OK(q->SetAttributes({{"RedrivePolicy", ""}}));
  EXPECT_EQ(q->GetAttributes({"All"})->count("RedrivePolicy"), 0u);
}

TEST_F(DeadLetterTest, RedriveAllowPolicy) {
  auto dlq = MakeQueue("dlq", {{"RedriveAllowPolicy", "{\"redrivePermission\":\"denyAll\"}"}});
  EXPECT_CODE(broker_->CreateQueue("q", {{"RedrivePolicy", Redrive("dlq", 3)}}, {}),
              kInvalidParameterValue);
  ASSERT_OK(dlq->SetAttributes(
      {{"RedriveAllowPolicy", "{\"redrivePermission\":\"byQueue\",\"sourceQueueArns\":[\"" +
                                  broker_->ArnFor("ok") + "\"]}"}}));
  EXPECT_CODE(broker_->CreateQueue("q", {{"RedrivePolicy", Redrive("dlq", 3)}}, {}),
              kInvalidParameterValue);
  EXPECT_OK(broker_->CreateQueue("ok", {{"RedrivePolicy", Redrive("dlq", 3)}}, {}));
}

TEST_F(DeadLetterTest, ListDeadLetterSourceQueues) {
  MakeQueue("dlq");
  MakeQueue("a", {{"RedrivePolicy", Redrive("dlq", 3)}});
  MakeQueue("b", {{"RedrivePolicy", Redrive("dlq", 3)}});
  MakeQueue("c");
  auto list = broker_->ListDeadLetterSourceQueues("dlq", {});
  ASSERT_OK(list);
  EXPECT_EQ(list->queue_names, (std::vector<std::string>{"a", "b"}));
  EXPECT_CODE(broker_->ListDeadLetterSourceQueues("nope", {}), kQueueDoesNotExist);
}

TEST_F(DeadLetterTest, MovesSurviveReopenAndStayConsistent) {
  MakeQueue("dlq");
  auto q = MakeQueue("q", {{"RedrivePolicy", Redrive("dlq", 1)}});
  for (int i = 0; i < 50; ++i) Send(*q, "m" + std::to_string(i));
  for (int i = 0; i < 5; ++i) Receive(*q, 10, 0);
  EXPECT_TRUE(Receive(*q, 10).empty());
  Reopen();
  auto dlq = *broker_->GetQueue("dlq");
  EXPECT_EQ(Counts(*dlq)[0], 50);
}

// ---- A DLQ's MaximumMessageSize ----------------------------------------------------
// MaximumMessageSize is the limit SendMessage enforces. A message that reaches
// a DLQ was accepted by its source's SendMessage already: it moves whole, and
// so does a redrive back to a source whose limit was lowered meanwhile.

TEST_F(DeadLetterTest, ReceiveMovesAMessageLargerThanTheDlqsLimit) {
  auto dlq = MakeQueue("dlq", {{"MaximumMessageSize", "1024"}});
  auto q = MakeQueue("q", {{"RedrivePolicy", Redrive("dlq", 1)}});
  SendMessageRequest s;
  s.body = std::string(4000, 'b');
  s.message_attributes["k"] = {"String", std::string(500, 'v'), ""};
  auto sent = q->SendMessage(s);
  ASSERT_OK(sent);
  EXPECT_CODE(dlq->SendMessage(s), kInvalidParameterValue);  // too large to send there
  ASSERT_EQ(Receive(*q, 1, 0).size(), 1u);
  EXPECT_TRUE(Receive(*q).empty());  // moved, not dropped
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 0, 0}));
  auto got = Receive(*dlq);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].message_id, sent->message_id);
  EXPECT_EQ(got[0].body, s.body);
  EXPECT_EQ(got[0].message_attributes.at("k").string_value, std::string(500, 'v'));
  ExpectConsistent();
}

TEST_F(DeadLetterTest, MoveToDeadLetterQueueIgnoresTheDlqsLimit) {
  auto dlq = MakeQueue("dlq", {{"MaximumMessageSize", "1024"}});
  auto q = MakeQueue("q", {{"RedrivePolicy", Redrive("dlq", 5)}});
  const std::string body(2000, 'x');
  Send(*q, body);
  auto got = Receive(*q, 1, 30);
  ASSERT_EQ(got.size(), 1u);
  MessageAttributeMap extra;
  extra["lqs.Error"] = {"String", std::string(800, 'e'), ""};
  ASSERT_OK(q->MoveToDeadLetterQueue(got[0].receipt_handle, extra));
  auto moved = Receive(*dlq);
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_EQ(moved[0].body, body);
  EXPECT_EQ(moved[0].message_attributes.at("lqs.Error").string_value, std::string(800, 'e'));
}

TEST_F(DeadLetterTest, RedriveIgnoresTheSourcesLoweredLimit) {
  std::shared_ptr<Queue> dlq;
  auto q = WithDlq(1, &dlq);
  ASSERT_TRUE(q && dlq);
  const std::string body(3000, 'r');
  Send(*q, body);
  ASSERT_EQ(Receive(*q, 1, 0).size(), 1u);
  EXPECT_TRUE(Receive(*q).empty());
  ASSERT_EQ(Counts(*dlq)[0], 1);
  ASSERT_OK(q->SetAttributes({{"MaximumMessageSize", "1024"}}));
  ASSERT_NO_FATAL_FAILURE(RedriveForOneSecond(*dlq, 10));
  EXPECT_EQ(Counts(*dlq)[0], 0);
  auto back = Receive(*q);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].body, body);
  ExpectConsistent();
}

// ---- Moves that meet a DLQ being purged or deleted -----------------------------------

// A receive never waits for another queue: the message due for the DLQ stays
// where it is (and is not delivered); the first receive after the purge or
// delete moves it.
TEST_F(DeadLetterTest, ReceiveLeavesTheMessageWhileTheDlqIsBusy) {
  std::shared_ptr<Queue> dlq;
  auto q = WithDlq(1, &dlq);
  ASSERT_TRUE(q && dlq);
  const std::string id = Send(*q, "poison");
  Send(*q, "fine");
  ASSERT_EQ(Receive(*q, 1, 0).size(), 1u);  // "poison": its next receive moves it
  {
    GateHolder busy(*dlq);
    auto got = Receive(*q);
    ASSERT_EQ(got.size(), 1u);  // only the other message
    EXPECT_EQ(got[0].body, "fine");
    EXPECT_TRUE(Receive(*q).empty());
    EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{1, 1, 0}));
  }
  EXPECT_EQ(Counts(*dlq)[0], 0);
  EXPECT_TRUE(Receive(*q).empty());  // moves it now
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 1, 0}));
  ExpectOnlyInDlq(*dlq, id);
}

// MoveToDeadLetterQueue waits for the purge or delete instead of failing,
// and its retry holds the gate it waited for, so it waits once.
TEST_F(DeadLetterTest, MoveToDeadLetterQueueWaitsOnceForABusyDlq) {
  std::shared_ptr<Queue> dlq;
  auto q = WithDlq(5, &dlq);
  ASSERT_TRUE(q && dlq);
  const std::string id = Send(*q, "poison");
  auto got = Receive(*q, 1, 30);
  ASSERT_EQ(got.size(), 1u);

  GateHolder busy(*dlq);
  int waits = 0;
  std::promise<void> waiting;
  Impl(*q).SetDeadLetterWaitHookForTest([&] {
    if (++waits == 1) waiting.set_value();
  });
  Status moved = Status(ErrorCode::kInternal, "not run");
  std::thread mover([&] { moved = q->MoveToDeadLetterQueue(got[0].receipt_handle, {}); });
  waiting.get_future().wait();  // it found the gate taken and waits for it
  busy.Release();
  mover.join();
  Impl(*q).SetDeadLetterWaitHookForTest(nullptr);
  EXPECT_OK(moved);
  EXPECT_EQ(waits, 1);
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 0, 0}));
  ExpectOnlyInDlq(*dlq, id);
}

}  // namespace
}  // namespace lqs::testing
