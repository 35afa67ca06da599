// Tests for lib/api/message_rules.h: digests, message text, size accounting,
// SendMessage / batch / receive validation and the receive-side filters.

#include "lib/api/message_rules.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace lqs::api {
namespace {

MessageAttributeValue StringAttr(std::string value, std::string type = "String") {
  MessageAttributeValue attr;
  attr.data_type = std::move(type);
  attr.string_value = std::move(value);
  return attr;
}

MessageAttributeValue NumberAttr(std::string value, std::string type = "Number") {
  return StringAttr(std::move(value), std::move(type));
}

MessageAttributeValue BinaryAttr(std::string value, std::string type = "Binary") {
  MessageAttributeValue attr;
  attr.data_type = std::move(type);
  attr.binary_value = std::move(value);
  return attr;
}

SendMessageRequest Request(std::string body) {
  SendMessageRequest request;
  request.body = std::move(body);
  return request;
}

QueueConfig StandardQueue() { return QueueConfig{}; }

QueueConfig FifoQueue(bool content_based_deduplication = false) {
  QueueConfig queue;
  queue.fifo = true;
  queue.content_based_deduplication = content_based_deduplication;
  return queue;
}

SendMessageRequest FifoRequest(std::string body) {
  SendMessageRequest request = Request(std::move(body));
  request.message_group_id = "group-1";
  request.message_deduplication_id = "dedup-1";
  return request;
}

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
constexpr ErrorCode kMissingParameter = ErrorCode::kMissingParameter;

constexpr char kInvalidCharactersText[] =
    "Invalid characters found. Valid unicode characters are #x9 | #xA | #xD | "
    "#x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF";

// ---- Digests -------------------------------------------------------------------

TEST(Md5HexTest, KnownValues) {
  EXPECT_EQ(Md5Hex("test"), "098f6bcd4621d373cade4e832627b4f6");  // sqs-api.md §4.6
  EXPECT_EQ(Md5Hex(""), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(Md5Hex(std::string("a\0b", 3)), Md5Hex(std::string("a\0b", 3)));
  EXPECT_NE(Md5Hex(std::string("a\0b", 3)), Md5Hex("a"));
}

TEST(Md5HexTest, IsLowerCaseHexOf32Chars) {
  const std::string digest = Md5Hex("hello world");
  EXPECT_EQ(digest.size(), 32u);
  EXPECT_EQ(digest.find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(Sha256HexTest, KnownValues) {
  EXPECT_EQ(Sha256Hex("test"), "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc").size(), 64u);
}

// Every vector of the table in sqs-api.md §4.6.
TEST(Md5OfMessageAttributesTest, VectorBodyTest) {
  EXPECT_EQ(Md5Hex("test"), "098f6bcd4621d373cade4e832627b4f6");
}

TEST(Md5OfMessageAttributesTest, VectorNumberTimestamp) {
  MessageAttributeMap attributes{{"timestamp", NumberAttr("1493147359900")}};
  EXPECT_EQ(Md5OfMessageAttributes(attributes), "235c5c510d26fb653d073faed50ae77c");
}

TEST(Md5OfMessageAttributesTest, VectorSystemAttributeTraceHeader) {
  MessageAttributeMap attributes{
      {"AWSTraceHeader",
       StringAttr("Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;"
                  "Sampled=1")}};
  EXPECT_EQ(Md5OfMessageAttributes(attributes), "5ae4d5d7636402d80f4eb6d213245a88");
}

TEST(Md5OfMessageAttributesTest, VectorBinary) {
  MessageAttributeMap attributes{
      {"attr1", BinaryAttr("traceparent\x1e"
                           "00-774062d6c37081a5a0b9b5b88e30627c-2d2482211f6489da-01")}};
  EXPECT_EQ(Md5OfMessageAttributes(attributes), "8cbe4db156db8a94db8b801b7addb984");
}

MessageAttributeMap KenobiAttributes() {
  return {{"Help.Me", StringAttr("Me")},
          {"Hello", StringAttr("There")},
          {"General", StringAttr("Kenobi")}};
}

TEST(Md5OfMessageAttributesTest, VectorThreeAttributes) {
  EXPECT_EQ(Md5OfMessageAttributes(KenobiAttributes()), "4c360f3fdafd970e05fae2f149d997f5");
}

TEST(Md5OfMessageAttributesTest, VectorSubsetGeneralHello) {
  MessageAttributeMap attributes{{"General", StringAttr("Kenobi")}, {"Hello", StringAttr("There")}};
  EXPECT_EQ(Md5OfMessageAttributes(attributes), "fca026605781cb4126a1e9044df24232");
}

TEST(Md5OfMessageAttributesTest, VectorSubsetHello) {
  MessageAttributeMap attributes{{"Hello", StringAttr("There")}};
  EXPECT_EQ(Md5OfMessageAttributes(attributes), "a311262e065454b75da111d535b8dacd");
}

TEST(Md5OfMessageAttributesTest, VectorSubsetHelloHelpMe) {
  MessageAttributeMap attributes{{"Hello", StringAttr("There")}, {"Help.Me", StringAttr("Me")}};
  EXPECT_EQ(Md5OfMessageAttributes(attributes), "83fee93c1bcd8b9a5a923ffacdc636c7");
}

TEST(Md5OfMessageAttributesTest, VectorFooBar) {
  MessageAttributeMap attributes{{"Foo", StringAttr("Bar")}};
  EXPECT_EQ(Md5OfMessageAttributes(attributes), "ae7155c6026991b6d54b11589678bf9c");
}

TEST(Md5OfMessageAttributesTest, EmptyMapGivesEmptyString) {
  EXPECT_EQ(Md5OfMessageAttributes({}), "");
}

TEST(Md5OfMessageAttributesTest, StreamLayout) {
  // One String attribute: u32-BE name, u32-BE type, 0x01, u32-BE value.
  const std::string stream = std::string(
                                 "\0\0\0\x03"
                                 "Foo",
                                 7) +
                             std::string(
                                 "\0\0\0\x06"
                                 "String",
                                 10) +
                             std::string("\x01", 1) +
                             std::string(
                                 "\0\0\0\x03"
                                 "Bar",
                                 7);
  EXPECT_EQ(Md5OfMessageAttributes({{"Foo", StringAttr("Bar")}}), Md5Hex(stream));

  // Binary: transport byte 2, raw bytes (including NUL).
  const std::string raw("\x00\xff\x01", 3);
  const std::string binary_stream = std::string(
                                        "\0\0\0\x01"
                                        "b",
                                        5) +
                                    std::string(
                                        "\0\0\0\x0a"
                                        "Binary.png",
                                        14) +
                                    std::string("\x02", 1) + std::string("\0\0\0\x03", 4) + raw;
  EXPECT_EQ(Md5OfMessageAttributes({{"b", BinaryAttr(raw, "Binary.png")}}), Md5Hex(binary_stream));
}

TEST(Md5OfMessageAttributesTest, CustomTypeSuffixIsHashed) {
  EXPECT_NE(Md5OfMessageAttributes({{"n", NumberAttr("1")}}),
            Md5OfMessageAttributes({{"n", NumberAttr("1", "Number.int")}}));
}

TEST(Md5OfMessageAttributesTest, NumberAndStringShareTransportByte) {
  // Only the DataType bytes differ, so a Number and a String with the same
  // type text would hash alike; check the transport byte via the layout.
  const std::string stream = std::string(
                                 "\0\0\0\x01"
                                 "n",
                                 5) +
                             std::string(
                                 "\0\0\0\x06"
                                 "Number",
                                 10) +
                             std::string("\x01", 1) +
                             std::string(
                                 "\0\0\0\x02"
                                 "42",
                                 6);
  EXPECT_EQ(Md5OfMessageAttributes({{"n", NumberAttr("42")}}), Md5Hex(stream));
}

// ---- Size ------------------------------------------------------------------------

TEST(MessageSizeTest, BodyOnly) {
  EXPECT_EQ(MessageSize(Request("hello")), 5);
  EXPECT_EQ(MessageSize(Request("\xc3\xa9")), 2);  // é: two UTF-8 bytes
}

TEST(MessageSizeTest, CountsNameTypeAndValue) {
  SendMessageRequest request = Request("body");                          // 4
  request.message_attributes["name"] = StringAttr("value");              // 4 + 6 + 5
  request.message_attributes["bin"] = BinaryAttr(std::string(10, 'x'));  // 3 + 6 + 10
  request.message_attributes["n"] = NumberAttr("12", "Number.int");      // 1 + 10 + 2
  EXPECT_EQ(MessageSize(request), 4 + 15 + 19 + 13);
}

TEST(MessageSizeTest, SystemAttributesDoNotCount) {
  SendMessageRequest request = Request("body");
  request.message_system_attributes["AWSTraceHeader"] = StringAttr("Root=1-2-3");
  EXPECT_EQ(MessageSize(request), 4);
}

// ---- Message text -------------------------------------------------------------------

TEST(IsValidMessageTextTest, AcceptsXmlChars) {
  EXPECT_TRUE(IsValidMessageText(""));
  EXPECT_TRUE(IsValidMessageText("plain ascii ~!@#"));
  EXPECT_TRUE(IsValidMessageText("\t\n\r"));
  EXPECT_TRUE(IsValidMessageText("\x20"));
  EXPECT_TRUE(IsValidMessageText("\xc3\xa9t\xc3\xa9"));  // été
  EXPECT_TRUE(IsValidMessageText("\xed\x9f\xbf"));       // U+D7FF
  EXPECT_TRUE(IsValidMessageText("\xee\x80\x80"));       // U+E000
  EXPECT_TRUE(IsValidMessageText("\xef\xbf\xbd"));       // U+FFFD
  EXPECT_TRUE(IsValidMessageText("\xf0\x90\x80\x80"));   // U+10000
  EXPECT_TRUE(IsValidMessageText("\xf0\x9f\x98\x80"));   // emoji
  EXPECT_TRUE(IsValidMessageText("\xf4\x8f\xbf\xbf"));   // U+10FFFF
}

TEST(IsValidMessageTextTest, RejectsControlCharacters) {
  EXPECT_FALSE(IsValidMessageText(std::string("a\0b", 3)));
  EXPECT_FALSE(IsValidMessageText("\x01"));
  EXPECT_FALSE(IsValidMessageText("\x08"));
  EXPECT_FALSE(IsValidMessageText("\x0b"));
  EXPECT_FALSE(IsValidMessageText("\x0c"));
  EXPECT_FALSE(IsValidMessageText("\x1f"));
}

TEST(IsValidMessageTextTest, EveryAsciiByteAloneAndAmongOthers) {
  for (int b = 0; b < 0x80; ++b) {
    const bool valid = b == 0x9 || b == 0xA || b == 0xD || b >= 0x20;
    const std::string alone(1, static_cast<char>(b));
    EXPECT_EQ(IsValidMessageText(alone), valid) << "byte " << b;
    EXPECT_EQ(IsValidMessageText("ab" + alone +
                                 "\xc3\xa9"
                                 "cd"),
              valid)
        << "byte " << b;
    EXPECT_EQ(IsValidMessageText("\xc3\xa9" + alone + "xyz"), valid) << "byte " << b;
  }
  EXPECT_FALSE(IsValidMessageText("plain text, then \xc3"));          // truncated at the end
  EXPECT_FALSE(IsValidMessageText("plain text, then \xef\xbf\xbe"));  // U+FFFE
}

// The eight-bytes-at-a-time path: every byte value in every lane of the
// first and the second word, inside otherwise printable text.
TEST(IsValidMessageTextTest, EveryByteInEveryLaneOfTheWordPath) {
  for (int b = 0; b < 0x100; ++b) {
    // Alone, a byte from 0x80 up is a malformed UTF-8 sequence.
    const bool valid = b == 0x9 || b == 0xA || b == 0xD || (b >= 0x20 && b < 0x80);
    for (size_t lane = 0; lane < 16; ++lane) {
      std::string text(19, 'x');
      text[lane] = static_cast<char>(b);
      EXPECT_EQ(IsValidMessageText(text), valid) << "byte " << b << " at " << lane;
    }
  }
  EXPECT_TRUE(IsValidMessageText(std::string(64, '\x7f')));
  EXPECT_TRUE(IsValidMessageText(std::string(64, ' ')));
  EXPECT_TRUE(IsValidMessageText("12345678\xc3\xa9" + std::string(20, '~')));
}

TEST(IsValidMessageTextTest, RejectsNonCharacters) {
  EXPECT_FALSE(IsValidMessageText("\xef\xbf\xbe"));  // U+FFFE
  EXPECT_FALSE(IsValidMessageText("\xef\xbf\xbf"));  // U+FFFF
}

TEST(IsValidMessageTextTest, RejectsMalformedUtf8) {
  EXPECT_FALSE(IsValidMessageText("\x80"));              // lone continuation
  EXPECT_FALSE(IsValidMessageText("\xc3"));              // truncated
  EXPECT_FALSE(IsValidMessageText("\xc3x"));             // bad continuation
  EXPECT_FALSE(IsValidMessageText("\xe2\x82"));          // truncated 3-byte
  EXPECT_FALSE(IsValidMessageText("\xc0\xaf"));          // overlong '/'
  EXPECT_FALSE(IsValidMessageText("\xe0\x80\xaf"));      // overlong
  EXPECT_FALSE(IsValidMessageText("\xf0\x80\x80\xaf"));  // overlong
  EXPECT_FALSE(IsValidMessageText("\xf4\x90\x80\x80"));  // > U+10FFFF
  EXPECT_FALSE(IsValidMessageText("\xf8\x88\x80\x80\x80"));
  EXPECT_FALSE(IsValidMessageText("\xff"));
}

TEST(IsValidMessageTextTest, RejectsSurrogates) {
  EXPECT_FALSE(IsValidMessageText("\xed\xa0\x80"));              // U+D800
  EXPECT_FALSE(IsValidMessageText("\xed\xbf\xbf"));              // U+DFFF
  EXPECT_FALSE(IsValidMessageText("\xed\xa0\xbd\xed\xb8\x80"));  // CESU-8 pair
}

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
  request.message_group_id = "tenant-1";  // fair queues (sqs-api.md §8.11)
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
                ErrorCode::kInvalidMessageContents, kInvalidCharactersText);
  EXPECT_STATUS(ValidateSendMessage(Request("\xed\xa0\x80"), StandardQueue(), true),
                ErrorCode::kInvalidMessageContents, kInvalidCharactersText);
  EXPECT_OK(ValidateSendMessage(Request("line\r\nnext\ttab"), StandardQueue(), false));
}

TEST(ValidateSendMessageTest, DelaySecondsRange) {
  SendMessageRequest request = Request("x");
  request.delay_seconds = 0;
  EXPECT_OK(ValidateSendMessage(request, StandardQueue(), false));
  request.delay_seconds = 900;
  EXPECT_OK(ValidateSendMessage(request, StandardQueue(), false));
  request.delay_seconds = 901;
  EXPECT_STATUS(ValidateSendMessage(request, StandardQueue(), false), kInvalidParameterValue,
                "Value 901 for parameter DelaySeconds is invalid. Reason: DelaySeconds must "
                "be >= 0 and <= 900.");
  request.delay_seconds = -1;
  EXPECT_STATUS(ValidateSendMessage(request, StandardQueue(), false), kInvalidParameterValue,
                "Value -1 for parameter DelaySeconds is invalid. Reason: DelaySeconds must "
                "be >= 0 and <= 900.");
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
                "Value 1000 for parameter DelaySeconds is invalid. Reason: DelaySeconds must "
                "be >= 0 and <= 900.");
}

TEST(ValidateSendMessageTest, BodyCheckedBeforeDelay) {
  SendMessageRequest request = Request("\x01");
  request.delay_seconds = 5000;
  EXPECT_CODE(ValidateSendMessage(request, StandardQueue(), false),
              ErrorCode::kInvalidMessageContents);
}

TEST(ValidateSendMessageTest, TooManyAttributes) {
  SendMessageRequest request = Request("x");
  for (int i = 0; i < 10; ++i) {
    request.message_attributes["a" + std::to_string(i)] = StringAttr("v");
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
    EXPECT_EQ(status.code(), kInvalidParameterValue) << bad;
    EXPECT_EQ(status.message().rfind("Value " + bad +
                                         " for parameter MessageAttributeName "
                                         "is invalid. Reason: ",
                                     0),
              0u)
        << status.message();
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
  EXPECT_EQ(status.code(), kInvalidParameterValue);
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
  EXPECT_EQ(status.code(), kInvalidParameterValue);
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
                "One or more parameters are invalid. Reason: Message must be shorter than "
                "1024 bytes.");
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
                "One or more parameters are invalid. Reason: Message must be shorter than "
                "1048576 bytes.");
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
  EXPECT_TRUE(IsValidBatchEntryId("a"));
  EXPECT_TRUE(IsValidBatchEntryId("Msg_1-2"));
  EXPECT_TRUE(IsValidBatchEntryId("5fea7756-0ea4-451a-a703-a558b933e274"));
  EXPECT_TRUE(IsValidBatchEntryId(std::string(80, 'z')));
  EXPECT_FALSE(IsValidBatchEntryId(""));
  EXPECT_FALSE(IsValidBatchEntryId(std::string(81, 'z')));
  EXPECT_FALSE(IsValidBatchEntryId("a.b"));
  EXPECT_FALSE(IsValidBatchEntryId("a b"));
  EXPECT_FALSE(IsValidBatchEntryId("a:b"));
  EXPECT_FALSE(IsValidBatchEntryId("\xc3\xa9"));
}

TEST(ValidateBatchIdsTest, Valid) {
  EXPECT_OK(ValidateBatchIds({"a"}, "SendMessageBatchRequestEntry"));
  EXPECT_OK(ValidateBatchIds({"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"},
                             "SendMessageBatchRequestEntry"));
}

TEST(ValidateBatchIdsTest, Empty) {
  EXPECT_STATUS(ValidateBatchIds({}, "SendMessageBatchRequestEntry"), ErrorCode::kEmptyBatchRequest,
                "There should be at least one SendMessageBatchRequestEntry in the request.");
  EXPECT_STATUS(ValidateBatchIds({}, "DeleteMessageBatchRequestEntry"),
                ErrorCode::kEmptyBatchRequest,
                "There should be at least one DeleteMessageBatchRequestEntry in the "
                "request.");
}

TEST(ValidateBatchIdsTest, TooMany) {
  std::vector<std::string> ids;
  for (int i = 0; i < 11; ++i) ids.push_back("id" + std::to_string(i));
  EXPECT_STATUS(ValidateBatchIds(ids, "E"), ErrorCode::kTooManyEntriesInBatchRequest,
                "Maximum number of entries per request are 10. You have sent 11.");
}

TEST(ValidateBatchIdsTest, InvalidId) {
  EXPECT_STATUS(ValidateBatchIds({"ok", "not ok"}, "E"), ErrorCode::kInvalidBatchEntryId,
                "A batch entry id can only contain alphanumeric characters, hyphens and "
                "underscores. It can be at most 80 letters long.");
}

TEST(ValidateBatchIdsTest, NotDistinct) {
  EXPECT_STATUS(ValidateBatchIds({"a", "b", "a"}, "E"), ErrorCode::kBatchEntryIdsNotDistinct,
                "Id a repeated.");
  // Ids are case-sensitive.
  EXPECT_OK(ValidateBatchIds({"a", "A"}, "E"));
}

TEST(ValidateBatchIdsTest, Order) {
  // Too many wins over invalid and duplicate ids.
  std::vector<std::string> ids(11, "bad id");
  EXPECT_CODE(ValidateBatchIds(ids, "E"), ErrorCode::kTooManyEntriesInBatchRequest);
  // Invalid wins over duplicates, even when the duplicate comes first.
  EXPECT_CODE(ValidateBatchIds({"a", "a", "bad id"}, "E"), ErrorCode::kInvalidBatchEntryId);
}

// ---- Receive -------------------------------------------------------------------------

TEST(ValidateReceiveMessageTest, Defaults) { EXPECT_OK(ValidateReceiveMessage({})); }

TEST(ValidateReceiveMessageTest, MaxNumberOfMessages) {
  ReceiveMessageRequest request;
  request.max_number_of_messages = 10;
  EXPECT_OK(ValidateReceiveMessage(request));
  request.max_number_of_messages = 11;
  EXPECT_STATUS(ValidateReceiveMessage(request), kInvalidParameterValue,
                "Value 11 for parameter MaxNumberOfMessages is invalid. Reason: Must be "
                "between 1 and 10, if provided.");
  request.max_number_of_messages = 0;
  EXPECT_STATUS(ValidateReceiveMessage(request), kInvalidParameterValue,
                "Value 0 for parameter MaxNumberOfMessages is invalid. Reason: Must be "
                "between 1 and 10, if provided.");
}

TEST(ValidateReceiveMessageTest, WaitTimeSeconds) {
  ReceiveMessageRequest request;
  request.wait_time_seconds = 0;
  EXPECT_OK(ValidateReceiveMessage(request));
  request.wait_time_seconds = 20;
  EXPECT_OK(ValidateReceiveMessage(request));
  request.wait_time_seconds = 21;
  EXPECT_STATUS(ValidateReceiveMessage(request), kInvalidParameterValue,
                "Value 21 for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 "
                "and <= 20, if provided.");
  request.wait_time_seconds = -1;
  EXPECT_STATUS(ValidateReceiveMessage(request), kInvalidParameterValue,
                "Value -1 for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 "
                "and <= 20, if provided.");
}

TEST(ValidateReceiveMessageTest, VisibilityTimeout) {
  ReceiveMessageRequest request;
  request.visibility_timeout = 0;
  EXPECT_OK(ValidateReceiveMessage(request));
  request.visibility_timeout = 43200;
  EXPECT_OK(ValidateReceiveMessage(request));
  request.visibility_timeout = 43201;
  EXPECT_STATUS(ValidateReceiveMessage(request), kInvalidParameterValue,
                "Value 43201 for parameter VisibilityTimeout is invalid. Reason: Must be >= "
                "0 and <= 43200, if provided.");
  request.visibility_timeout = -5;
  EXPECT_CODE(ValidateReceiveMessage(request), kInvalidParameterValue);
}

TEST(ValidateReceiveMessageTest, ReceiveRequestAttemptId) {
  ReceiveMessageRequest request;
  request.receive_request_attempt_id = "attempt-1!";
  EXPECT_OK(ValidateReceiveMessage(request));
  request.receive_request_attempt_id = "";
  EXPECT_STATUS(ValidateReceiveMessage(request), kInvalidParameterValue,
                "Value  for parameter ReceiveRequestAttemptId is invalid. Reason: "
                "ReceiveRequestAttemptId can only include alphanumeric and punctuation "
                "characters. 1 to 128 in length.");
  request.receive_request_attempt_id = std::string(129, 'a');
  EXPECT_CODE(ValidateReceiveMessage(request), kInvalidParameterValue);
}

TEST(ValidateReceiveMessageTest, CheckOrder) {
  ReceiveMessageRequest request;
  request.max_number_of_messages = 0;
  request.wait_time_seconds = 99;
  const Status status = ValidateReceiveMessage(request);
  EXPECT_NE(status.message().find("MaxNumberOfMessages"), std::string::npos);
}

TEST(ValidateVisibilityTimeoutTest, Range) {
  EXPECT_OK(ValidateVisibilityTimeout(0));
  EXPECT_OK(ValidateVisibilityTimeout(43200));
  EXPECT_STATUS(ValidateVisibilityTimeout(43201), kInvalidParameterValue,
                "Value 43201 for parameter VisibilityTimeout is invalid. Reason: "
                "VisibilityTimeout must be >= 0 and <= 43200.");
  EXPECT_CODE(ValidateVisibilityTimeout(-1), kInvalidParameterValue);
  EXPECT_CODE(ValidateVisibilityTimeout(int64_t{1} << 40), kInvalidParameterValue);
}

// ---- Filters ----------------------------------------------------------------------------

TEST(MessageAttributeSelectedTest, EmptyFilterSelectsNothing) {
  EXPECT_FALSE(MessageAttributeSelected("Hello", {}));
}

TEST(MessageAttributeSelectedTest, Wildcards) {
  for (const char* all : {"All", ".*", "*"}) {
    EXPECT_TRUE(MessageAttributeSelected("Hello", {all})) << all;
    EXPECT_TRUE(MessageAttributeSelected("Help.Me", {all})) << all;
  }
  EXPECT_FALSE(MessageAttributeSelected("Hello", {"all"}));
}

TEST(MessageAttributeSelectedTest, ExactAndPrefix) {
  EXPECT_TRUE(MessageAttributeSelected("Hello", {"Hello"}));
  EXPECT_FALSE(MessageAttributeSelected("Hello", {"hello"}));
  EXPECT_FALSE(MessageAttributeSelected("Hello", {"Hell"}));
  EXPECT_TRUE(MessageAttributeSelected("Hello", {"Hel.*"}));
  EXPECT_TRUE(MessageAttributeSelected("Help.Me", {"Hel.*"}));
  EXPECT_TRUE(MessageAttributeSelected("Help.Me", {"Help.*"}));
  EXPECT_FALSE(MessageAttributeSelected("General", {"Hel.*"}));
  EXPECT_TRUE(MessageAttributeSelected("General", {"Nope", "General"}));
  // Illegal names are ignored.
  EXPECT_FALSE(MessageAttributeSelected("Hello", {"AWS.", "..foo"}));
}

MessageAttributeMap Select(const MessageAttributeMap& all,
                           const std::vector<std::string>& filters) {
  MessageAttributeMap out;
  for (const auto& [name, value] : all) {
    if (MessageAttributeSelected(name, filters)) out.emplace(name, value);
  }
  return out;
}

// The receive-side digests of sqs-api.md §4.5/§4.6.
TEST(MessageAttributeSelectedTest, SubsetDigestsMatchVectors) {
  const MessageAttributeMap all = KenobiAttributes();
  EXPECT_EQ(Md5OfMessageAttributes(Select(all, {"All"})), "4c360f3fdafd970e05fae2f149d997f5");
  EXPECT_EQ(Md5OfMessageAttributes(Select(all, {"Hello", "General"})),
            "fca026605781cb4126a1e9044df24232");
  EXPECT_EQ(Md5OfMessageAttributes(Select(all, {"Hello"})), "a311262e065454b75da111d535b8dacd");
  EXPECT_EQ(Md5OfMessageAttributes(Select(all, {"Hel.*"})), "83fee93c1bcd8b9a5a923ffacdc636c7");
  EXPECT_EQ(Md5OfMessageAttributes(Select(all, {"Nothing"})), "");
}

TEST(SystemAttributeSelectedTest, Rules) {
  EXPECT_FALSE(SystemAttributeSelected("SentTimestamp", {}));
  EXPECT_TRUE(SystemAttributeSelected("SentTimestamp", {"All"}));
  EXPECT_TRUE(SystemAttributeSelected("SentTimestamp", {"SenderId", "SentTimestamp"}));
  EXPECT_FALSE(SystemAttributeSelected("SentTimestamp", {"SenderId"}));
  EXPECT_FALSE(SystemAttributeSelected("SentTimestamp", {"sentTimestamp"}));
  EXPECT_FALSE(SystemAttributeSelected("SentTimestamp", {".*"}));
  EXPECT_TRUE(SystemAttributeSelected("ApproximateReceiveCount", {"Policy", "All"}));
}

// ---- Group / dedup ids -------------------------------------------------------------------

TEST(IsValidGroupOrDedupIdTest, Rules) {
  EXPECT_TRUE(IsValidGroupOrDedupId("a"));
  EXPECT_TRUE(IsValidGroupOrDedupId("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"));
  EXPECT_TRUE(IsValidGroupOrDedupId("AZaz09"));
  EXPECT_TRUE(IsValidGroupOrDedupId(std::string(128, 'x')));
  EXPECT_TRUE(IsValidGroupOrDedupId(Sha256Hex("body")));
  EXPECT_FALSE(IsValidGroupOrDedupId(""));
  EXPECT_FALSE(IsValidGroupOrDedupId(std::string(129, 'x')));
  EXPECT_FALSE(IsValidGroupOrDedupId("a b"));
  EXPECT_FALSE(IsValidGroupOrDedupId("a\tb"));
  EXPECT_FALSE(IsValidGroupOrDedupId("a\x7f"));
  EXPECT_FALSE(IsValidGroupOrDedupId("\xc3\xa9"));
}

TEST(ConstantsTest, BatchLimits) {
  EXPECT_EQ(kMaxBatchBytes, 1048576);
  EXPECT_EQ(kMaxBatchEntries, 10);
}

}  // namespace
}  // namespace lqs::api
