// Unit tests of lqsd's JSON paths (part of lqsd_unit_test): the request
// reader (RequestInput, simdjson) against nlohmann's parser as the oracle (a
// corpus, random mutations of it and random documents: whatever both read,
// they read alike; where they differ, the difference is one request_input.h
// states), the direct string writer against the serialiser, and whole
// requests answered through a LocalCaller with and without a byte order mark
// (which the reader skips: same responses, errors included).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "server/action_model.h"
#include "server/action_outputs.h"
#include "server/local_caller.h"
#include "server/request_input.h"
#include "server/sqs_json.h"
#include "server/text_util.h"
#include "tests/server/json_request.h"
#include "tests/server/request_input_json.h"
#include "tests/testutil.h"
#include "wire/message_json.h"

#include "lqs/broker.h"
#include "lqs/clock.h"

namespace lqsd {
namespace {

const std::string kBom = "\xEF\xBB\xBF";

// Equal values of equal types (nlohmann's == says 1 == 1u == 1.0; here an
// integer equals only an integer, signed or not), members in the same order.
bool SameJson(const Json& a, const Json& b) {
  if (a.is_number_integer() && b.is_number_integer()) return a == b;
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Json::value_t::object: {
      const auto& x = a.get_ref<const Json::object_t&>();
      const auto& y = b.get_ref<const Json::object_t&>();
      if (x.size() != y.size()) return false;
      for (auto i = x.begin(), j = y.begin(); i != x.end(); ++i, ++j) {
        if (i->first != j->first || !SameJson(i->second, j->second)) return false;
      }
      return true;
    }
    case Json::value_t::array: {
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i) {
        if (!SameJson(a[i], b[i])) return false;
      }
      return true;
    }
    default:
      return a == b;
  }
}

namespace dom = simdjson::dom;

// nlohmann's tree has an object deeper than RequestInput::kMaxDepth, or with
// more than kMaxMembers members.
bool BeyondLimits(const Json& value, int depth = 1) {
  if (!value.is_structured()) return false;
  if (depth > RequestInput::kMaxDepth) return true;
  if (value.is_object() && value.size() > RequestInput::kMaxMembers) return true;
  for (const Json& item : value) {
    if (BeyondLimits(item, depth + 1)) return true;
  }
  return false;
}

// nlohmann read an integer outside [-2^63, 2^64) (as a double).
bool HasHugeInteger(const Json& value) {
  if (value.is_number_float()) {
    const double v = value.get<double>();
    return std::floor(v) == v && (v >= 9.2e18 || v <= -9.2e18);
  }
  if (!value.is_structured()) return false;
  for (const Json& item : value) {
    if (HasHugeInteger(item)) return true;
  }
  return false;
}

// The property every body must have: where the reader and nlohmann both read
// it, they read alike; where only one does, the difference is one that
// request_input.h states. Returns whether the reader accepted it.
bool CheckBody(const std::string& body) {
  const std::optional<Json> ours = ReadInput(body);
  const Json reference = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (body.find_first_not_of(" \t\r\n") == std::string::npos) {
    EXPECT_TRUE(ours.has_value() && SameJson(*ours, Json::object())) << "blank body: " << body;
    return ours.has_value();
  }
  if (ours.has_value()) {
    if (reference.is_discarded()) {
      // Only a lone surrogate's escape: nlohmann refuses it, the reader
      // reads U+FFFF.
      EXPECT_NE(sqs_json::Dump(*ours).find("\xEF\xBF\xBF"), std::string::npos)
          << "accepted what nlohmann refuses: " << body;
      return true;
    }
    EXPECT_TRUE(SameJson(*ours, reference))
        << body << "\nours: " << ours->dump() << "\nnlohmann: " << reference.dump();
    EXPECT_FALSE(BeyondLimits(reference)) << body;
    return true;
  }
  // (nlohmann reads a body only up to a NUL byte.)
  if (!reference.is_discarded() && reference.is_object() && body.find('\0') == std::string::npos) {
    EXPECT_TRUE(BeyondLimits(reference) || HasHugeInteger(reference))
        << "refused what nlohmann reads: " << body;
  }
  return false;
}

// Request bodies of the hot actions: every member kind, attributes of each
// data type, escapes, Unicode.
const std::vector<std::string>& ValidBodies() {
  static const std::vector<std::string> bodies = {
      R"({})",
      R"( {"QueueUrl":"http://127.0.0.1:9324/123456789012/q","MessageBody":"hello"} )",
      "\r\n\t{\"QueueUrl\" : \"q\" ,\n\"MessageBody\" :\"x\"}\n",
      R"({"QueueUrl":"q","MessageBody":"1700000000000|42|xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"})",
      R"({"QueueUrl":"q","MessageBody":"q\"uote \\ back \/ slash \b\f\n\r\t end"})",
      R"({"QueueUrl":"q","MessageBody":"\u0041\u00e9\u00E9\u20ac\ud83d\ude00\uD83D\uDE00 \u0000 nul"})",
      "{\"QueueUrl\":\"q\",\"MessageBody\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \x7f\"}",
      R"({"QueueUrl":"q","MessageBody":"b","DelaySeconds":5,"MessageGroupId":"g",)"
      R"("MessageDeduplicationId":"d"})",
      R"({"QueueUrl":"q","MessageBody":"b","DelaySeconds":0})",
      R"({"QueueUrl":"q","MessageBody":"b","DelaySeconds":-1})",
      R"({"QueueUrl":"q","MessageBody":"b","DelaySeconds":-0})",
      R"({"QueueUrl":"q","MessageBody":"b","DelaySeconds":999999999999999999})",
      R"({"QueueUrl":"q","MessageBody":"b","DelaySeconds":-999999999999999999})",
      R"({"QueueUrl":"q","MessageBody":"b","DelaySeconds":"7"})",
      R"({"QueueUrl":"q","MessageBody":"b","DelaySeconds":null,"MessageGroupId":null})",
      R"({"QueueUrl":"q","MessageBody":"b","MessageAttributes":{)"
      R"("s":{"DataType":"String","StringValue":"v"},)"
      R"("n":{"DataType":"Number","StringValue":"12.5"},)"
      R"("n2":{"DataType":"Number.int","StringValue":"-3"},)"
      R"("b":{"DataType":"Binary","BinaryValue":"AAEC/w=="},)"
      R"("c":{"DataType":"String.custom","StringValue":"\u00e9"}},)"
      R"("MessageSystemAttributes":{"AWSTraceHeader":{"DataType":"String",)"
      R"("StringValue":"Root=1-5759e988-bd862e3fe1be46a994272793"}}})",
      R"({"QueueUrl":"q","Entries":[{"Id":"0","MessageBody":"a"},{"Id":"1","MessageBody":"b",)"
      R"("DelaySeconds":1,"MessageAttributes":{"k":{"DataType":"String","StringValue":"v"}}}]})",
      R"({"QueueUrl":"q","Entries":[]})",
      R"({"QueueUrl":"q","MaxNumberOfMessages":10,"WaitTimeSeconds":0,"VisibilityTimeout":30,)"
      R"("AttributeNames":["All"],"MessageSystemAttributeNames":["SentTimestamp"],)"
      R"("MessageAttributeNames":["All",".*"],"ReceiveRequestAttemptId":"r"})",
      R"({"QueueUrl":"q","ReceiptHandle":"AQEB+abc/def=="})",
      R"({"QueueUrl":"q","Entries":[{"Id":"a","ReceiptHandle":"h1"},{"Id":"b","ReceiptHandle":"h2"}]})",
      R"({"QueueUrl":"q","ReceiptHandle":"h","VisibilityTimeout":60})",
      R"({"QueueUrl":"q","Entries":[{"Id":"a","ReceiptHandle":"h","VisibilityTimeout":0}]})",
      R"({"a":true,"b":false,"c":null,"d":[1,-2,"3",[],{}],"e":{"f":{"g":[[[{}]]]}}})",
      R"({"nested":[[[[[[[[[[[[[[1]]]]]]]]]]]]]]})",  // depth 15
      R"({"Unknown":"member","QueueUrl":"q","MessageBody":"b","Other":[1,2,{"x":null}]})",
      R"({"QueueUrl":"q","MessageBody":"\u00"})",    // invalid escape (declined)
      R"({"Q\u0075eueUrl":"q","MessageBody":"b"})",  // an escaped key
      R"({"":"empty key","x":""})",
  };
  return bodies;
}

// Bodies at the edges: invalid JSON, numbers of every form, repeated keys,
// byte order marks, deep nesting. Each goes through CheckBody.
const std::vector<std::string>& OddBodies() {
  static const std::vector<std::string> bodies = {
      "",
      "   ",
      "[]",
      "\"text\"",
      "1",
      "null",
      "{",
      "{}}",
      "{} x",
      std::string("{}\0", 3),
      std::string("{}\0garbage", 10),
      std::string("{\"a\":\"x\0y\"}", 11),
      "{\"a\":\"tab\tinside\"}",
      "{\"a\":\"\x1f\"}",
      "{\"a\":\"bad \xc3\"}",
      "{\"a\":\"bad \xff\"}",
      "{\"a\":\"overlong \xc0\xaf\"}",
      "{\"a\":\"surrogate \xed\xa0\x80\"}",
      "{\"a\":\"too big \xf4\x90\x80\x80\"}",
      "{\"a\":\"overlong \xe0\x80\xaf\"}",
      R"({"a":"lone high \ud800"})",
      R"({"a":"lone high \ud800x"})",
      R"({"a":"high high \ud800\ud800"})",
      R"({"a":"lone low \udc00"})",
      R"({"a":"bad hex \u12g4"})",
      R"({"a":"bad escape \x"})",
      R"({"a":"bad escape \'"})",
      R"({"a":1.5})",
      R"({"a":1e3})",
      R"({"a":1E3})",
      R"({"a":-1.0})",
      R"({"a":01})",
      R"({"a":-01})",
      R"({"a":-})",
      R"({"a":+1})",
      R"({"a":1234567890123456789})",
      R"({"a":18446744073709551616})",
      R"({"a":-9223372036854775809})",
      R"({"a":.5})",
      R"({"a":tru})",
      R"({"a":nul})",
      R"({"a":True})",
      R"({"a":NaN})",
      R"({"a":1,})",
      R"({"a":[1,]})",
      R"({"a":[,1]})",
      R"({"a" 1})",
      R"({a:1})",
      R"({'a':1})",
      R"({"a":1 "b":2})",
      R"({"a":1,"a":2})",
      R"({"a":{"x":1,"x":{"y":2}}})",
      R"({"QueueUrl":"q","MessageBody":"a","MessageBody":"b"})",
      R"({"a":"x" /* comment */})",
      "\xEF\xBB\xBF{\"a\":1}",
      "\xEF\xBB{\"a\":1}",
      "\x0b{}",
      "\f{}",
      "{\"a\":[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]}",  // depth 17
      "{\"d\":" + std::string(40, '[') + std::string(40, ']') + "}",
      "{\"d\":" + std::string(40, '{') + "}",
  };
  return bodies;
}

std::string ManyMembers(int n) {
  std::string body = "{";
  for (int i = 0; i < n; ++i) {
    if (i > 0) body += ",";
    body += "\"k" + std::to_string(i) + "\":" + std::to_string(i);
  }
  return body + "}";
}

TEST(RequestInput, CorpusReadsAsNlohmann) {
  for (const std::string& body : ValidBodies()) {
    const bool invalid = body.find("\\u00\"") != std::string::npos;
    EXPECT_EQ(CheckBody(body), !invalid) << body;
  }
  for (const std::string& body : OddBodies()) CheckBody(body);
  EXPECT_TRUE(CheckBody(ManyMembers(static_cast<int>(RequestInput::kMaxMembers))));
  EXPECT_FALSE(CheckBody(ManyMembers(static_cast<int>(RequestInput::kMaxMembers) + 1)));
  const auto nested = [](int depth) {  // the top-level object is depth 1
    return "{\"d\":" + std::string(depth - 1, '[') + std::string(depth - 1, ']') + "}";
  };
  EXPECT_TRUE(CheckBody(nested(RequestInput::kMaxDepth)));
  EXPECT_FALSE(CheckBody(nested(RequestInput::kMaxDepth + 1)));

  // Integer types as the handlers read them.
  const std::optional<Json> v = ReadInput(R"({"u":7,"i":-7,"z":-0,"s":"7","n":null,"f":1.5})");
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ((*v)["u"], 7);
  EXPECT_EQ((*v)["i"], -7);
  EXPECT_TRUE((*v)["z"].is_number_integer());
  EXPECT_TRUE((*v)["s"].is_string());
  EXPECT_TRUE((*v)["n"].is_null());
  EXPECT_TRUE((*v)["f"].is_number_float());
  const std::optional<Json> s = ReadInput(R"({"s":"\u0000\ud83d\ude00"})");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ((*s)["s"].get<std::string>(), std::string("\0\xf0\x9f\x98\x80", 5));
}

TEST(RequestInput, ReadsALoneSurrogateAsUFFFF) {
  for (const char* body :
       {R"({"a":"x\ud800y"})", R"({"a":"x\udc00y"})", R"({"a":"x\uD800\uD800y"})"}) {
    const std::optional<Json> v = ReadInput(body);
    ASSERT_TRUE(v.has_value()) << body;
    const std::string a = (*v)["a"].get<std::string>();
    EXPECT_EQ(a.front(), 'x') << body;
    EXPECT_EQ(a.back(), 'y') << body;
    EXPECT_NE(a.find("\xEF\xBF\xBF"), std::string::npos) << body;
  }
  // An escaped backslash before "u" is no escape of a surrogate.
  const std::optional<Json> v = ReadInput(R"({"a":"\\ud800"})");
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ((*v)["a"], "\\ud800");
}

TEST(RequestInput, TheLastOfRepeatedMembersCountsAndNullIsAbsent) {
  RequestInput input;
  ASSERT_FALSE(input.Parse(R"({"a":"1","b":null,"a":"2","c":"x","c":null})").has_value());
  const std::optional<dom::element> a = RequestInput::Find(input.root(), "a");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->get_string().value(), "2");
  EXPECT_FALSE(RequestInput::Find(input.root(), "b").has_value());
  EXPECT_FALSE(RequestInput::Find(input.root(), "c").has_value());
  EXPECT_FALSE(RequestInput::Find(input.root(), "d").has_value());
}

TEST(RequestInput, RefusalsAreSerializationExceptionsThatKeepTheInput) {
  RequestInput input;
  ASSERT_FALSE(input.Parse(R"({"kept":true})").has_value());
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[]", "The request body must be a JSON object."},
      {kBom, "The request body is not valid JSON."},
      {kBom + " \n", "The request body is not valid JSON."},
      {"{", "The request body is not valid JSON."},
      {"{\"a\":\"\xff\"}", "The request body is not valid JSON."},
      {R"({"a":18446744073709551616})", "The request body is not valid JSON."},
      {"{\"d\":" + std::string(40, '[') + std::string(40, ']') + "}",
       "The request body is nested too deeply."},
      {ManyMembers(1001), "A JSON object of the request has too many members."},
  };
  for (const auto& [body, message] : cases) {
    const std::optional<SqsError> error = input.Parse(body);
    ASSERT_TRUE(error.has_value()) << body;
    EXPECT_EQ(error->query_code, "SerializationException") << body;
    EXPECT_EQ(error->message, message) << body;
    EXPECT_TRUE(RequestInput::Find(input.root(), "kept").has_value()) << body;
  }
  // A moved input keeps its document.
  RequestInput moved = std::move(input);
  EXPECT_TRUE(RequestInput::Find(moved.root(), "kept").has_value());
}

// Random edits of the corpus, weighted towards the bytes that matter.
// One of `seeds` after 1 to 3 random edits: a byte of `bytes` written over,
// inserted or removed, or up to `max_repeat` bytes repeated.
std::string Mutated(const std::vector<std::string>& seeds, const char* bytes, size_t n_bytes,
                    size_t max_repeat, std::mt19937& rng) {
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  std::string body = seeds[pick(seeds.size())];
  const size_t edits = 1 + pick(3);
  for (size_t e = 0; e < edits; ++e) {
    const size_t at = pick(body.size() + 1);
    const char byte = bytes[pick(n_bytes)];
    switch (pick(4)) {
      case 0:
        if (at < body.size()) body[at] = byte;
        break;
      case 1:
        body.insert(body.begin() + static_cast<std::ptrdiff_t>(at), byte);
        break;
      case 2:
        if (at < body.size()) body.erase(at, 1);
        break;
      default:
        if (at < body.size()) body.insert(at, body.substr(at, pick(max_repeat)));
        break;
    }
  }
  return body;
}

TEST(RequestInput, MutationsReadAsNlohmann) {
  std::vector<std::string> seeds = ValidBodies();
  for (const std::string& body : OddBodies()) seeds.push_back(body);
  static const char kBytes[] = {'"',  '\\', 'u',    'd',    '8',    '0',    'e',    'E',
                                '.',  '-',  '+',    '{',    '}',    '[',    ']',    ',',
                                ':',  ' ',  '\t',   '\n',   'n',    't',    'f',    '/',
                                '\0', 0x1f, 0x7f,   '\x80', '\xc3', '\xa9', '\xed', '\xa0',
                                'a',  '1',  '\xf4', '\x8f', '\xbf', '\xef', '\xbb', 'D'};
  std::mt19937 rng(20240601);
  int accepted = 0;
  for (int round = 0; round < 60000; ++round) {
    const std::string body = Mutated(seeds, kBytes, sizeof(kBytes), 8, rng);
    if (CheckBody(body)) ++accepted;
    if (testing::Test::HasFailure()) break;
  }
  EXPECT_GT(accepted, 1000);  // the property was exercised on accepted bodies too
}

// Random documents, written with every spelling JSON allows for their
// strings; those within the reader's limits must be accepted.
class RandomDocs {
 public:
  explicit RandomDocs(uint32_t seed) : rng_(seed) {}

  // A document; *simple: it is within what the reader accepts.
  std::string Next(bool* simple) {
    simple_ = true;
    std::string out;
    Space(&out);
    Object(&out, 1);
    Space(&out);
    *simple = simple_;
    return out;
  }

 private:
  size_t Pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

  void Space(std::string* out) {
    static const char kSpace[] = {' ', '\t', '\n', '\r'};
    if (Pick(4) == 0) {
      for (size_t i = Pick(3); i > 0; --i) out->push_back(kSpace[Pick(4)]);
    }
  }

  void Object(std::string* out, int depth) {
    if (depth > RequestInput::kMaxDepth) simple_ = false;
    out->push_back('{');
    std::vector<std::vector<uint32_t>> keys;
    const size_t n = depth > 5 ? Pick(2) : Pick(6);
    for (size_t i = 0; i < n; ++i) {
      if (i > 0) out->push_back(',');
      Space(out);
      std::vector<uint32_t> key =
          Pick(3) == 0 ? std::vector<uint32_t>{static_cast<uint32_t>('a' + Pick(4))} : Text();
      for (const auto& k : keys) {
        if (k == key) simple_ = false;  // repeated
      }
      keys.push_back(key);
      String(out, key);
      Space(out);
      out->push_back(':');
      Space(out);
      Value(out, depth);
      Space(out);
    }
    out->push_back('}');
  }

  void Value(std::string* out, int depth) {
    switch (Pick(depth > 6 ? 5 : 8)) {
      case 0:
        String(out, Text());
        break;
      case 1:
        Number(out);
        break;
      case 2:
        out->append(Pick(3) == 0 ? "null" : Pick(2) == 0 ? "true" : "false");
        break;
      case 3:
      case 4:
        String(out, Text());
        break;
      case 5:
      case 6:
        Object(out, depth + 1);
        break;
      default: {
        if (depth + 1 > RequestInput::kMaxDepth) simple_ = false;
        out->push_back('[');
        const size_t n = Pick(5);
        for (size_t i = 0; i < n; ++i) {
          if (i > 0) out->push_back(',');
          Space(out);
          Value(out, depth + 1);
          Space(out);
        }
        out->push_back(']');
      }
    }
  }

  void Number(std::string* out) {
    static const char* const kOdd[] = {"1.5",
                                       "-0.0",
                                       "1e9",
                                       "2E-3",
                                       "12345678901234567890",
                                       "-9223372036854775808",
                                       "1234567890123456789"};
    if (Pick(8) == 0) {
      out->append(kOdd[Pick(7)]);
      simple_ = false;
      return;
    }
    const size_t digits = 1 + Pick(18);
    if (Pick(3) == 0) out->push_back('-');
    if (digits == 1) {
      out->push_back(static_cast<char>('0' + Pick(10)));
      return;
    }
    out->push_back(static_cast<char>('1' + Pick(9)));
    for (size_t i = 1; i < digits; ++i) out->push_back(static_cast<char>('0' + Pick(10)));
  }

  // Random code points: ASCII, controls, 2/3/4-byte UTF-8.
  std::vector<uint32_t> Text() {
    std::vector<uint32_t> cps;
    const size_t n = Pick(12);
    for (size_t i = 0; i < n; ++i) {
      switch (Pick(6)) {
        case 0:
          cps.push_back(static_cast<uint32_t>(Pick(0x20)));
          break;
        case 1:
          cps.push_back(static_cast<uint32_t>(0x80 + Pick(0x780)));
          break;
        case 2: {
          uint32_t cp = static_cast<uint32_t>(0x800 + Pick(0xf800));
          if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
          cps.push_back(cp);
          break;
        }
        case 3:
          cps.push_back(static_cast<uint32_t>(0x10000 + Pick(0x100000)));
          break;
        default:
          cps.push_back(static_cast<uint32_t>(0x20 + Pick(0x60)));
      }
    }
    return cps;
  }

  void String(std::string* out, const std::vector<uint32_t>& cps) {
    out->push_back('"');
    for (const uint32_t cp : cps) {
      const bool escape = cp < 0x20 || cp == '"' || cp == '\\' || Pick(6) == 0;
      if (!escape) {
        std::string utf8;
        if (cp < 0x80) {
          utf8.push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
          utf8 = {static_cast<char>(0xc0 | (cp >> 6)), static_cast<char>(0x80 | (cp & 0x3f))};
        } else if (cp < 0x10000) {
          utf8 = {static_cast<char>(0xe0 | (cp >> 12)),
                  static_cast<char>(0x80 | ((cp >> 6) & 0x3f)),
                  static_cast<char>(0x80 | (cp & 0x3f))};
        } else {
          utf8 = {
              static_cast<char>(0xf0 | (cp >> 18)), static_cast<char>(0x80 | ((cp >> 12) & 0x3f)),
              static_cast<char>(0x80 | ((cp >> 6) & 0x3f)), static_cast<char>(0x80 | (cp & 0x3f))};
        }
        out->append(utf8);
        continue;
      }
      const char* const shorts = "\"\\/\b\f\n\r\t";
      const char* const names = "\"\\/bfnrt";
      const char* s = cp < 0x80 ? std::strchr(shorts, static_cast<int>(cp)) : nullptr;
      if (cp != 0 && s != nullptr && Pick(2) == 0) {
        out->push_back('\\');
        out->push_back(names[s - shorts]);
        continue;
      }
      const char* const hex = Pick(2) == 0 ? "0123456789abcdef" : "0123456789ABCDEF";
      auto u = [&](uint32_t unit) {
        out->append("\\u");
        for (int shift = 12; shift >= 0; shift -= 4) out->push_back(hex[(unit >> shift) & 0xf]);
      };
      if (cp >= 0x10000) {
        u(0xd800 + ((cp - 0x10000) >> 10));
        u(0xdc00 + ((cp - 0x10000) & 0x3ff));
      } else {
        u(cp);
      }
    }
    out->push_back('"');
  }

  std::mt19937 rng_;
  bool simple_ = true;
};

TEST(RequestInput, RandomDocumentsReadAsNlohmann) {
  RandomDocs docs(7);
  int simple_count = 0;
  for (int i = 0; i < 20000; ++i) {
    bool simple = false;
    const std::string body = docs.Next(&simple);
    ASSERT_FALSE(Json::parse(body, nullptr, false).is_discarded()) << body;
    const bool accepted = CheckBody(body);
    if (simple) {
      ++simple_count;
      EXPECT_TRUE(accepted) << body;
    }
    if (testing::Test::HasFailure()) break;
  }
  EXPECT_GT(simple_count, 10000);
}

// ---- The direct string writer ---------------------------------------------------------

TEST(TextUtil, PlainAsciiLengthFindsTheFirstSpecialByte) {
  // Every special byte at every position of strings of 0..40 bytes (the
  // eight-byte steps and the tail).
  const char specials[] = {'"', '\\', '\0', '\x1f', '\x80', '\xff', '\xc3'};
  for (size_t n = 0; n <= 40; ++n) {
    const std::string plain(n, 'a');
    EXPECT_EQ(PlainAsciiLength(plain.data(), plain.data() + n), n);
    for (size_t at = 0; at < n; ++at) {
      for (const char special : specials) {
        std::string text = plain;
        text[at] = special;
        EXPECT_EQ(PlainAsciiLength(text.data(), text.data() + n), at) << n << " " << at;
      }
      std::string edges = plain;
      edges[at] = at % 2 == 0 ? ' ' : '\x7f';  // the plain bytes at the edges of the range
      EXPECT_EQ(PlainAsciiLength(edges.data(), edges.data() + n), n);
    }
  }
}

TEST(SqsJson, DirectWriterMatchesTheSerialiserOnRandomBytes) {
  std::mt19937 rng(11);
  static const char kBytes[] = {'a',    '"',    '\\',   '/',    '\0',   '\b',   '\t',
                                '\n',   '\x0b', '\f',   '\r',   '\x1f', 0x7f,   '\x80',
                                '\xbf', '\xc2', '\xc3', '\xa9', '\xe2', '\x82', '\xac',
                                '\xed', '\xa0', '\xf0', '\x9f', '\xf4', '\x90', '\xff'};
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    const size_t n = std::uniform_int_distribution<size_t>(0, 24)(rng);
    for (size_t j = 0; j < n; ++j) {
      text.push_back(kBytes[std::uniform_int_distribution<size_t>(0, sizeof(kBytes) - 1)(rng)]);
    }
    std::string direct = "{\"k\":";
    sqs_json::AppendString(&direct, text);
    direct += "}";
    Json holder = Json::object();
    holder["k"] = text;
    ASSERT_EQ(direct, sqs_json::EncodeResult(holder, "id").body)
        << Json(text).dump(-1, ' ', true, Json::error_handler_t::replace);
  }
}

// ReceiveMessage's one encoder writes JSON text (JSON requests) and a Json
// tree (query requests): the two must give the same bytes for any result,
// and each message must have the members wire::ReceivedMessageJson gives it
// (what the CLI prints).
TEST(SqsJson, ReceiveOutputTextMatchesItsTree) {
  std::mt19937 rng(29);
  static const char* const kTexts[] = {
      "", "plain", "q\"uote\\", "caf\xc3\xa9", "\x01\r\n", "bad \xff utf-8", "\xf0\x9f\x98\x80"};
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  auto text = [&] { return std::string(kTexts[pick(std::size(kTexts))]) + kTexts[pick(3)]; };
  static const char* const kTypes[] = {"String",        "Number",     "Binary",
                                       "String.custom", "Binary.png", "Number.int"};
  for (int i = 0; i < 2000; ++i) {
    lqs::ReceiveMessageResult result;
    for (size_t m = pick(4); m > 0; --m) {
      lqs::ReceivedMessage message;
      message.message_id = "id-" + std::to_string(i);
      message.receipt_handle = text() + "handle";
      message.body = text();
      message.md5_of_body = "0123456789abcdef0123456789abcdef";
      for (size_t a = pick(3); a > 0; --a) message.attributes[text() + "Attr"] = text();
      for (size_t a = pick(4); a > 0; --a) {
        lqs::MessageAttributeValue value;
        value.data_type = kTypes[pick(std::size(kTypes))];
        (value.IsBinary() ? value.binary_value : value.string_value) = text();
        message.message_attributes[text() + "name"] = value;
      }
      if (!message.message_attributes.empty() || pick(2) == 0) {
        message.md5_of_message_attributes = "fedcba9876543210fedcba9876543210";
      }
      result.messages.push_back(std::move(message));
    }
    const std::string direct =
        sqs_json::EncodeEncodedResult(ReceiveMessageOutputJson(result), "id").body;
    const Json tree = ReceiveMessageOutput(result);
    ASSERT_EQ(direct, sqs_json::EncodeResult(tree, "id").body) << i;
    ASSERT_EQ(tree.contains("Messages"), !result.messages.empty()) << i;
    for (size_t m = 0; m < result.messages.size(); ++m) {
      ASSERT_EQ(tree["Messages"][m], lqs::wire::ReceivedMessageJson(result.messages[m])) << i;
    }
  }
}

// The batch outputs' one encoder writes JSON text and a Json tree: the text
// must be what EncodeResult makes of the tree, which leaves out an empty
// Successful or Failed (the tree keeps them).
TEST(SqsJson, BatchOutputTextMatchesItsTree) {
  std::mt19937 rng(31);
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  static const char* const kTexts[] = {"", "a", "q\"uote\\", "caf\xc3\xa9", "bad \xff"};
  auto text = [&] { return std::string(kTexts[pick(std::size(kTexts))]); };
  auto failures = [&] {
    std::vector<lqs::BatchResultError> failed;
    for (size_t n = pick(3); n > 0; --n) {
      lqs::BatchResultError f;
      f.id = text() + "f";
      f.sender_fault = pick(2) == 0;
      f.code = "InvalidMessageContents";
      f.message = text();
      failed.push_back(std::move(f));
    }
    return failed;
  };
  // The text of a batch output (`text_form`) is the encoding of its tree,
  // and leaves out an empty Successful or Failed, which the tree keeps.
  auto check_batch_forms = [](const std::string& text_form, const Json& tree, const auto& result) {
    auto no_member = [](const std::string& body, const char* name) {
      return body.find(std::string("\"") + name + "\"") == std::string::npos;
    };
    const std::string body = sqs_json::EncodeEncodedResult(text_form, "id").body;
    ASSERT_EQ(body, sqs_json::EncodeResult(tree, "id").body);
    ASSERT_EQ(no_member(body, "Successful"), result.successful.empty()) << body;
    ASSERT_EQ(no_member(body, "Failed"), result.failed.empty()) << body;
    ASSERT_TRUE(tree.contains("Successful") && tree.contains("Failed"));
  };
  for (int i = 0; i < 500; ++i) {
    lqs::SendMessageBatchResult send;
    for (size_t n = pick(3); n > 0; --n) {
      lqs::SendMessageBatchResultEntry ok;
      ok.id = text() + "s";
      ok.result.message_id = "id-" + std::to_string(i);
      ok.result.md5_of_message_body = "0123456789abcdef0123456789abcdef";
      if (pick(2) == 0) ok.result.md5_of_message_attributes = "fedcba9876543210fedcba9876543210";
      if (pick(3) == 0)
        ok.result.md5_of_message_system_attributes = "00112233445566778899aabbccddeeff";
      if (pick(2) == 0) ok.result.sequence_number = "18800000000000000001";
      send.successful.push_back(std::move(ok));
    }
    send.failed = failures();
    ASSERT_NO_FATAL_FAILURE(
        check_batch_forms(SendMessageBatchOutputJson(send), SendMessageBatchOutput(send), send))
        << i;

    lqs::BatchResult batch;
    for (size_t n = pick(3); n > 0; --n) batch.successful.push_back(text() + "s");
    batch.failed = failures();
    ASSERT_NO_FATAL_FAILURE(
        check_batch_forms(BatchResultOutputJson(batch), BatchResultOutput(batch), batch))
        << i;
  }
}

// On the JSON protocol an output member whose list or map is empty is left
// out; other members stay, and so do non-empty collections.
TEST(SqsJson, EmptyListAndMapMembersAreOmitted) {
  Json out = Json::object();
  out["queueUrls"] = Json::array();
  out["NextToken"] = "t";
  out["Tags"] = Json::object();
  out["Zero"] = 0;
  out["Empty"] = "";
  out["Attributes"] = Json{{"k", "v"}};
  EXPECT_EQ(sqs_json::EncodeResult(out, "id").body,
            R"({"NextToken":"t","Zero":0,"Empty":"","Attributes":{"k":"v"}})");
  EXPECT_EQ(sqs_json::EncodeResult(Json{{"Results", Json::array()}}, "id").body, "{}");
  EXPECT_EQ(sqs_json::EncodeResult(Json::object(), "id").body, "{}");
}

// ---- Whole requests -------------------------------------------------------------------

// A Broker in a fresh directory, on a clock that moves only when told to,
// answered as lqsd answers it: through a LocalCaller (server/local_caller.h),
// which builds the Regions, Actions and Router as lqs.client() has them.
class Server {
 public:
  explicit Server(const std::string& dir) : clock_(std::make_shared<lqs::ManualClock>()) {
    lqs::Options options = lqs::testing::TestProfileOptions();
    options.path = dir;
    options.clock = clock_;
    // Both servers must see the same history: no maintenance pass may land
    // between two requests on one of them only (it would return expired
    // leases to the queue and change the order of later receives).
    options.background_maintenance = false;
    broker_ = std::move(lqs::Broker::Open(options)).value();
    LocalCallerConfig config;
    config.account_id = "123456789012";
    config.endpoint_url = "http://127.0.0.1:9324";
    caller_ = std::make_unique<LocalCaller>(broker_.get(), config);
  }
  ~Server() {
    caller_.reset();
    (void)broker_->Close();
  }

  HttpResponse Call(const std::string& action, const std::string& body) {
    return Post(JsonRequest(action, body));
  }

  // A query-protocol request: `form` is the urlencoded body.
  HttpResponse CallQuery(const std::string& form) {
    HttpRequest request;
    request.method = "POST";
    request.target = "/";
    request.headers = {{"host", "127.0.0.1:9324"},
                       {"content-type", "application/x-www-form-urlencoded"}};
    request.body = form;
    return Post(request);
  }

  HttpResponse Post(const HttpRequest& request) {
    HttpResponse response = caller_->Handle(request);
    clock_->AdvanceMillis(1);
    return response;
  }

 private:
  std::shared_ptr<lqs::ManualClock> clock_;
  std::unique_ptr<lqs::Broker> broker_;
  std::unique_ptr<LocalCaller> caller_;
};

// The response with what differs between two identical servers (same
// requests at the same times) masked: request ids, message ids, receipt
// handles, sequence numbers.
std::string Normalised(const HttpResponse& r) {
  std::string out = std::to_string(r.status) + "\n";
  for (const auto& [name, value] : r.headers) {
    if (name != "x-amzn-RequestId") out += name + ": " + value + "\n";
  }
  static const std::regex kVarying(R"re("(MessageId|ReceiptHandle|SequenceNumber)":"[^"]*")re");
  return out + std::regex_replace(r.body, kVarying, "\"$1\":\"*\"");
}

// The receipt handles of a ReceiveMessage response, in order.
std::vector<std::string> Handles(const HttpResponse& r) {
  std::vector<std::string> out;
  const Json body = Json::parse(r.body, nullptr, false);
  if (!body.is_object() || !body.contains("Messages")) return out;
  for (const Json& m : body["Messages"]) out.push_back(m["ReceiptHandle"].get<std::string>());
  return out;
}

TEST(JsonProtocol, AByteOrderMarkChangesNoAnswer) {
  const lqs::testing::TempDir dir;
  const std::string& root = dir.path();
  {
    Server plain(root + "/plain");
    Server marked(root + "/marked");
    std::vector<std::string> plain_handles;
    std::vector<std::string> marked_handles;
    int steps = 0;
    // Runs one request on both servers ($H0.. stand for each server's
    // receipt handles) and compares the answers.
    auto step = [&](const std::string& action, const std::string& body) {
      ++steps;
      auto expand = [&](const std::vector<std::string>& handles) {
        std::string text = body;
        for (size_t i = handles.size(); i-- > 0;) {
          const std::string var = "$H" + std::to_string(i);
          for (size_t at; (at = text.find(var)) != std::string::npos;) {
            text.replace(at, var.size(), handles[i]);
          }
        }
        return text;
      };
      const HttpResponse a = plain.Call(action, expand(plain_handles));
      const HttpResponse b = marked.Call(action, kBom + expand(marked_handles));
      EXPECT_EQ(Normalised(a), Normalised(b)) << action << " " << body;
      if (action == "ReceiveMessage" && a.status == 200) {
        plain_handles = Handles(a);
        marked_handles = Handles(b);
      }
      return a;
    };
    const std::string url = R"("QueueUrl":"http://127.0.0.1:9324/123456789012/q")";
    const std::string fifo = R"("QueueUrl":"http://127.0.0.1:9324/123456789012/f.fifo")";
    step("CreateQueue", R"({"QueueName":"q","Attributes":{"VisibilityTimeout":"0"}})");
    step("CreateQueue",
         R"({"QueueName":"f.fifo","Attributes":{"FifoQueue":"true","VisibilityTimeout":"0"}})");

    // Sends: valid ones of every kind, then the odd and the wrong.
    const std::vector<std::string> sends = {
        R"("MessageBody":"hello")",
        R"("MessageBody":"q\"uote \\ \/ \b\f\n\r\t \u0041\u00e9\u20ac\ud83d\ude00")",
        R"("MessageBody":"q\"uote \\ \/ \n\r\t \u0041\u00e9\u20ac\ud83d\ude00 \u007f")",
        "\"MessageBody\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"",
        R"("MessageBody":"b","DelaySeconds":0)",
        R"("MessageBody":"b","DelaySeconds":"0")",
        R"("MessageBody":"b","DelaySeconds":null,"MessageGroupId":null)",
        R"("MessageBody":"b","MessageAttributes":{"s":{"DataType":"String","StringValue":"v"},)"
        R"("n":{"DataType":"Number","StringValue":"12.5"},)"
        R"("b":{"DataType":"Binary","BinaryValue":"AAEC/w=="},)"
        R"("c":{"DataType":"String.custom","StringValue":"\u00e9"}})",
        R"("MessageBody":"b","MessageSystemAttributes":{"AWSTraceHeader":{"DataType":"String",)"
        R"("StringValue":"Root=1-5759e988-bd862e3fe1be46a994272793"}})",
        R"("MessageBody":"b","Unknown":[1,{"x":null}])",
        R"("MessageBody":"")",
        R"("MessageBody":"\u0000")",
        R"("MessageBody":"b","DelaySeconds":1.5)",
        R"("MessageBody":"b","DelaySeconds":99999999999)",
        R"("MessageBody":"b","DelaySeconds":-1)",
        R"("MessageBody":"b","DelaySeconds":"x")",
        R"("MessageBody":"b","DelaySeconds":true)",
        R"("MessageBody":7)",
        R"("MessageBody":["b"])",
        R"("MessageBody":null)",
        R"("Other":"b")",
        R"("MessageBody":"a","MessageBody":"b")",
        R"("MessageBody":"b","MessageAttributes":[])",
        R"("MessageBody":"b","MessageAttributes":{"k":"v"})",
        R"("MessageBody":"b","MessageAttributes":{"k":{"DataType":"Binary","BinaryValue":"!"}})",
        R"("MessageBody":"b","MessageAttributes":{"k":{"DataType":7}})",
        R"("MessageBody":"b","MessageAttributes":{"k":{"DataType":"String"}})",
        R"("MessageBody":"b","MessageGroupId":"g")",
        R"("MessageBody":"bad \ud800 surrogate")",
        "\"MessageBody\":\"bad \xc3 utf-8\"",
        R"("MessageBody":"b",)",
        R"("MessageBody":"b"} {)",
    };
    for (const std::string& members : sends) {
      step("SendMessage", "{" + url + "," + members + "}");
    }
    step("SendMessage", R"({"MessageBody":"no queue"})");
    step("SendMessage", R"({"QueueUrl":7,"MessageBody":"b"})");
    step("SendMessage", R"({"QueueUrl":"http://h/123456789012/missing","MessageBody":"b"})");
    step("SendMessage", "{" + fifo + R"(,"MessageBody":"f","MessageGroupId":"g",)" +
                            R"("MessageDeduplicationId":"d1"})");
    step("SendMessage", "{" + fifo + R"(,"MessageBody":"f","MessageGroupId":"g"})");

    const std::vector<std::string> batches = {
        R"("Entries":[{"Id":"0","MessageBody":"a"},{"Id":"1","MessageBody":"b","DelaySeconds":0,)"
        R"("MessageAttributes":{"k":{"DataType":"String","StringValue":"v"}}}])",
        R"("Entries":[{"Id":"0","MessageBody":"a"},{"Id":"0","MessageBody":"b"}])",
        R"("Entries":[{"Id":"bad id!","MessageBody":"a"}])",
        R"("Entries":[{"Id":"0"}])",
        R"("Entries":[])",
        R"("Entries":{})",
        R"("Entries":[7])",
        R"("Entries":[{"Id":0,"MessageBody":"a"}])",
        R"("Entries":null)",
    };
    for (const std::string& members : batches) {
      step("SendMessageBatch", "{" + url + "," + members + "}");
    }

    // Receives: the messages (with attributes) and their handles.
    step("ReceiveMessage", "{" + url +
                               R"(,"MaxNumberOfMessages":10,"WaitTimeSeconds":0,)"
                               R"("AttributeNames":["All"],)"
                               R"("MessageAttributeNames":["All"]})");
    step("ReceiveMessage", "{" + url + R"(,"MaxNumberOfMessages":"x"})");
    step("ReceiveMessage", "{" + url + R"(,"MaxNumberOfMessages":11,"WaitTimeSeconds":0})");
    step("ReceiveMessage", "{" + url + R"(,"AttributeNames":"All","WaitTimeSeconds":0})");
    step("ReceiveMessage", "{" + url + R"(,"WaitTimeSeconds":1.0})");
    step("ReceiveMessage", "{" + url +
                               R"(,"MaxNumberOfMessages":3,"WaitTimeSeconds":0,)"
                               R"("MessageSystemAttributeNames":["ApproximateReceiveCount"]})");
    step("ChangeMessageVisibility", "{" + url + R"(,"ReceiptHandle":"$H0","VisibilityTimeout":0})");
    step("ChangeMessageVisibility", "{" + url + R"(,"ReceiptHandle":"$H0"})");
    step("ChangeMessageVisibility",
         "{" + url + R"(,"ReceiptHandle":"junk","VisibilityTimeout":0})");
    step("ChangeMessageVisibilityBatch",
         "{" + url +
             R"(,"Entries":[{"Id":"a","ReceiptHandle":"$H1","VisibilityTimeout":0},)"
             R"({"Id":"b","ReceiptHandle":"junk","VisibilityTimeout":0},{"Id":"c"}]})");
    step("DeleteMessage", "{" + url + R"(,"ReceiptHandle":"$H2"})");
    step("DeleteMessage", "{" + url + R"(,"ReceiptHandle":"$H2"})");
    step("DeleteMessage", "{" + url + R"(,"ReceiptHandle":"junk"})");
    step("DeleteMessage", "{" + url + R"(,"ReceiptHandle":["x"]})");
    step("DeleteMessage", "{" + url + "}");
    step("ReceiveMessage", "{" + url + R"(,"MaxNumberOfMessages":10,"WaitTimeSeconds":0})");
    step("DeleteMessageBatch", "{" + url +
                                   R"(,"Entries":[{"Id":"a","ReceiptHandle":"$H0"},)"
                                   R"({"Id":"b","ReceiptHandle":"$H1"},)"
                                   R"({"Id":"c","ReceiptHandle":"junk"},{"Id":"d"}]})");
    step("DeleteMessageBatch", "{" + url + R"(,"Entries":[{"Id":"a","ReceiptHandle":"$H0"},)" +
                                   R"({"Id":"a","ReceiptHandle":"$H1"}]})");
    step("DeleteMessageBatch", "{" + url + R"(,"Entries":"x"})");
    step("ReceiveMessage", "{" + fifo + R"(,"MaxNumberOfMessages":10,"WaitTimeSeconds":0})");
    step("GetQueueAttributes",
         "{" + url + R"(,"AttributeNames":["ApproximateNumberOfMessages","QueueArn"]})");
    EXPECT_GT(steps, 60);
  }
}

// AWS's JSON protocol leaves out an output member whose list is empty: a
// batch all of whose entries succeeded has no Failed, one all of whose
// entries failed no Successful; ListDeadLetterSourceQueues without sources
// has no queueUrls, ListMessageMoveTasks without tasks no Results. The query
// protocol's XML is unchanged (entries only, none for an empty list).
TEST(JsonProtocol, EmptyListMembersAreLeftOut) {
  const lqs::testing::TempDir dir;
  const std::string& root = dir.path();
  {
    Server server(root + "/db");
    auto body = [](const HttpResponse& r) {
      EXPECT_EQ(r.status, 200) << r.body;
      return Json::parse(r.body, nullptr, false);
    };
    const std::string url = R"("QueueUrl":"http://127.0.0.1:9324/123456789012/e")";
    body(server.Call("CreateQueue", R"({"QueueName":"e"})"));

    Json out =
        body(server.Call("SendMessageBatch", "{" + url +
                                                 R"(,"Entries":[{"Id":"a","MessageBody":"1"},)"
                                                 R"({"Id":"b","MessageBody":"2"}]})"));
    EXPECT_EQ(out["Successful"].size(), 2u) << out;
    EXPECT_FALSE(out.contains("Failed")) << out;
    out = body(server.Call("SendMessageBatch",
                           "{" + url + R"(,"Entries":[{"Id":"x","MessageBody":"bad \u0001"}]})"));
    EXPECT_FALSE(out.contains("Successful")) << out;
    ASSERT_EQ(out["Failed"].size(), 1u) << out;
    EXPECT_EQ(out["Failed"][0]["Code"], "InvalidMessageContents");

    out = body(server.Call("ReceiveMessage", "{" + url + R"(,"MaxNumberOfMessages":10})"));
    ASSERT_EQ(out["Messages"].size(), 2u) << out;
    const std::string h0 = out["Messages"][0]["ReceiptHandle"].get<std::string>();
    const std::string h1 = out["Messages"][1]["ReceiptHandle"].get<std::string>();

    out = body(server.Call("ChangeMessageVisibilityBatch",
                           "{" + url + R"(,"Entries":[{"Id":"a","ReceiptHandle":")" + h0 +
                               R"(","VisibilityTimeout":60}]})"));
    EXPECT_EQ(out, Json::parse(R"({"Successful":[{"Id":"a"}]})"));
    out = body(server.Call(
        "ChangeMessageVisibilityBatch",
        "{" + url + R"(,"Entries":[{"Id":"j","ReceiptHandle":"junk","VisibilityTimeout":0}]})"));
    EXPECT_FALSE(out.contains("Successful")) << out;
    ASSERT_EQ(out["Failed"].size(), 1u) << out;
    EXPECT_EQ(out["Failed"][0]["Code"], "ReceiptHandleIsInvalid");

    out = body(server.Call("DeleteMessageBatch",
                           "{" + url + R"(,"Entries":[{"Id":"a","ReceiptHandle":")" + h0 +
                               R"("},{"Id":"b","ReceiptHandle":")" + h1 + R"("}]})"));
    EXPECT_EQ(out, Json::parse(R"({"Successful":[{"Id":"a"},{"Id":"b"}]})"));
    out = body(server.Call("DeleteMessageBatch",
                           "{" + url + R"(,"Entries":[{"Id":"j","ReceiptHandle":"junk"}]})"));
    EXPECT_FALSE(out.contains("Successful")) << out;
    ASSERT_EQ(out["Failed"].size(), 1u) << out;
    EXPECT_EQ(out["Failed"][0]["Code"], "ReceiptHandleIsInvalid");

    // Nothing to list: {} (no queueUrls, no Results).
    EXPECT_EQ(server.Call("ListDeadLetterSourceQueues", "{" + url + "}").body, "{}");
    const Json attrs =
        body(server.Call("GetQueueAttributes", "{" + url + R"(,"AttributeNames":["QueueArn"]})"));
    const std::string arn = attrs["Attributes"]["QueueArn"].get<std::string>();
    EXPECT_EQ(server.Call("ListMessageMoveTasks", R"({"SourceArn":")" + arn + R"("})").body, "{}");
    // And the other empty outputs stay empty.
    EXPECT_EQ(server.Call("ReceiveMessage", "{" + url + "}").body, "{}");
    EXPECT_EQ(server.Call("ListQueueTags", "{" + url + "}").body, "{}");
    EXPECT_EQ(server.Call("ListQueues", R"({"QueueNamePrefix":"zzz"})").body, "{}");

    // The query protocol: the result element with its entries, as before.
    const HttpResponse q = server.CallQuery(
        "Action=SendMessageBatch&QueueUrl=http%3A%2F%2F127.0.0.1%3A9324%2F123456789012%2Fe"
        "&SendMessageBatchRequestEntry.1.Id=a&SendMessageBatchRequestEntry.1.MessageBody=1");
    EXPECT_EQ(q.status, 200) << q.body;
    EXPECT_NE(q.body.find("<SendMessageBatchResult><SendMessageBatchResultEntry><Id>a</Id>"),
              std::string::npos)
        << q.body;
    EXPECT_EQ(q.body.find("BatchResultErrorEntry"), std::string::npos) << q.body;
    const HttpResponse none = server.CallQuery(
        "Action=ListDeadLetterSourceQueues"
        "&QueueUrl=http%3A%2F%2F127.0.0.1%3A9324%2F123456789012%2Fe");
    EXPECT_EQ(none.status, 200) << none.body;
    EXPECT_NE(none.body.find("<ListDeadLetterSourceQueuesResult/>"), std::string::npos)
        << none.body;
  }
}

// Each member the action model marks required (action_model.h) and lqsd
// checks is answered MissingParameter when it is the one left out (a list's
// empty value too), whatever the action.
TEST(JsonProtocol, EachRequiredMemberLeftOutIsMissingParameter) {
  const lqs::testing::TempDir dir;
  {
    Server server(dir.path() + "/db");
    // A value of the member's kind.
    auto value = [](const action_model::Member& m) {
      switch (m.kind) {
        case action_model::Kind::kInteger:
          return Json(1);
        case action_model::Kind::kStringList:
          return Json::array({"x"});
        case action_model::Kind::kStringMap:
          return Json{{"k", "v"}};
        default:
          return Json("x");
      }
    };
    // Left out of the check: the queue's URL and a batch's entries (not
    // answered with MissingParameter; their own tests cover them).
    auto checked = [](const action_model::Member& m) {
      return m.required && m.json_name != "QueueUrl" && m.kind != action_model::Kind::kEntryList;
    };
    int cases = 0;
    for (const action_model::Action& action : action_model::All()) {
      for (const action_model::Member& left_out : action.input) {
        if (!checked(left_out)) continue;
        std::vector<Json> inputs = {Json::object()};
        if (left_out.kind == action_model::Kind::kStringList) {
          inputs.push_back(Json{{std::string(left_out.json_name), Json::array()}});
        }
        for (Json& input : inputs) {
          input["QueueUrl"] = "http://127.0.0.1:9324/123456789012/q";
          for (const action_model::Member& m : action.input) {
            if (checked(m) && &m != &left_out) input[std::string(m.json_name)] = value(m);
          }
          const std::string name(action.name);
          const HttpResponse r = server.Call(name, input.dump());
          EXPECT_EQ(r.status, 400) << name << " " << input.dump();
          std::string code;
          for (const auto& [header, text] : r.headers) {
            if (header == "x-amzn-query-error") code = text;
          }
          EXPECT_EQ(code, "MissingParameter;Sender") << name << " " << r.body;
          EXPECT_NE(r.body.find("The request must contain the parameter " +
                                std::string(left_out.json_name) + "."),
                    std::string::npos)
              << name << " " << input.dump() << " " << r.body;
          ++cases;
        }
      }
    }
    EXPECT_EQ(cases, 19);
  }
}

}  // namespace
}  // namespace lqsd
