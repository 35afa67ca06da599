// Tests for lib/api/message_rules.h: SendMessage and batch
// validation: ids, body, delay, message attributes, size.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lib/api/api_test_util.h"
#include "lib/api/message_rules.h"
#include "tests/testutil.h"

namespace lqs::api {
namespace {

using namespace test_util;  // NOLINT(google-build-using-namespace)
using ::lqs::testing::MessageStartsWith;

constexpr char kInvalidCharactersText[] =
    "Invalid characters found. Valid unicode characters are #x9 | #xA | #xD | "
    "#x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF";

// ---- SendMessage validation ----------------------------------------------------------

TEST(ValidateSendMessageTest, AcceptsSimpleMessages) {
  EXPECT_OK(ValidateSendMessage(Request("hello"), StandardQueue(), false));
  EXPECT_OK(ValidateSendMessage(FifoRequest("hello"), FifoQueue(), false));
  EXPECT_OK(ValidateSendMessage(FifoRequest("hello"), FifoQueue(), true));
}

TEST(ValidateSendMessageTest, FifoMissingGroupIdSingleIsMissingParameter) {
  SendMessageRequest request = FifoRequest("x");
  request.message_group_id.reset();
  EXPECT_STATUS(ValidateSendMessage(request, FifoQueue(), false), kMissingParameter,
                "The request must contain the parameter MessageGroupId.");
}

TEST(ValidateSendMessageTest, FifoMissingGroupIdInBatchIsInvalidParameterValue) {
  SendMessageRequest request = FifoRequest("x");
  request.message_group_id.reset();
  EXPECT_STATUS(ValidateSendMessage(request, FifoQueue(), true), kInvalidParameterValue,
                "The request must contain the parameter MessageGroupId.");
}

TEST(ValidateSendMessageTest, FifoMissingDedupIdWithoutContentBasedDedup) {
  SendMessageRequest request = FifoRequest("x");
  request.message_deduplication_id.reset();
  const std::string text =
      "The queue should either have ContentBasedDeduplication enabled or "
      "MessageDeduplicationId provided explicitly";
  EXPECT_STATUS(ValidateSendMessage(request, FifoQueue(false), false), kInvalidParameterValue,
                text);
  EXPECT_STATUS(ValidateSendMessage(request, FifoQueue(false), true), kInvalidParameterValue, text);
  EXPECT_OK(ValidateSendMessage(request, FifoQueue(true), false));
}

TEST(ValidateSendMessageTest, GroupIdCheckedBeforeDedupId) {
  SendMessageRequest request = Request("x");
  EXPECT_CODE(ValidateSendMessage(request, FifoQueue(), false), kMissingParameter);
}

TEST(ValidateSendMessageTest, PresenceCheckedBeforeBody) {
  SendMessageRequest request = Request("");
  EXPECT_STATUS(ValidateSendMessage(request, FifoQueue(), false), kMissingParameter,
                "The request must contain the parameter MessageGroupId.");
}

TEST(ValidateSendMessageTest, InvalidGroupIdOnAnyQueueType) {
  const std::string reason =
      " for parameter MessageGroupId is invalid. Reason: MessageGroupId can only include "
      "alphanumeric and punctuation characters. 1 to 128 in length.";
  for (const std::string& bad : {std::string(""), std::string(129, 'a'), std::string("has space"),
                                 std::string("\xc3\xa9")}) {
    SendMessageRequest fifo = FifoRequest("x");
    fifo.message_group_id = bad;
    EXPECT_STATUS(ValidateSendMessage(fifo, FifoQueue(), false), kInvalidParameterValue,
                  "Value " + bad + reason);
    SendMessageRequest standard = Request("x");
    standard.message_group_id = bad;
    EXPECT_STATUS(ValidateSendMessage(standard, StandardQueue(), false), kInvalidParameterValue,
                  "Value " + bad + reason);
  }
}

TEST(ValidateSendMessageTest, GroupIdOnStandardQueueIsAccepted) {
  SendMessageRequest request = Request("x");
  request.message_group_id = "tenant-1";  // fair queues (docs/sqs-reference.md §9.6)
  EXPECT_OK(ValidateSendMessage(request, StandardQueue(), false));
  request.message_group_id = std::string(128, '!');
  EXPECT_OK(ValidateSendMessage(request, StandardQueue(), false));
}

TEST(ValidateSendMessageTest, InvalidDedupId) {
  SendMessageRequest request = FifoRequest("x");
  request.message_deduplication_id = "tab\there";
  EXPECT_STATUS(ValidateSendMessage(request, FifoQueue(), false), kInvalidParameterValue,
                "Value tab\there for parameter MessageDeduplicationId is invalid. Reason: "
                "MessageDeduplicationId can only include alphanumeric and punctuation "
                "characters. 1 to 128 in length.");
}

TEST(ValidateSendMessageTest, GroupIdSyntaxBeforeDedupIdSyntax) {
  SendMessageRequest request = FifoRequest("x");
  request.message_group_id = "";
  request.message_deduplication_id = "";
  const Status status = ValidateSendMessage(request, FifoQueue(), false);
  EXPECT_NE(status.message().find("MessageGroupId"), std::string::npos);
}

TEST(ValidateSendMessageTest, DedupIdOnStandardQueue) {
  SendMessageRequest request = Request("x");
  request.message_deduplication_id = "d1";
  EXPECT_STATUS(ValidateSendMessage(request, StandardQueue(), false), kInvalidParameterValue,
                "Value d1 for parameter MessageDeduplicationId is invalid. Reason: The "
                "request includes a parameter that is not valid for this queue type.");
}

TEST(ValidateSendMessageTest, DedupIdSyntaxBeforeQueueTypeCheck) {
  SendMessageRequest request = Request("x");
  request.message_deduplication_id = "";
  const Status status = ValidateSendMessage(request, StandardQueue(), false);
  EXPECT_NE(status.message().find("1 to 128 in length"), std::string::npos);
}

TEST(ValidateSendMessageTest, EmptyBodyIsMissing) {
  EXPECT_STATUS(ValidateSendMessage(Request(""), StandardQueue(), false), kMissingParameter,
                "The request must contain the parameter MessageBody.");
  EXPECT_STATUS(ValidateSendMessage(FifoRequest(""), FifoQueue(), true), kMissingParameter,
                "The request must contain the parameter MessageBody.");
}

TEST(ValidateSendMessageTest, InvalidBodyCharacters) {
  EXPECT_STATUS(ValidateSendMessage(Request("a\x01z"), StandardQueue(), false),
                kInvalidMessageContents, kInvalidCharactersText);
  EXPECT_STATUS(ValidateSendMessage(Request("\xed\xa0\x80"), StandardQueue(), true),
                kInvalidMessageContents, kInvalidCharactersText);
  EXPECT_OK(ValidateSendMessage(Request("line\r\nnext\ttab"), StandardQueue(), false));
}

// SendMessage's error for a DelaySeconds outside 0..900.
std::string DelayOutOfRange(int delay) {
  return "Value " + std::to_string(delay) +
         " for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900.";
}

// SendMessage's error for a message larger than the queue's `limit` bytes.
std::string MessageTooLong(int limit) {
  return "One or more parameters are invalid. Reason: Message must be shorter than " +
         std::to_string(limit) + " bytes.";
}

TEST(ValidateSendMessageTest, DelaySecondsRange) {
  SendMessageRequest request = Request("x");
  request.delay_seconds = 0;
  EXPECT_OK(ValidateSendMessage(request, StandardQueue(), false));
  request.delay_seconds = 900;
  EXPECT_OK(ValidateSendMessage(request, StandardQueue(), false));
  request.delay_seconds = 901;
  EXPECT_STATUS(ValidateSendMessage(request, StandardQueue(), false), kInvalidParameterValue,
                DelayOutOfRange(901));
  request.delay_seconds = -1;
  EXPECT_STATUS(ValidateSendMessage(request, StandardQueue(), false), kInvalidParameterValue,
                DelayOutOfRange(-1));
}

TEST(ValidateSendMessageTest, FifoPerMessageDelay) {
  SendMessageRequest request = FifoRequest("x");
  request.delay_seconds = 0;
  EXPECT_OK(ValidateSendMessage(request, FifoQueue(), false));
  request.delay_seconds = 5;
  EXPECT_STATUS(ValidateSendMessage(request, FifoQueue(), false), kInvalidParameterValue,
                "Value 5 for parameter DelaySeconds is invalid. Reason: The request include "
                "parameter that is not valid for this queue type.");
  request.delay_seconds = 1000;  // range first
  EXPECT_STATUS(ValidateSendMessage(request, FifoQueue(), false), kInvalidParameterValue,
                DelayOutOfRange(1000));
}

TEST(ValidateSendMessageTest, BodyCheckedBeforeDelay) {
  SendMessageRequest request = Request("\x01");
  request.delay_seconds = 5000;
  EXPECT_CODE(ValidateSendMessage(request, StandardQueue(), false), kInvalidMessageContents);
}

TEST(ValidateSendMessageTest, TooManyAttributes) {
  SendMessageRequest request = Request("x");
  for (int i = 0; i < 10; ++i) {
    request.message_attributes[std::string("a").append(std::to_string(i))] = StringAttr("v");
  }
  EXPECT_OK(ValidateSendMessage(request, StandardQueue(), false));
  request.message_attributes["a10"] = StringAttr("v");
  EXPECT_STATUS(ValidateSendMessage(request, StandardQueue(), false), kInvalidParameterValue,
                "Number of message attributes [11] exceeds the allowed maximum [10].");
}

Status SendWithAttribute(const std::string& name, const MessageAttributeValue& value) {
  SendMessageRequest request = Request("x");
  request.message_attributes[name] = value;
  return ValidateSendMessage(request, StandardQueue(), false);
}

TEST(ValidateSendMessageTest, AttributeNameRules) {
  EXPECT_OK(SendWithAttribute("Az09_-.x", StringAttr("v")));
  EXPECT_OK(SendWithAttribute(std::string(256, 'n'), StringAttr("v")));
  EXPECT_OK(SendWithAttribute("AWSx", StringAttr("v")));
  EXPECT_OK(SendWithAttribute("AmazonX.y", StringAttr("v")));
  EXPECT_OK(SendWithAttribute("a.b.c", StringAttr("v")));
  // Letters and digits of any script, as AWS accepts them ("attr.1øßä").
  EXPECT_OK(SendWithAttribute("attr.1\xc3\xb8\xc3\x9f\xc3\xa4", StringAttr("v")));
  EXPECT_OK(SendWithAttribute("\xc3\xa9t\xc3\xa9", StringAttr("v")));
  EXPECT_OK(SendWithAttribute("\xd0\xb8\xd0\xbc\xd1\x8f", StringAttr("v")));  // имя
  EXPECT_OK(SendWithAttribute("\xe5\x90\x8d\xe5\x89\x8d", StringAttr("v")));  // 名前
  EXPECT_OK(SendWithAttribute("\xd9\xa3", StringAttr("v")));                  // Arabic-Indic 3
  // 256 characters (512 bytes) is the limit, not 256 bytes.
  std::string long_name;
  for (int i = 0; i < 256; ++i) long_name += "\xc3\xa9";
  EXPECT_OK(SendWithAttribute(long_name, StringAttr("v")));

  for (const std::string& bad : {std::string(""),
                                 std::string(257, 'n'),
                                 std::string("has space"),
                                 std::string("sl/ash"),
                                 std::string("Invalid-\xc2\xa7-attr"),
                                 std::string("Invalid-!-attr"),
                                 std::string("Invalid-?-attr"),
                                 std::string("Invalid-(-attr"),
                                 std::string("Invalid-\"-attr"),
                                 std::string("\xe2\x82\xac"),
                                 std::string("\xc3"),
                                 std::string("\xc3\xa9\xff"),
                                 long_name + "\xc3\xa9",
                                 std::string("AWS.x"),
                                 std::string("aws.x"),
                                 std::string("Aws.X"),
                                 std::string("Amazon.x"),
                                 std::string("AMAZON.x"),
                                 std::string("amazon.x"),
                                 std::string(".lead"),
                                 std::string("trail."),
                                 std::string("a..b"),
                                 std::string(".")}) {
    const Status status = SendWithAttribute(bad, StringAttr("v"));
    EXPECT_CODE(status, kInvalidParameterValue) << bad;
    EXPECT_TRUE(MessageStartsWith(
        status, "Value " + bad + " for parameter MessageAttributeName is invalid. Reason: "));
  }
}

TEST(ValidateSendMessageTest, AttributeDataTypeRules) {
  for (const char* type : {"String", "Number", "String.foo", "Number.int", "String.a.b"}) {
    EXPECT_OK(SendWithAttribute("a", StringAttr("1", type))) << type;
  }
  EXPECT_OK(SendWithAttribute("a", BinaryAttr("\x01", "Binary.png")));

  EXPECT_STATUS(SendWithAttribute("a", StringAttr("v", "")), kInvalidParameterValue,
                "The message attribute 'a' must contain non-empty message attribute type.");
  const std::string bad_type =
      "The type of message (user) attribute 'a' is invalid. You must use only the "
      "following supported type prefixes: Binary, Number, String.";
  for (const char* type :
       {"string", "Str", "Strings", "String.", "Integer", "Binary_x", "NUMBER", " String"}) {
    EXPECT_STATUS(SendWithAttribute("a", StringAttr("v", type)), kInvalidParameterValue, bad_type)
        << type;
  }
  const std::string long_type = "String." + std::string(250, 'x');  // 257 chars
  EXPECT_CODE(SendWithAttribute("a", StringAttr("v", long_type)), kInvalidParameterValue);
  EXPECT_OK(SendWithAttribute("a", StringAttr("v", long_type.substr(0, 256))));
}

TEST(ValidateSendMessageTest, AttributeValuesMustBeNonEmpty) {
  EXPECT_STATUS(SendWithAttribute("s", StringAttr("")), kInvalidParameterValue,
                "Message (user) attribute 's' must contain a non-empty value of type "
                "'String'.");
  EXPECT_STATUS(SendWithAttribute("n", NumberAttr("")), kInvalidParameterValue,
                "Message (user) attribute 'n' must contain a non-empty value of type "
                "'String'.");
  EXPECT_STATUS(SendWithAttribute("b", BinaryAttr("")), kInvalidParameterValue,
                "Message (user) attribute 'b' must contain a non-empty value of type "
                "'Binary'.");
}

TEST(ValidateSendMessageTest, AttributeValueMustMatchTransport) {
  MessageAttributeValue binary_with_string = BinaryAttr("\x01");
  binary_with_string.string_value = "s";
  EXPECT_CODE(SendWithAttribute("b", binary_with_string), kInvalidParameterValue);
  MessageAttributeValue string_with_binary = StringAttr("s");
  string_with_binary.binary_value = "\x01";
  EXPECT_CODE(SendWithAttribute("s", string_with_binary), kInvalidParameterValue);
}

TEST(ValidateSendMessageTest, BinaryValuesMayHoldAnyBytes) {
  EXPECT_OK(SendWithAttribute("b", BinaryAttr(std::string("\x00\xff\xfe\x01", 4))));
}

TEST(ValidateSendMessageTest, StringValueCharacters) {
  const Status status = SendWithAttribute("s", StringAttr("bad\x02"));
  EXPECT_CODE(status, kInvalidParameterValue);
  EXPECT_NE(status.message().find("'s'"), std::string::npos);
  EXPECT_CODE(SendWithAttribute("n", NumberAttr("\xff")), kInvalidParameterValue);
}

TEST(ValidateSendMessageTest, NumberValues) {
  for (const char* good :
       {"0", "-0", "42", "+42", "-17", "3.14", ".5", "5.", "1e10", "1E-5", "-2.5e+3", "00012",
        "1e126", "9.99e126", "1e-128", "12345678901234567890123456789012345678",
        "1234567890123456789012345678901234567800000"}) {
    EXPECT_OK(SendWithAttribute("n", NumberAttr(good))) << good;
  }
  const std::string cast_error =
      "Can't cast the value of message (user) attribute 'n' to a number.";
  for (const char* bad :
       {"abc", "1a", "--1", "+", ".", "1e", "1e+", "1.2.3", " 1", "1 ", "0x10", "NaN", "Infinity",
        "1e127", "1e-129", "123456789012345678901234567890123456789"}) {
    EXPECT_STATUS(SendWithAttribute("n", NumberAttr(bad)), kInvalidParameterValue, cast_error)
        << bad;
  }
  EXPECT_OK(SendWithAttribute("n", NumberAttr("7", "Number.int")));
  EXPECT_CODE(SendWithAttribute("n", NumberAttr("seven", "Number.int")), kInvalidParameterValue);
  EXPECT_OK(SendWithAttribute("s", StringAttr("seven", "String.int")));
}

TEST(ValidateSendMessageTest, AttributesCheckedInNameOrder) {
  SendMessageRequest request = Request("x");
  request.message_attributes["b"] = StringAttr("");
  request.message_attributes["a"] = BinaryAttr("");
  const Status status = ValidateSendMessage(request, StandardQueue(), false);
  EXPECT_NE(status.message().find("'a'"), std::string::npos) << status.message();
}

TEST(ValidateSendMessageTest, SystemAttributes) {
  SendMessageRequest request = Request("x");
  request.message_system_attributes["AWSTraceHeader"] = StringAttr("Root=1-abc");
  EXPECT_OK(ValidateSendMessage(request, StandardQueue(), false));

  request.message_system_attributes["AWSTraceHeader"] = StringAttr("Root=1-abc", "Binary");
  EXPECT_CODE(ValidateSendMessage(request, StandardQueue(), false), kInvalidParameterValue);
  request.message_system_attributes["AWSTraceHeader"] = StringAttr("Root", "String.x");
  EXPECT_CODE(ValidateSendMessage(request, StandardQueue(), false), kInvalidParameterValue);
  request.message_system_attributes["AWSTraceHeader"] = StringAttr("");
  EXPECT_CODE(ValidateSendMessage(request, StandardQueue(), false), kInvalidParameterValue);
  request.message_system_attributes["AWSTraceHeader"] = StringAttr("\x01");
  EXPECT_CODE(ValidateSendMessage(request, StandardQueue(), false), kInvalidParameterValue);

  request.message_system_attributes.clear();
  request.message_system_attributes["SenderId"] = StringAttr("AIDA");
  const Status status = ValidateSendMessage(request, StandardQueue(), false);
  EXPECT_CODE(status, kInvalidParameterValue);
  EXPECT_NE(status.message().find("SenderId"), std::string::npos);
}

TEST(ValidateSendMessageTest, UserAttributesBeforeSystemAttributes) {
  SendMessageRequest request = Request("x");
  request.message_attributes["a"] = StringAttr("");
  request.message_system_attributes["Bogus"] = StringAttr("v");
  const Status status = ValidateSendMessage(request, StandardQueue(), false);
  EXPECT_NE(status.message().find("'a'"), std::string::npos);
}

TEST(ValidateSendMessageTest, SizeLimitSingleAndBatch) {
  QueueConfig queue = StandardQueue();
  queue.maximum_message_size = 1024;
  SendMessageRequest request = Request(std::string(1024, 'x'));
  EXPECT_OK(ValidateSendMessage(request, queue, false));  // exactly the limit
  request.body.push_back('x');
  EXPECT_STATUS(ValidateSendMessage(request, queue, false), kInvalidParameterValue,
                MessageTooLong(1024));
  EXPECT_STATUS(ValidateSendMessage(request, queue, true), kInvalidParameterValue,
                "One or more parameters cannot be validated. Reason: Message must be "
                "shorter than 1024 bytes.");
}

TEST(ValidateSendMessageTest, SizeIncludesAttributes) {
  QueueConfig queue = StandardQueue();
  queue.maximum_message_size = 1024;
  SendMessageRequest request = Request(std::string(1000, 'x'));
  request.message_attributes["name"] = StringAttr(std::string(14, 'v'));  // 4+6+14 = 24
  EXPECT_OK(ValidateSendMessage(request, queue, false));
  request.message_attributes["name"] = StringAttr(std::string(15, 'v'));
  EXPECT_CODE(ValidateSendMessage(request, queue, false), kInvalidParameterValue);
  // System attributes do not count.
  request.message_attributes["name"] = StringAttr(std::string(14, 'v'));
  request.message_system_attributes["AWSTraceHeader"] = StringAttr(std::string(500, 'r'));
  EXPECT_OK(ValidateSendMessage(request, queue, false));
}

TEST(ValidateSendMessageTest, DefaultMaximumIsOneMebibyte) {
  SendMessageRequest request = Request(std::string(1048576, 'x'));
  EXPECT_OK(ValidateSendMessage(request, StandardQueue(), false));
  request.body.push_back('x');
  EXPECT_STATUS(ValidateSendMessage(request, StandardQueue(), false), kInvalidParameterValue,
                MessageTooLong(1048576));
}

TEST(ValidateSendMessageTest, AttributeErrorsBeforeSize) {
  QueueConfig queue = StandardQueue();
  queue.maximum_message_size = 1024;
  SendMessageRequest request = Request(std::string(2000, 'x'));
  request.message_attributes["AWS.bad"] = StringAttr("v");
  const Status status = ValidateSendMessage(request, queue, false);
  EXPECT_NE(status.message().find("MessageAttributeName"), std::string::npos);
}

// ---- Batch ids -----------------------------------------------------------------------

TEST(IsValidBatchEntryIdTest, Rules) {
  const std::string valid[] = {"a", "Msg_1-2", "5fea7756-0ea4-451a-a703-a558b933e274",
                               std::string(80, 'z')};
  for (const std::string& id : valid) EXPECT_TRUE(IsValidBatchEntryId(id)) << id;
  const std::string invalid[] = {"", std::string(81, 'z'), "a.b", "a b", "a:b", "\xc3\xa9"};
  for (const std::string& id : invalid) EXPECT_FALSE(IsValidBatchEntryId(id)) << id;
}

TEST(ValidateBatchIdsTest, Valid) {
  EXPECT_OK(ValidateBatchIds({"a"}, "SendMessageBatchRequestEntry"));
  EXPECT_OK(ValidateBatchIds({"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"},
                             "SendMessageBatchRequestEntry"));
}

TEST(ValidateBatchIdsTest, Empty) {
  EXPECT_STATUS(ValidateBatchIds({}, "SendMessageBatchRequestEntry"), kEmptyBatchRequest,
                "There should be at least one SendMessageBatchRequestEntry in the request.");
  EXPECT_STATUS(ValidateBatchIds({}, "DeleteMessageBatchRequestEntry"), kEmptyBatchRequest,
                "There should be at least one DeleteMessageBatchRequestEntry in the "
                "request.");
}

TEST(ValidateBatchIdsTest, TooMany) {
  std::vector<std::string> ids;
  for (int i = 0; i < 11; ++i) ids.push_back("id" + std::to_string(i));
  EXPECT_STATUS(ValidateBatchIds(ids, "E"), kTooManyEntriesInBatchRequest,
                "Maximum number of entries per request are 10. You have sent 11.");
}

TEST(ValidateBatchIdsTest, InvalidId) {
  EXPECT_STATUS(ValidateBatchIds({"ok", "not ok"}, "E"), kInvalidBatchEntryId,
                "A batch entry id can only contain alphanumeric characters, hyphens and "
                "underscores. It can be at most 80 letters long.");
}

TEST(ValidateBatchIdsTest, NotDistinct) {
  EXPECT_STATUS(ValidateBatchIds({"a", "b", "a"}, "E"), kBatchEntryIdsNotDistinct,
                "Id a repeated.");
  // Ids are case-sensitive.
  EXPECT_OK(ValidateBatchIds({"a", "A"}, "E"));
}

TEST(ValidateBatchIdsTest, Order) {
  // Too many wins over invalid and duplicate ids.
  std::vector<std::string> ids(11, "bad id");
  EXPECT_CODE(ValidateBatchIds(ids, "E"), kTooManyEntriesInBatchRequest);
  // Invalid wins over duplicates, even when the duplicate comes first.
  EXPECT_CODE(ValidateBatchIds({"a", "a", "bad id"}, "E"), kInvalidBatchEntryId);
}

}  // namespace
}  // namespace lqs::api
