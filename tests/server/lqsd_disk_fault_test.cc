// lqsd on a full disk, over real HTTP on loopback: an Endpoint (the server
// lqsd runs, with its deferred commits) on a Broker whose file system fills
// up and frees again (tests/fault_fs.h). Proves that lqsd answers SQS's
// retryable server error (ServiceUnavailable, HTTP 503) on both protocols
// whether the failure surfaces at the engine call or at the commit of a
// round of requests, that the client is told the disk is full, and that
// lqsd serves writes again once there is room, without a restart.
// CTest names: disk_full.* (server/CMakeLists.txt).

#include <memory>
#include <set>
#include <string>

#include <boost/beast/http.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "server/endpoint.h"
#include "tests/faulty_broker.h"
#include "tests/server/loopback_http.h"
#include "tests/testutil.h"

namespace lqs::testing {
namespace {

namespace http = boost::beast::http;
using WriteFault = FaultFileSystem::WriteFault;

using Reply = HttpReply;

class LqsdOnAFaultyDisk : public ::testing::Test {
 protected:
  void SetUp() override {
    Options o = TestProfileOptions();
    o.path = dir_.path() + "/db";
    o.deferred_commits = true;  // as lqsd opens it
    o.background_maintenance = false;
    auto broker = OpenFaultyBroker(o);
    ASSERT_OK(broker);
    db_ = std::move(broker).value();
    lqsd::EndpointConfig config;
    config.port = 0;
    config.threads = 1;
    config.busy_poll_us = 0;
    config.single_region = true;
    std::string error;
    endpoint_ = lqsd::Endpoint::Start(db_.broker.get(), config, &error);
    ASSERT_NE(endpoint_, nullptr) << error;
    const std::string& hp = endpoint_->host_port();
    port_ = hp.substr(hp.rfind(':') + 1);
  }
  void TearDown() override {
    db_.fs->FailWrites(WriteFault::kNone);
    if (endpoint_) {
      EXPECT_OK(endpoint_->Shutdown());
    }
  }

  // One request on a connection of its own.
  Reply Post(const std::string& content_type, const std::string& target_header,
             const std::string& body) {
    std::vector<std::pair<std::string, std::string>> headers = {{"Content-Type", content_type}};
    if (!target_header.empty()) headers.emplace_back("X-Amz-Target", target_header);
    return LoopbackRequest(port_, http::verb::post, "/", headers, body);
  }
  Reply Json(const std::string& action, const nlohmann::json& input) {
    return Post("application/x-amz-json-1.0", "AmazonSQS." + action, input.dump());
  }
  Reply Query(const std::string& form) {
    return Post("application/x-www-form-urlencoded", "", form);
  }
  std::string QueueUrl() { return "http://127.0.0.1:" + port_ + "/123456789012/jobs"; }
  Reply SendJson(const std::string& body) {
    return Json("SendMessage", {{"QueueUrl", QueueUrl()}, {"MessageBody", body}});
  }

  TempDir dir_;
  FaultyBroker db_;
  std::unique_ptr<lqsd::Endpoint> endpoint_;
  std::string port_;
};

bool IsServiceUnavailable(const Reply& r) {
  if (r.status != 503) return false;
  auto j = nlohmann::json::parse(r.body, nullptr, false);
  return !j.is_discarded() && j.value("__type", "").find("ServiceUnavailable") != std::string::npos;
}

TEST_F(LqsdOnAFaultyDisk, AnswersServiceUnavailableAndRecoversWithoutRestart) {
  ASSERT_EQ(Json("CreateQueue", {{"QueueName", "jobs"}}).status, 200);
  ASSERT_EQ(SendJson("before").status, 200);

  db_.fs->FailWrites(WriteFault::kNoSpace);
  // The first write meets the full disk at the commit of its round: the
  // prepared 200 is replaced by SQS's retryable error.
  const Reply at_commit = SendJson("during-1");
  EXPECT_TRUE(IsServiceUnavailable(at_commit)) << at_commit.status << " " << at_commit.body;
  EXPECT_NE(at_commit.body.find("durable"), std::string::npos) << at_commit.body;
  // Later writes are refused by the engine before they are applied, and say
  // that the disk is full.
  const Reply refused = SendJson("during-2");
  EXPECT_TRUE(IsServiceUnavailable(refused)) << refused.status << " " << refused.body;
  EXPECT_NE(refused.body.find("disk is full"), std::string::npos) << refused.body;
  // The query protocol gets the same error, as a server fault.
  const Reply query = Query("Action=SendMessage&QueueUrl=" + QueueUrl() + "&MessageBody=q");
  EXPECT_EQ(query.status, 503) << query.body;
  EXPECT_NE(query.body.find("<Code>ServiceUnavailable</Code>"), std::string::npos) << query.body;
  EXPECT_NE(query.body.find("<Type>Receiver</Type>"), std::string::npos) << query.body;
  // Reads go on.
  EXPECT_EQ(
      Json("GetQueueAttributes", {{"QueueUrl", QueueUrl()}, {"AttributeNames", {"All"}}}).status,
      200);

  // Room again: the same lqsd takes writes.
  db_.fs->FailWrites(WriteFault::kNone);
  const Reply after = SendJson("after");
  EXPECT_EQ(after.status, 200) << after.body;
  // Everything acknowledged is there; "during-2" and "q" were never applied.
  const Reply got =
      Json("ReceiveMessage",
           {{"QueueUrl", QueueUrl()}, {"MaxNumberOfMessages", 10}, {"VisibilityTimeout", 600}});
  ASSERT_EQ(got.status, 200) << got.body;
  // "during-1" may be there: its commit failed after it was applied.
  const nlohmann::json received = nlohmann::json::parse(got.body);
  std::set<std::string> bodies;
  for (const auto& m : received["Messages"]) {
    bodies.insert(m["Body"].get<std::string>());
  }
  EXPECT_TRUE(bodies.count("before"));
  EXPECT_TRUE(bodies.count("after"));
  EXPECT_FALSE(bodies.count("during-2"));
  EXPECT_FALSE(bodies.count("q"));
}

}  // namespace
}  // namespace lqs::testing
