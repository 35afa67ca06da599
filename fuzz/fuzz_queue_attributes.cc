// fuzz/fuzz_queue_attributes.cc — queue attribute and name validation
// (lib/api/queue_config.h) with fuzzed attribute maps, including
// RedrivePolicy, RedriveAllowPolicy and Policy JSON.
//
// Properties:
//   * ApplyQueueAttributes never crashes or throws (nlohmann::json is used
//     in its non-throwing mode) and changes nothing when it fails;
//   * an accepted map round-trips: RenderQueueConfig of the result, applied
//     to a fresh queue of the same type, renders identically, and
//     FirstDifferingAttribute(requested, result) finds no difference;
//   * ValidateQueueName agrees with a reference implementation of SQS's
//     naming rule;
//   * PolicyAddPermission / PolicyRemovePermission on whatever Policy was
//     accepted never crash and keep Policy a JSON object.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_input.h"
#include "lib/api/queue_config.h"

namespace {

using lqs::fuzz::FuzzInput;
namespace api = lqs::api;

void Check(bool ok, const char* what) {
  lqs::fuzz::CheckProperty("fuzz_queue_attributes", ok, what);
}

// The rule as the developer guide states it, written as a pattern so that it
// shares no code with lib/api/config_text.h's IsPlainName.
bool RefPlainName(std::string_view s, size_t max) {
  static const std::regex kPlain("[A-Za-z0-9_-]+");
  return s.size() <= max && std::regex_match(s.begin(), s.end(), kPlain);
}

bool RefQueueName(std::string_view s, bool fifo) {
  constexpr std::string_view kSuffix = ".fifo";
  const bool has_suffix = s.size() >= kSuffix.size() && s.substr(s.size() - 5) == kSuffix;
  if (fifo) return has_suffix && RefPlainName(s.substr(0, s.size() - 5), 75);
  return RefPlainName(s, 80);
}

const char* const kNames[] = {"DelaySeconds",
                              "MaximumMessageSize",
                              "MessageRetentionPeriod",
                              "ReceiveMessageWaitTimeSeconds",
                              "VisibilityTimeout",
                              "Policy",
                              "RedrivePolicy",
                              "RedriveAllowPolicy",
                              "KmsMasterKeyId",
                              "KmsDataKeyReusePeriodSeconds",
                              "SqsManagedSseEnabled",
                              "FifoQueue",
                              "ContentBasedDeduplication",
                              "DeduplicationScope",
                              "FifoThroughputLimit",
                              "QueueArn",
                              "ApproximateNumberOfMessages",
                              "All",
                              "delayseconds",
                              ""};

const char* const kValues[] = {
    "0",
    "1",
    "-1",
    "30",
    "60",
    "900",
    "901",
    "1024",
    "1048576",
    "1048577",
    "43200",
    "86400",
    "1209600",
    "2147483648",
    "+1",
    " 1",
    "1.5",
    "0x10",
    "true",
    "false",
    "True",
    "FALSE",
    "yes",
    "",
    "queue",
    "messageGroup",
    "perQueue",
    "perMessageGroupId",
    "alias/aws/sqs",
    "{}",
    "[]",
    "null",
    "{\"Version\":\"2012-10-17\",\"Statement\":[]}",
    "{\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:123456789012:dlq\",\"maxReceiveCount\":5}",
    "{\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:123456789012:dlq.fifo\",\"maxReceiveCount\":"
    "\"1000\"}",
    "{\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:123456789012:dlq\",\"maxReceiveCount\":1001}",
    "{\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:12345678901:dlq\",\"maxReceiveCount\":1}",
    "{\"deadLetterTargetArn\":5,\"maxReceiveCount\":1.0}",
    "{\"redrivePermission\":\"allowAll\"}",
    "{\"redrivePermission\":\"denyAll\"}",
    "{\"redrivePermission\":\"byQueue\",\"sourceQueueArns\":[\"arn:aws:sqs:us-east-1:123456789012:"
    "a\"]}",
    "{\"redrivePermission\":\"byQueue\",\"sourceQueueArns\":[]}",
    "{\"redrivePermission\":\"allowAll\",\"sourceQueueArns\":[\"x\"]}",
    "{\"a\":\"\\ud800\"}",
    "{\"a\":\"\xff\"}",
    "{\"a\":1e400}",
    "{\"a\":-0}",
};

// JSON-ish text: fragments glued together, so that the parser sees
// nearly-valid documents as well as garbage.
std::string JsonIsh(FuzzInput& in) {
  static const char* const kFrag[] = {"{",
                                      "}",
                                      "[",
                                      "]",
                                      ",",
                                      ":",
                                      "\"deadLetterTargetArn\"",
                                      "\"maxReceiveCount\"",
                                      "\"redrivePermission\"",
                                      "\"sourceQueueArns\"",
                                      "\"byQueue\"",
                                      "\"allowAll\"",
                                      "\"arn:aws:sqs:us-east-1:123456789012:q\"",
                                      "\"arn:aws:sqs:eu-west-1:123456789012:q.fifo\"",
                                      "5",
                                      "\"7\"",
                                      "1001",
                                      "-3",
                                      "0.5",
                                      "true",
                                      "null",
                                      "\"Statement\"",
                                      "\"Sid\"",
                                      "\"\\u0000\"",
                                      "\"\xc3\xa9\"",
                                      " "};
  std::string s;
  for (int n = in.Range<int>(1, 20); n > 0; --n) s += in.Pick(kFrag);
  return s;
}

std::string Value(FuzzInput& in) {
  switch (in.Range<int>(0, 3)) {
    case 0:
      return in.Pick(kValues);
    case 1:
      return JsonIsh(in);
    case 2:
      return std::to_string(in.Any<int32_t>());
    default:
      return in.String(40);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzInput in(data, size);

  const std::string name =
      in.Bool() ? in.String(90)
                : std::string(in.Range<size_t>(0, 82), 'q') + (in.Bool() ? ".fifo" : "");
  const bool fifo_requested = in.Bool();
  Check(api::ValidateQueueName(name, fifo_requested).ok() == RefQueueName(name, fifo_requested),
        "ValidateQueueName differs from the reference");

  lqs::AttributeMap attrs;
  for (int n = in.Range<int>(0, 6); n > 0; --n) {
    attrs[in.Bool() ? std::string(in.Pick(kNames)) : in.String(24)] = Value(in);
  }
  const bool creating = in.Bool();
  api::QueueConfig config;
  config.fifo = in.Bool() ? api::RequestsFifo(attrs) : in.Bool();
  const lqs::AttributeMap before = api::RenderQueueConfig(config);

  const lqs::Status s = api::ApplyQueueAttributes(attrs, creating, &config);
  if (!s.ok()) {
    Check(!s.message().empty(), "error without a message");
    Check(api::RenderQueueConfig(config) == before, "a rejected map changed the config");
    return 0;
  }
  const lqs::AttributeMap rendered = api::RenderQueueConfig(config);

  // Round trip through the rendered form.
  api::QueueConfig again;
  again.fifo = config.fifo;
  lqs::AttributeMap settable = rendered;
  // SqsManagedSseEnabled=true and KmsMasterKeyId may not be given together;
  // the rendered form shows both only when SSE-KMS is on.
  if (!config.kms_master_key_id.empty()) settable.erase("SqsManagedSseEnabled");
  const lqs::Status s2 = api::ApplyQueueAttributes(settable, /*creating=*/true, &again);
  if (!s2.ok()) {
    std::fprintf(stderr, "re-applying rendered attributes failed: %s\n", s2.ToString().c_str());
    Check(false, "rendered attributes are not accepted back");
  }
  Check(api::RenderQueueConfig(again) == rendered, "render/apply round trip");

  const std::optional<std::string> diff = api::FirstDifferingAttribute(attrs, config);
  if (diff.has_value()) {
    std::fprintf(stderr, "FirstDifferingAttribute: %s\n", diff->c_str());
    Check(false, "an applied attribute differs from the config it produced");
  }

  // Permissions on whatever policy was accepted.
  const std::string arn = "arn:aws:sqs:us-east-1:123456789012:" + name;
  std::vector<std::string> accounts, actions;
  for (int n = in.Range<int>(0, 2); n > 0; --n)
    accounts.push_back(in.Bool() ? "123456789012" : in.String(14));
  for (int n = in.Range<int>(0, 8); n > 0; --n)
    actions.push_back(in.Bool() ? "SendMessage" : in.String(14));
  const std::string label = in.Bool() ? "label1" : in.String(10);
  lqs::StatusOr<std::string> added =
      api::PolicyAddPermission(config.policy, arn, "123456789012", label, accounts, actions);
  if (added.ok()) {
    api::QueueConfig with_policy = config;
    Check(api::ApplyQueueAttributes({{"Policy", *added}}, false, &with_policy).ok(),
          "AddPermission produced a policy SetQueueAttributes rejects");
    lqs::StatusOr<std::string> removed = api::PolicyRemovePermission(*added, label);
    Check(removed.ok(), "RemovePermission cannot remove the label just added");
  }
  (void)api::PolicyRemovePermission(config.policy, in.String(10));

  std::vector<std::string> names;
  for (int n = in.Range<int>(0, 3); n > 0; --n)
    names.push_back(in.Bool() ? std::string(in.Pick(kNames)) : in.String(20));
  (void)api::ValidateAttributeNames(names);
  lqs::TagMap tags;
  for (int n = in.Range<int>(0, 3); n > 0; --n) tags[in.String(130)] = in.String(260);
  (void)api::ValidateTags({}, tags, name);
  return 0;
}
