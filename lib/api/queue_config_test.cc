// Tests for lib/api/queue_config.h: queue names, attribute validation and
// application, rendering, CreateQueue idempotency, policies and tags.

#include "lib/api/queue_config.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace lqs::api {
namespace {

::testing::AssertionResult IsOk(const Status& status) {
  if (status.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << status.ToString();
}

::testing::AssertionResult HasCode(const Status& status, ErrorCode code) {
  if (status.code() == code) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "expected " << ErrorCodeName(code) << ", got " << status.ToString();
}

::testing::AssertionResult HasStatus(const Status& status, ErrorCode code,
                                     const std::string& message) {
  if (status.code() == code && status.message() == message) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "expected " << ErrorCodeName(code) << ": " << message
                                       << "\n     got " << status.ToString();
}

#define EXPECT_OK(status_expr) EXPECT_TRUE(IsOk(status_expr))
#define EXPECT_CODE(status_expr, code) EXPECT_TRUE(HasCode((status_expr), (code)))
#define EXPECT_STATUS(status_expr, code, message) \
  EXPECT_TRUE(HasStatus((status_expr), (code), (message)))

constexpr ErrorCode kInvalidParameterValue = ErrorCode::kInvalidParameterValue;
constexpr ErrorCode kInvalidAttributeName = ErrorCode::kInvalidAttributeName;
constexpr ErrorCode kInvalidAttributeValue = ErrorCode::kInvalidAttributeValue;
constexpr ErrorCode kOverLimit = ErrorCode::kOverLimit;

constexpr char kDlqArn[] = "arn:aws:sqs:us-east-1:123456789012:dlq";
constexpr char kQueueArn[] = "arn:aws:sqs:us-east-1:111111111111:my-queue";

QueueConfig Standard() { return QueueConfig{}; }

QueueConfig Fifo() {
  QueueConfig config;
  config.fifo = true;
  return config;
}

// Applies `attributes` to a copy of `config`; returns the status and, via
// *out, the result.
Status Apply(const AttributeMap& attributes, bool creating, QueueConfig config,
             QueueConfig* out = nullptr) {
  Status status = ApplyQueueAttributes(attributes, creating, &config);
  if (out != nullptr) *out = config;
  return status;
}

Status Set(const AttributeMap& attributes, QueueConfig config = Standard()) {
  return Apply(attributes, /*creating=*/false, std::move(config));
}

QueueConfig MustApply(const AttributeMap& attributes, QueueConfig config = Standard(),
                      bool creating = false) {
  const Status status = ApplyQueueAttributes(attributes, creating, &config);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return config;
}

// ---- Queue names ----------------------------------------------------------------

TEST(ValidateQueueNameTest, StandardNames) {
  EXPECT_OK(ValidateQueueName("a", false));
  EXPECT_OK(ValidateQueueName("My_Queue-1", false));
  EXPECT_OK(ValidateQueueName(std::string(80, 'q'), false));
  const std::string text =
      "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in "
      "length";
  for (const std::string& bad :
       {std::string(""), std::string(81, 'q'), std::string("a/b"), std::string("a.b"),
        std::string("a b"), std::string("q.fifo"), std::string("\xc3\xa9")}) {
    EXPECT_STATUS(ValidateQueueName(bad, false), kInvalidParameterValue, text) << bad;
  }
}

TEST(ValidateQueueNameTest, FifoNames) {
  EXPECT_OK(ValidateQueueName("a.fifo", true));
  EXPECT_OK(ValidateQueueName(std::string(75, 'q') + ".fifo", true));
  const std::string text =
      "The name of a FIFO queue can only include alphanumeric characters, hyphens, or "
      "underscores, must end with .fifo suffix and be 1 to 80 in length";
  for (const std::string& bad :
       {std::string(".fifo"), std::string("q"), std::string(76, 'q') + ".fifo",
        std::string("q.FIFO"), std::string("a.b.fifo"), std::string("q.fifo.fifo"),
        std::string("a/b.fifo"), std::string("")}) {
    EXPECT_STATUS(ValidateQueueName(bad, true), kInvalidParameterValue, text) << bad;
  }
}

TEST(RequestsFifoTest, Values) {
  EXPECT_FALSE(RequestsFifo({}));
  EXPECT_TRUE(RequestsFifo({{"FifoQueue", "true"}}));
  EXPECT_TRUE(RequestsFifo({{"FifoQueue", "True"}}));
  EXPECT_TRUE(RequestsFifo({{"FifoQueue", "TRUE"}}));
  EXPECT_FALSE(RequestsFifo({{"FifoQueue", "false"}}));
  EXPECT_FALSE(RequestsFifo({{"FifoQueue", "yes"}}));
  EXPECT_FALSE(RequestsFifo({{"fifoqueue", "true"}}));
}

// ---- Defaults and rendering -----------------------------------------------------------

TEST(QueueConfigTest, Defaults) {
  const QueueConfig config;
  EXPECT_FALSE(config.fifo);
  EXPECT_EQ(config.delay_seconds, 0);
  EXPECT_EQ(config.maximum_message_size, 1048576);
  EXPECT_EQ(config.message_retention_period, 345600);
  EXPECT_EQ(config.receive_message_wait_time_seconds, 0);
  EXPECT_EQ(config.visibility_timeout, 30);
  EXPECT_TRUE(config.sqs_managed_sse_enabled);
  EXPECT_EQ(config.deduplication_scope, "queue");
  EXPECT_EQ(config.fifo_throughput_limit, "perQueue");
}

TEST(RenderQueueConfigTest, FreshStandardQueue) {
  const AttributeMap expected{{"DelaySeconds", "0"},
                              {"MaximumMessageSize", "1048576"},
                              {"MessageRetentionPeriod", "345600"},
                              {"ReceiveMessageWaitTimeSeconds", "0"},
                              {"SqsManagedSseEnabled", "true"},
                              {"VisibilityTimeout", "30"}};
  EXPECT_EQ(RenderQueueConfig(Standard()), expected);
}

TEST(RenderQueueConfigTest, FreshFifoQueue) {
  QueueConfig config = Fifo();
  config.content_based_deduplication = true;
  const AttributeMap expected{{"ContentBasedDeduplication", "true"},
                              {"DeduplicationScope", "queue"},
                              {"DelaySeconds", "0"},
                              {"FifoQueue", "true"},
                              {"FifoThroughputLimit", "perQueue"},
                              {"MaximumMessageSize", "1048576"},
                              {"MessageRetentionPeriod", "345600"},
                              {"ReceiveMessageWaitTimeSeconds", "0"},
                              {"SqsManagedSseEnabled", "true"},
                              {"VisibilityTimeout", "30"}};
  EXPECT_EQ(RenderQueueConfig(config), expected);
}

TEST(RenderQueueConfigTest, OptionalAttributes) {
  QueueConfig config = Standard();
  config.policy = R"({"Version":"2012-10-17"})";
  config.redrive_policy = RedrivePolicy{kDlqArn, 5};
  config.redrive_allow_policy = RedriveAllowPolicy{"denyAll", {}};
  config.kms_master_key_id = "alias/aws/sqs";
  config.sqs_managed_sse_enabled = false;
  const AttributeMap rendered = RenderQueueConfig(config);
  EXPECT_EQ(rendered.at("Policy"), R"({"Version":"2012-10-17"})");
  EXPECT_EQ(rendered.at("RedrivePolicy"),
            R"({"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:dlq",)"
            R"("maxReceiveCount":5})");
  EXPECT_EQ(rendered.at("RedriveAllowPolicy"), R"({"redrivePermission":"denyAll"})");
  EXPECT_EQ(rendered.at("KmsMasterKeyId"), "alias/aws/sqs");
  EXPECT_EQ(rendered.at("KmsDataKeyReusePeriodSeconds"), "300");
  EXPECT_EQ(rendered.at("SqsManagedSseEnabled"), "false");
  EXPECT_EQ(rendered.count("FifoQueue"), 0u);
  EXPECT_EQ(rendered.size(), 11u);
}

TEST(RenderQueueConfigTest, KmsReusePeriodOnlyWithKms) {
  QueueConfig config = Standard();
  config.kms_data_key_reuse_period_seconds = 600;
  EXPECT_EQ(RenderQueueConfig(config).count("KmsDataKeyReusePeriodSeconds"), 0u);
  config.kms_master_key_id = "key";
  EXPECT_EQ(RenderQueueConfig(config).at("KmsDataKeyReusePeriodSeconds"), "600");
}

TEST(RenderQueueConfigTest, NeverRendersReadOnlyAttributes) {
  const AttributeMap rendered = RenderQueueConfig(Fifo());
  for (const char* name : {"QueueArn", "CreatedTimestamp", "LastModifiedTimestamp",
                           "ApproximateNumberOfMessages", "All"}) {
    EXPECT_EQ(rendered.count(name), 0u) << name;
  }
}

TEST(RenderQueueConfigTest, RoundTripsThroughApply) {
  QueueConfig config = Fifo();
  config.delay_seconds = 7;
  config.visibility_timeout = 99;
  config.content_based_deduplication = true;
  config.deduplication_scope = "messageGroup";
  config.fifo_throughput_limit = "perMessageGroupId";
  config.redrive_policy = RedrivePolicy{"arn:aws:sqs:eu-west-1:123456789012:dlq.fifo", 3};
  config.redrive_allow_policy = RedriveAllowPolicy{"byQueue", {kQueueArn}};
  config.policy = R"({"Statement":[]})";
  config.kms_master_key_id = "k";
  config.kms_data_key_reuse_period_seconds = 120;
  config.sqs_managed_sse_enabled = false;
  QueueConfig copy = Fifo();
  ASSERT_TRUE(ApplyQueueAttributes(RenderQueueConfig(config), true, &copy).ok());
  EXPECT_EQ(copy, config);
  EXPECT_EQ(FirstDifferingAttribute(RenderQueueConfig(config), config), std::nullopt);
}

// ---- Numbers ------------------------------------------------------------------------------

struct RangeCase {
  const char* name;
  int low;
  int high;
};

constexpr RangeCase kRanges[] = {
    {"DelaySeconds", 0, 900},
    {"MaximumMessageSize", 1024, 1048576},
    {"MessageRetentionPeriod", 60, 1209600},
    {"ReceiveMessageWaitTimeSeconds", 0, 20},
    {"VisibilityTimeout", 0, 43200},
    {"KmsDataKeyReusePeriodSeconds", 60, 86400},
};

TEST(ApplyQueueAttributesTest, NumberRanges) {
  for (const RangeCase& range : kRanges) {
    SCOPED_TRACE(range.name);
    const std::string error = std::string("Invalid value for the parameter ") + range.name + ".";
    for (int good : {range.low, range.high, (range.low + range.high) / 2}) {
      const QueueConfig config = MustApply({{range.name, std::to_string(good)}});
      EXPECT_EQ(RenderQueueConfig(config).count(range.name) == 0
                    ? std::to_string(*config.kms_data_key_reuse_period_seconds)
                    : RenderQueueConfig(config).at(range.name),
                std::to_string(good));
    }
    for (int bad : {range.low - 1, range.high + 1}) {
      EXPECT_STATUS(Set({{range.name, std::to_string(bad)}}), kInvalidAttributeValue, error);
    }
    for (const char* bad : {"", "abc", "1.5", "1e3", " 30", "30 ", "+30", "0x10", "--1",
                            "99999999999999999999", "2147483648"}) {
      EXPECT_STATUS(Set({{range.name, bad}}), kInvalidAttributeValue, error) << bad;
    }
  }
}

TEST(ApplyQueueAttributesTest, AppliesNumbers) {
  const QueueConfig config = MustApply({{"DelaySeconds", "15"},
                                        {"MaximumMessageSize", "2048"},
                                        {"MessageRetentionPeriod", "60"},
                                        {"ReceiveMessageWaitTimeSeconds", "20"},
                                        {"VisibilityTimeout", "0"}});
  EXPECT_EQ(config.delay_seconds, 15);
  EXPECT_EQ(config.maximum_message_size, 2048);
  EXPECT_EQ(config.message_retention_period, 60);
  EXPECT_EQ(config.receive_message_wait_time_seconds, 20);
  EXPECT_EQ(config.visibility_timeout, 0);
}

TEST(ApplyQueueAttributesTest, EmptyMapIsNoOp) {
  QueueConfig config = Fifo();
  EXPECT_OK(ApplyQueueAttributes({}, false, &config));
  EXPECT_EQ(config, Fifo());
}

TEST(ApplyQueueAttributesTest, LeavesConfigUntouchedOnError) {
  QueueConfig config = Standard();
  config.visibility_timeout = 77;
  const QueueConfig before = config;
  // "DelaySeconds" is valid and comes first; "VisibilityTimeout" is not.
  EXPECT_CODE(
      ApplyQueueAttributes({{"DelaySeconds", "5"}, {"VisibilityTimeout", "-1"}}, false, &config),
      kInvalidAttributeValue);
  EXPECT_EQ(config, before);
  EXPECT_CODE(ApplyQueueAttributes({{"DelaySeconds", "5"}, {"Bogus", "1"}}, false, &config),
              kInvalidAttributeName);
  EXPECT_EQ(config, before);
  EXPECT_CODE(ApplyQueueAttributes({{"KmsMasterKeyId", "k"}, {"SqsManagedSseEnabled", "true"}},
                                   false, &config),
              kInvalidAttributeName);
  EXPECT_EQ(config, before);

  QueueConfig fifo = Fifo();
  const QueueConfig fifo_before = fifo;
  EXPECT_CODE(ApplyQueueAttributes({{"FifoThroughputLimit", "perMessageGroupId"}}, false, &fifo),
              kInvalidAttributeValue);
  EXPECT_EQ(fifo, fifo_before);
}

TEST(ApplyQueueAttributesTest, FirstErrorInNameOrder) {
  EXPECT_STATUS(Set({{"VisibilityTimeout", "x"}, {"DelaySeconds", "x"}}), kInvalidAttributeValue,
                "Invalid value for the parameter DelaySeconds.");
}

// ---- Names ----------------------------------------------------------------------------------

TEST(ApplyQueueAttributesTest, UnknownAndReadOnlyNames) {
  for (const char* name :
       {"Foobar", "All", "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible",
        "ApproximateNumberOfMessagesDelayed", "CreatedTimestamp", "LastModifiedTimestamp",
        "QueueArn", "delayseconds", ""}) {
    EXPECT_STATUS(Set({{name, "1"}}), kInvalidAttributeName,
                  std::string("Unknown Attribute ") + name + ".");
    EXPECT_STATUS(Apply({{name, "1"}}, true, Standard()), kInvalidAttributeName,
                  std::string("Unknown Attribute ") + name + ".");
    EXPECT_STATUS(Apply({{name, "1"}}, true, Fifo()), kInvalidAttributeName,
                  std::string("Unknown Attribute ") + name + ".");
  }
}

TEST(ApplyQueueAttributesTest, FifoOnlyAttributesOnStandardQueue) {
  for (bool creating : {true, false}) {
    EXPECT_STATUS(Apply({{"FifoQueue", "true"}}, creating, Standard()), kInvalidAttributeName,
                  "Unknown Attribute FifoQueue.");
    EXPECT_STATUS(Apply({{"FifoQueue", "false"}}, creating, Standard()), kInvalidAttributeName,
                  "Unknown Attribute FifoQueue.");
    EXPECT_STATUS(Apply({{"ContentBasedDeduplication", "true"}}, creating, Standard()),
                  kInvalidAttributeName, "Unknown Attribute ContentBasedDeduplication.");
    EXPECT_STATUS(Apply({{"DeduplicationScope", "queue"}}, creating, Standard()),
                  kInvalidAttributeName,
                  "You can specify the DeduplicationScope only when FifoQueue is set to "
                  "true.");
    EXPECT_STATUS(Apply({{"FifoThroughputLimit", "perQueue"}}, creating, Standard()),
                  kInvalidAttributeName,
                  "You can specify the FifoThroughputLimit only when FifoQueue is set to "
                  "true.");
  }
}

// ---- FifoQueue --------------------------------------------------------------------------------

TEST(ApplyQueueAttributesTest, FifoQueueOnCreate) {
  EXPECT_OK(Apply({{"FifoQueue", "true"}}, true, Fifo()));
  EXPECT_OK(Apply({{"FifoQueue", "True"}}, true, Fifo()));
  EXPECT_CODE(Apply({{"FifoQueue", "false"}}, true, Fifo()), kInvalidAttributeValue);
  EXPECT_STATUS(Apply({{"FifoQueue", "yes"}}, true, Fifo()), kInvalidAttributeValue,
                "Invalid value for the parameter FifoQueue.");
}

TEST(ApplyQueueAttributesTest, FifoQueueOnSet) {
  QueueConfig config;
  EXPECT_OK(Apply({{"FifoQueue", "true"}}, false, Fifo(), &config));
  EXPECT_EQ(config, Fifo());
  EXPECT_STATUS(Apply({{"FifoQueue", "false"}}, false, Fifo()), kInvalidAttributeValue,
                "Invalid value for the parameter FifoQueue. Reason: Modifying queue type is "
                "not supported.");
  EXPECT_STATUS(Apply({{"FifoQueue", "FALSE"}}, false, Fifo()), kInvalidAttributeValue,
                "Invalid value for the parameter FifoQueue. Reason: Modifying queue type is "
                "not supported.");
}

// ---- Booleans and enums -------------------------------------------------------------------------

TEST(ApplyQueueAttributesTest, BooleansAreCaseInsensitiveAndRenderedLowerCase) {
  QueueConfig config = MustApply({{"ContentBasedDeduplication", "True"}}, Fifo());
  EXPECT_TRUE(config.content_based_deduplication);
  EXPECT_EQ(RenderQueueConfig(config).at("ContentBasedDeduplication"), "true");
  config = MustApply({{"ContentBasedDeduplication", "FALSE"}}, config);
  EXPECT_FALSE(config.content_based_deduplication);
  config = MustApply({{"SqsManagedSseEnabled", "False"}});
  EXPECT_FALSE(config.sqs_managed_sse_enabled);
  EXPECT_EQ(RenderQueueConfig(config).at("SqsManagedSseEnabled"), "false");
  for (const char* bad : {"", "yes", "1", "0", "tru", " true"}) {
    EXPECT_STATUS(Set({{"SqsManagedSseEnabled", bad}}), kInvalidAttributeValue,
                  "Invalid value for the parameter SqsManagedSseEnabled.");
    EXPECT_STATUS(Set({{"ContentBasedDeduplication", bad}}, Fifo()), kInvalidAttributeValue,
                  "Invalid value for the parameter ContentBasedDeduplication.");
  }
}

TEST(ApplyQueueAttributesTest, DeduplicationScope) {
  EXPECT_EQ(MustApply({{"DeduplicationScope", "messageGroup"}}, Fifo()).deduplication_scope,
            "messageGroup");
  EXPECT_EQ(MustApply({{"DeduplicationScope", "queue"}}, Fifo()).deduplication_scope, "queue");
  for (const char* bad : {"", "Queue", "group", "messagegroup"}) {
    EXPECT_STATUS(Set({{"DeduplicationScope", bad}}, Fifo()), kInvalidAttributeValue,
                  "Invalid value for the parameter DeduplicationScope.");
  }
}

// A DeduplicationScope change reaches deduplication a minute after it was
// made: until then ids are matched with the scope in effect before it. The
// change is not an attribute: rendering and CreateQueue's comparison see the
// new scope at once.
TEST(DeduplicationKeyScopeTest, AChangeTakesEffectAMinuteLater) {
  const QueueConfig created =
      MustApply({{"DeduplicationScope", "messageGroup"}}, Fifo(), /*creating=*/true);
  EXPECT_EQ(DeduplicationKeyScope(created, 0), "messageGroup");
  EXPECT_EQ(created.deduplication_scope_before, "");

  QueueConfig changed = MustApply({{"DeduplicationScope", "queue"}}, created);
  NoteDeduplicationScopeChange(created, 1000, &changed);
  EXPECT_EQ(changed.deduplication_scope, "queue");
  EXPECT_EQ(DeduplicationKeyScope(changed, 1000), "messageGroup");
  EXPECT_EQ(DeduplicationKeyScope(changed, 1000 + kDeduplicationScopeChangeDelayMs - 1),
            "messageGroup");
  EXPECT_EQ(DeduplicationKeyScope(changed, 1000 + kDeduplicationScopeChangeDelayMs), "queue");
  EXPECT_EQ(RenderQueueConfig(changed),
            RenderQueueConfig(MustApply({{"DeduplicationScope", "queue"}}, Fifo(), true)));
  EXPECT_EQ(FirstDifferingAttribute({{"DeduplicationScope", "queue"}}, changed), std::nullopt);

  // Another attribute leaves the pending change as it was.
  QueueConfig other = MustApply({{"VisibilityTimeout", "5"}}, changed);
  NoteDeduplicationScopeChange(changed, 2000, &other);
  EXPECT_EQ(other.deduplication_scope_changed_ms, 1000);
  EXPECT_EQ(DeduplicationKeyScope(other, 2000), "messageGroup");

  // Changing back before the first change took effect: the scope in effect
  // (messageGroup) simply stays.
  QueueConfig back = MustApply({{"DeduplicationScope", "messageGroup"}}, changed);
  NoteDeduplicationScopeChange(changed, 3000, &back);
  EXPECT_EQ(DeduplicationKeyScope(back, 3000), "messageGroup");
  EXPECT_EQ(DeduplicationKeyScope(back, 3000 + kDeduplicationScopeChangeDelayMs), "messageGroup");

  // A second change after the first took effect starts from the new scope.
  const int64_t later = 1000 + kDeduplicationScopeChangeDelayMs + 5;
  QueueConfig again = MustApply({{"DeduplicationScope", "messageGroup"}}, changed);
  NoteDeduplicationScopeChange(changed, later, &again);
  EXPECT_EQ(again.deduplication_scope_before, "queue");
  EXPECT_EQ(DeduplicationKeyScope(again, later), "queue");
  EXPECT_EQ(DeduplicationKeyScope(again, later + kDeduplicationScopeChangeDelayMs),
            "messageGroup");
}

TEST(ApplyQueueAttributesTest, FifoThroughputLimit) {
  EXPECT_EQ(MustApply({{"FifoThroughputLimit", "perQueue"}}, Fifo()).fifo_throughput_limit,
            "perQueue");
  for (const char* bad : {"", "perqueue", "perMessageGroup"}) {
    EXPECT_STATUS(Set({{"FifoThroughputLimit", bad}}, Fifo()), kInvalidAttributeValue,
                  "Invalid value for the parameter FifoThroughputLimit.");
  }
}

TEST(ApplyQueueAttributesTest, PerMessageGroupIdNeedsMessageGroupScope) {
  const std::string error =
      "Invalid value for the parameter FifoThroughputLimit. Reason: perMessageGroupId is "
      "allowed only when DeduplicationScope is messageGroup.";
  EXPECT_STATUS(Set({{"FifoThroughputLimit", "perMessageGroupId"}}, Fifo()), kInvalidAttributeValue,
                error);
  // Both in one request: checked after the whole map is applied.
  const QueueConfig high = MustApply(
      {{"FifoThroughputLimit", "perMessageGroupId"}, {"DeduplicationScope", "messageGroup"}},
      Fifo());
  EXPECT_EQ(high.fifo_throughput_limit, "perMessageGroupId");
  EXPECT_EQ(high.deduplication_scope, "messageGroup");
  // Already messageGroup: FifoThroughputLimit alone is fine.
  EXPECT_OK(Set({{"FifoThroughputLimit", "perMessageGroupId"}},
                MustApply({{"DeduplicationScope", "messageGroup"}}, Fifo())));
  // Going back to queue scope while perMessageGroupId is set fails.
  EXPECT_STATUS(Set({{"DeduplicationScope", "queue"}}, high), kInvalidAttributeValue, error);
  EXPECT_OK(Set({{"DeduplicationScope", "queue"}, {"FifoThroughputLimit", "perQueue"}}, high));
  // messageGroup scope on its own is fine.
  EXPECT_OK(Set({{"DeduplicationScope", "messageGroup"}}, Fifo()));
}

// ---- Encryption
// -----------------------------------------------------------------------------------

TEST(ApplyQueueAttributesTest, KmsMasterKeyIdTurnsOffSqsSse) {
  const QueueConfig config = MustApply({{"KmsMasterKeyId", "alias/my-key"}});
  EXPECT_EQ(config.kms_master_key_id, "alias/my-key");
  EXPECT_FALSE(config.sqs_managed_sse_enabled);
  const AttributeMap rendered = RenderQueueConfig(config);
  EXPECT_EQ(rendered.at("KmsMasterKeyId"), "alias/my-key");
  EXPECT_EQ(rendered.at("KmsDataKeyReusePeriodSeconds"), "300");
  EXPECT_EQ(rendered.at("SqsManagedSseEnabled"), "false");
}

TEST(ApplyQueueAttributesTest, KmsAndSqsSseTogetherFail) {
  const std::string text =
      "You can use one type of server-side encryption (SSE) at one time. You can either "
      "enable KMS SSE or SQS SSE.";
  EXPECT_STATUS(Set({{"KmsMasterKeyId", "k"}, {"SqsManagedSseEnabled", "true"}}),
                kInvalidAttributeName, text);
  EXPECT_STATUS(
      Apply({{"KmsMasterKeyId", "k"}, {"SqsManagedSseEnabled", "TRUE"}}, true, Standard()),
      kInvalidAttributeName, text);
  EXPECT_OK(Set({{"KmsMasterKeyId", "k"}, {"SqsManagedSseEnabled", "false"}}));
  EXPECT_OK(Set({{"KmsMasterKeyId", ""}, {"SqsManagedSseEnabled", "true"}}));
}

TEST(ApplyQueueAttributesTest, KmsRemoval) {
  QueueConfig config =
      MustApply({{"KmsMasterKeyId", "k"}, {"KmsDataKeyReusePeriodSeconds", "600"}});
  EXPECT_EQ(RenderQueueConfig(config).at("KmsDataKeyReusePeriodSeconds"), "600");
  config = MustApply({{"KmsMasterKeyId", ""}, {"KmsDataKeyReusePeriodSeconds", "300"}}, config);
  EXPECT_TRUE(config.kms_master_key_id.empty());
  const AttributeMap rendered = RenderQueueConfig(config);
  EXPECT_EQ(rendered.count("KmsMasterKeyId"), 0u);
  EXPECT_EQ(rendered.count("KmsDataKeyReusePeriodSeconds"), 0u);
}

TEST(ApplyQueueAttributesTest, EnablingSqsSseDropsKmsKey) {
  QueueConfig config = MustApply({{"KmsMasterKeyId", "k"}});
  config = MustApply({{"SqsManagedSseEnabled", "true"}}, config);
  EXPECT_TRUE(config.sqs_managed_sse_enabled);
  EXPECT_TRUE(config.kms_master_key_id.empty());
}

// ---- Policy ------------------------------------------------------------------------------------

TEST(ApplyQueueAttributesTest, Policy) {
  const std::string doc = R"({"Version":"2012-10-17","Statement":[]})";
  QueueConfig config = MustApply({{"Policy", doc}});
  EXPECT_EQ(config.policy, doc);
  EXPECT_EQ(RenderQueueConfig(config).at("Policy"), doc);
  config = MustApply({{"Policy", ""}}, config);
  EXPECT_TRUE(config.policy.empty());
  EXPECT_EQ(RenderQueueConfig(config).count("Policy"), 0u);
  for (const char* bad : {"{", "[]", "\"str\"", "42", "null", "not json", "{}x"}) {
    EXPECT_STATUS(Set({{"Policy", bad}}), kInvalidAttributeValue,
                  "Invalid value for the parameter Policy.")
        << bad;
  }
}

TEST(ApplyQueueAttributesTest, PolicyLimits) {
  // At most 20 statements and 7 actions per statement (AWS's OverLimit texts).
  const auto policy = [](int statements, int actions) {
    std::string doc = R"({"Version":"2012-10-17","Statement":[)";
    for (int s = 0; s < statements; ++s) {
      doc += s == 0 ? "{" : ",{";
      doc += R"("Sid":"s)" + std::to_string(s) + R"(","Effect":"Allow","Principal":"*",)";
      doc += R"("Resource":"*","Action":[)";
      for (int a = 0; a < actions; ++a) doc += (a == 0 ? "" : ",") + std::string(R"("SQS:Get")");
      doc += "]}";
    }
    return doc + "]}";
  };
  EXPECT_TRUE(CheckPolicyLimits({{"Policy", policy(20, 7)}}).ok());
  EXPECT_STATUS(CheckPolicyLimits({{"Policy", policy(21, 1)}}), kOverLimit,
                "21 statements were found in the submitted policy, max allowed is 20");
  EXPECT_STATUS(CheckPolicyLimits({{"Policy", policy(2, 10)}}), kOverLimit,
                "10 actions were found in a statement from the submitted policy, max allowed is 7");
  // A single statement object and a single action string count as one; no
  // Policy, an empty one (removal) or a malformed one is not a limit error.
  EXPECT_TRUE(CheckPolicyLimits({{"Policy", R"({"Statement":{"Action":"SQS:*"}})"}}).ok());
  EXPECT_TRUE(CheckPolicyLimits({{"DelaySeconds", "1"}}).ok());
  EXPECT_TRUE(CheckPolicyLimits({{"Policy", ""}}).ok());
  EXPECT_TRUE(CheckPolicyLimits({{"Policy", "{"}}).ok());
  // ApplyQueueAttributes also re-applies stored attributes when a database
  // opens, so it keeps accepting what an older lqs stored.
  EXPECT_EQ(MustApply({{"Policy", policy(21, 10)}}).policy, policy(21, 10));
}

TEST(ApplyQueueAttributesTest, PolicySizePrincipalAndConditionQuotas) {
  // At most 8,192 bytes, checked before the document is parsed.
  const auto sized = [](size_t bytes) {
    const std::string head = R"({"Id":")", tail = R"(","Statement":[]})";
    return head + std::string(bytes - head.size() - tail.size(), 'x') + tail;
  };
  ASSERT_EQ(sized(8192).size(), 8192u);
  EXPECT_TRUE(CheckPolicyLimits({{"Policy", sized(8192)}}).ok());
  EXPECT_STATUS(CheckPolicyLimits({{"Policy", sized(8193)}}), kOverLimit,
                "The submitted policy is 8193 bytes long, max allowed is 8192");
  EXPECT_STATUS(CheckPolicyLimits({{"Policy", std::string(9000, '{')}}), kOverLimit,
                "The submitted policy is 9000 bytes long, max allowed is 8192");

  // At most 50 principals in all: each entry of Principal or NotPrincipal,
  // "*" counting one.
  const auto accounts = [](int n) {
    std::string list = "[";
    for (int i = 0; i < n; ++i) {
      list += (i == 0 ? "\"" : ",\"") + std::to_string(100000000000 + i) + "\"";
    }
    return list + "]";
  };
  const std::string two_statements =
      R"({"Statement":[{"Principal":{"AWS":)" + accounts(25) + R"(,"Service":"sns.amazonaws.com"},)" +
      R"("Action":"SQS:SendMessage"},{"NotPrincipal":{"AWS":)" + accounts(24) + R"(},)" +
      R"("Action":"SQS:*"})";
  EXPECT_TRUE(CheckPolicyLimits({{"Policy", two_statements + "]}"}}).ok());
  EXPECT_STATUS(
      CheckPolicyLimits({{"Policy", two_statements + R"(,{"Principal":"*","Action":"SQS:*"}]})"}}),
      kOverLimit, "51 principals were found in the submitted policy, max allowed is 50");

  // At most 10 conditions in all: each key under each operator.
  const auto conditions = [](int per_operator) {
    std::string keys;
    for (int i = 0; i < per_operator; ++i) {
      keys += (i == 0 ? "" : ",") + std::string(R"("aws:k)") + std::to_string(i) + R"(":"v")";
    }
    return R"({"StringEquals":{)" + keys + R"(},"ArnLike":{)" + keys + "}}";
  };
  EXPECT_TRUE(
      CheckPolicyLimits({{"Policy", R"({"Statement":{"Condition":)" + conditions(5) + "}}"}}).ok());
  EXPECT_STATUS(CheckPolicyLimits({{"Policy", R"({"Statement":[{"Condition":)" + conditions(5) +
                                                  R"(},{"Condition":{"Bool":{"aws:x":"true"}}}]})"}}),
                kOverLimit, "11 conditions were found in the submitted policy, max allowed is 10");
}

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
  QueueConfig config = Standard();
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
  EXPECT_EQ(status.code(), kInvalidParameterValue);
  EXPECT_EQ(status.message().rfind(
                "Value " + eleven + " for parameter RedriveAllowPolicy is invalid. Reason: ", 0),
            0u);
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
    EXPECT_EQ(status.code(), kInvalidParameterValue) << bad;
    EXPECT_EQ(status.message().rfind("Value " + bad +
                                         " for parameter RedriveAllowPolicy is invalid. "
                                         "Reason: ",
                                     0),
              0u)
        << status.message();
  }
}

TEST(RedriveAllowPolicyJsonTest, Format) {
  EXPECT_EQ(RedriveAllowPolicyJson(RedriveAllowPolicy{"allowAll", {}}),
            R"({"redrivePermission":"allowAll"})");
  EXPECT_EQ(RedriveAllowPolicyJson(RedriveAllowPolicy{"byQueue", {"a", "b"}}),
            R"({"redrivePermission":"byQueue","sourceQueueArns":["a","b"]})");
}

// ---- CreateQueue idempotency
// ------------------------------------------------------------------------

TEST(FirstDifferingAttributeTest, NoAttributesNeverDiffer) {
  EXPECT_EQ(FirstDifferingAttribute({}, Standard()), std::nullopt);
}

TEST(FirstDifferingAttributeTest, ComparesOnlyRequested) {
  QueueConfig current = MustApply({{"ReceiveMessageWaitTimeSeconds", "1"}, {"DelaySeconds", "1"}});
  EXPECT_EQ(FirstDifferingAttribute({{"DelaySeconds", "1"}}, current), std::nullopt);
  EXPECT_EQ(FirstDifferingAttribute({{"ReceiveMessageWaitTimeSeconds", "1"}, {"DelaySeconds", "2"}},
                                    current),
            "DelaySeconds");
  current = MustApply({{"DelaySeconds", "2"}}, current);
  EXPECT_EQ(FirstDifferingAttribute({{"ReceiveMessageWaitTimeSeconds", "1"}, {"DelaySeconds", "2"}},
                                    current),
            std::nullopt);
  EXPECT_EQ(FirstDifferingAttribute({{"ReceiveMessageWaitTimeSeconds", "1"}, {"DelaySeconds", "1"}},
                                    current),
            "DelaySeconds");
}

TEST(FirstDifferingAttributeTest, DefaultsCompareEqual) {
  EXPECT_EQ(FirstDifferingAttribute({{"VisibilityTimeout", "30"},
                                     {"MaximumMessageSize", "1048576"},
                                     {"SqsManagedSseEnabled", "true"}},
                                    Standard()),
            std::nullopt);
  EXPECT_EQ(FirstDifferingAttribute({{"VisibilityTimeout", "31"}}, Standard()),
            "VisibilityTimeout");
}

TEST(FirstDifferingAttributeTest, FirstInNameOrder) {
  EXPECT_EQ(
      FirstDifferingAttribute({{"VisibilityTimeout", "1"}, {"DelaySeconds", "1"}}, Standard()),
      "DelaySeconds");
}

TEST(FirstDifferingAttributeTest, NormalisedBooleans) {
  QueueConfig current = Fifo();
  current.content_based_deduplication = true;
  EXPECT_EQ(FirstDifferingAttribute({{"FifoQueue", "True"}, {"ContentBasedDeduplication", "TRUE"}},
                                    current),
            std::nullopt);
  EXPECT_EQ(FirstDifferingAttribute({{"ContentBasedDeduplication", "false"}}, current),
            "ContentBasedDeduplication");
}

TEST(FirstDifferingAttributeTest, RedrivePolicyComparedAsJson) {
  QueueConfig current = Standard();
  current.redrive_policy = RedrivePolicy{kDlqArn, 5};
  const std::string reordered =
      R"({"maxReceiveCount":"5", "deadLetterTargetArn":")" + std::string(kDlqArn) + R"("})";
  EXPECT_EQ(FirstDifferingAttribute({{"RedrivePolicy", reordered}}, current), std::nullopt);
  const std::string other =
      R"({"maxReceiveCount":6,"deadLetterTargetArn":")" + std::string(kDlqArn) + R"("})";
  EXPECT_EQ(FirstDifferingAttribute({{"RedrivePolicy", other}}, current), "RedrivePolicy");
  EXPECT_EQ(FirstDifferingAttribute({{"RedrivePolicy", ""}}, current), "RedrivePolicy");
  EXPECT_EQ(FirstDifferingAttribute({{"RedrivePolicy", ""}}, Standard()), std::nullopt);
}

TEST(FirstDifferingAttributeTest, PolicyComparedAsJson) {
  QueueConfig current = Standard();
  current.policy = R"({"Version":"2012-10-17","Statement":[]})";
  EXPECT_EQ(FirstDifferingAttribute({{"Policy", R"({ "Version" : "2012-10-17", "Statement":[] })"}},
                                    current),
            std::nullopt);
  EXPECT_EQ(FirstDifferingAttribute({{"Policy", R"({"Version":"2008-10-17"})"}}, current),
            "Policy");
}

TEST(FirstDifferingAttributeTest, KmsAttributes) {
  QueueConfig current = MustApply({{"KmsMasterKeyId", "k"}});
  EXPECT_EQ(FirstDifferingAttribute({{"KmsMasterKeyId", "k"},
                                     {"KmsDataKeyReusePeriodSeconds", "300"},
                                     {"SqsManagedSseEnabled", "false"}},
                                    current),
            std::nullopt);
  EXPECT_EQ(FirstDifferingAttribute({{"KmsMasterKeyId", "other"}}, current), "KmsMasterKeyId");
  EXPECT_EQ(FirstDifferingAttribute({{"SqsManagedSseEnabled", "true"}}, current),
            "SqsManagedSseEnabled");
  EXPECT_EQ(FirstDifferingAttribute({{"KmsDataKeyReusePeriodSeconds", "600"}}, current),
            "KmsDataKeyReusePeriodSeconds");
}

// Without a key the reuse period is not an attribute of the queue (it is not
// rendered), so it never differs: an empty KmsMasterKeyId in the same request
// drops the period it sets (fuzz finding queue_attributes-kms-reuse-with-empty-key).
TEST(FirstDifferingAttributeTest, ReusePeriodWithoutAKeyNeverDiffers) {
  const AttributeMap requested = {{"KmsDataKeyReusePeriodSeconds", "1024"},
                                  {"KmsMasterKeyId", ""},
                                  {"MaximumMessageSize", "1024"}};
  const QueueConfig config = MustApply(requested);
  EXPECT_EQ(RenderQueueConfig(config).count("KmsDataKeyReusePeriodSeconds"), 0u);
  EXPECT_EQ(FirstDifferingAttribute(requested, config), std::nullopt);
  EXPECT_EQ(FirstDifferingAttribute({{"KmsDataKeyReusePeriodSeconds", "60"}}, Standard()),
            std::nullopt);
}

TEST(FirstDifferingAttributeTest, FifoAttributes) {
  const QueueConfig current = Fifo();
  EXPECT_EQ(FirstDifferingAttribute(
                {{"DeduplicationScope", "queue"}, {"FifoThroughputLimit", "perQueue"}}, current),
            std::nullopt);
  EXPECT_EQ(FirstDifferingAttribute({{"DeduplicationScope", "messageGroup"}}, current),
            "DeduplicationScope");
  EXPECT_EQ(FirstDifferingAttribute({{"FifoQueue", "false"}}, current), "FifoQueue");
}

// ---- GetQueueAttributes names
// --------------------------------------------------------------------------

TEST(ValidateAttributeNamesTest, KnownNames) {
  EXPECT_OK(ValidateAttributeNames({}));
  EXPECT_OK(ValidateAttributeNames({"All",
                                    "Policy",
                                    "VisibilityTimeout",
                                    "MaximumMessageSize",
                                    "MessageRetentionPeriod",
                                    "ApproximateNumberOfMessages",
                                    "ApproximateNumberOfMessagesNotVisible",
                                    "CreatedTimestamp",
                                    "LastModifiedTimestamp",
                                    "QueueArn",
                                    "ApproximateNumberOfMessagesDelayed",
                                    "DelaySeconds",
                                    "ReceiveMessageWaitTimeSeconds",
                                    "RedrivePolicy",
                                    "FifoQueue",
                                    "ContentBasedDeduplication",
                                    "KmsMasterKeyId",
                                    "KmsDataKeyReusePeriodSeconds",
                                    "DeduplicationScope",
                                    "FifoThroughputLimit",
                                    "RedriveAllowPolicy",
                                    "SqsManagedSseEnabled"}));
}

TEST(ValidateAttributeNamesTest, UnknownName) {
  EXPECT_STATUS(ValidateAttributeNames({"All", "Foobar"}), kInvalidAttributeName,
                "Unknown Attribute Foobar.");
  EXPECT_STATUS(ValidateAttributeNames({"all"}), kInvalidAttributeName, "Unknown Attribute all.");
  EXPECT_STATUS(ValidateAttributeNames({"SentTimestamp"}), kInvalidAttributeName,
                "Unknown Attribute SentTimestamp.");
}

// ---- AddPermission / RemovePermission
// -------------------------------------------------------------------

StatusOr<std::string> Add(const std::string& policy, const std::string& label,
                          const std::vector<std::string>& accounts,
                          const std::vector<std::string>& actions) {
  return PolicyAddPermission(policy, kQueueArn, "111111111111", label, accounts, actions);
}

TEST(PolicyAddPermissionTest, FirstStatementSingleValues) {
  const StatusOr<std::string> policy = Add("", "MyLabel", {"111111111111"}, {"ReceiveMessage"});
  ASSERT_TRUE(policy.ok()) << policy.status().ToString();
  EXPECT_EQ(*policy, R"({"Version":"2008-10-17",)"
                     R"("Id":"arn:aws:sqs:us-east-1:111111111111:my-queue/SQSDefaultPolicy",)"
                     R"("Statement":[{"Sid":"MyLabel","Effect":"Allow",)"
                     R"("Principal":{"AWS":"arn:aws:iam::111111111111:root"},)"
                     R"("Action":"SQS:ReceiveMessage",)"
                     R"("Resource":"arn:aws:sqs:us-east-1:111111111111:my-queue"}]})");
}

TEST(PolicyAddPermissionTest, SeveralValuesBecomeArrays) {
  const StatusOr<std::string> policy =
      Add("", "L", {"111111111111", "222222222222"}, {"SendMessage", "DeleteMessage"});
  ASSERT_TRUE(policy.ok());
  EXPECT_NE(policy->find(R"("Principal":{"AWS":["arn:aws:iam::111111111111:root",)"
                         R"("arn:aws:iam::222222222222:root"]})"),
            std::string::npos)
      << *policy;
  EXPECT_NE(policy->find(R"("Action":["SQS:SendMessage","SQS:DeleteMessage"])"), std::string::npos)
      << *policy;
}

TEST(PolicyAddPermissionTest, WildcardAction) {
  const StatusOr<std::string> policy = Add("", "L", {"111111111111"}, {"*"});
  ASSERT_TRUE(policy.ok());
  EXPECT_NE(policy->find(R"("Action":"SQS:*")"), std::string::npos);
}

TEST(PolicyAddPermissionTest, TwentyStatementsAtMost) {
  StatusOr<std::string> policy = std::string();
  for (int i = 0; i < 20; ++i) {
    policy = Add(*policy, "L" + std::to_string(i), {"111111111111"}, {"SendMessage"});
    ASSERT_TRUE(policy.ok()) << policy.status().ToString();
  }
  EXPECT_STATUS(Add(*policy, "L20", {"111111111111"}, {"SendMessage"}).status(), kOverLimit,
                "21 statements were found in the submitted policy, max allowed is 20");
}

TEST(PolicyAddPermissionTest, ResultingPolicyWithinPrincipalAndSizeQuotas) {
  // 50 principals in all; the 51st is refused.
  std::vector<std::string> fifty;
  for (int i = 0; i < 50; ++i) fifty.push_back(std::to_string(100000000000 + i));
  const StatusOr<std::string> full = Add("", "Fifty", fifty, {"SendMessage"});
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  EXPECT_STATUS(Add(*full, "One", {"111111111111"}, {"SendMessage"}).status(), kOverLimit,
                "51 principals were found in the submitted policy, max allowed is 50");

  // Long labels with seven actions each reach 8,192 bytes before 20
  // statements.
  StatusOr<std::string> policy = std::string();
  int added = 0;
  for (; added < 20; ++added) {
    StatusOr<std::string> next = Add(
        *policy, std::string(78, 'L') + std::to_string(10 + added), {"111111111111"},
        {"ChangeMessageVisibilityBatch", "ChangeMessageVisibility", "DeleteMessageBatch",
         "GetQueueAttributes", "SendMessageBatch", "ListDeadLetterSourceQueues", "ReceiveMessage"});
    if (!next.ok()) {
      EXPECT_EQ(next.status().code(), lqs::ErrorCode::kOverLimit);
      EXPECT_NE(next.status().message().find("bytes long, max allowed is 8192"), std::string::npos)
          << next.status().message();
      break;
    }
    EXPECT_LE(next->size(), 8192u);
    policy = std::move(next);
  }
  EXPECT_GT(added, 10);
  EXPECT_LT(added, 20);
}

TEST(PolicyAddPermissionTest, AppendsToExistingPolicy) {
  const StatusOr<std::string> first = Add("", "A", {"111111111111"}, {"SendMessage"});
  ASSERT_TRUE(first.ok());
  const StatusOr<std::string> second = Add(*first, "B", {"222222222222"}, {"ReceiveMessage"});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->rfind(R"({"Version":"2008-10-17","Id":)", 0), 0u) << *second;
  EXPECT_NE(second->find(R"("Sid":"A")"), std::string::npos);
  EXPECT_NE(second->find(R"("Sid":"B")"), std::string::npos);
  EXPECT_LT(second->find(R"("Sid":"A")"), second->find(R"("Sid":"B")"));
}

TEST(PolicyAddPermissionTest, ExistingUserPolicyIsKept) {
  const std::string user = R"({"Version":"2012-10-17","Statement":{"Sid":"Own","Effect":"Deny"}})";
  const StatusOr<std::string> policy = Add(user, "New", {"111111111111"}, {"SendMessage"});
  ASSERT_TRUE(policy.ok());
  EXPECT_EQ(policy->rfind(R"({"Version":"2012-10-17","Statement":[{"Sid":"Own","Effect":"Deny"},)"
                          R"({"Sid":"New")",
                          0),
            0u)
      << *policy;
  EXPECT_CODE(Add(user, "Own", {"111111111111"}, {"SendMessage"}).status(), kInvalidParameterValue);
}

TEST(PolicyAddPermissionTest, DuplicateLabel) {
  const StatusOr<std::string> first = Add("", "Dup", {"111111111111"}, {"SendMessage"});
  ASSERT_TRUE(first.ok());
  EXPECT_STATUS(Add(*first, "Dup", {"111111111111"}, {"SendMessage"}).status(),
                kInvalidParameterValue,
                "Value Dup for parameter Label is invalid. Reason: Already exists.");
}

TEST(PolicyAddPermissionTest, InvalidLabel) {
  for (const std::string& bad :
       {std::string(""), std::string(81, 'l'), std::string("has space"), std::string("a.b")}) {
    const Status status = Add("", bad, {"111111111111"}, {"SendMessage"}).status();
    EXPECT_EQ(status.code(), kInvalidParameterValue) << bad;
    EXPECT_EQ(status.message().rfind("Value " + bad + " for parameter Label is invalid.", 0), 0u);
  }
  EXPECT_TRUE(Add("", std::string(80, 'l'), {"111111111111"}, {"SendMessage"}).ok());
  EXPECT_TRUE(Add("", "a_B-9", {"111111111111"}, {"SendMessage"}).ok());
}

TEST(PolicyAddPermissionTest, EmptyListsAndBadValues) {
  EXPECT_CODE(Add("", "L", {}, {"SendMessage"}).status(), kInvalidParameterValue);
  EXPECT_CODE(Add("", "L", {"111111111111"}, {}).status(), kInvalidParameterValue);
  EXPECT_CODE(Add("", "L", {"1234"}, {"SendMessage"}).status(), kInvalidParameterValue);
  EXPECT_CODE(Add("", "L", {"arn:aws:iam::111111111111:root"}, {"SendMessage"}).status(),
              kInvalidParameterValue);
  for (const char* bad : {"sendmessage", "SQS:SendMessage", "Foo", "", "sqs:*"}) {
    EXPECT_CODE(Add("", "L", {"111111111111"}, {bad}).status(), kInvalidParameterValue) << bad;
  }
}

// Every action another account can be granted, the batch actions by name
// too (granting SendMessage also grants SendMessageBatch, but naming the
// batch action is not refused).
TEST(PolicyAddPermissionTest, GrantableActionNamesAccepted) {
  for (const char* action :
       {"GetQueueUrl", "GetQueueAttributes", "PurgeQueue", "SendMessage", "SendMessageBatch",
        "ReceiveMessage", "DeleteMessage", "DeleteMessageBatch", "ChangeMessageVisibility",
        "ChangeMessageVisibilityBatch", "ListDeadLetterSourceQueues", "*"}) {
    const StatusOr<std::string> policy = Add("", "L", {"111111111111"}, {action});
    ASSERT_TRUE(policy.ok()) << action << ": " << policy.status().ToString();
    EXPECT_NE(policy->find(std::string(R"("Action":"SQS:)") + action + "\""), std::string::npos)
        << *policy;
  }
}

// The actions to which cross-account permissions don't apply (developer
// guide, "Limitations of Amazon SQS custom policies").
TEST(PolicyAddPermissionTest, OwnerOnlyActionsRefused) {
  for (const char* action :
       {"AddPermission", "CancelMessageMoveTask", "CreateQueue", "DeleteQueue",
        "ListMessageMoveTasks", "ListQueues", "ListQueueTags", "RemovePermission",
        "SetQueueAttributes", "StartMessageMoveTask", "TagQueue", "UntagQueue"}) {
    EXPECT_STATUS(Add("", "L", {"111111111111"}, {action}).status(), kInvalidParameterValue,
                  std::string("Value SQS:") + action +
                      " for parameter ActionName is invalid. Reason: Only the queue owner is "
                      "allowed to invoke this action.");
  }
  // Among grantable ones, the first offending action in request order is
  // named; an unknown name keeps its own error.
  EXPECT_STATUS(Add("", "L", {"111111111111"}, {"SendMessage", "TagQueue", "Foo"}).status(),
                kInvalidParameterValue,
                "Value SQS:TagQueue for parameter ActionName is invalid. Reason: Only the queue "
                "owner is allowed to invoke this action.");
  EXPECT_STATUS(Add("", "L", {"111111111111"}, {"Foo", "TagQueue"}).status(),
                kInvalidParameterValue,
                "Value Foo for parameter ActionName is invalid. Reason: Must be an SQS action "
                "name or *.");
  // Nothing is added to an existing policy.
  const StatusOr<std::string> first = Add("", "A", {"111111111111"}, {"SendMessage"});
  ASSERT_TRUE(first.ok());
  EXPECT_CODE(Add(*first, "B", {"111111111111"}, {"ReceiveMessage", "DeleteQueue"}).status(),
              kInvalidParameterValue);
}

TEST(PolicyAddPermissionTest, MoreThanSevenActionsIsOverLimit) {
  const std::vector<std::string> seven = {
      "SendMessage",        "ReceiveMessage", "DeleteMessage", "ChangeMessageVisibility",
      "GetQueueAttributes", "GetQueueUrl",    "PurgeQueue"};
  EXPECT_TRUE(Add("", "L", {"111111111111"}, seven).ok());
  std::vector<std::string> eight = seven;
  eight.push_back("ListQueueTags");
  EXPECT_CODE(Add("", "L", {"111111111111"}, eight).status(), ErrorCode::kOverLimit);
}

TEST(PolicyRemovePermissionTest, RemovesStatement) {
  const StatusOr<std::string> one = Add("", "A", {"111111111111"}, {"SendMessage"});
  ASSERT_TRUE(one.ok());
  const StatusOr<std::string> two = Add(*one, "B", {"111111111111"}, {"ReceiveMessage"});
  ASSERT_TRUE(two.ok());
  const StatusOr<std::string> removed = PolicyRemovePermission(*two, "B");
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, *one);
}

TEST(PolicyRemovePermissionTest, LastStatementRemovesPolicy) {
  const StatusOr<std::string> one = Add("", "A", {"111111111111"}, {"SendMessage"});
  ASSERT_TRUE(one.ok());
  const StatusOr<std::string> removed = PolicyRemovePermission(*one, "A");
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, "");
}

TEST(PolicyRemovePermissionTest, UnknownLabel) {
  const std::string text = "Value X for parameter Label is invalid. Reason: can't find label.";
  EXPECT_STATUS(PolicyRemovePermission("", "X").status(), kInvalidParameterValue, text);
  const StatusOr<std::string> one = Add("", "A", {"111111111111"}, {"SendMessage"});
  ASSERT_TRUE(one.ok());
  EXPECT_STATUS(PolicyRemovePermission(*one, "X").status(), kInvalidParameterValue, text);
  EXPECT_STATUS(PolicyRemovePermission(R"({"Version":"2012-10-17"})", "X").status(),
                kInvalidParameterValue, text);
}

// ---- Tags
// -------------------------------------------------------------------------------------------------

TEST(ValidateTagsTest, Valid) {
  EXPECT_OK(ValidateTags({}, {{"k", ""}}, "q"));
  EXPECT_OK(ValidateTags({}, {{std::string(128, 'k'), std::string(256, 'v')}}, "q"));
  // 128 characters of two bytes each.
  std::string key;
  for (int i = 0; i < 128; ++i) key += "\xc3\xa9";
  EXPECT_OK(ValidateTags({}, {{key, "v"}}, "q"));
}

TEST(ValidateTagsTest, NoTags) {
  EXPECT_STATUS(ValidateTags({{"a", "b"}}, {}, "q"), ErrorCode::kMissingParameter,
                "The request must contain the parameter Tags.");
}

TEST(ValidateTagsTest, KeyAndValueLengths) {
  EXPECT_CODE(ValidateTags({}, {{"", "v"}}, "q"), kInvalidParameterValue);
  EXPECT_CODE(ValidateTags({}, {{std::string(129, 'k'), "v"}}, "q"), kInvalidParameterValue);
  EXPECT_CODE(ValidateTags({}, {{"k", std::string(257, 'v')}}, "q"), kInvalidParameterValue);
}

TEST(ValidateTagsTest, AtMostFifty) {
  TagMap existing;
  for (int i = 0; i < 49; ++i) existing["k" + std::to_string(i)] = "v";
  EXPECT_OK(ValidateTags(existing, {{"new", "v"}}, "q"));
  // Overwriting existing keys does not add to the count.
  existing["k49"] = "v";
  EXPECT_OK(ValidateTags(existing, {{"k0", "changed"}, {"k1", "changed"}}, "q"));
  EXPECT_STATUS(ValidateTags(existing, {{"new", "v"}}, "my-queue"), kInvalidParameterValue,
                "Too many tags added for queue my-queue.");
  TagMap fifty_one;
  for (int i = 0; i < 51; ++i) fifty_one["k" + std::to_string(i)] = "v";
  EXPECT_CODE(ValidateTags({}, fifty_one, "q"), kInvalidParameterValue);
}

}  // namespace
}  // namespace lqs::api
