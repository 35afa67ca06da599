// Regions: which database serves a region (server/regions.h), and how the
// router picks a request's region (server/router.h): the queue URL's, else
// the credential scope's, else the default one. Real databases on disk.

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "server/actions.h"
#include "server/regions.h"
#include "server/router.h"
#include "server/sigv4.h"
#include "server/text_util.h"
#include "server/url_style.h"
#include "tests/server/json_request.h"
#include "tests/testutil.h"
#include "wire/region_name.h"

#include "lqs/broker.h"

namespace lqsd {
namespace {

namespace fs = std::filesystem;

using lqs::testing::TempDir;

std::unique_ptr<lqs::Broker> OpenBroker(const std::string& path, bool deferred_commits = false) {
  lqs::Options options = lqs::testing::TestProfileOptions();
  options.path = path;
  options.region = "us-east-1";
  options.background_maintenance = false;
  options.deferred_commits = deferred_commits;
  return std::move(lqs::Broker::Open(options)).value();
}

using lqs::testing::WalBytes;

void SendOne(lqs::Broker* broker) {
  auto queue = broker->GetQueue("q");
  if (!queue.ok()) queue = broker->CreateQueue("q", {}, {});
  ASSERT_TRUE(queue.ok()) << queue.status().ToString();
  lqs::SendMessageRequest r;
  r.body = "m";
  ASSERT_TRUE((*queue)->SendMessage(r).ok());
}

Regions::Config RootedAt(const std::string& root, size_t max_regions = 32) {
  Regions::Config config;
  config.root = root;
  config.max_regions = max_regions;
  return config;
}

TEST(Regions, NamesAreCheckedBeforeTheyBecomeDirectories) {
  for (const char* ok : {"us-east-1", "eu-north-1", "us-gov-west-1", "local", "elasticmq", "a_b"}) {
    EXPECT_TRUE(lqs::wire::IsRegionName(ok)) << ok;
  }
  for (const char* bad : {"", "US-EAST-1", "..", "a/b", "a.b", "eu west", "\xc3\xa9"}) {
    EXPECT_FALSE(lqs::wire::IsRegionName(bad)) << bad;
  }
  EXPECT_TRUE(lqs::wire::IsRegionName(std::string(50, 'a')));
  EXPECT_FALSE(lqs::wire::IsRegionName(std::string(51, 'a')));
}

TEST(Regions, EachRegionHasItsOwnDatabase) {
  TempDir dir;
  auto broker = OpenBroker(dir.path() + "/db");
  std::vector<std::string> opened;
  Regions::Config config = RootedAt(dir.path() + "/db/regions");
  config.on_open = [&](const std::string& region, const std::string& path) {
    opened.push_back(region + " " + path);
  };
  Regions regions(broker.get(), config);
  EXPECT_EQ(regions.default_region(), "us-east-1");
  EXPECT_TRUE(regions.multi_region());

  EXPECT_EQ(regions.Get("us-east-1").value(), broker.get());
  lqs::Broker* eu = regions.Get("eu-west-1").value();
  ASSERT_NE(eu, broker.get());
  EXPECT_EQ(regions.Get("eu-west-1").value(), eu);  // opened once
  EXPECT_EQ(opened, std::vector<std::string>{"eu-west-1 " + dir.path() + "/db/regions/eu-west-1"});
  EXPECT_EQ(eu->options().region, "eu-west-1");
  EXPECT_EQ(eu->ArnFor("q"), "arn:aws:sqs:eu-west-1:123456789012:q");

  // The same name in two regions: two queues.
  ASSERT_TRUE(broker->CreateQueue("jobs", {}, {}).ok());
  ASSERT_TRUE(eu->CreateQueue("jobs", {{"VisibilityTimeout", "7"}}, {}).ok());
  EXPECT_EQ(broker->GetQueue("jobs")
                .value()
                ->GetAttributes({"VisibilityTimeout"})
                .value()
                .at("VisibilityTimeout"),
            "30");
  ASSERT_TRUE(eu->CreateQueue("only-eu", {}, {}).ok());
  EXPECT_EQ(broker->GetQueue("only-eu").status().code(), lqs::ErrorCode::kQueueDoesNotExist);

  const auto open = regions.OpenRegions();
  ASSERT_EQ(open.size(), 2U);
  EXPECT_EQ(open[0].first, "us-east-1");
  EXPECT_EQ(open[1].first, "eu-west-1");

  EXPECT_EQ(regions.Get("EU").status().code(), lqs::ErrorCode::kInvalidParameterValue);
  EXPECT_TRUE(regions.CloseAll().ok());
  EXPECT_EQ(regions.Get("ap-south-1").status().code(), lqs::ErrorCode::kClosed);
  EXPECT_EQ(eu->GetQueue("jobs").status().code(), lqs::ErrorCode::kClosed);
  ASSERT_TRUE(broker->Close().ok());

  // A region's queues outlive the process that opened them.
  auto again = OpenBroker(dir.path() + "/db");
  Regions reopened(again.get(), RootedAt(dir.path() + "/db/regions"));
  EXPECT_TRUE(reopened.Get("eu-west-1").value()->GetQueue("only-eu").ok());
  EXPECT_EQ(again->GetQueue("only-eu").status().code(), lqs::ErrorCode::kQueueDoesNotExist);
  ASSERT_TRUE(reopened.CloseAll().ok());
  ASSERT_TRUE(again->Close().ok());
}

TEST(Regions, LimitCountsTheDefaultRegion) {
  TempDir dir;
  auto broker = OpenBroker(dir.path() + "/db");
  Regions regions(broker.get(), RootedAt(dir.path() + "/db/regions", 2));
  EXPECT_TRUE(regions.Get("eu-west-1").ok());
  const lqs::Status refused = regions.Get("eu-north-1").status();
  EXPECT_EQ(refused.code(), lqs::ErrorCode::kOverLimit);
  EXPECT_NE(refused.message().find("eu-north-1"), std::string::npos);
  EXPECT_TRUE(regions.Get("eu-west-1").ok());  // already open
  EXPECT_TRUE(regions.Get("us-east-1").ok());  // the default
  EXPECT_FALSE(fs::exists(dir.path() + "/db/regions/eu-north-1"));
  ASSERT_TRUE(regions.CloseAll().ok());
  ASSERT_TRUE(broker->Close().ok());
}

TEST(Regions, ConcurrentFirstUsesOpenARegionOnce) {
  TempDir dir;
  auto broker = OpenBroker(dir.path() + "/db");
  std::atomic<int> opened{0};
  Regions::Config config = RootedAt(dir.path() + "/db/regions");
  config.on_open = [&](const std::string&, const std::string&) { opened.fetch_add(1); };
  Regions regions(broker.get(), config);
  const char* const names[] = {"eu-west-1", "ap-south-1", "us-east-1"};
  std::vector<std::vector<lqs::Broker*>> seen(6);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < seen.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        seen[t].push_back(regions.Get(names[(t + i) % 3]).value());
        EXPECT_GE(regions.OpenRegions().size(), 1U);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(opened.load(), 2);
  for (size_t t = 0; t < seen.size(); ++t) {
    for (size_t i = 0; i < seen[t].size(); ++i) {
      EXPECT_EQ(seen[t][i], regions.Get(names[(t + i) % 3]).value());
    }
  }
  ASSERT_TRUE(regions.CloseAll().ok());
  ASSERT_TRUE(broker->Close().ok());
}

// An lqsd I/O thread's round of requests is made durable at one commit,
// whichever regions the requests went to.
TEST(Regions, AThreadDefersOnEveryRegionItUsesUntilItCommits) {
  TempDir dir;
  const std::string home = dir.path() + "/db";
  auto broker = OpenBroker(home, /*deferred_commits=*/true);
  Regions regions(broker.get(), RootedAt(home + "/regions"));
  lqs::Broker* eu = regions.Get("eu-west-1").value();  // before deferring
  SendOne(eu);
  SendOne(broker.get());
  const std::string eu_path = home + "/regions/eu-west-1";

  regions.DeferCommitsOnThisThread();
  const uintmax_t home_before = WalBytes(home);
  const uintmax_t eu_before = WalBytes(eu_path);
  SendOne(broker.get());
  EXPECT_EQ(WalBytes(home), home_before);
  SendOne(regions.Get("eu-west-1").value());
  SendOne(regions.Get("ap-south-1").value());  // opened while deferring
  EXPECT_EQ(WalBytes(eu_path), eu_before);
  const uintmax_t ap_before = WalBytes(home + "/regions/ap-south-1");
  std::thread([&] { SendOne(eu); }).join();  // other threads are not deferred
  const uintmax_t eu_other_thread = WalBytes(eu_path);
  EXPECT_GT(eu_other_thread, eu_before);

  ASSERT_TRUE(regions.CommitThisThread().ok());
  EXPECT_GT(WalBytes(home), home_before);
  EXPECT_GT(WalBytes(home + "/regions/ap-south-1"), ap_before);

  regions.EndDeferralOnThisThread();
  const uintmax_t eu_after = WalBytes(eu_path);
  SendOne(eu);
  EXPECT_GT(WalBytes(eu_path), eu_after) << "still deferred after EndDeferralOnThisThread";
  EXPECT_TRUE(regions.CommitThisThread().ok());
  ASSERT_TRUE(regions.CloseAll().ok());
  ASSERT_TRUE(broker->Close().ok());
}

TEST(Regions, SingleRegionServesEveryRegionFromTheDefault) {
  TempDir dir;
  auto broker = OpenBroker(dir.path() + "/db");
  Regions regions(broker.get(), Regions::Config{});
  EXPECT_FALSE(regions.multi_region());
  EXPECT_EQ(regions.Get("eu-west-1").value(), broker.get());
  EXPECT_EQ(regions.Get("NOT A REGION").value(), broker.get());
  EXPECT_EQ(regions.OpenRegions().size(), 1U);
  EXPECT_FALSE(fs::exists(dir.path() + "/db/regions"));
  ASSERT_TRUE(broker->Close().ok());
}

TEST(SigV4, SigningRegionIsTheCredentialScopes) {
  HttpRequest header;
  header.headers = {{"authorization",
                     "AWS4-HMAC-SHA256 Credential=AKID/20261201/eu-north-1/sqs/aws4_request, "
                     "SignedHeaders=host;x-amz-date, Signature=abc"}};
  EXPECT_EQ(SigningRegion(header), "eu-north-1");

  HttpRequest presigned;
  presigned.target =
      "/?Action=ListQueues&X-Amz-Algorithm=AWS4-HMAC-SHA256"
      "&X-Amz-Credential=AKID%2F20261201%2Fap-south-1%2Fsqs%2Faws4_request&X-Amz-Signature=0";
  EXPECT_EQ(SigningRegion(presigned), "ap-south-1");

  HttpRequest unsigned_request;
  unsigned_request.target = "/?Action=ListQueues";
  EXPECT_EQ(SigningRegion(unsigned_request), std::nullopt);

  HttpRequest malformed;
  malformed.headers = {{"authorization", "AWS4-HMAC-SHA256 Credential=AKID/eu-north-1, x"}};
  EXPECT_EQ(SigningRegion(malformed), std::nullopt);
}

TEST(Router, RegionalQueueUrls) {
  Actions actions("123456789012");
  Router router(&actions, RouterConfig{});
  const Router::QueueRef eu = router.QueueFromUrl("http://h:1/queue/eu-west-1/123456789012/q1");
  EXPECT_EQ(eu.name, "q1");
  EXPECT_EQ(eu.region, "eu-west-1");
  EXPECT_EQ(router.QueueFromUrl("http://h/123456789012/q1").region, "");
  EXPECT_EQ(router.QueueFromUrl("http://h/queue/EU/123456789012/q1").name, "");  // not a region
  EXPECT_EQ(router.QueueFromUrl("http://h/queue/eu-west-1/000000000000/q1").name, "");
  const std::optional<Router::QueueRef> path =
      router.QueueFromPath("/queue/ap-south-1/123456789012/q%31");
  ASSERT_TRUE(path.has_value());
  EXPECT_EQ(path->name, "q1");
  EXPECT_EQ(path->region, "ap-south-1");
  EXPECT_FALSE(router.QueueFromPath("/other/ap-south-1/123456789012/q1").has_value());
  EXPECT_FALSE(router.QueueFromPath("/x/queue/ap-south-1/123456789012/q1").has_value());
}

// A request with only a Host header (none when empty).
HttpRequest WithHost(const std::string& host) {
  HttpRequest request;
  request.method = "POST";
  request.target = "/";
  if (!host.empty()) request.headers = {{"host", host}};
  return request;
}

// A request with Host `host` (none when empty) in `region` (`is_default`: the
// default region) and the queue URL prefix it gets.
struct UrlCase {
  std::string host;
  std::string region;
  bool is_default;
  std::string prefix;
};

void ExpectUrlPrefixes(const RouterConfig& config, const std::vector<UrlCase>& cases) {
  Actions actions("123456789012");
  Router router(&actions, config);
  for (const UrlCase& c : cases) {
    EXPECT_EQ(router.QueueUrlPrefix(WithHost(c.host), c.region, c.is_default), c.prefix)
        << "Host: " << c.host << ", region " << c.region;
  }
}

TEST(Router, PathStyleQueueUrls) {
  RouterConfig config;
  config.default_host = "127.0.0.1:4000";
  ExpectUrlPrefixes(
      config, {
                  {"h:9324", "us-east-1", true, "http://h:9324/123456789012"},
                  {"h:9324", "eu-west-1", false, "http://h:9324/queue/eu-west-1/123456789012"},
                  {"", "eu-west-1", false, "http://127.0.0.1:4000/queue/eu-west-1/123456789012"},
                  // A host-style Host header is still the origin of path-style URLs.
                  {"sqs.eu-west-1.localhost:9324", "eu-west-1", false,
                   "http://sqs.eu-west-1.localhost:9324/queue/eu-west-1/123456789012"},
              });
  config.public_url = "https://sqs.example.com";
  ExpectUrlPrefixes(config, {{"h:9324", "eu-west-1", false,
                              "https://sqs.example.com/queue/eu-west-1/123456789012"}});
}

TEST(Router, HostStyleQueueUrls) {
  RouterConfig config;
  config.url_style = UrlStyle::kHost;
  config.default_host = "127.0.0.1:4000";
  ExpectUrlPrefixes(
      config,
      {
          // Every region, the default one included; the port the client used.
          {"127.0.0.1:9324", "us-east-1", true, "http://sqs.us-east-1.localhost:9324/123456789012"},
          {"myhost:9324", "eu-west-1", false, "http://sqs.eu-west-1.localhost:9324/123456789012"},
          {"[::1]:9555", "eu-west-1", false, "http://sqs.eu-west-1.localhost:9555/123456789012"},
          {"sqs.ap-south-1.localhost:9324", "eu-west-1", false,
           "http://sqs.eu-west-1.localhost:9324/123456789012"},
          // No port in the Host header: the scheme's (none in the URL either).
          {"localhost", "us-east-1", true, "http://sqs.us-east-1.localhost/123456789012"},
          // No usable Host header: the listening port.
          {"", "us-east-1", true, "http://sqs.us-east-1.localhost:4000/123456789012"},
          {"bad host", "us-east-1", true, "http://sqs.us-east-1.localhost:4000/123456789012"},
      });
  // --public-url: its host gets the sqs.<region>. prefix; port and path stay.
  config.public_url = "https://queues.example.com:8443/base";
  ExpectUrlPrefixes(config, {
                                {"h:9324", "us-east-1", true,
                                 "https://sqs.us-east-1.queues.example.com:8443/base/123456789012"},
                                {"h:9324", "eu-west-1", false,
                                 "https://sqs.eu-west-1.queues.example.com:8443/base/123456789012"},
                            });
  config.public_url = "http://localhost.localstack.cloud:4566";  // LocalStack's URLs exactly
  ExpectUrlPrefixes(config,
                    {{"h", "eu-west-1", false,
                      "http://sqs.eu-west-1.localhost.localstack.cloud:4566/123456789012"}});
}

TEST(Router, PublicUrlMustHaveANamedHostForHostStyle) {
  EXPECT_EQ(PublicUrlProblem("http://10.0.0.5:9324", UrlStyle::kPath), "");
  EXPECT_EQ(PublicUrlProblem("", UrlStyle::kHost), "");
  EXPECT_EQ(PublicUrlProblem("https://queues.example.com", UrlStyle::kHost), "");
  EXPECT_EQ(PublicUrlProblem("http://localhost:9324/x", UrlStyle::kHost), "");
  EXPECT_NE(PublicUrlProblem("http://10.0.0.5:9324", UrlStyle::kHost), "");
  EXPECT_NE(PublicUrlProblem("http://[::1]:9324", UrlStyle::kHost), "");
  EXPECT_NE(PublicUrlProblem("queues.example.com", UrlStyle::kHost), "");
  EXPECT_NE(PublicUrlProblem("http:///x", UrlStyle::kHost), "");
}

TEST(Router, RegionOfHost) {
  Actions actions("123456789012");
  RouterConfig config;
  Router router(&actions, config);
  EXPECT_EQ(router.RegionOfHost("sqs.eu-west-1.localhost:9324"), "eu-west-1");
  EXPECT_EQ(router.RegionOfHost("SQS.EU-West-1.LocalHost"), "eu-west-1");
  EXPECT_EQ(router.RegionOfHost("sqs.us-gov-west-1.amazonaws.com"), "us-gov-west-1");
  EXPECT_EQ(router.RegionOfHost("sqs.ap-south-1.localhost.localstack.cloud:4566"), "ap-south-1");
  EXPECT_EQ(router.RegionOfHost("sqs.eu-west-1.localhost."), "eu-west-1");
  // Any region name on lqsd's own host name; only AWS-like ones elsewhere.
  EXPECT_EQ(router.RegionOfHost("sqs.local.localhost:9324"), "local");
  EXPECT_EQ(router.RegionOfHost("sqs.local.example.com"), std::nullopt);
  EXPECT_EQ(router.RegionOfHost("sqs.default.svc.cluster.local:9324"), std::nullopt);
  EXPECT_EQ(router.RegionOfHost("sqs.localhost:9324"), std::nullopt);
  EXPECT_EQ(router.RegionOfHost("sqs.eu-west-1"), std::nullopt);
  EXPECT_EQ(router.RegionOfHost("sqs..localhost"), std::nullopt);
  EXPECT_EQ(router.RegionOfHost("sqs.eu%2dwest.localhost"), std::nullopt);
  EXPECT_EQ(router.RegionOfHost("127.0.0.1:9324"), std::nullopt);
  EXPECT_EQ(router.RegionOfHost("xsqs.eu-west-1.localhost"), std::nullopt);

  config.public_url = "https://sqs.us-east-1.example.com";  // the origin names no region
  Router own(&actions, config);
  EXPECT_EQ(own.RegionOfHost("sqs.us-east-1.example.com"), std::nullopt);
  config.public_url = "https://queues.example.com";
  Router named(&actions, config);
  EXPECT_EQ(named.RegionOfHost("sqs.local.queues.example.com"), "local");
}

TEST(Router, HostStyleQueueUrlsNameTheirRegion) {
  Actions actions("123456789012");
  Router router(&actions, RouterConfig{});  // path style: requests may use both forms
  const Router::QueueRef eu =
      router.QueueFromUrl("http://sqs.eu-west-1.localhost:9324/123456789012/q1");
  EXPECT_EQ(eu.name, "q1");
  EXPECT_EQ(eu.region, "eu-west-1");
  EXPECT_EQ(router.QueueFromUrl("https://sqs.ap-south-1.amazonaws.com/123456789012/q1").region,
            "ap-south-1");
  EXPECT_EQ(router.QueueFromUrl("http://sqs.eu-west-1.localhost/123456789012/q1?x=1").region,
            "eu-west-1");
  // The path's /queue/<region>/ wins over the host's.
  EXPECT_EQ(
      router.QueueFromUrl("http://sqs.eu-west-1.localhost/queue/ap-south-1/123456789012/q1").region,
      "ap-south-1");
  EXPECT_EQ(router.QueueFromUrl("http://sqs.default.svc.cluster.local/123456789012/q1").region, "");
  EXPECT_EQ(router.QueueFromUrl("http://sqs.eu-west-1.localhost/000000000000/q1").name, "");
}

// Whole requests through the router, signed (not verified) for regions.
class RegionRouting : public ::testing::Test {
 protected:
  void SetUp() override {
    broker_ = OpenBroker(dir_.path() + "/db");
    regions_ = std::make_unique<Regions>(broker_.get(), RootedAt(dir_.path() + "/db/regions", 3));
    RouterConfig config;
    config.regions = regions_.get();
    router_ = std::make_unique<Router>(&actions_, config);
  }
  void TearDown() override {
    ASSERT_TRUE(regions_->CloseAll().ok());
    ASSERT_TRUE(broker_->Close().ok());
  }

  // A JSON-protocol call, signed for `region` (none: unsigned).
  nlohmann::json Call(const std::string& action, const nlohmann::json& input,
                      const std::string& region, int* status = nullptr) {
    const HttpResponse response = Send(JsonRequest(action, input.dump()), region);
    if (status != nullptr) *status = response.status;
    return nlohmann::json::parse(response.body);
  }

  // The router again, handing out `style`'s URLs.
  void UseUrlStyle(UrlStyle style) {
    RouterConfig config;
    config.regions = regions_.get();
    config.url_style = style;
    router_ = std::make_unique<Router>(&actions_, config);
  }

  // `request` signed for `region` (none: unsigned), answered.
  HttpResponse Send(HttpRequest request, const std::string& region) {
    if (!region.empty()) {
      request.headers.emplace_back("authorization",
                                   "AWS4-HMAC-SHA256 Credential=AKID/20261201/" + region +
                                       "/sqs/aws4_request, SignedHeaders=host, Signature=00");
    }
    std::optional<HttpResponse> response;
    router_->Handle(request, nullptr, [&](HttpResponse r) { response = std::move(r); });
    EXPECT_TRUE(response.has_value());
    return response.value_or(HttpResponse{});
  }

  // A JSON-protocol call to `path` with Host `host`.
  nlohmann::json JsonAt(const std::string& path, const std::string& host, const std::string& action,
                        const nlohmann::json& input, const std::string& region = "") {
    HttpRequest request = JsonRequest(action, input.dump());
    request.target = path;
    request.headers[0].second = host;
    const HttpResponse response = Send(std::move(request), region);
    EXPECT_EQ(response.status, 200) << response.body;
    return nlohmann::json::parse(response.body, nullptr, false);
  }

  // A query-protocol POST of `form` to `path` with Host `host`; the body.
  std::string QueryAt(const std::string& path, const std::string& host, const std::string& form,
                      const std::string& region = "") {
    HttpRequest request;
    request.method = "POST";
    request.target = path;
    request.headers = {{"host", host}, {"content-type", "application/x-www-form-urlencoded"}};
    request.body = form;
    const HttpResponse response = Send(std::move(request), region);
    EXPECT_EQ(response.status, 200) << response.body;
    return response.body;
  }

  // Requests that name a region by a host name (sqs.<region>.localhost), in
  // both protocols: by QueueUrl, by the request path + Host header, and by the
  // Host header alone. The same whatever URLs the router hands out.
  void CheckHostFormRequests();

  TempDir dir_;
  std::unique_ptr<lqs::Broker> broker_;
  std::unique_ptr<Regions> regions_;
  Actions actions_{"123456789012"};
  std::unique_ptr<Router> router_;
};

TEST_F(RegionRouting, SameNameInTwoRegionsIsTwoQueues) {
  const std::string home = Call("CreateQueue", {{"QueueName", "q"}}, "")["QueueUrl"];
  const std::string signed_home =
      Call("CreateQueue", {{"QueueName", "q"}}, "us-east-1")["QueueUrl"];
  const std::string eu = Call("CreateQueue", {{"QueueName", "q"}}, "eu-west-1")["QueueUrl"];
  EXPECT_EQ(home, "http://127.0.0.1:9324/123456789012/q");
  EXPECT_EQ(signed_home, home);
  EXPECT_EQ(eu, "http://127.0.0.1:9324/queue/eu-west-1/123456789012/q");

  EXPECT_EQ(Call("ListQueues", nlohmann::json::object(), "")["QueueUrls"],
            nlohmann::json::array({home}));
  EXPECT_EQ(Call("ListQueues", nlohmann::json::object(), "eu-west-1")["QueueUrls"],
            nlohmann::json::array({eu}));
  EXPECT_EQ(Call("GetQueueUrl", {{"QueueName", "q"}}, "eu-west-1")["QueueUrl"], eu);
  EXPECT_EQ(Call("GetQueueAttributes", {{"QueueUrl", eu}, {"AttributeNames", {"QueueArn"}}},
                 "eu-west-1")["Attributes"]["QueueArn"],
            "arn:aws:sqs:eu-west-1:123456789012:q");

  // The URL's region wins over the signature's: a message sent through the
  // eu URL by a client signed for us-east-1 lands in eu-west-1's queue.
  Call("SendMessage", {{"QueueUrl", eu}, {"MessageBody", "to-eu"}}, "us-east-1");
  const nlohmann::json home_receive = Call("ReceiveMessage", {{"QueueUrl", home}}, "");
  EXPECT_FALSE(home_receive.contains("Messages"));
  const nlohmann::json eu_receive = Call("ReceiveMessage", {{"QueueUrl", eu}}, "eu-west-1");
  ASSERT_TRUE(eu_receive.contains("Messages"));
  EXPECT_EQ(eu_receive["Messages"][0]["Body"], "to-eu");

  // A short URL means the request's region.
  int status = 0;
  const nlohmann::json missing =
      Call("GetQueueAttributes", {{"QueueUrl", "http://127.0.0.1:9324/123456789012/only-home"}},
           "eu-west-1", &status);
  EXPECT_EQ(status, 400);
  EXPECT_EQ(missing["__type"], "com.amazonaws.sqs#QueueDoesNotExist");
}

TEST_F(RegionRouting, BadRegionsAreRefusedWithoutOpeningAnything) {
  int status = 0;
  const nlohmann::json bad = Call("ListQueues", nlohmann::json::object(), "EU-West-1", &status);
  EXPECT_EQ(status, 400);
  EXPECT_EQ(bad["__type"], "com.amazon.coral.service#IncompleteSignatureException");
  EXPECT_NE(bad["message"].get<std::string>().find("EU-West-1"), std::string::npos);

  Call("ListQueues", nlohmann::json::object(), "eu-west-1");
  Call("ListQueues", nlohmann::json::object(), "eu-north-1");
  const nlohmann::json over = Call("ListQueues", nlohmann::json::object(), "ap-south-1", &status);
  EXPECT_EQ(status, 403);
  EXPECT_EQ(over["__type"], "com.amazonaws.sqs#OverLimit");
  EXPECT_EQ(regions_->OpenRegions().size(), 3U);
}

void RegionRouting::CheckHostFormRequests() {
  const std::string home_url = Call("CreateQueue", {{"QueueName", "q"}}, "")["QueueUrl"];
  Call("CreateQueue", {{"QueueName", "q"}}, "eu-west-1");
  const std::string eu = "http://sqs.eu-west-1.localhost:9324/123456789012/q";
  const std::string eu_form = UriEncode(eu, false);
  const std::string local = "127.0.0.1:9324";
  const std::string eu_host = "sqs.eu-west-1.localhost:9324";

  // JSON, by QueueUrl (the host form wins over the signature's region) ...
  Call("SendMessage", {{"QueueUrl", eu}, {"MessageBody", "json-to-eu"}}, "us-east-1");
  // ... received by query, by the path + Host header.
  std::string body = QueryAt("/123456789012/q", eu_host, "Action=ReceiveMessage");
  EXPECT_NE(body.find("<Body>json-to-eu</Body>"), std::string::npos) << body;

  // Query, by QueueUrl ...
  QueryAt("/", local, "Action=SendMessage&MessageBody=query-to-eu&QueueUrl=" + eu_form,
          "us-east-1");
  // ... received by JSON, by the path + Host header (no QueueUrl).
  const nlohmann::json received =
      JsonAt("/123456789012/q", eu_host, "ReceiveMessage", nlohmann::json::object());
  ASSERT_TRUE(received.contains("Messages")) << received.dump();
  EXPECT_EQ(received["Messages"][0]["Body"], "query-to-eu");

  // Neither reached the default region's queue.
  EXPECT_FALSE(Call("ReceiveMessage", {{"QueueUrl", home_url}}, "").contains("Messages"));

  // The Host header alone names the region (before the signature's), for
  // actions on no queue too; a QueueUrl's region comes before the Host's.
  const nlohmann::json listed =
      JsonAt("/", eu_host, "ListQueues", nlohmann::json::object(), "ap-south-1");
  ASSERT_EQ(listed["QueueUrls"].size(), 1U) << listed.dump();
  EXPECT_NE(listed["QueueUrls"][0].get<std::string>().find("eu-west-1"), std::string::npos);
  body = QueryAt("/", eu_host, "Action=GetQueueUrl&QueueName=q", "ap-south-1");
  EXPECT_NE(body.find("eu-west-1"), std::string::npos) << body;
  const nlohmann::json attributes =
      JsonAt("/", "sqs.ap-south-1.localhost:9324", "GetQueueAttributes",
             {{"QueueUrl", eu}, {"AttributeNames", {"QueueArn"}}});
  EXPECT_EQ(attributes["Attributes"]["QueueArn"], "arn:aws:sqs:eu-west-1:123456789012:q");
  body = QueryAt("/", "sqs.ap-south-1.localhost:9324",
                 "Action=GetQueueAttributes&AttributeName.1=QueueArn&QueueUrl=" + eu_form);
  EXPECT_NE(body.find("arn:aws:sqs:eu-west-1:123456789012:q"), std::string::npos) << body;
  // ap-south-1 was never opened: the Host header lost to the QueueUrl, and
  // to the Host header the signature's region.
  EXPECT_EQ(regions_->OpenRegions().size(), 2U);
}

TEST_F(RegionRouting, HostFormRequestsWithPathStyleUrls) {
  CheckHostFormRequests();
  // Path style hands out the Host header's origin, the region in the path.
  EXPECT_EQ(
      JsonAt("/", "sqs.eu-west-1.localhost:9324", "GetQueueUrl", {{"QueueName", "q"}})["QueueUrl"],
      "http://sqs.eu-west-1.localhost:9324/queue/eu-west-1/123456789012/q");
}

TEST_F(RegionRouting, HostFormRequestsWithHostStyleUrls) {
  UseUrlStyle(UrlStyle::kHost);
  CheckHostFormRequests();
}

TEST_F(RegionRouting, HostStyleUrlsHandedOutInBothProtocols) {
  UseUrlStyle(UrlStyle::kHost);
  EXPECT_EQ(Call("CreateQueue", {{"QueueName", "q"}}, "")["QueueUrl"],
            "http://sqs.us-east-1.localhost:9324/123456789012/q");
  const std::string eu = Call("CreateQueue", {{"QueueName", "q"}}, "eu-west-1")["QueueUrl"];
  EXPECT_EQ(eu, "http://sqs.eu-west-1.localhost:9324/123456789012/q");
  EXPECT_EQ(Call("ListQueues", nlohmann::json::object(), "eu-west-1")["QueueUrls"],
            nlohmann::json::array({eu}));
  std::string body = QueryAt("/", "127.0.0.1:9324", "Action=GetQueueUrl&QueueName=q");
  EXPECT_NE(body.find("<QueueUrl>http://sqs.us-east-1.localhost:9324/123456789012/q</QueueUrl>"),
            std::string::npos)
      << body;
  body = QueryAt("/", "127.0.0.1:9324", "Action=ListQueues", "eu-west-1");
  EXPECT_NE(body.find("<QueueUrl>" + eu + "</QueueUrl>"), std::string::npos) << body;
  // The URLs handed out name their queues: what is sent through one arrives.
  Call("SendMessage", {{"QueueUrl", eu}, {"MessageBody", "m"}}, "");
  const nlohmann::json received = Call("ReceiveMessage", {{"QueueUrl", eu}}, "");
  ASSERT_TRUE(received.contains("Messages"));
  // Path-style URLs still work.
  Call("SendMessage",
       {{"QueueUrl", "http://127.0.0.1:9324/queue/eu-west-1/123456789012/q"}, {"MessageBody", "p"}},
       "");
  EXPECT_TRUE(Call("ReceiveMessage", {{"QueueUrl", "http://h/queue/eu-west-1/123456789012/q"}}, "")
                  .contains("Messages"));
}

}  // namespace
}  // namespace lqsd
