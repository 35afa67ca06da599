// Message move tasks (DLQ redrive): start, progress at a rate on the
// injected clock, cancel, list, and the errors.

#include <gtest/gtest.h>

#include "tests/testutil.h"

namespace lqs::testing {
namespace {

class MoveTaskTest : public BrokerTest {
 protected:
  void SetUp() override {
    BrokerTest::SetUp();
    dlq_ = MakeQueue("dlq");
    src_ = MakeQueue("src", {{"RedrivePolicy", Redrive("dlq", 1)}});
    for (int i = 0; i < 10; ++i) Send(*src_, "m" + std::to_string(i));
    for (int i = 0; i < 2; ++i) Receive(*src_, 10, 0);
    ASSERT_EQ(Counts(*dlq_)[0], 10);
  }
  // Starts a redrive of the DLQ to its messages' sources at 100 messages/s
  // and lets it run for one second of the clock.
  void RedriveToSourcesForOneSecond() { RedriveForOneSecond(*dlq_, 100); }

  std::shared_ptr<Queue> dlq_, src_;
};

TEST_F(MoveTaskTest, MovesBackToSourceAtRate) {
  StartMessageMoveTaskRequest r;
  r.source_arn = dlq_->arn();
  r.max_number_of_messages_per_second = 4;
  auto handle = broker_->StartMessageMoveTask(r);
  ASSERT_OK(handle);
  auto tasks = broker_->ListMessageMoveTasks(dlq_->arn(), 1);
  ASSERT_OK(tasks);
  ASSERT_EQ(tasks->size(), 1u);
  EXPECT_EQ((*tasks)[0].status, "RUNNING");
  EXPECT_EQ((*tasks)[0].task_handle, *handle);
  EXPECT_EQ((*tasks)[0].approximate_number_of_messages_to_move, 10);
  clock_->AdvanceSeconds(1);
  ASSERT_OK(broker_->RunMaintenance());
  EXPECT_EQ(Counts(*src_)[0], 4);
  clock_->AdvanceSeconds(2);
  ASSERT_OK(broker_->RunMaintenance());
  ASSERT_OK(broker_->RunMaintenance());
  tasks = broker_->ListMessageMoveTasks(dlq_->arn(), 10);
  EXPECT_EQ((*tasks)[0].status, "COMPLETED");
  EXPECT_EQ((*tasks)[0].approximate_number_of_messages_moved, 10);
  EXPECT_TRUE((*tasks)[0].task_handle.empty());
  EXPECT_EQ(Counts(*src_)[0], 10);
  EXPECT_EQ(Counts(*dlq_)[0], 0);
  // Redriven messages are new messages.
  auto got = Receive(*src_, 10);
  ASSERT_EQ(got.size(), 10u);
  EXPECT_EQ(got[0].attributes["ApproximateReceiveCount"], "1");
  EXPECT_EQ(got[0].attributes.count("DeadLetterQueueSourceArn"), 0u);
}

TEST_F(MoveTaskTest, ToExplicitDestinationAndCancel) {
  auto dest = MakeQueue("dest");
  StartMessageMoveTaskRequest r;
  r.source_arn = dlq_->arn();
  r.destination_arn = dest->arn();
  r.max_number_of_messages_per_second = 3;
  auto handle = broker_->StartMessageMoveTask(r);
  ASSERT_OK(handle);
  EXPECT_CODE(broker_->StartMessageMoveTask(r), kInvalidParameterValue);  // one at a time
  clock_->AdvanceSeconds(1);
  ASSERT_OK(broker_->RunMaintenance());
  auto moved = broker_->CancelMessageMoveTask(*handle);
  ASSERT_OK(moved);
  EXPECT_EQ(*moved, 3);
  EXPECT_EQ((*broker_->ListMessageMoveTasks(dlq_->arn(), 1))[0].status, "CANCELLING");
  ASSERT_OK(broker_->RunMaintenance());
  EXPECT_EQ((*broker_->ListMessageMoveTasks(dlq_->arn(), 1))[0].status, "CANCELLED");
  // A task that is no longer running cannot be cancelled: not found, as SQS
  // models it, and nothing changes.
  EXPECT_CODE(broker_->CancelMessageMoveTask(*handle), kResourceNotFound);
  EXPECT_EQ((*broker_->ListMessageMoveTasks(dlq_->arn(), 1))[0].status, "CANCELLED");
  EXPECT_EQ(Counts(*dest)[0], 3);
  EXPECT_EQ(Counts(*dlq_)[0], 7);
}

TEST_F(MoveTaskTest, Errors) {
  StartMessageMoveTaskRequest r;
  r.source_arn = src_->arn();  // not a DLQ
  EXPECT_CODE(broker_->StartMessageMoveTask(r), kInvalidParameterValue);
  r.source_arn = broker_->ArnFor("missing");
  EXPECT_CODE(broker_->StartMessageMoveTask(r), kResourceNotFound);
  r.source_arn = dlq_->arn();
  r.destination_arn = broker_->ArnFor("missing");
  EXPECT_CODE(broker_->StartMessageMoveTask(r), kResourceNotFound);
  r.destination_arn.reset();
  r.max_number_of_messages_per_second = 501;
  EXPECT_CODE(broker_->StartMessageMoveTask(r), kInvalidParameterValue);
  EXPECT_CODE(broker_->CancelMessageMoveTask("not-a-handle!"), kInvalidParameterValue);
}

TEST_F(MoveTaskTest, DestinationMustBeAnotherQueueOfTheSameType) {
  auto fifo = MakeQueue("dest.fifo", {{"FifoQueue", "true"}});
  StartMessageMoveTaskRequest r;
  r.source_arn = dlq_->arn();
  const auto message_of = [&]() { return AsStatus(broker_->StartMessageMoveTask(r)).message(); };
  r.destination_arn = "not-an-arn";
  EXPECT_CODE(broker_->StartMessageMoveTask(r), kInvalidParameterValue);
  EXPECT_EQ(message_of(), "Value not-an-arn for parameter DestinationArn is invalid.");
  r.destination_arn = dlq_->arn();
  EXPECT_CODE(broker_->StartMessageMoveTask(r), kInvalidParameterValue);
  EXPECT_EQ(message_of(), "Source queue arn and destination queue arn cannot be the same.");
  r.destination_arn = fifo->arn();
  EXPECT_CODE(broker_->StartMessageMoveTask(r), kInvalidParameterValue);
  EXPECT_EQ(message_of(), "The source queue and destination queue must be of the same queue type.");
  // None of them started a task: a valid one still can.
  EXPECT_TRUE(broker_->ListMessageMoveTasks(dlq_->arn(), 10)->empty());
  r.destination_arn = src_->arn();
  ASSERT_OK(broker_->StartMessageMoveTask(r));
}

TEST_F(MoveTaskTest, MessageSentToTheDlqDirectlyHasNoSourceToGoBackTo) {
  // The ten moved messages are older than this one, so they go back first;
  // the task then stops at it and fails, and it stays in the DLQ.
  Send(*dlq_, "sent directly");
  RedriveToSourcesForOneSecond();
  auto tasks = broker_->ListMessageMoveTasks(dlq_->arn(), 1);
  ASSERT_OK(tasks);
  ASSERT_EQ(tasks->size(), 1u);
  EXPECT_EQ((*tasks)[0].status, "FAILED");
  EXPECT_EQ((*tasks)[0].failure_reason, "CouldNotDetermineMessageSource");
  EXPECT_EQ((*tasks)[0].approximate_number_of_messages_moved, 10);
  EXPECT_EQ(Counts(*src_)[0], 10);
  auto left = Receive(*dlq_, 10);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].body, "sent directly");
}

TEST_F(MoveTaskTest, SurvivesRestart) {
  StartMessageMoveTaskRequest r;
  r.source_arn = dlq_->arn();
  r.max_number_of_messages_per_second = 5;
  ASSERT_OK(broker_->StartMessageMoveTask(r));
  Reopen();
  dlq_ = *broker_->GetQueue("dlq");
  src_ = *broker_->GetQueue("src");
  clock_->AdvanceSeconds(1);
  ASSERT_OK(broker_->RunMaintenance());
  EXPECT_EQ(Counts(*src_)[0], 5);
}

TEST_F(MoveTaskTest, MovesMessagesWhoseLeaseEndedInTheDlq) {
  // A consumer of the DLQ received two messages and let their leases end:
  // they are available again, so a move task takes them too.
  ASSERT_EQ(Receive(*dlq_, 2, 5).size(), 2u);
  clock_->AdvanceSeconds(5);
  RedriveToSourcesForOneSecond();
  EXPECT_EQ(Counts(*dlq_), (std::array<int64_t, 3>{0, 0, 0}));
  EXPECT_EQ(Counts(*src_)[0], 10);
}

}  // namespace
}  // namespace lqs::testing
