// Tests for lib/api/queue_config.h: RedrivePolicy and
// RedriveAllowPolicy.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lib/api/api_test_util.h"
#include "lib/api/queue_config.h"
#include "tests/testutil.h"

namespace lqs::api {
namespace {

using namespace test_util;  // NOLINT(google-build-using-namespace)
using ::lqs::testing::MessageStartsWith;

// ---- RedrivePolicy ----------------------------------------------------------------------------

std::string RedriveError(const std::string& value, const std::string& reason) {
  return "Value " + value + " for parameter RedrivePolicy is invalid. Reason: " + reason;
}

TEST(ApplyQueueAttributesTest, RedrivePolicyNumberOrString) {
  const std::string as_number =
      R"({"deadLetterTargetArn":")" + std::string(kDlqArn) + R"(","maxReceiveCount":5})";
  QueueConfig config = MustApply({{"RedrivePolicy", as_number}});
  ASSERT_TRUE(config.redrive_policy.has_value());
  EXPECT_EQ(config.redrive_policy->dead_letter_target_arn, kDlqArn);
  EXPECT_EQ(config.redrive_policy->max_receive_count, 5);

  // A string "42" comes back as the number 42, deadLetterTargetArn first.
  const std::string as_string =
      R"({ "maxReceiveCount" : "42", "deadLetterTargetArn": ")" + std::string(kDlqArn) + R"(" })";
  config = MustApply({{"RedrivePolicy", as_string}});
  EXPECT_EQ(config.redrive_policy->max_receive_count, 42);
  EXPECT_EQ(RenderQueueConfig(config).at("RedrivePolicy"),
            R"({"deadLetterTargetArn":")" + std::string(kDlqArn) + R"(","maxReceiveCount":42})");
}

TEST(ApplyQueueAttributesTest, RedrivePolicyRemoval) {
  QueueConfig config = StandardQueue();
  config.redrive_policy = RedrivePolicy{kDlqArn, 3};
  config = MustApply({{"RedrivePolicy", ""}}, config);
  EXPECT_FALSE(config.redrive_policy.has_value());
  EXPECT_EQ(RenderQueueConfig(config).count("RedrivePolicy"), 0u);
}

TEST(ApplyQueueAttributesTest, RedrivePolicyMaxReceiveCountBounds) {
  for (const char* good : {"1", "1000", "\"1\"", "\"1000\""}) {
    const std::string value = R"({"deadLetterTargetArn":")" + std::string(kDlqArn) +
                              R"(","maxReceiveCount":)" + good + "}";
    EXPECT_OK(Set({{"RedrivePolicy", value}})) << value;
  }
  for (const auto& [bad, shown] :
       std::vector<std::pair<std::string, std::string>>{{"0", "0"},
                                                        {"1001", "1001"},
                                                        {"-1", "-1"},
                                                        {"\"0\"", "0"},
                                                        {"\"abc\"", "abc"},
                                                        {"\"\"", ""},
                                                        {"\"5.0\"", "5.0"},
                                                        {"\" 5\"", " 5"},
                                                        {"5.5", "5.5"},
                                                        {"true", "true"},
                                                        {"null", "null"},
                                                        {"[5]", "[5]"},
                                                        {"99999999999", "99999999999"}}) {
    const std::string value = R"({"deadLetterTargetArn":")" + std::string(kDlqArn) +
                              R"(","maxReceiveCount":)" + bad + "}";
    EXPECT_STATUS(Set({{"RedrivePolicy", value}}), kInvalidParameterValue,
                  RedriveError(value, "Invalid value for maxReceiveCount: " + shown +
                                          ", valid values are from 1 to 1000 both "
                                          "inclusive."))
        << value;
  }
}

TEST(ApplyQueueAttributesTest, RedrivePolicyMissingKeys) {
  const std::string no_arn = R"({"maxReceiveCount":5})";
  EXPECT_STATUS(Set({{"RedrivePolicy", no_arn}}), kInvalidParameterValue,
                RedriveError(no_arn,
                             "Redrive policy does not contain mandatory attribute: "
                             "deadLetterTargetArn."));
  const std::string no_count = R"({"deadLetterTargetArn":")" + std::string(kDlqArn) + R"("})";
  EXPECT_STATUS(Set({{"RedrivePolicy", no_count}}), kInvalidParameterValue,
                RedriveError(no_count,
                             "Redrive policy does not contain mandatory attribute: "
                             "maxReceiveCount."));
  EXPECT_STATUS(Set({{"RedrivePolicy", "{}"}}), kInvalidParameterValue,
                RedriveError("{}",
                             "Redrive policy does not contain mandatory attribute: "
                             "deadLetterTargetArn."));
}

TEST(ApplyQueueAttributesTest, RedrivePolicyNotJson) {
  for (const char* bad : {"not json", "[]", "5", "\"x\"", "{"}) {
    EXPECT_STATUS(Set({{"RedrivePolicy", bad}}), kInvalidParameterValue,
                  RedriveError(bad, "Redrive policy is not a valid JSON map."));
  }
}

TEST(ApplyQueueAttributesTest, RedrivePolicyArnSyntax) {
  for (const char* good :
       {"arn:aws:sqs:us-east-1:123456789012:dlq", "arn:aws:sqs:eu-west-2:000000000000:a-b_c",
        "arn:aws:sqs:us-east-1:123456789012:dlq.fifo"}) {
    const std::string value =
        std::string(R"({"deadLetterTargetArn":")") + good + R"(","maxReceiveCount":1})";
    EXPECT_OK(Set({{"RedrivePolicy", value}})) << good;
  }
  for (const char* bad :
       {"", "dlq", "arn:aws:sns:us-east-1:123456789012:dlq",
        "arn:aws:sqs:us-east-1:12345678901:dlq", "arn:aws:sqs:us-east-1:1234567890123:dlq",
        "arn:aws:sqs:us-east-1:12345678901a:dlq", "arn:aws:sqs::123456789012:dlq",
        "arn:aws:sqs:us-east-1:123456789012:", "arn:aws:sqs:us-east-1:123456789012:a/b",
        "arn:aws:sqs:US-EAST-1:123456789012:dlq", "arn:aws:sqs:us-east-1:123456789012:dlq:extra",
        "arn:aws-cn:sqs:cn-north-1:123456789012:dlq"}) {
    const std::string value =
        std::string(R"({"deadLetterTargetArn":")") + bad + R"(","maxReceiveCount":1})";
    EXPECT_STATUS(Set({{"RedrivePolicy", value}}), kInvalidParameterValue,
                  RedriveError(value, "Invalid value for deadLetterTargetArn."))
        << bad;
  }
  const std::string not_string = R"({"deadLetterTargetArn":5,"maxReceiveCount":1})";
  EXPECT_STATUS(Set({{"RedrivePolicy", not_string}}), kInvalidParameterValue,
                RedriveError(not_string, "Invalid value for deadLetterTargetArn."));
}

TEST(RedrivePolicyJsonTest, Format) {
  EXPECT_EQ(RedrivePolicyJson(RedrivePolicy{kDlqArn, 1000}),
            R"({"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:dlq",)"
            R"("maxReceiveCount":1000})");
}

// ---- RedriveAllowPolicy
// --------------------------------------------------------------------------

TEST(ApplyQueueAttributesTest, RedriveAllowPolicyValid) {
  QueueConfig config = MustApply({{"RedriveAllowPolicy", R"({"redrivePermission":"allowAll"})"}});
  ASSERT_TRUE(config.redrive_allow_policy.has_value());
  EXPECT_EQ(config.redrive_allow_policy->redrive_permission, "allowAll");
  EXPECT_TRUE(config.redrive_allow_policy->source_queue_arns.empty());

  config = MustApply({{"RedriveAllowPolicy", R"({"redrivePermission":"denyAll"})"}});
  EXPECT_EQ(config.redrive_allow_policy->redrive_permission, "denyAll");

  const std::string by_queue = std::string(R"({"redrivePermission":"byQueue",)") +
                               R"("sourceQueueArns":[")" + kQueueArn + R"("]})";
  config = MustApply({{"RedriveAllowPolicy", by_queue}});
  EXPECT_EQ(config.redrive_allow_policy->redrive_permission, "byQueue");
  EXPECT_EQ(config.redrive_allow_policy->source_queue_arns, std::vector<std::string>{kQueueArn});
  EXPECT_EQ(RenderQueueConfig(config).at("RedriveAllowPolicy"), by_queue);

  config = MustApply({{"RedriveAllowPolicy", ""}}, config);
  EXPECT_FALSE(config.redrive_allow_policy.has_value());
}

TEST(ApplyQueueAttributesTest, RedriveAllowPolicyTenArns) {
  std::string arns;
  for (int i = 0; i < 10; ++i) {
    if (i > 0) arns += ",";
    arns += "\"arn:aws:sqs:us-east-1:123456789012:q" + std::to_string(i) + "\"";
  }
  const std::string ten = R"({"redrivePermission":"byQueue","sourceQueueArns":[)" + arns + "]}";
  EXPECT_OK(Set({{"RedriveAllowPolicy", ten}}));
  const std::string eleven = R"({"redrivePermission":"byQueue","sourceQueueArns":[)" + arns +
                             R"(,"arn:aws:sqs:us-east-1:123456789012:q10"]})";
  const Status status = Set({{"RedriveAllowPolicy", eleven}});
  EXPECT_CODE(status, kInvalidParameterValue);
  EXPECT_TRUE(MessageStartsWith(
      status, "Value " + eleven + " for parameter RedriveAllowPolicy is invalid. Reason: "));
}

TEST(ApplyQueueAttributesTest, RedriveAllowPolicyInvalid) {
  const std::string arn = std::string("\"") + kQueueArn + "\"";
  for (const std::string& bad :
       {std::string("not json"), std::string("[]"), std::string("{}"),
        std::string(R"({"redrivePermission":"allowSome"})"),
        std::string(R"({"redrivePermission":"AllowAll"})"),
        std::string(R"({"redrivePermission":5})"),
        std::string(R"({"redrivePermission":"byQueue"})"),
        std::string(R"({"redrivePermission":"byQueue","sourceQueueArns":[]})"),
        std::string(R"({"redrivePermission":"byQueue","sourceQueueArns":"x"})"),
        std::string(R"({"redrivePermission":"byQueue","sourceQueueArns":[5]})"),
        std::string(R"({"redrivePermission":"byQueue","sourceQueueArns":["not-an-arn"]})"),
        R"({"redrivePermission":"allowAll","sourceQueueArns":[)" + arn + "]}",
        R"({"redrivePermission":"denyAll","sourceQueueArns":[)" + arn + "]}"}) {
    const Status status = Set({{"RedriveAllowPolicy", bad}});
    EXPECT_CODE(status, kInvalidParameterValue) << bad;
    EXPECT_TRUE(MessageStartsWith(
        status, "Value " + bad + " for parameter RedriveAllowPolicy is invalid. Reason: "));
  }
}

TEST(RedriveAllowPolicyJsonTest, Format) {
  EXPECT_EQ(RedriveAllowPolicyJson(RedriveAllowPolicy{"allowAll", {}}),
            R"({"redrivePermission":"allowAll"})");
  EXPECT_EQ(RedriveAllowPolicyJson(RedriveAllowPolicy{"byQueue", {"a", "b"}}),
            R"({"redrivePermission":"byQueue","sourceQueueArns":["a","b"]})");
}

}  // namespace
}  // namespace lqs::api
