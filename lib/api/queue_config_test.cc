// Tests for lib/api/queue_config.h: queue names, attribute validation
// and application, rendering, CreateQueue idempotency, GetQueueAttributes
// names and tags.

#include "lib/api/queue_config.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lib/api/api_test_util.h"
#include "tests/testutil.h"

namespace lqs::api {
namespace {

using namespace test_util;  // NOLINT(google-build-using-namespace)

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
  EXPECT_EQ(RenderQueueConfig(StandardQueue()), expected);
}

TEST(RenderQueueConfigTest, FreshFifoQueue) {
  QueueConfig config = FifoQueue();
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
  QueueConfig config = StandardQueue();
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
  QueueConfig config = StandardQueue();
  config.kms_data_key_reuse_period_seconds = 600;
  EXPECT_EQ(RenderQueueConfig(config).count("KmsDataKeyReusePeriodSeconds"), 0u);
  config.kms_master_key_id = "key";
  EXPECT_EQ(RenderQueueConfig(config).at("KmsDataKeyReusePeriodSeconds"), "600");
}

TEST(RenderQueueConfigTest, NeverRendersReadOnlyAttributes) {
  const AttributeMap rendered = RenderQueueConfig(FifoQueue());
  for (const char* name : {"QueueArn", "CreatedTimestamp", "LastModifiedTimestamp",
                           "ApproximateNumberOfMessages", "All"}) {
    EXPECT_EQ(rendered.count(name), 0u) << name;
  }
}

TEST(RenderQueueConfigTest, RoundTripsThroughApply) {
  QueueConfig config = FifoQueue();
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
  QueueConfig copy = FifoQueue();
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
  QueueConfig config = FifoQueue();
  EXPECT_OK(ApplyQueueAttributes({}, false, &config));
  EXPECT_EQ(config, FifoQueue());
}

TEST(ApplyQueueAttributesTest, LeavesConfigUntouchedOnError) {
  QueueConfig config = StandardQueue();
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

  QueueConfig fifo = FifoQueue();
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
    EXPECT_STATUS(Apply({{name, "1"}}, true, StandardQueue()), kInvalidAttributeName,
                  std::string("Unknown Attribute ") + name + ".");
    EXPECT_STATUS(Apply({{name, "1"}}, true, FifoQueue()), kInvalidAttributeName,
                  std::string("Unknown Attribute ") + name + ".");
  }
}

TEST(ApplyQueueAttributesTest, FifoOnlyAttributesOnStandardQueue) {
  for (bool creating : {true, false}) {
    EXPECT_STATUS(Apply({{"FifoQueue", "true"}}, creating, StandardQueue()), kInvalidAttributeName,
                  "Unknown Attribute FifoQueue.");
    EXPECT_STATUS(Apply({{"FifoQueue", "false"}}, creating, StandardQueue()), kInvalidAttributeName,
                  "Unknown Attribute FifoQueue.");
    EXPECT_STATUS(Apply({{"ContentBasedDeduplication", "true"}}, creating, StandardQueue()),
                  kInvalidAttributeName, "Unknown Attribute ContentBasedDeduplication.");
    EXPECT_STATUS(Apply({{"DeduplicationScope", "queue"}}, creating, StandardQueue()),
                  kInvalidAttributeName,
                  "You can specify the DeduplicationScope only when FifoQueue is set to "
                  "true.");
    EXPECT_STATUS(Apply({{"FifoThroughputLimit", "perQueue"}}, creating, StandardQueue()),
                  kInvalidAttributeName,
                  "You can specify the FifoThroughputLimit only when FifoQueue is set to "
                  "true.");
  }
}

// ---- FifoQueue --------------------------------------------------------------------------------

TEST(ApplyQueueAttributesTest, FifoQueueOnCreate) {
  EXPECT_OK(Apply({{"FifoQueue", "true"}}, true, FifoQueue()));
  EXPECT_OK(Apply({{"FifoQueue", "True"}}, true, FifoQueue()));
  EXPECT_CODE(Apply({{"FifoQueue", "false"}}, true, FifoQueue()), kInvalidAttributeValue);
  EXPECT_STATUS(Apply({{"FifoQueue", "yes"}}, true, FifoQueue()), kInvalidAttributeValue,
                "Invalid value for the parameter FifoQueue.");
}

TEST(ApplyQueueAttributesTest, FifoQueueOnSet) {
  QueueConfig config;
  EXPECT_OK(Apply({{"FifoQueue", "true"}}, false, FifoQueue(), &config));
  EXPECT_EQ(config, FifoQueue());
  EXPECT_STATUS(Apply({{"FifoQueue", "false"}}, false, FifoQueue()), kInvalidAttributeValue,
                "Invalid value for the parameter FifoQueue. Reason: Modifying queue type is "
                "not supported.");
  EXPECT_STATUS(Apply({{"FifoQueue", "FALSE"}}, false, FifoQueue()), kInvalidAttributeValue,
                "Invalid value for the parameter FifoQueue. Reason: Modifying queue type is "
                "not supported.");
}

// ---- Booleans and enums -------------------------------------------------------------------------

TEST(ApplyQueueAttributesTest, BooleansAreCaseInsensitiveAndRenderedLowerCase) {
  QueueConfig config = MustApply({{"ContentBasedDeduplication", "True"}}, FifoQueue());
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
    EXPECT_STATUS(Set({{"ContentBasedDeduplication", bad}}, FifoQueue()), kInvalidAttributeValue,
                  "Invalid value for the parameter ContentBasedDeduplication.");
  }
}

TEST(ApplyQueueAttributesTest, DeduplicationScope) {
  EXPECT_EQ(MustApply({{"DeduplicationScope", "messageGroup"}}, FifoQueue()).deduplication_scope,
            "messageGroup");
  EXPECT_EQ(MustApply({{"DeduplicationScope", "queue"}}, FifoQueue()).deduplication_scope, "queue");
  for (const char* bad : {"", "Queue", "group", "messagegroup"}) {
    EXPECT_STATUS(Set({{"DeduplicationScope", bad}}, FifoQueue()), kInvalidAttributeValue,
                  "Invalid value for the parameter DeduplicationScope.");
  }
}

// A DeduplicationScope change reaches deduplication a minute after it was
// made: until then ids are matched with the scope in effect before it. The
// change is not an attribute: rendering and CreateQueue's comparison see the
// new scope at once.
TEST(DeduplicationKeyScopeTest, AChangeTakesEffectAMinuteLater) {
  const QueueConfig created =
      MustApply({{"DeduplicationScope", "messageGroup"}}, FifoQueue(), /*creating=*/true);
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
            RenderQueueConfig(MustApply({{"DeduplicationScope", "queue"}}, FifoQueue(), true)));
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
  EXPECT_EQ(DeduplicationKeyScope(again, later + kDeduplicationScopeChangeDelayMs), "messageGroup");
}

TEST(ApplyQueueAttributesTest, FifoThroughputLimit) {
  EXPECT_EQ(MustApply({{"FifoThroughputLimit", "perQueue"}}, FifoQueue()).fifo_throughput_limit,
            "perQueue");
  for (const char* bad : {"", "perqueue", "perMessageGroup"}) {
    EXPECT_STATUS(Set({{"FifoThroughputLimit", bad}}, FifoQueue()), kInvalidAttributeValue,
                  "Invalid value for the parameter FifoThroughputLimit.");
  }
}

TEST(ApplyQueueAttributesTest, PerMessageGroupIdNeedsMessageGroupScope) {
  const std::string error =
      "Invalid value for the parameter FifoThroughputLimit. Reason: perMessageGroupId is "
      "allowed only when DeduplicationScope is messageGroup.";
  EXPECT_STATUS(Set({{"FifoThroughputLimit", "perMessageGroupId"}}, FifoQueue()),
                kInvalidAttributeValue, error);
  // Both in one request: checked after the whole map is applied.
  const QueueConfig high = MustApply(
      {{"FifoThroughputLimit", "perMessageGroupId"}, {"DeduplicationScope", "messageGroup"}},
      FifoQueue());
  EXPECT_EQ(high.fifo_throughput_limit, "perMessageGroupId");
  EXPECT_EQ(high.deduplication_scope, "messageGroup");
  // Already messageGroup: FifoThroughputLimit alone is fine.
  EXPECT_OK(Set({{"FifoThroughputLimit", "perMessageGroupId"}},
                MustApply({{"DeduplicationScope", "messageGroup"}}, FifoQueue())));
  // Going back to queue scope while perMessageGroupId is set fails.
  EXPECT_STATUS(Set({{"DeduplicationScope", "queue"}}, high), kInvalidAttributeValue, error);
  EXPECT_OK(Set({{"DeduplicationScope", "queue"}, {"FifoThroughputLimit", "perQueue"}}, high));
  // messageGroup scope on its own is fine.
  EXPECT_OK(Set({{"DeduplicationScope", "messageGroup"}}, FifoQueue()));
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
      Apply({{"KmsMasterKeyId", "k"}, {"SqsManagedSseEnabled", "TRUE"}}, true, StandardQueue()),
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

// ---- CreateQueue idempotency
// ------------------------------------------------------------------------

TEST(FirstDifferingAttributeTest, NoAttributesNeverDiffer) {
  EXPECT_EQ(FirstDifferingAttribute({}, StandardQueue()), std::nullopt);
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
                                    StandardQueue()),
            std::nullopt);
  EXPECT_EQ(FirstDifferingAttribute({{"VisibilityTimeout", "31"}}, StandardQueue()),
            "VisibilityTimeout");
}

TEST(FirstDifferingAttributeTest, FirstInNameOrder) {
  EXPECT_EQ(
      FirstDifferingAttribute({{"VisibilityTimeout", "1"}, {"DelaySeconds", "1"}}, StandardQueue()),
      "DelaySeconds");
}

TEST(FirstDifferingAttributeTest, NormalisedBooleans) {
  QueueConfig current = FifoQueue();
  current.content_based_deduplication = true;
  EXPECT_EQ(FirstDifferingAttribute({{"FifoQueue", "True"}, {"ContentBasedDeduplication", "TRUE"}},
                                    current),
            std::nullopt);
  EXPECT_EQ(FirstDifferingAttribute({{"ContentBasedDeduplication", "false"}}, current),
            "ContentBasedDeduplication");
}

TEST(FirstDifferingAttributeTest, RedrivePolicyComparedAsJson) {
  QueueConfig current = StandardQueue();
  current.redrive_policy = RedrivePolicy{kDlqArn, 5};
  const std::string reordered =
      R"({"maxReceiveCount":"5", "deadLetterTargetArn":")" + std::string(kDlqArn) + R"("})";
  EXPECT_EQ(FirstDifferingAttribute({{"RedrivePolicy", reordered}}, current), std::nullopt);
  const std::string other =
      R"({"maxReceiveCount":6,"deadLetterTargetArn":")" + std::string(kDlqArn) + R"("})";
  EXPECT_EQ(FirstDifferingAttribute({{"RedrivePolicy", other}}, current), "RedrivePolicy");
  EXPECT_EQ(FirstDifferingAttribute({{"RedrivePolicy", ""}}, current), "RedrivePolicy");
  EXPECT_EQ(FirstDifferingAttribute({{"RedrivePolicy", ""}}, StandardQueue()), std::nullopt);
}

TEST(FirstDifferingAttributeTest, PolicyComparedAsJson) {
  QueueConfig current = StandardQueue();
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
  EXPECT_EQ(FirstDifferingAttribute({{"KmsDataKeyReusePeriodSeconds", "60"}}, StandardQueue()),
            std::nullopt);
}

TEST(FirstDifferingAttributeTest, FifoAttributes) {
  const QueueConfig current = FifoQueue();
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
  EXPECT_STATUS(ValidateTags({{"a", "b"}}, {}, "q"), kMissingParameter,
                "The request must contain the parameter Tags.");
}

TEST(ValidateTagsTest, KeyAndValueLengths) {
  EXPECT_CODE(ValidateTags({}, {{"", "v"}}, "q"), kInvalidParameterValue);
  EXPECT_CODE(ValidateTags({}, {{std::string(129, 'k'), "v"}}, "q"), kInvalidParameterValue);
  EXPECT_CODE(ValidateTags({}, {{"k", std::string(257, 'v')}}, "q"), kInvalidParameterValue);
}

TEST(ValidateTagsTest, AtMostFifty) {
  TagMap existing;
  for (int i = 0; i < 49; ++i) existing.emplace(std::string("k").append(std::to_string(i)), "v");
  EXPECT_OK(ValidateTags(existing, {{"new", "v"}}, "q"));
  // Overwriting existing keys does not add to the count.
  existing["k49"] = "v";
  EXPECT_OK(ValidateTags(existing, {{"k0", "changed"}, {"k1", "changed"}}, "q"));
  EXPECT_STATUS(ValidateTags(existing, {{"new", "v"}}, "my-queue"), kInvalidParameterValue,
                "Too many tags added for queue my-queue.");
  TagMap fifty_one;
  for (int i = 0; i < 51; ++i) fifty_one.emplace(std::string("k").append(std::to_string(i)), "v");
  EXPECT_CODE(ValidateTags({}, fifty_one, "q"), kInvalidParameterValue);
}

}  // namespace
}  // namespace lqs::api
