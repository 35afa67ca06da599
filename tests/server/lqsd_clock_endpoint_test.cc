// server/clock_endpoint.h: reading `seconds`, the answers and the errors, on a
// ManualClock directly (tests/server/test_manual_clock.py drives it over HTTP).

#include <string>
#include <tuple>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "server/clock_endpoint.h"

#include "lqs/clock.h"

namespace lqsd {
namespace {

using clock_endpoint::ParseSeconds;

HttpRequest Request(std::string method, std::string target, std::string body = "",
                    std::string content_type = "") {
  HttpRequest r;
  r.method = std::move(method);
  r.target = std::move(target);
  r.body = std::move(body);
  if (!content_type.empty()) r.headers.emplace_back("content-type", content_type);
  return r;
}

TEST(ClockEndpoint, ParseSecondsReadsWholeAndFractionalSeconds) {
  std::string error;
  EXPECT_EQ(ParseSeconds("0", &error), 0);
  EXPECT_EQ(ParseSeconds("30", &error), 30000);
  EXPECT_EQ(ParseSeconds("007", &error), 7000);
  EXPECT_EQ(ParseSeconds("1.5", &error), 1500);
  EXPECT_EQ(ParseSeconds(".25", &error), 250);
  EXPECT_EQ(ParseSeconds("0.0004", &error), 0);
  EXPECT_EQ(ParseSeconds("0.0005", &error), 1);
  EXPECT_EQ(ParseSeconds("315360000", &error), int64_t{315360000} * 1000);
}

TEST(ClockEndpoint, ParseSecondsRefusesWhatIsNotAPlainNonNegativeNumber) {
  for (const char* bad : {"-1", "-0.5", "", ".", "1.", "abc", "1e3", " 1", "1 ", "+1", "0x10",
                          "315360001", "99999999999999999999", "1.2.3", "inf", "nan"}) {
    std::string error;
    EXPECT_FALSE(ParseSeconds(bad, &error).has_value()) << bad;
    EXPECT_NE(error.find("seconds"), std::string::npos) << bad << ": " << error;
  }
  std::string error;
  ParseSeconds("-3", &error);
  EXPECT_NE(error.find(">= 0"), std::string::npos) << error;
}

TEST(ClockEndpoint, Iso8601) {
  EXPECT_EQ(clock_endpoint::Iso8601(1767225600000), "2026-01-01T00:00:00.000Z");
  EXPECT_EQ(clock_endpoint::Iso8601(1767225600000 + 86400000 + 1234), "2026-01-02T00:00:01.234Z");
  EXPECT_EQ(clock_endpoint::Iso8601(0), "1970-01-01T00:00:00.000Z");
}

TEST(ClockEndpoint, OnlyItsPathsAndNeverAnSqsRequest) {
  EXPECT_TRUE(clock_endpoint::IsClockRequest(Request("GET", "/_lqs/clock")));
  EXPECT_TRUE(clock_endpoint::IsClockRequest(Request("POST", "/_lqs/clock/advance?seconds=1")));
  EXPECT_TRUE(clock_endpoint::IsClockRequest(Request("PUT", "/_lqs/clock")));
  EXPECT_FALSE(clock_endpoint::IsClockRequest(Request("GET", "/_lqs/clock/")));
  EXPECT_FALSE(clock_endpoint::IsClockRequest(Request("GET", "/_lqs/clocks")));
  EXPECT_FALSE(clock_endpoint::IsClockRequest(Request("GET", "/_lqs/clock?Action=ListQueues")));
  HttpRequest json = Request("POST", "/_lqs/clock/advance");
  json.headers.emplace_back("x-amz-target", "AmazonSQS.ListQueues");
  EXPECT_FALSE(clock_endpoint::IsClockRequest(json));
}

TEST(ClockEndpoint, ServesTheTimeAndMovesItOnlyOnAGoodAdvance) {
  lqs::ManualClock clock(1767225600000);
  HttpResponse r = clock_endpoint::Serve(Request("GET", "/_lqs/clock"), clock);
  EXPECT_EQ(r.status, 200);
  auto body = nlohmann::json::parse(r.body);
  EXPECT_EQ(body["now_millis"], 1767225600000);
  EXPECT_EQ(body["now"], "2026-01-01T00:00:00.000Z");

  r = clock_endpoint::Serve(
      Request("POST", "/_lqs/clock/advance", R"({"seconds": 2.5})", "application/json"), clock);
  ASSERT_EQ(r.status, 200) << r.body;
  body = nlohmann::json::parse(r.body);
  EXPECT_EQ(body["advanced_millis"], 2500);
  EXPECT_EQ(clock.NowMillis(), 1767225602500);

  // The query parameter wins over the body.
  r = clock_endpoint::Serve(Request("POST", "/_lqs/clock/advance?seconds=1", "seconds=100",
                                    "application/x-www-form-urlencoded"),
                            clock);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(clock.NowMillis(), 1767225603500);

  for (const auto& [target, payload, code] :
       {std::tuple{"/_lqs/clock/advance", "", "MissingParameter"},
        std::tuple{"/_lqs/clock/advance", R"({"other": 1})", "MissingParameter"},
        std::tuple{"/_lqs/clock/advance", R"({"seconds": -1})", "InvalidParameterValue"},
        std::tuple{"/_lqs/clock/advance", R"({"seconds": null})", "InvalidParameterValue"},
        std::tuple{"/_lqs/clock/advance", R"([1])", "InvalidParameterValue"},
        std::tuple{"/_lqs/clock/advance", "seconds=soon", "InvalidParameterValue"},
        std::tuple{"/_lqs/clock/advance?seconds=-2", "", "InvalidParameterValue"}}) {
    r = clock_endpoint::Serve(Request("POST", target, payload), clock);
    EXPECT_EQ(r.status, 400) << payload;
    body = nlohmann::json::parse(r.body);
    EXPECT_EQ(body["code"].get<std::string>(), std::string(code)) << payload;
    EXPECT_NE(body["message"].get<std::string>().find("seconds"), std::string::npos);
  }
  EXPECT_EQ(clock.NowMillis(), 1767225603500);

  r = clock_endpoint::Serve(Request("GET", "/_lqs/clock/advance?seconds=1"), clock);
  EXPECT_EQ(r.status, 405);
  r = clock_endpoint::Serve(Request("POST", "/_lqs/clock"), clock);
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(clock.NowMillis(), 1767225603500);
}

}  // namespace
}  // namespace lqsd
