// lqsd --init FILE (server/init_file.h): parsing, ordering, the checks made
// before anything is created, and idempotent application.

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "server/init_file.h"
#include "tests/testutil.h"

namespace {

using lqs::testing::TempDir;

constexpr const char* kRegion = "us-east-1";
constexpr const char* kAccount = "123456789012";

lqs::StatusOr<lqsd::InitPlan> Parse(const std::string& text) {
  return lqsd::ParseInitFile("init.json", text, kRegion, kAccount);
}

std::unique_ptr<lqs::Broker> OpenBroker(const std::string& path) {
  lqs::Options options = lqs::testing::TestProfileOptions();
  options.path = path;
  options.region = kRegion;
  options.account_id = kAccount;
  options.background_maintenance = false;
  return std::move(lqs::Broker::Open(options)).value();
}

std::vector<std::string> Names(const lqsd::InitPlan& plan) {
  std::vector<std::string> names;
  for (const auto& q : plan.queues()) names.push_back(q.name);
  return names;
}

// The error of `text`, which must be refused.
std::string ErrorOf(const std::string& text) {
  auto plan = Parse(text);
  EXPECT_FALSE(plan.ok()) << text;
  return plan.ok() ? std::string() : plan.status().message();
}

TEST(InitFile, DeadLetterQueuesComeBeforeTheirSources) {
  auto plan = Parse(R"({"queues": [
      {"name": "a", "attributes": {"RedrivePolicy": {"deadLetterTargetQueue": "b",
                                                     "maxReceiveCount": 3}}},
      {"name": "b", "attributes": {"RedrivePolicy":
          "{\"deadLetterTargetArn\": \"arn:aws:sqs:us-east-1:123456789012:c\", \"maxReceiveCount\": \"4\"}"}},
      {"name": "c"},
      {"name": "d.fifo", "attributes": {"VisibilityTimeout": 60, "ContentBasedDeduplication": true},
       "tags": {"team": "core"}}]})");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(Names(*plan), (std::vector<std::string>{"c", "b", "a", "d.fifo"}));
  const auto& a = plan->queues()[2];
  EXPECT_EQ(a.dead_letter_queue, "b");
  EXPECT_EQ(
      a.attributes.at("RedrivePolicy"),
      R"({"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:b","maxReceiveCount":3})");
  EXPECT_EQ(plan->queues()[1].dead_letter_queue, "c");
  const auto& d = plan->queues()[3];
  EXPECT_TRUE(d.fifo);
  EXPECT_EQ(d.attributes.at("FifoQueue"), "true");
  EXPECT_EQ(d.attributes.at("VisibilityTimeout"), "60");
  EXPECT_EQ(d.attributes.at("ContentBasedDeduplication"), "true");
  EXPECT_EQ(d.tags.at("team"), "core");
}

TEST(InitFile, BadFilesNameTheFileTheQueueAndTheParameter) {
  EXPECT_EQ(
      ErrorOf("{\"queues\": [\n  {\"name\": \"a\",}\n]}").rfind("init.json: not valid JSON", 0),
      0u);
  EXPECT_NE(ErrorOf("{\"queues\": [\n  {\"name\": \"a\",}\n]}").find("line 2"), std::string::npos);
  EXPECT_EQ(ErrorOf(R"({"queue": []})"), "init.json: unknown key \"queue\" (queues)");
  EXPECT_EQ(ErrorOf(R"({"queues": [{"name": "a", "attrs": {}}]})"),
            "init.json: queue \"a\": unknown key \"attrs\" (name, attributes, tags)");
  EXPECT_EQ(ErrorOf(R"({"queues": [{"attributes": {}}]})"),
            "init.json: queues[0]: needs \"name\", a string");
  EXPECT_EQ(ErrorOf(R"({"queues": [{"name": "a b"}]})")
                .rfind("init.json: queue \"a b\": name: InvalidParameterValue: ", 0),
            0u);
  EXPECT_EQ(ErrorOf(R"({"queues": [{"name": "a", "attributes": {"VisibilityTimeout": 50000}}]})"),
            "init.json: queue \"a\": attributes: InvalidAttributeValue: Invalid value for the "
            "parameter VisibilityTimeout.");
  EXPECT_EQ(ErrorOf(R"({"queues": [{"name": "a", "attributes": {"Colour": "red"}}]})")
                .rfind("init.json: queue \"a\": attributes: InvalidAttributeName: ", 0),
            0u);
  EXPECT_EQ(ErrorOf(R"({"queues": [{"name": "a", "attributes": {"FifoQueue": true}}]})")
                .rfind("init.json: queue \"a\": name: InvalidParameterValue: ", 0),
            0u);
  EXPECT_EQ(ErrorOf(R"({"queues": [{"name": "a", "attributes": {"RedrivePolicy":
                {"deadLetterTargetQueue": "b", "maxReceiveCount": 0}}}, {"name": "b"}]})")
                .rfind("init.json: queue \"a\": attributes: InvalidParameterValue: ", 0),
            0u);
  EXPECT_EQ(ErrorOf(R"({"queues": [{"name": "a", "attributes": {"RedrivePolicy":
                {"deadLetterTargetQueue": "b", "maxReceiveCount": 2, "x": 1}}}]})")
                .rfind("init.json: queue \"a\": attributes.RedrivePolicy: unknown key \"x\"", 0),
            0u);
  EXPECT_NE(ErrorOf(R"({"queues": [{"name": "a", "attributes": {"RedrivePolicy":
                {"deadLetterTargetArn": "arn:aws:sqs:eu-west-1:123456789012:b",
                 "maxReceiveCount": 2}}}]})")
                .find("is not a queue of lqsd's default region"),
            std::string::npos);
  EXPECT_EQ(ErrorOf(R"({"queues": [{"name": "a"}, {"name": "a"}]})"),
            "init.json: queue \"a\": appears twice in the file");
  EXPECT_EQ(ErrorOf(R"({"queues": [{"name": "a", "tags": {"k": 1}}]})"),
            "init.json: queue \"a\": tags.k: must be a string");
}

TEST(InitFile, RedriveCyclesAreRefused) {
  EXPECT_EQ(ErrorOf(R"({"queues": [
      {"name": "a", "attributes": {"RedrivePolicy": {"deadLetterTargetQueue": "b", "maxReceiveCount": 1}}},
      {"name": "b", "attributes": {"RedrivePolicy": {"deadLetterTargetQueue": "c", "maxReceiveCount": 1}}},
      {"name": "c", "attributes": {"RedrivePolicy": {"deadLetterTargetQueue": "b", "maxReceiveCount": 1}}}]})"),
            "init.json: queue \"a\": attributes.RedrivePolicy: the dead-letter queues form a cycle "
            "(b -> c -> b)");
  EXPECT_NE(ErrorOf(R"({"queues": [{"name": "a", "attributes": {"RedrivePolicy":
                {"deadLetterTargetQueue": "a", "maxReceiveCount": 1}}}]})")
                .find("cycle (a -> a)"),
            std::string::npos);
}

TEST(InitFile, CheckNeedsTheDeadLetterQueueInTheFileOrTheDatabase) {
  TempDir dir;
  auto broker = OpenBroker(dir.path() + "/db");
  auto plan = Parse(R"({"queues": [{"name": "jobs", "attributes": {"RedrivePolicy":
      {"deadLetterTargetQueue": "jobs-dlq", "maxReceiveCount": 5}}}]})");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const lqs::Status missing = plan->Check(broker.get());
  EXPECT_EQ(missing.message(),
            "init.json: queue \"jobs\": attributes.RedrivePolicy: dead-letter queue \"jobs-dlq\" "
            "is neither in the file nor in the database (QueueDoesNotExist)");
  ASSERT_TRUE(broker->CreateQueue("jobs-dlq", {}, {}).ok());
  EXPECT_TRUE(plan->Check(broker.get()).ok());

  // A FIFO dead-letter queue for a standard source.
  auto mixed = Parse(R"({"queues": [{"name": "d.fifo"}, {"name": "s", "attributes":
      {"RedrivePolicy": {"deadLetterTargetQueue": "d.fifo", "maxReceiveCount": 5}}}]})");
  ASSERT_TRUE(mixed.ok());
  EXPECT_NE(mixed->Check(broker.get()).message().find("same type of queue"), std::string::npos);

  // A dead-letter queue whose RedriveAllowPolicy refuses the source.
  auto denied = Parse(R"({"queues": [{"name": "d", "attributes":
      {"RedriveAllowPolicy": {"redrivePermission": "denyAll"}}}, {"name": "s", "attributes":
      {"RedrivePolicy": {"deadLetterTargetQueue": "d", "maxReceiveCount": 5}}}]})");
  ASSERT_TRUE(denied.ok()) << denied.status().ToString();
  EXPECT_NE(denied->Check(broker.get()).message().find("does not allow this queue"),
            std::string::npos);
  auto queues = broker->ListQueues({});
  ASSERT_TRUE(queues.ok());
  EXPECT_EQ(queues->queue_names, std::vector<std::string>{"jobs-dlq"});
}

TEST(InitFile, ApplyIsIdempotentAndTheFileWins) {
  TempDir dir;
  auto broker = OpenBroker(dir.path() + "/db");
  auto plan = Parse(R"({"queues": [
      {"name": "jobs", "attributes": {"VisibilityTimeout": "60", "RedrivePolicy":
          {"deadLetterTargetQueue": "jobs-dlq", "maxReceiveCount": 5}}, "tags": {"team": "core"}},
      {"name": "jobs-dlq"}]})");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  std::vector<std::string> log;
  auto record = [&log](const std::string& line) { log.push_back(line); };
  ASSERT_TRUE(plan->Check(broker.get()).ok());
  ASSERT_TRUE(plan->Apply(broker.get(), record).ok());
  EXPECT_EQ(log, (std::vector<std::string>{"--init: queue jobs-dlq created",
                                           "--init: queue jobs created"}));
  auto jobs = broker->GetQueue("jobs");
  ASSERT_TRUE(jobs.ok());
  auto attrs = (*jobs)->GetAttributes({"All"});
  ASSERT_TRUE(attrs.ok());
  EXPECT_EQ(attrs->at("VisibilityTimeout"), "60");
  EXPECT_EQ(
      attrs->at("RedrivePolicy"),
      R"({"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:jobs-dlq","maxReceiveCount":5})");

  // Again: nothing changes.
  log.clear();
  ASSERT_TRUE(plan->Apply(broker.get(), record).ok());
  EXPECT_TRUE(log.empty());

  // Changed by hand: the file's values come back; other attributes and tags stay.
  ASSERT_TRUE((*jobs)->SetAttributes({{"VisibilityTimeout", "5"}, {"DelaySeconds", "3"}}).ok());
  ASSERT_TRUE((*jobs)->TagQueue({{"team", "other"}, {"owner", "me"}}).ok());
  ASSERT_TRUE(plan->Apply(broker.get(), record).ok());
  EXPECT_EQ(log, (std::vector<std::string>{
                     "--init: queue jobs existed with other attributes: set to the file's",
                     "--init: queue jobs: tags set from the file"}));
  attrs = (*jobs)->GetAttributes({"All"});
  ASSERT_TRUE(attrs.ok());
  EXPECT_EQ(attrs->at("VisibilityTimeout"), "60");
  EXPECT_EQ(attrs->at("DelaySeconds"), "3");
  auto tags = (*jobs)->ListQueueTags();
  ASSERT_TRUE(tags.ok());
  EXPECT_EQ(*tags, (lqs::TagMap{{"owner", "me"}, {"team", "core"}}));
}

}  // namespace
