// The queue catalogue: create (idempotency rules), get, list, delete, name
// reuse, attributes, tags, permissions.

#include <filesystem>

#include <gtest/gtest.h>

#include "tests/testutil.h"

namespace lqs::testing {
namespace {

class CatalogTest : public BrokerTest {};

TEST_F(CatalogTest, CreateIsIdempotentOnlyForEqualAttributes) {
  auto q = broker_->CreateQueue(
      "q", {{"ReceiveMessageWaitTimeSeconds", "1"}, {"DelaySeconds", "1"}}, {});
  ASSERT_OK(q);
  EXPECT_OK(broker_->CreateQueue("q", {}, {}));
  EXPECT_OK(broker_->CreateQueue("q", {{"DelaySeconds", "1"}}, {}));
  auto diff = broker_->CreateQueue("q", {{"DelaySeconds", "2"}}, {});
  EXPECT_CODE(diff, kQueueNameExists);
  EXPECT_EQ(diff.status().message(),
            "A queue already exists with the same name and a different value for attribute "
            "DelaySeconds");
  ASSERT_OK((*q)->SetAttributes({{"DelaySeconds", "2"}}));
  EXPECT_OK(broker_->CreateQueue("q", {{"DelaySeconds", "2"}}, {}));
  EXPECT_CODE(broker_->CreateQueue("q", {{"DelaySeconds", "1"}}, {}), kQueueNameExists);
}

TEST_F(CatalogTest, RejectsBadNamesAndAttributes) {
  EXPECT_CODE(broker_->CreateQueue("", {}, {}), kInvalidParameterValue);
  EXPECT_CODE(broker_->CreateQueue("a/b", {}, {}), kInvalidParameterValue);
  EXPECT_CODE(broker_->CreateQueue(std::string(81, 'a'), {}, {}), kInvalidParameterValue);
  EXPECT_CODE(broker_->CreateQueue("x.fifo", {}, {}), kInvalidParameterValue);
  EXPECT_CODE(broker_->CreateQueue("x", {{"VisibilityTimeout", "43201"}}, {}),
              kInvalidAttributeValue);
  EXPECT_CODE(broker_->CreateQueue("x", {{"Nonsense", "1"}}, {}), kInvalidAttributeName);
  EXPECT_CODE(broker_->CreateQueue("x", {{"QueueArn", "1"}}, {}), kInvalidAttributeName);
  // Nothing was created by the failed calls.
  auto list = broker_->ListQueues({});
  ASSERT_OK(list);
  EXPECT_TRUE(list->queue_names.empty());
}

TEST_F(CatalogTest, GetAndDeleteAndNameReuseDelay) {
  MakeQueue("q");
  EXPECT_OK(broker_->GetQueue("q"));
  EXPECT_CODE(broker_->GetQueue("Q"), kQueueDoesNotExist);
  auto q = *broker_->GetQueue("q");
  Send(*q, "x");
  ASSERT_OK(broker_->DeleteQueue("q"));
  EXPECT_CODE(broker_->GetQueue("q"), kQueueDoesNotExist);
  EXPECT_CODE(broker_->DeleteQueue("q"), kQueueDoesNotExist);
  // The old handle now fails cleanly.
  SendMessageRequest r;
  r.body = "y";
  EXPECT_CODE(q->SendMessage(r), kQueueDoesNotExist);
  EXPECT_CODE(broker_->CreateQueue("q", {}, {}), kQueueDeletedRecently);
  clock_->AdvanceSeconds(61);
  auto again = broker_->CreateQueue("q", {}, {});
  ASSERT_OK(again);
  // The new queue is empty.
  EXPECT_EQ(Counts(**again), (std::array<int64_t, 3>{0, 0, 0}));
}

TEST_F(CatalogTest, ListQueuesPaginates) {
  for (const char* n : {"b", "a", "c", "ab", "d"}) MakeQueue(n);
  auto all = broker_->ListQueues({});
  ASSERT_OK(all);
  EXPECT_EQ(all->queue_names, (std::vector<std::string>{"a", "ab", "b", "c", "d"}));
  EXPECT_TRUE(all->next_token.empty());
  ListQueuesRequest r;
  r.max_results = 2;
  auto p1 = broker_->ListQueues(r);
  ASSERT_OK(p1);
  EXPECT_EQ(p1->queue_names, (std::vector<std::string>{"a", "ab"}));
  ASSERT_FALSE(p1->next_token.empty());
  r.next_token = p1->next_token;
  auto p2 = broker_->ListQueues(r);
  EXPECT_EQ(p2->queue_names, (std::vector<std::string>{"b", "c"}));
  r.next_token = p2->next_token;
  auto p3 = broker_->ListQueues(r);
  EXPECT_EQ(p3->queue_names, (std::vector<std::string>{"d"}));
  EXPECT_TRUE(p3->next_token.empty());
  ListQueuesRequest pre;
  pre.queue_name_prefix = "a";
  EXPECT_EQ(broker_->ListQueues(pre)->queue_names, (std::vector<std::string>{"a", "ab"}));
  r.max_results = 0;
  EXPECT_CODE(broker_->ListQueues(r), kInvalidParameterValue);
}

TEST_F(CatalogTest, AttributesRoundTripAndSurviveReopen) {
  auto q = MakeQueue("q", {{"VisibilityTimeout", "45"}});
  auto attrs = q->GetAttributes({"All"});
  ASSERT_OK(attrs);
  EXPECT_EQ((*attrs)["VisibilityTimeout"], "45");
  EXPECT_EQ((*attrs)["DelaySeconds"], "0");
  EXPECT_EQ((*attrs)["MaximumMessageSize"], "1048576");
  EXPECT_EQ((*attrs)["MessageRetentionPeriod"], "345600");
  EXPECT_EQ((*attrs)["ReceiveMessageWaitTimeSeconds"], "0");
  EXPECT_EQ((*attrs)["SqsManagedSseEnabled"], "true");
  EXPECT_EQ((*attrs)["QueueArn"], "arn:aws:sqs:us-east-1:123456789012:q");
  EXPECT_EQ((*attrs)["CreatedTimestamp"], std::to_string(clock_->NowMillis() / 1000));
  EXPECT_EQ(attrs->count("RedrivePolicy"), 0u);
  EXPECT_TRUE(q->GetAttributes({})->empty());
  auto some = q->GetAttributes({"VisibilityTimeout"});
  EXPECT_EQ(some->size(), 1u);
  EXPECT_CODE(q->GetAttributes({"Foobar"}), kInvalidAttributeName);

  clock_->AdvanceSeconds(10);
  ASSERT_OK(q->SetAttributes({{"DelaySeconds", "5"}, {"Policy", "{\"Version\":\"2012-10-17\"}"}}));
  // A bad value anywhere rejects the whole call.
  EXPECT_CODE(q->SetAttributes({{"DelaySeconds", "7"}, {"VisibilityTimeout", "-1"}}),
              kInvalidAttributeValue);
  // So does a Policy over SQS's limits, on SetQueueAttributes and CreateQueue.
  const std::string eight_actions =
      R"({"Statement":[{"Effect":"Allow","Principal":"*","Resource":"*","Action":)"
      R"(["SQS:A","SQS:B","SQS:C","SQS:D","SQS:E","SQS:F","SQS:G","SQS:H"]}]})";
  const AttributeMap over_limit = {{"DelaySeconds", "7"}, {"Policy", eight_actions}};
  EXPECT_CODE(q->SetAttributes(over_limit), kOverLimit);
  EXPECT_CODE(broker_->CreateQueue("q-policy", over_limit, TagMap{}), kOverLimit);
  EXPECT_CODE(broker_->GetQueue("q-policy"), kQueueDoesNotExist);
  Reopen();
  auto q2 = *broker_->GetQueue("q");
  auto after = q2->GetAttributes({"All"});
  EXPECT_EQ((*after)["DelaySeconds"], "5");
  EXPECT_EQ((*after)["VisibilityTimeout"], "45");
  EXPECT_EQ((*after)["Policy"], "{\"Version\":\"2012-10-17\"}");
  EXPECT_EQ((*after)["LastModifiedTimestamp"], std::to_string(clock_->NowMillis() / 1000));
}

TEST_F(CatalogTest, Tags) {
  auto q = broker_->CreateQueue("q", {}, {{"team", "a"}});
  ASSERT_OK(q);
  EXPECT_EQ(*(*q)->ListQueueTags(), (TagMap{{"team", "a"}}));
  ASSERT_OK((*q)->TagQueue({{"team", "b"}, {"Env", ""}, {"env", "x"}}));
  EXPECT_EQ(*(*q)->ListQueueTags(), (TagMap{{"Env", ""}, {"env", "x"}, {"team", "b"}}));
  ASSERT_OK((*q)->UntagQueue({"team", "missing"}));
  EXPECT_EQ(*(*q)->ListQueueTags(), (TagMap{{"Env", ""}, {"env", "x"}}));
  Reopen();
  EXPECT_EQ(*(*broker_->GetQueue("q"))->ListQueueTags(), (TagMap{{"Env", ""}, {"env", "x"}}));
}

TEST_F(CatalogTest, Permissions) {
  auto q = MakeQueue("q");
  ASSERT_OK(q->AddPermission("lbl", {"111111111111"}, {"SendMessage"}));
  auto attrs = q->GetAttributes({"Policy"});
  ASSERT_OK(attrs);
  std::string policy = attrs->at("Policy");
  EXPECT_NE(policy.find("\"Sid\":\"lbl\""), std::string::npos) << policy;
  EXPECT_NE(policy.find("SQS:SendMessage"), std::string::npos) << policy;
  EXPECT_CODE(q->AddPermission("lbl", {"111111111111"}, {"SendMessage"}), kInvalidParameterValue);
  // An action only the queue owner may use is refused and nothing changes.
  EXPECT_CODE(q->AddPermission("other", {"111111111111"}, {"SendMessage", "SetQueueAttributes"}),
              kInvalidParameterValue);
  EXPECT_EQ(q->GetAttributes({"Policy"})->at("Policy"), policy);
  Reopen();
  q = *broker_->GetQueue("q");
  EXPECT_EQ(q->GetAttributes({"Policy"})->at("Policy"), policy);
  ASSERT_OK(q->RemovePermission("lbl"));
  EXPECT_EQ(q->GetAttributes({"Policy"})->count("Policy"), 0u);
  EXPECT_CODE(q->RemovePermission("lbl"), kInvalidParameterValue);
}

// Table files in the database directory.
int TableFiles(const std::string& path) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(path)) {
    n += e.path().extension() == ".sst" ? 1 : 0;
  }
  return n;
}

TEST_F(CatalogTest, CloseFlushesUnlessToldNotTo) {
  // kNone: what a clean Close() flushed is all that is kept.
  for (const bool flush : {true, false}) {
    SCOPED_TRACE(flush ? "flush_on_close" : "no flush");
    ASSERT_OK(broker_->Close());
    broker_.reset();
    std::filesystem::remove_all(MakeOptions().path);
    Options o = MakeOptions();
    o.durability = Durability::kNone;
    o.flush_on_close = flush;
    auto opened = Broker::Open(o);
    ASSERT_OK(opened.status());
    auto q = (*opened)->CreateQueue("kept", {}, {});
    ASSERT_OK(q.status());
    SendMessageRequest send;
    send.body = "body";
    ASSERT_OK((*q)->SendMessage(send).status());
    const int before = TableFiles(o.path);
    ASSERT_OK((*opened)->Close());
    opened->reset();
    EXPECT_EQ(TableFiles(o.path) > before, flush);
    Open();  // the fixture's options (kProcess): the queue is there only if flushed
    EXPECT_EQ(broker_->GetQueue("kept").ok(), flush);
  }
}

TEST_F(CatalogTest, PurgeRemovesEverythingOncePerMinute) {
  auto q = MakeQueue("q");
  for (int i = 0; i < 5; ++i) Send(*q, "m");
  SendMessageRequest delayed;
  delayed.body = "later";
  delayed.delay_seconds = 60;
  ASSERT_OK(q->SendMessage(delayed));
  auto got = Receive(*q, 2);
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{3, 2, 1}));
  ASSERT_OK(q->PurgeQueue());
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 0, 0}));
  EXPECT_CODE(q->PurgeQueue(), kPurgeQueueInProgress);
  // Messages sent after the purge survive it.
  Send(*q, "after");
  EXPECT_EQ(Receive(*q).size(), 1u);
  // A handle from before the purge deletes nothing and does not fail.
  EXPECT_OK(q->DeleteMessage(got[0].receipt_handle));
  clock_->AdvanceSeconds(120);
  EXPECT_TRUE(Receive(*q).size() == 1u);  // the lease of "after" expired
  clock_->AdvanceSeconds(61);
  EXPECT_OK(q->PurgeQueue());
  Reopen();
  EXPECT_EQ(Counts(**broker_->GetQueue("q")), (std::array<int64_t, 3>{0, 0, 0}));
}

}  // namespace
}  // namespace lqs::testing
