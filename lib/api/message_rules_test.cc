// Tests for lib/api/message_rules.h: digests, message text, size
// accounting, ReceiveMessage validation and the receive-side filters.

#include "lib/api/message_rules.h"

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lib/api/api_test_util.h"
#include "tests/testutil.h"

namespace lqs::api {
namespace {

using namespace test_util;  // NOLINT(google-build-using-namespace)

// `v` as four big-endian bytes: the length fields of the digest streams.
std::string U32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>((v >> 16) & 0xff),
          static_cast<char>((v >> 8) & 0xff), static_cast<char>(v & 0xff)};
}

// ---- Digests -------------------------------------------------------------------

TEST(Md5HexTest, KnownValues) {
  EXPECT_EQ(Md5Hex("test"), "098f6bcd4621d373cade4e832627b4f6");  // docs/sqs-reference.md §5.5
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

// Every vector of the table in docs/sqs-reference.md §5.5.
TEST(Md5OfMessageAttributesTest, VectorBodyTest) {
  EXPECT_EQ(Md5Hex("test"), "098f6bcd4621d373cade4e832627b4f6");
}

MessageAttributeMap KenobiAttributes() {
  return {{"Help.Me", StringAttr("Me")},
          {"Hello", StringAttr("There")},
          {"General", StringAttr("Kenobi")}};
}

TEST(Md5OfMessageAttributesTest, Vectors) {
  const struct {
    const char* name;
    MessageAttributeMap attributes;
    const char* md5;
  } kVectors[] = {
      {"NumberTimestamp",
       {{"timestamp", NumberAttr("1493147359900")}},
       "235c5c510d26fb653d073faed50ae77c"},
      {"SystemAttributeTraceHeader",
       {{"AWSTraceHeader",
         StringAttr("Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;"
                    "Sampled=1")}},
       "5ae4d5d7636402d80f4eb6d213245a88"},
      {"Binary",
       {{"attr1", BinaryAttr("traceparent\x1e"
                             "00-774062d6c37081a5a0b9b5b88e30627c-2d2482211f6489da-01")}},
       "8cbe4db156db8a94db8b801b7addb984"},
      {"ThreeAttributes", KenobiAttributes(), "4c360f3fdafd970e05fae2f149d997f5"},
      {"SubsetGeneralHello",
       {{"General", StringAttr("Kenobi")}, {"Hello", StringAttr("There")}},
       "fca026605781cb4126a1e9044df24232"},
      {"SubsetHello", {{"Hello", StringAttr("There")}}, "a311262e065454b75da111d535b8dacd"},
      {"SubsetHelloHelpMe",
       {{"Hello", StringAttr("There")}, {"Help.Me", StringAttr("Me")}},
       "83fee93c1bcd8b9a5a923ffacdc636c7"},
      {"FooBar", {{"Foo", StringAttr("Bar")}}, "ae7155c6026991b6d54b11589678bf9c"},
  };
  for (const auto& v : kVectors) {
    EXPECT_EQ(Md5OfMessageAttributes(v.attributes), v.md5) << v.name;
  }
}

TEST(Md5OfMessageAttributesTest, EmptyMapGivesEmptyString) {
  EXPECT_EQ(Md5OfMessageAttributes({}), "");
}

TEST(Md5OfMessageAttributesTest, StreamLayout) {
  // One String attribute: u32-BE name, u32-BE type, 0x01, u32-BE value.
  const std::string stream = U32(3) + "Foo" + U32(6) + "String" + '\x01' + U32(3) + "Bar";
  EXPECT_EQ(Md5OfMessageAttributes({{"Foo", StringAttr("Bar")}}), Md5Hex(stream));

  // Binary: transport byte 2, raw bytes (including NUL).
  const std::string raw("\x00\xff\x01", 3);
  const std::string binary_stream = U32(1) + "b" + U32(10) + "Binary.png" + '\x02' + U32(3) + raw;
  EXPECT_EQ(Md5OfMessageAttributes({{"b", BinaryAttr(raw, "Binary.png")}}), Md5Hex(binary_stream));
}

TEST(Md5OfMessageAttributesTest, CustomTypeSuffixIsHashed) {
  EXPECT_NE(Md5OfMessageAttributes({{"n", NumberAttr("1")}}),
            Md5OfMessageAttributes({{"n", NumberAttr("1", "Number.int")}}));
}

TEST(Md5OfMessageAttributesTest, NumberAndStringShareTransportByte) {
  // Only the DataType bytes differ, so a Number and a String with the same
  // type text would hash alike; check the transport byte via the layout.
  const std::string stream = U32(1) + "n" + U32(6) + "Number" + '\x01' + U32(2) + "42";
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

// ---- Receive -------------------------------------------------------------------------

TEST(ValidateReceiveMessageTest, Defaults) { EXPECT_OK(ValidateReceiveMessage({})); }

// ReceiveMessage's numeric parameter `name`, set by `set`: `low` and `high`
// pass; one below `low` and one above `high` are refused with SQS's text,
// "Value <v> for parameter <name> is invalid. Reason: <reason>".
void ExpectReceiveRange(void (*set)(ReceiveMessageRequest&, int), const std::string& name, int low,
                        int high, const std::string& reason) {
  for (int value : {low, high}) {
    ReceiveMessageRequest request;
    set(request, value);
    EXPECT_OK(ValidateReceiveMessage(request)) << name << " " << value;
  }
  for (int value : {low - 1, high + 1}) {
    ReceiveMessageRequest request;
    set(request, value);
    std::string text = "Value ";
    text += std::to_string(value);
    text += " for parameter ";
    text += name;
    text += " is invalid. Reason: ";
    text += reason;
    EXPECT_STATUS(ValidateReceiveMessage(request), kInvalidParameterValue, text);
  }
}

TEST(ValidateReceiveMessageTest, MaxNumberOfMessages) {
  ExpectReceiveRange([](ReceiveMessageRequest& r, int v) { r.max_number_of_messages = v; },
                     "MaxNumberOfMessages", 1, 10, "Must be between 1 and 10, if provided.");
}

TEST(ValidateReceiveMessageTest, WaitTimeSeconds) {
  ExpectReceiveRange([](ReceiveMessageRequest& r, int v) { r.wait_time_seconds = v; },
                     "WaitTimeSeconds", 0, 20, "Must be >= 0 and <= 20, if provided.");
}

TEST(ValidateReceiveMessageTest, VisibilityTimeout) {
  ExpectReceiveRange([](ReceiveMessageRequest& r, int v) { r.visibility_timeout = v; },
                     "VisibilityTimeout", 0, 43200, "Must be >= 0 and <= 43200, if provided.");
  ReceiveMessageRequest request;
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

// The receive-side digests of docs/sqs-reference.md §5.4/§5.5.
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
  const std::string valid[] = {"a", "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", "AZaz09",
                               std::string(128, 'x'), Sha256Hex("body")};
  for (const std::string& id : valid) EXPECT_TRUE(IsValidGroupOrDedupId(id)) << id;
  const std::string invalid[] = {"", std::string(129, 'x'), "a b", "a\tb", "a\x7f", "\xc3\xa9"};
  for (const std::string& id : invalid) EXPECT_FALSE(IsValidGroupOrDedupId(id)) << id;
}

TEST(ConstantsTest, BatchLimits) {
  EXPECT_EQ(limits::kMaxBatchBytes, 1048576);
  EXPECT_EQ(limits::kMaxBatchEntries, 10);
}

}  // namespace
}  // namespace lqs::api
