// The web console's server side: the history sampler (server/queue_history.h)
// on a ManualClock, and the console's login, session cookie and API over real
// HTTP on loopback (server/console.h, console_session.h), on real databases.

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <boost/beast/http.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "server/console_session.h"
#include "server/endpoint.h"
#include "server/queue_history.h"
#include "server/sigv4.h"
#include "tests/server/loopback_http.h"
#include "tests/testutil.h"

#include "lqs/broker.h"
#include "lqs/clock.h"
#include "lqs/queue.h"

namespace lqsd {
namespace {

namespace http = boost::beast::http;
using lqs::testing::TempDir;

std::unique_ptr<lqs::Broker> OpenBroker(const std::string& path,
                                        std::shared_ptr<lqs::Clock> clock) {
  lqs::Options options = lqs::testing::TestProfileOptions();
  options.path = path;
  options.clock = std::move(clock);
  options.background_maintenance = false;
  options.deferred_commits = true;  // as lqsd opens it
  return std::move(lqs::Broker::Open(options)).value();
}

std::shared_ptr<lqs::Queue> MakeQueue(lqs::Broker* broker, const std::string& name) {
  auto queue = broker->CreateQueue(name, {}, {});
  EXPECT_TRUE(queue.ok()) << queue.status().ToString();
  return queue.ok() ? *queue : nullptr;
}

std::string Send(lqs::Queue& queue, const std::string& body, int delay_seconds = 0) {
  lqs::SendMessageRequest r;
  r.body = body;
  if (delay_seconds > 0) r.delay_seconds = delay_seconds;
  auto sent = queue.SendMessage(r);
  EXPECT_TRUE(sent.ok()) << sent.status().ToString();
  return sent.ok() ? sent->message_id : std::string();
}

// ---- History ------------------------------------------------------------------------

class HistoryTest : public ::testing::Test {
 protected:
  void SetUp() override { broker_ = OpenBroker(dir_.path() + "/db", clock_); }
  void TearDown() override { ASSERT_TRUE(broker_->Close().ok()); }

  TempDir dir_;
  std::shared_ptr<lqs::ManualClock> clock_ = std::make_shared<lqs::ManualClock>();
  std::unique_ptr<lqs::Broker> broker_;
};

TEST_F(HistoryTest, SamplesEveryQueueAtTheClocksTime) {
  auto jobs = MakeQueue(broker_.get(), "jobs");
  MakeQueue(broker_.get(), "empty");
  Send(*jobs, "a");
  Send(*jobs, "b");
  Send(*jobs, "later", 600);
  QueueHistory history(clock_, 10);
  const int64_t t0 = clock_->NowMillis();
  history.Sample(broker_.get());
  clock_->AdvanceSeconds(30);
  lqs::ReceiveMessageRequest receive;
  receive.max_number_of_messages = 1;
  ASSERT_EQ(jobs->ReceiveMessage(receive)->messages.size(), 1U);
  history.Sample(broker_.get());

  EXPECT_EQ(history.Queues(), (std::vector<std::string>{"empty", "jobs"}));
  const std::vector<HistorySample> samples = history.Get("jobs");
  ASSERT_EQ(samples.size(), 2U);
  EXPECT_EQ(samples[0].at_ms, t0);
  EXPECT_EQ(samples[0].visible, 2);
  EXPECT_EQ(samples[0].in_flight, 0);
  EXPECT_EQ(samples[0].delayed, 1);
  EXPECT_EQ(samples[0].oldest_age_seconds, 0);
  EXPECT_EQ(samples[1].at_ms, t0 + 30000);
  EXPECT_EQ(samples[1].visible, 1);
  EXPECT_EQ(samples[1].in_flight, 1);
  EXPECT_EQ(samples[1].delayed, 1);
  EXPECT_EQ(samples[1].oldest_age_seconds, 30);
  EXPECT_EQ(history.Get("empty").size(), 2U);
  EXPECT_EQ(history.Get("empty")[1].visible, 0);
  EXPECT_TRUE(history.Get("nope").empty());
}

TEST_F(HistoryTest, EachRingKeepsItsLastSamples) {
  MakeQueue(broker_.get(), "jobs");
  QueueHistory history(clock_, 3);
  const int64_t t0 = clock_->NowMillis();
  for (int i = 0; i < 5; ++i) {
    history.Sample(broker_.get());
    clock_->AdvanceSeconds(10);
  }
  const std::vector<HistorySample> samples = history.Get("jobs");
  ASSERT_EQ(samples.size(), 3U);
  EXPECT_EQ(samples[0].at_ms, t0 + 20000);
  EXPECT_EQ(samples[1].at_ms, t0 + 30000);
  EXPECT_EQ(samples[2].at_ms, t0 + 40000);
}

TEST_F(HistoryTest, ADeletedQueueLosesItsHistory) {
  MakeQueue(broker_.get(), "gone");
  MakeQueue(broker_.get(), "kept");
  QueueHistory history(clock_);
  history.Sample(broker_.get());
  ASSERT_EQ(history.Get("gone").size(), 1U);
  ASSERT_TRUE(broker_->DeleteQueue("gone").ok());
  clock_->AdvanceSeconds(10);
  history.Sample(broker_.get());
  EXPECT_TRUE(history.Get("gone").empty());
  EXPECT_EQ(history.Queues(), std::vector<std::string>{"kept"});
  EXPECT_EQ(history.Get("kept").size(), 2U);
}

TEST_F(HistoryTest, TheSamplerSamplesWhenStartedAndStops) {
  MakeQueue(broker_.get(), "jobs");
  QueueHistory history(clock_);
  HistorySampler sampler(&history, broker_.get(), std::chrono::hours(1));
  sampler.Start();
  // Its first sample is taken at once; the next would be an hour later.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (history.Get("jobs").empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  sampler.Stop();  // returns at once, not after the hour
  EXPECT_EQ(history.Get("jobs").size(), 1U);
}

// ---- Login and sessions over HTTP -----------------------------------------------

using Reply = lqs::testing::HttpReply;

class ConsoleHttpTest : public ::testing::Test {
 protected:
  void Start(bool with_auth) {
    broker_ = OpenBroker(dir_.path() + "/db", clock_);
    EndpointConfig config;
    config.port = 0;
    config.threads = 1;
    config.busy_poll_us = 0;
    config.single_region = true;
    config.clock = clock_;
    config.console_sample_ms = 3600 * 1000;
    if (with_auth) config.auth = &keys_;
    std::string error;
    endpoint_ = Endpoint::Start(broker_.get(), config, &error);
    ASSERT_NE(endpoint_, nullptr) << error;
    const std::string& hp = endpoint_->host_port();
    host_ = hp;
    port_ = hp.substr(hp.rfind(':') + 1);
  }
  void TearDown() override {
    if (endpoint_) {
      EXPECT_TRUE(endpoint_->Shutdown().ok());
    }
  }

  Reply Request(http::verb verb, const std::string& target,
                const std::vector<std::pair<std::string, std::string>>& headers = {},
                const std::string& body = "") {
    return lqs::testing::LoopbackRequest(port_, verb, target, headers, body, host_);
  }
  Reply Login(const std::string& key, const std::string& secret,
              std::vector<std::pair<std::string, std::string>> headers = {}) {
    headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
    return Request(http::verb::post, "/console/login", headers,
                   "access_key_id=" + key + "&secret=" + secret);
  }
  // The "lqs_console=TOKEN" of a login's Set-Cookie.
  static std::string CookieOf(const Reply& login) {
    const std::string set = login.Header("set-cookie");
    return set.substr(0, set.find(';'));
  }
  Reply Api(const std::string& what, const std::string& cookie, bool console_header = true) {
    std::vector<std::pair<std::string, std::string>> headers;
    if (!cookie.empty()) headers.emplace_back("Cookie", cookie);
    if (console_header) headers.emplace_back("X-Lqs-Console", "1");
    return Request(http::verb::get, "/console/api/" + what, headers);
  }
  // An unsigned JSON-protocol SQS call with these extra headers.
  Reply Sqs(const std::string& action, const nlohmann::json& input,
            std::vector<std::pair<std::string, std::string>> headers) {
    headers.emplace_back("Content-Type", "application/x-amz-json-1.0");
    headers.emplace_back("X-Amz-Target", "AmazonSQS." + action);
    return Request(http::verb::post, "/", headers, input.dump());
  }

  TempDir dir_;
  std::shared_ptr<lqs::ManualClock> clock_ = std::make_shared<lqs::ManualClock>();
  SigV4Verifier keys_{std::map<std::string, std::string>{{"console-key", "s3cret"}}};
  std::unique_ptr<lqs::Broker> broker_;
  std::unique_ptr<Endpoint> endpoint_;
  std::string host_, port_;
};

TEST_F(ConsoleHttpTest, WithAKeyFileTheConsoleNeedsALogin) {
  Start(true);
  MakeQueue(broker_.get(), "jobs");

  Reply page = Request(http::verb::get, "/console");
  EXPECT_EQ(page.status, 303);
  EXPECT_EQ(page.Header("location"), "/console/login");
  EXPECT_EQ(Api("queues", "").status, 401);
  EXPECT_EQ(Request(http::verb::get, "/console/login").status, 200);

  // A wrong secret, an unknown key, an empty form: refused, no cookie.
  for (const Reply& refused :
       {Login("console-key", "wrong"), Login("nobody", "s3cret"), Login("", "")}) {
    EXPECT_EQ(refused.status, 401);
    EXPECT_EQ(refused.Header("set-cookie"), "");
    EXPECT_NE(refused.body.find("login-error"), std::string::npos);
  }

  const Reply login = Login("console-key", "s3cret");
  ASSERT_EQ(login.status, 303) << login.body;
  EXPECT_EQ(login.Header("location"), "/console/");
  const std::string set_cookie = login.Header("set-cookie");
  EXPECT_NE(set_cookie.find("HttpOnly"), std::string::npos);
  EXPECT_NE(set_cookie.find("SameSite=Strict"), std::string::npos);
  const std::string cookie = CookieOf(login);
  ASSERT_EQ(cookie.rfind("lqs_console=", 0), 0U) << set_cookie;
  ASSERT_EQ(cookie.size(), std::string("lqs_console=").size() + 64);

  page = Request(http::verb::get, "/console/", {{"Cookie", cookie}});
  EXPECT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("/console/app.js"), std::string::npos);
  EXPECT_NE(page.Header("content-security-policy").find("default-src 'self'"), std::string::npos);
  const Reply queues = Api("queues", cookie);
  ASSERT_EQ(queues.status, 200) << queues.body;
  EXPECT_EQ(queues.Json()["queues"][0]["name"], "jobs");
  EXPECT_EQ(queues.Json()["auth"], true);
  // A cookie alone is not enough for the API (a plain form cannot add the header).
  EXPECT_EQ(Api("queues", cookie, false).status, 403);
  // Another token, or a made-up one, is no session.
  EXPECT_EQ(Api("queues", "lqs_console=" + std::string(64, 'a')).status, 401);

  // The SQS API: the cookie with the console's header stands in for a signature...
  const Reply listed =
      Sqs("ListQueues", nlohmann::json::object(), {{"Cookie", cookie}, {"X-Lqs-Console", "1"}});
  EXPECT_EQ(listed.status, 200) << listed.body;
  // ...but neither alone, nor from another origin.
  EXPECT_EQ(Sqs("ListQueues", nlohmann::json::object(), {{"Cookie", cookie}}).status, 403);
  EXPECT_EQ(Sqs("ListQueues", nlohmann::json::object(), {{"X-Lqs-Console", "1"}}).status, 403);
  EXPECT_EQ(Sqs("ListQueues", nlohmann::json::object(),
                {{"Cookie", cookie}, {"X-Lqs-Console", "1"}, {"Origin", "http://evil.example"}})
                .status,
            403);
  EXPECT_EQ(Sqs("ListQueues", nlohmann::json::object(),
                {{"Cookie", cookie}, {"X-Lqs-Console", "1"}, {"Origin", "http://" + host_}})
                .status,
            200);

  // Sessions expire by the clock.
  clock_->AdvanceMillis(ConsoleSessions::kDefaultTtlMs - 1000);
  EXPECT_EQ(Api("queues", cookie).status, 200);
  clock_->AdvanceMillis(1000);
  EXPECT_EQ(Api("queues", cookie).status, 401);
  EXPECT_EQ(Request(http::verb::get, "/console/", {{"Cookie", cookie}}).status, 303);
  EXPECT_EQ(
      Sqs("ListQueues", nlohmann::json::object(), {{"Cookie", cookie}, {"X-Lqs-Console", "1"}})
          .status,
      403);
}

TEST_F(ConsoleHttpTest, TheCookieIsSecureWhenTheBrowserCameOverHttps) {
  Start(true);
  auto secure = [](const Reply& r) {
    return r.Header("set-cookie").find("; Secure") != std::string::npos;
  };
  // Plain HTTP (lqsd's own): no Secure, or a browser on http://host would drop the cookie.
  EXPECT_FALSE(secure(Login("console-key", "s3cret")));
  EXPECT_FALSE(secure(Login("console-key", "s3cret", {{"Origin", "http://" + host_}})));
  EXPECT_FALSE(secure(Login("console-key", "s3cret", {{"X-Forwarded-Proto", "http"}})));
  // Through a TLS front: it says so, or the login form's page was https.
  const Reply fronted = Login("console-key", "s3cret", {{"X-Forwarded-Proto", "https"}});
  ASSERT_EQ(fronted.status, 303);
  EXPECT_TRUE(secure(fronted)) << fronted.Header("set-cookie");
  EXPECT_TRUE(secure(Login("console-key", "s3cret", {{"X-Forwarded-Proto", " HTTPS, http"}})));
  EXPECT_TRUE(secure(Login("console-key", "s3cret", {{"Origin", "https://queues.example"}})));
  // Logging out clears it with the same flags (a Secure cookie needs a Secure Set-Cookie).
  const Reply out = Request(http::verb::post, "/console/logout",
                            {{"Cookie", CookieOf(fronted)}, {"X-Forwarded-Proto", "https"}});
  EXPECT_NE(out.Header("set-cookie").find("Max-Age=0"), std::string::npos);
  EXPECT_TRUE(secure(out)) << out.Header("set-cookie");
}

TEST_F(ConsoleHttpTest, RepeatedFailuresFromOneAddressAreThrottled) {
  Start(true);
  for (size_t i = 0; i < ConsoleSessions::kMaxFailures; ++i) {
    clock_->AdvanceSeconds(1);
    ASSERT_EQ(Login("console-key", "guess" + std::to_string(i)).status, 401) << i;
  }
  // Now even the right secret is refused, without being checked, for the window.
  Reply throttled = Login("console-key", "s3cret");
  EXPECT_EQ(throttled.status, 429);
  EXPECT_EQ(throttled.Header("set-cookie"), "");
  EXPECT_EQ(throttled.Header("retry-after"), "51");  // the first failure leaves the window then
  EXPECT_NE(throttled.body.find("Too many failed logins"), std::string::npos);
  clock_->AdvanceSeconds(50);
  EXPECT_EQ(Login("console-key", "s3cret").status, 429);
  clock_->AdvanceSeconds(1);
  const Reply login = Login("console-key", "s3cret");
  EXPECT_EQ(login.status, 303);
  EXPECT_EQ(Api("queues", CookieOf(login)).status, 200);
}

TEST_F(ConsoleHttpTest, LogoutEndsTheSession) {
  Start(true);
  const std::string cookie = CookieOf(Login("console-key", "s3cret"));
  ASSERT_EQ(Api("queues", cookie).status, 200);
  const Reply out = Request(http::verb::post, "/console/logout", {{"Cookie", cookie}});
  EXPECT_EQ(out.status, 303);
  EXPECT_NE(out.Header("set-cookie").find("Max-Age=0"), std::string::npos);
  EXPECT_EQ(Api("queues", cookie).status, 401);
}

TEST_F(ConsoleHttpTest, WithoutAKeyFileTheConsoleIsOpen) {
  Start(false);
  auto jobs = MakeQueue(broker_.get(), "jobs");
  auto dlq = MakeQueue(broker_.get(), "jobs-dlq");
  ASSERT_TRUE(jobs->SetAttributes({{"RedrivePolicy", "{\"deadLetterTargetArn\":\"" + dlq->arn() +
                                                         "\",\"maxReceiveCount\":3}"}})
                  .ok());
  const std::string first = Send(*jobs, "first body");
  Send(*jobs, "second body", 60);

  EXPECT_EQ(Request(http::verb::get, "/console").status, 200);
  EXPECT_EQ(Request(http::verb::get, "/console/login").status, 303);
  EXPECT_EQ(Request(http::verb::get, "/console/style.css").Header("content-type"),
            "text/css; charset=utf-8");
  EXPECT_EQ(Request(http::verb::get, "/console/nope.js").status, 404);

  const nlohmann::json queues = Api("queues", "", false).Json();
  ASSERT_EQ(queues["queues"].size(), 2U) << queues.dump();
  const nlohmann::json& q = queues["queues"][0];
  EXPECT_EQ(q["name"], "jobs");
  EXPECT_EQ(q["url"], "http://" + host_ + "/123456789012/jobs");
  EXPECT_EQ(q["visible"], 1);
  EXPECT_EQ(q["delayed"], 1);
  EXPECT_EQ(q["dead_letter_target"], "jobs-dlq");
  EXPECT_EQ(q["max_receive_count"], 3);
  EXPECT_EQ(queues["queues"][1]["dead_letter_sources"], nlohmann::json::array({"jobs"}));

  // The peek shows every message in every state, and finds one by id.
  nlohmann::json peeked = Api("messages?queue=jobs", "", false).Json();
  ASSERT_EQ(peeked["Messages"].size(), 2U) << peeked.dump();
  EXPECT_EQ(peeked["Total"], 2);
  peeked = Api("messages?queue=jobs&id=" + first, "", false).Json();
  ASSERT_EQ(peeked["Messages"].size(), 1U);
  EXPECT_EQ(peeked["Messages"][0]["Body"], "first body");
  EXPECT_EQ(peeked["Messages"][0]["Attributes"]["IsVisible"], "true");
  EXPECT_EQ(Api("messages?queue=jobs&limit=1", "", false).Json()["Truncated"], true);
  EXPECT_EQ(Api("messages?queue=nope", "", false).status, 400);
  // The peek changed nothing.
  EXPECT_EQ(jobs->GetStats()->visible, 1);

  // The history: the sampler's first sample, taken when the endpoint started (no queue yet).
  const nlohmann::json history = Api("history?queue=jobs", "", false).Json();
  EXPECT_EQ(history["queue"], "jobs");
  EXPECT_TRUE(history["samples"].is_array());
}

}  // namespace
}  // namespace lqsd
