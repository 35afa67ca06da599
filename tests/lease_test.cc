// The lease manager: visibility timeouts, receipt-handle rules, change
// visibility, and the in-flight limit.

#include <gtest/gtest.h>

#include "tests/testutil.h"

namespace lqs::testing {
namespace {

class LeaseTest : public BrokerTest {};

TEST_F(LeaseTest, LeaseExpiryRedeliversWithNewHandleAndCount) {
  auto q = MakeQueue("q", {{"VisibilityTimeout", "30"}});
  const std::string id = Send(*q, "x");
  const int64_t sent = clock_->NowMillis();
  auto first = Receive(*q);
  ASSERT_EQ(first.size(), 1u);
  clock_->AdvanceSeconds(29);
  EXPECT_TRUE(Receive(*q).empty());
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 1, 0}));
  clock_->AdvanceSeconds(1);
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{1, 0, 0}));
  auto second = Receive(*q);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].message_id, id);
  EXPECT_NE(second[0].receipt_handle, first[0].receipt_handle);
  EXPECT_EQ(second[0].attributes["ApproximateReceiveCount"], "2");
  EXPECT_EQ(second[0].attributes["ApproximateFirstReceiveTimestamp"], std::to_string(sent));
  // Standard queues: an older handle still deletes the message.
  ASSERT_OK(q->DeleteMessage(first[0].receipt_handle));
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 0, 0}));
}

TEST_F(LeaseTest, ExpiredLatestHandleStillDeletes) {
  auto q = MakeQueue("q");
  Send(*q, "x");
  auto got = Receive(*q);
  clock_->AdvanceSeconds(31);
  ASSERT_OK(q->DeleteMessage(got[0].receipt_handle));
  EXPECT_TRUE(Receive(*q).empty());
}

TEST_F(LeaseTest, PerReceiveVisibilityTimeoutAppliesOnce) {
  auto q = MakeQueue("q", {{"VisibilityTimeout", "100"}});
  Send(*q, "x");
  ASSERT_EQ(Receive(*q, 1, 5).size(), 1u);
  clock_->AdvanceSeconds(5);
  ASSERT_EQ(Receive(*q).size(), 1u);  // queue default (100 s) now
  clock_->AdvanceSeconds(99);
  EXPECT_TRUE(Receive(*q).empty());
  clock_->AdvanceSeconds(1);
  EXPECT_EQ(Receive(*q).size(), 1u);
}

TEST_F(LeaseTest, VisibilityZeroOnReceiveLeavesMessageVisible) {
  auto q = MakeQueue("q");
  Send(*q, "x");
  ASSERT_EQ(Receive(*q, 1, 0).size(), 1u);
  auto again = Receive(*q);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].attributes["ApproximateReceiveCount"], "2");
}

TEST_F(LeaseTest, ChangeVisibility) {
  auto q = MakeQueue("q", {{"VisibilityTimeout", "60"}});
  Send(*q, "x");
  auto got = Receive(*q);
  clock_->AdvanceSeconds(15);
  // New lease counts from now: visible at t = 25 s.
  ASSERT_OK(q->ChangeMessageVisibility(got[0].receipt_handle, 10));
  clock_->AdvanceSeconds(9);
  EXPECT_TRUE(Receive(*q).empty());
  clock_->AdvanceSeconds(1);
  auto again = Receive(*q);
  ASSERT_EQ(again.size(), 1u);
  // 0 releases at once.
  ASSERT_OK(q->ChangeMessageVisibility(again[0].receipt_handle, 0));
  auto third = Receive(*q);
  ASSERT_EQ(third.size(), 1u);
  // Old handles act on the message too.
  ASSERT_OK(q->ChangeMessageVisibility(got[0].receipt_handle, 0));
  EXPECT_EQ(Receive(*q).size(), 1u);
}

TEST_F(LeaseTest, ChangeVisibilityRules) {
  auto q = MakeQueue("q");
  Send(*q, "x");
  auto got = Receive(*q);
  const std::string h = got[0].receipt_handle;
  EXPECT_CODE(q->ChangeMessageVisibility(h, 43201), kInvalidParameterValue);
  EXPECT_CODE(q->ChangeMessageVisibility(h, -1), kInvalidParameterValue);
  // 12 h budget counted from the receive, in whole seconds: 43,200 right
  // after the receive (a client's round trip later) is allowed.
  EXPECT_OK(q->ChangeMessageVisibility(h, 43200));
  clock_->AdvanceMillis(999);
  EXPECT_OK(q->ChangeMessageVisibility(h, 43200));
  clock_->AdvanceMillis(1);
  EXPECT_CODE(q->ChangeMessageVisibility(h, 43200), kInvalidParameterValue);
  EXPECT_OK(q->ChangeMessageVisibility(h, 43199));
  clock_->AdvanceMillis(4999);  // 5.999 s
  EXPECT_OK(q->ChangeMessageVisibility(h, 43195));
  EXPECT_CODE(q->ChangeMessageVisibility(h, 43196), kInvalidParameterValue);
  ASSERT_OK(q->DeleteMessage(h));
  auto gone = q->ChangeMessageVisibility(h, 10);
  EXPECT_CODE(gone, kInvalidParameterValue);
  EXPECT_NE(gone.message().find(
                "Message does not exist or is not available for visibility timeout change."),
            std::string::npos);
}

// SQS answers a visibility change for a message whose lease ran out, and
// which nobody received since, with success (not MessageNotInflight): the
// change leases the message again from now.
TEST_F(LeaseTest, ChangeVisibilityAfterTheLeaseEndedStartsANewLease) {
  auto q = MakeQueue("q", {{"VisibilityTimeout", "1"}});
  Send(*q, "x");
  auto got = Receive(*q);
  ASSERT_EQ(got.size(), 1u);
  clock_->AdvanceSeconds(2);  // the lease ended; the message is visible
  // The new lease has its own 12-hour budget, counted from the change.
  ASSERT_OK(q->ChangeMessageVisibility(got[0].receipt_handle, 43200));
  ASSERT_OK(q->ChangeMessageVisibility(got[0].receipt_handle, 30));
  EXPECT_TRUE(Receive(*q).empty());
  EXPECT_EQ(q->GetAttributes({"ApproximateNumberOfMessagesNotVisible"})
                ->at("ApproximateNumberOfMessagesNotVisible"),
            "1");
  clock_->AdvanceSeconds(29);
  EXPECT_TRUE(Receive(*q).empty());
  clock_->AdvanceSeconds(1);
  auto again = Receive(*q);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].attributes["ApproximateReceiveCount"], "2");
}

TEST_F(LeaseTest, MalformedAndForeignHandles) {
  auto q = MakeQueue("q");
  auto other = MakeQueue("other");
  Send(*other, "x");
  auto got = Receive(*other);
  for (const std::string& bad :
       std::vector<std::string>{"", "garbage", "AAAA", std::string(2000, 'A')}) {
    auto st = q->DeleteMessage(bad);
    EXPECT_CODE(st, kReceiptHandleIsInvalid);
    EXPECT_CODE(q->ChangeMessageVisibility(bad, 1), kReceiptHandleIsInvalid);
  }
  EXPECT_EQ(q->DeleteMessage("garbage").message(),
            "The input receipt handle \"garbage\" is not a valid receipt handle.");
  // A valid handle of another queue cannot touch this queue's messages.
  EXPECT_CODE(q->DeleteMessage(got[0].receipt_handle), kReceiptHandleIsInvalid);
  // A tampered handle is rejected (MAC).
  std::string tampered = got[0].receipt_handle;
  tampered[10] = tampered[10] == 'A' ? 'B' : 'A';
  EXPECT_CODE(other->DeleteMessage(tampered), kReceiptHandleIsInvalid);
  EXPECT_EQ(Counts(*other), (std::array<int64_t, 3>{0, 1, 0}));
}

TEST_F(LeaseTest, BatchesReportPerEntry) {
  auto q = MakeQueue("q");
  Send(*q, "a");
  Send(*q, "b");
  auto got = Receive(*q, 10);
  ASSERT_EQ(got.size(), 2u);
  auto del = q->DeleteMessageBatch({{"one", got[0].receipt_handle}, {"bad", "garbage"}});
  ASSERT_OK(del);
  EXPECT_EQ(del->successful, (std::vector<std::string>{"one"}));
  ASSERT_EQ(del->failed.size(), 1u);
  EXPECT_EQ(del->failed[0].id, "bad");
  EXPECT_EQ(del->failed[0].code, "ReceiptHandleIsInvalid");
  EXPECT_TRUE(del->failed[0].sender_fault);
  auto cv = q->ChangeMessageVisibilityBatch(
      {{"x", got[1].receipt_handle, 0}, {"y", got[0].receipt_handle, 5}});
  ASSERT_OK(cv);
  EXPECT_EQ(cv->successful, (std::vector<std::string>{"x"}));
  ASSERT_EQ(cv->failed.size(), 1u);
  EXPECT_EQ(cv->failed[0].code, "InvalidParameterValue");
  EXPECT_CODE(q->DeleteMessageBatch({}), kEmptyBatchRequest);
  std::vector<DeleteMessageBatchEntry> eleven(11, {"i", "h"});
  for (int i = 0; i < 11; ++i) eleven[i].id = "i" + std::to_string(i);
  EXPECT_CODE(q->DeleteMessageBatch(eleven), kTooManyEntriesInBatchRequest);
  EXPECT_CODE(q->DeleteMessageBatch({{"a", "h"}, {"a", "h"}}), kBatchEntryIdsNotDistinct);
  EXPECT_CODE(q->DeleteMessageBatch({{"a b", "h"}}), kInvalidBatchEntryId);
}

// The single calls on a receipt handle return the typed Status of what
// failed: after Close, kClosed (not an I/O error or an internal one), with
// a handle that was valid before, on standard and FIFO queues alike.
TEST_F(LeaseTest, HandleCallsOnAClosedBrokerReturnClosed) {
  auto standard = MakeQueue("q");
  auto fifo = MakeQueue("q.fifo", {{"FifoQueue", "true"}, {"ContentBasedDeduplication", "true"}});
  std::vector<std::pair<std::shared_ptr<Queue>, std::string>> held;
  for (const auto& q : {standard, fifo}) {
    SendMessageRequest r;
    r.body = "x";
    if (q->is_fifo()) r.message_group_id = "g";
    ASSERT_OK(q->SendMessage(r));
    auto got = Receive(*q);
    ASSERT_EQ(got.size(), 1u);
    held.emplace_back(q, got[0].receipt_handle);
  }
  ASSERT_OK(broker_->Close());
  for (const auto& [q, handle] : held) {
    SCOPED_TRACE(q->name());
    EXPECT_CODE(q->DeleteMessage(handle), kClosed);
    EXPECT_CODE(q->DeleteMessageBatch({{"a", handle}}), kClosed);
    EXPECT_CODE(q->ChangeMessageVisibility(handle, 10), kClosed);
    EXPECT_CODE(q->ChangeMessageVisibilityBatch({{"a", handle, 10}}), kClosed);
    EXPECT_CODE(q->DeleteMessageAndRecord(handle, "key", 60), kClosed);
  }
  // None of them changed anything: both messages are still in flight.
  held.clear();
  Reopen();
  for (const std::string name : {"q", "q.fifo"}) {
    auto q = broker_->GetQueue(name);
    ASSERT_OK(q);
    EXPECT_EQ(Counts(**q), (std::array<int64_t, 3>{0, 1, 0})) << name;
  }
}

TEST_F(LeaseTest, InFlightLimit) {
  durability_ = Durability::kNone;
  max_inflight_per_queue_ = 3;
  Reopen();
  auto q = MakeQueue("q");
  for (int i = 0; i < 5; ++i) Send(*q, "m");
  EXPECT_EQ(Receive(*q, 10).size(), 3u);
  ReceiveMessageRequest r;
  r.wait_time_seconds = 0;
  EXPECT_CODE(q->ReceiveMessage(r), kOverLimit);
  clock_->AdvanceSeconds(31);
  EXPECT_EQ(Receive(*q, 10).size(), 3u);  // the expired leases, again
}

TEST_F(LeaseTest, InFlightLimitFifoAnswersNoMessages) {
  durability_ = Durability::kNone;
  max_inflight_per_queue_ = 2;
  Reopen();
  auto q = MakeQueue("q.fifo", {{"FifoQueue", "true"}, {"ContentBasedDeduplication", "true"}});
  for (int i = 0; i < 4; ++i) {
    SendMessageRequest s;
    s.body = "m" + std::to_string(i);
    s.message_group_id = "g" + std::to_string(i);
    ASSERT_OK(q->SendMessage(s));
  }
  EXPECT_EQ(Receive(*q, 10).size(), 2u);
  // SQS: a FIFO queue at the limit returns no error, only no messages.
  ReceiveMessageRequest r;
  r.wait_time_seconds = 0;
  auto got = q->ReceiveMessage(r);
  ASSERT_OK(got);
  EXPECT_TRUE(got->messages.empty());
  clock_->AdvanceSeconds(31);
  EXPECT_EQ(Receive(*q, 10).size(), 2u);
}

TEST_F(LeaseTest, ReceiveValidation) {
  auto q = MakeQueue("q");
  ReceiveMessageRequest r;
  r.max_number_of_messages = 11;
  auto st = q->ReceiveMessage(r);
  EXPECT_CODE(st, kInvalidParameterValue);
  EXPECT_EQ(st.status().message(),
            "Value 11 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and "
            "10, if provided.");
  r.max_number_of_messages = 1;
  r.wait_time_seconds = 21;
  EXPECT_CODE(q->ReceiveMessage(r), kInvalidParameterValue);
  r.wait_time_seconds = 0;
  r.visibility_timeout = 43201;
  EXPECT_CODE(q->ReceiveMessage(r), kInvalidParameterValue);
}

TEST_F(LeaseTest, AttributeFilters) {
  auto q = MakeQueue("q");
  ASSERT_OK(SendWithAttributes(*q, "x",
                               {{"Help.Me", {"String", "Me", ""}},
                                {"Hello", {"String", "There", ""}},
                                {"General", {"String", "Kenobi", ""}}}));
  ReceiveMessageRequest r;
  r.visibility_timeout = 0;
  r.message_attribute_names = {"Hello", "General"};
  auto got = q->ReceiveMessage(r);
  ASSERT_OK(got);
  ASSERT_EQ(got->messages.size(), 1u);
  EXPECT_EQ(got->messages[0].message_attributes.size(), 2u);
  EXPECT_EQ(got->messages[0].md5_of_message_attributes.value_or(""),
            "fca026605781cb4126a1e9044df24232");
  EXPECT_TRUE(got->messages[0].attributes.empty());
  r.message_attribute_names = {"Hel.*"};
  r.message_system_attribute_names = {"SentTimestamp"};
  got = q->ReceiveMessage(r);
  EXPECT_EQ(got->messages[0].md5_of_message_attributes.value_or(""),
            "83fee93c1bcd8b9a5a923ffacdc636c7");
  EXPECT_EQ(got->messages[0].attributes.size(), 1u);
  r.message_attribute_names = {"All"};
  got = q->ReceiveMessage(r);
  EXPECT_EQ(got->messages[0].md5_of_message_attributes.value_or(""),
            "4c360f3fdafd970e05fae2f149d997f5");
  r.message_attribute_names = {};
  got = q->ReceiveMessage(r);
  EXPECT_FALSE(got->messages[0].md5_of_message_attributes.has_value());
}

}  // namespace
}  // namespace lqs::testing
