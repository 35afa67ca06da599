// Unit tests of lqsd's codecs: base64, percent-decoding, XML escaping, the
// query-protocol decoder and XML encoder, JSON errors, queue URL parsing and
// SigV4 (with the AWS documentation's example key).

#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/action_model.h"
#include "server/actions.h"
#include "server/endpoint.h"
#include "server/error_map.h"
#include "server/http_server.h"
#include "server/metrics.h"
#include "server/router.h"
#include "server/sigv4.h"
#include "server/sqs_json.h"
#include "server/sqs_query.h"
#include "server/text_util.h"

namespace lqsd {
namespace {

TEST(TextUtil, Base64RoundTrip) {
  EXPECT_EQ(Base64Encode(std::string("\x00\x01", 2)), "AAE=");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(*Base64Decode("AAE="), std::string("\x00\x01", 2));
  EXPECT_EQ(*Base64Decode("Zm9v"), "foo");
  EXPECT_EQ(*Base64Decode("Zg"), "f");  // missing padding tolerated
  EXPECT_FALSE(Base64Decode("Zm9v!").has_value());
  EXPECT_FALSE(Base64Decode("Z").has_value());
  EXPECT_FALSE(Base64Decode("Zg=").has_value());
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  EXPECT_EQ(*Base64Decode(Base64Encode(all)), all);
}

TEST(TextUtil, PercentDecode) {
  EXPECT_EQ(PercentDecode("a%20b+c", true), "a b c");
  EXPECT_EQ(PercentDecode("a+b", false), "a+b");
  EXPECT_EQ(PercentDecode("%0D%0A", true), "\r\n");
  EXPECT_EQ(PercentDecode("100%", true), "100%");
  EXPECT_EQ(PercentDecode("%zz%4", true), "%zz%4");
  const auto pairs = ParseFormPairs("Action=SendMessage&MessageBody=a%26b%3Dc&&Empty");
  ASSERT_EQ(pairs.size(), 3u);
  EXPECT_EQ(pairs[1].second, "a&b=c");
  EXPECT_EQ(pairs[2].first, "Empty");
  EXPECT_EQ(pairs[2].second, "");
}

TEST(TextUtil, XmlEscape) {
  EXPECT_EQ(XmlEscape("a<b>&\"c'\r\n\t"), "a&lt;b&gt;&amp;&quot;c'&#xD;\n\t");
  EXPECT_EQ(XmlEscape("\xF0\x9F\x98\x80"), "\xF0\x9F\x98\x80");  // U+1F600 kept as UTF-8
  EXPECT_EQ(XmlEscape(std::string("a\x01", 2)), "a\xEF\xBF\xBD");
  EXPECT_EQ(XmlEscape("\xC3"), "\xEF\xBF\xBD");  // truncated UTF-8
}

TEST(TextUtil, EscapeCharsReplacesOnlyTheListedCharacters) {
  constexpr CharEscape kEscapes[] = {{'<', "&lt;"}, {'\n', "\\n"}};
  EXPECT_EQ(EscapeChars("a<b\n<", kEscapes), "a&lt;b\\n&lt;");
  EXPECT_EQ(EscapeChars("plain > text", kEscapes), "plain > text");
  EXPECT_EQ(EscapeChars("", kEscapes), "");
  // The Prometheus label values of GET /metrics.
  EXPECT_EQ(EscapeLabelValue("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
}

TEST(TextUtil, RequestIdIsUuid4) {
  const std::string id = NewRequestId();
  ASSERT_EQ(id.size(), 36u);
  EXPECT_EQ(id[14], '4');
  EXPECT_NE(id, NewRequestId());
}

TEST(SqsQuery, DecodesFlattenedMembers) {
  const sqs_query::Params params = {
      {"Action", "SendMessageBatch"},
      {"SendMessageBatchRequestEntry.2.Id", "b"},
      {"SendMessageBatchRequestEntry.2.MessageBody", "two"},
      {"SendMessageBatchRequestEntry.1.Id", "a"},
      {"SendMessageBatchRequestEntry.1.MessageBody", "one"},
      {"SendMessageBatchRequestEntry.1.DelaySeconds", "5"},
      {"SendMessageBatchRequestEntry.1.MessageAttribute.1.Name", "n"},
      {"SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.DataType", "Number"},
      {"SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.StringValue", "1"},
      {"SendMessageBatchRequestEntry.10.Id", "j"},
  };
  const Json p = sqs_query::DecodeParams("SendMessageBatch", params);
  ASSERT_EQ(p["Entries"].size(), 3u);
  EXPECT_EQ(p["Entries"][0]["Id"], "a");
  EXPECT_EQ(p["Entries"][0]["DelaySeconds"], 5);
  EXPECT_EQ(p["Entries"][0]["MessageAttributes"]["n"]["DataType"], "Number");
  EXPECT_EQ(p["Entries"][1]["Id"], "b");
  EXPECT_EQ(p["Entries"][2]["Id"], "j");  // numeric index order, not string order
}

TEST(SqsQuery, DecodesMapsAndLists) {
  const sqs_query::Params params = {
      {"Attribute.1.Name", "VisibilityTimeout"},
      {"Attribute.1.Value", "60"},
      {"Tag.1.Key", "team"},
      {"Tag.1.Value", "core"},
      {"AttributeName.1", "All"},
      {"MessageAttributeName.1", "a.*"},
      {"MaxNumberOfMessages", "x"},
      {"Action", "CreateQueue"},
  };
  const Json create = sqs_query::DecodeParams("CreateQueue", params);
  EXPECT_EQ(create["Attributes"]["VisibilityTimeout"], "60");
  EXPECT_EQ(create["tags"]["team"], "core");  // CreateQueue's member is lower-case
  // Parameters that are not the action's members are not decoded.
  EXPECT_FALSE(create.contains("AttributeNames"));
  EXPECT_FALSE(create.contains("MaxNumberOfMessages"));
  EXPECT_FALSE(create.contains("Action"));
  const Json receive = sqs_query::DecodeParams("ReceiveMessage", params);
  EXPECT_EQ(receive["AttributeNames"][0], "All");
  EXPECT_EQ(receive["MessageAttributeNames"][0], "a.*");
  EXPECT_EQ(receive["MaxNumberOfMessages"], "x");  // left as a string: the handler rejects it
  const Json tag = sqs_query::DecodeParams("TagQueue", params);
  EXPECT_EQ(tag["Tags"]["team"], "core");
  EXPECT_FALSE(tag.contains("Attributes"));
}

TEST(SqsQuery, DecodesEmptyListsAndMapsUnderTheirJsonNames) {
  // botocore writes an empty list or map as "<JsonName>=".
  const sqs_query::Params params = {{"Entries", ""}, {"QueueUrl", "http://h/1/q"}};
  const Json batch = sqs_query::DecodeParams("DeleteMessageBatch", params);
  EXPECT_EQ(batch["Entries"], Json::array());
  EXPECT_EQ(batch["QueueUrl"], "http://h/1/q");
  const Json attrs = sqs_query::DecodeParams("SetQueueAttributes", {{"Attributes", ""}});
  EXPECT_EQ(attrs["Attributes"], Json::object());
  // A non-empty text under a list's JSON name stays a text: the handler
  // answers that it is not a list.
  const Json names = sqs_query::DecodeParams("GetQueueAttributes", {{"AttributeNames", "All"}});
  EXPECT_EQ(names["AttributeNames"], "All");
}

TEST(ActionModel, DescribesEachActionOnce) {
  std::set<std::string_view> names;
  for (const action_model::Action& action : action_model::All()) {
    EXPECT_TRUE(names.insert(action.name).second) << action.name;
    EXPECT_EQ(action_model::Find(action.name), &action);
    EXPECT_EQ(action_model::FindMember(action.input, "QueueUrl", false) != nullptr,
              action.targets_queue)
        << action.name;
    for (const action_model::Member& member : action.input) {
      EXPECT_EQ(action_model::FindMember(action.input, member.json_name, false), &member);
      EXPECT_EQ(member.kind == action_model::Kind::kEntryList, !member.entry.empty())
          << action.name << "." << member.json_name;
    }
    EXPECT_TRUE(action.output.empty() || action.has_output) << action.name;
  }
  EXPECT_EQ(names.size(), 23u);  // docs/sqs-reference.md §2.1
  EXPECT_EQ(action_model::Find("sendmessage"), nullptr);
  // Actions' constructor checks that every modelled action has a handler.
  const Actions actions("000000000000");
  for (const action_model::Action& action : action_model::All()) {
    EXPECT_TRUE(Actions::IsKnown(action.name));
  }
}

TEST(SqsQuery, EncodesModelledListsUnderTheirElements) {
  Json out = Json::object();
  out["queueUrls"] = Json::array({"http://h/1/a", "http://h/1/b"});
  const HttpResponse r = sqs_query::EncodeResult("ListDeadLetterSourceQueues", out, "rid");
  EXPECT_NE(r.body.find("<ListDeadLetterSourceQueuesResult><QueueUrl>http://h/1/a</QueueUrl>"
                        "<QueueUrl>http://h/1/b</QueueUrl></ListDeadLetterSourceQueuesResult>"),
            std::string::npos)
      << r.body;
  Json messages = Json::object();
  messages["Messages"] = Json::array({Json{{"MessageId", "m"}, {"Attributes", {{"a", "1"}}}}});
  const HttpResponse j =
      sqs_query::EncodeResult("ReceiveMessage", messages, "rid", sqs_query::Rendering::kJson);
  EXPECT_NE(
      j.body.find(R"("messages":[{"MessageId":"m","Attributes":[{"Name":"a","Value":"1"}]}])"),
      std::string::npos)
      << j.body;
}

TEST(SqsQuery, EncodesResultsFlattenedAndEscaped) {
  Json out = Json::object();
  Json msg = Json::object();
  msg["MessageId"] = "m1";
  msg["Body"] = "a\r\nb<";
  msg["Attributes"] = Json{{"SenderId", "x"}};
  msg["MessageAttributes"] = Json{{"k", Json{{"StringValue", "v"}, {"DataType", "String"}}}};
  out["Messages"] = Json::array({msg});
  const HttpResponse r = sqs_query::EncodeResult("ReceiveMessage", out, "rid");
  EXPECT_NE(r.body.find("<ReceiveMessageResponse xmlns=\"http://queue.amazonaws.com/doc/"
                        "2012-11-05/\"><ReceiveMessageResult><Message><MessageId>m1</MessageId>"
                        "<Body>a&#xD;\nb&lt;</Body><Attribute><Name>SenderId</Name><Value>x"
                        "</Value></Attribute><MessageAttribute><Name>k</Name><Value>"
                        "<StringValue>v</StringValue><DataType>String</DataType></Value>"
                        "</MessageAttribute></Message></ReceiveMessageResult><ResponseMetadata>"
                        "<RequestId>rid</RequestId></ResponseMetadata></ReceiveMessageResponse>"),
            std::string::npos)
      << r.body;

  const HttpResponse empty = sqs_query::EncodeResult("ReceiveMessage", Json::object(), "rid");
  EXPECT_NE(empty.body.find("<ReceiveMessageResult/>"), std::string::npos);
  const HttpResponse none = sqs_query::EncodeResult("DeleteMessage", Json::object(), "rid");
  EXPECT_EQ(none.body.find("Result"), std::string::npos);

  Json batch = Json::object();
  batch["Successful"] = Json::array({Json{{"Id", "a"}}});
  batch["Failed"] =
      Json::array({Json{{"Id", "b"}, {"SenderFault", true}, {"Code", "X"}, {"Message", "m"}}});
  const HttpResponse b = sqs_query::EncodeResult("DeleteMessageBatch", batch, "rid");
  EXPECT_NE(b.body.find("<DeleteMessageBatchResultEntry><Id>a</Id></DeleteMessageBatchResultEntry>"
                        "<BatchResultErrorEntry><Id>b</Id><SenderFault>true</SenderFault>"),
            std::string::npos);
}

TEST(SqsQuery, RendersJsonWhenAsked) {
  Json out = Json::object();
  out["Tags"] = Json{{"env", "prod"}};
  out["QueueUrls"] = Json::array({"http://h/1/q"});
  const HttpResponse r =
      sqs_query::EncodeResult("ListQueueTags", out, "rid", sqs_query::Rendering::kJson);
  EXPECT_EQ(
      r.body,
      R"({"ListQueueTagsResponse":{"ListQueueTagsResult":{"Tags":[{"Key":"env","Value":"prod"}],)"
      R"("QueueUrls":["http://h/1/q"]},"ResponseMetadata":{"RequestId":"rid"}}})");
  SqsError error;
  error.http_status = 400;
  error.query_code = "InvalidAction";
  error.message = "nope";
  const HttpResponse e = sqs_query::EncodeError(error, "rid", sqs_query::Rendering::kJson);
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(
      e.body,
      R"({"Error":{"Type":"Sender","Code":"InvalidAction","Message":"nope"},"RequestId":"rid"})");
  HttpRequest request;
  const auto rendering = [&](const char* accept) {
    request.headers = {{"accept", accept}};
    return sqs_query::RenderingFor(request);
  };
  EXPECT_EQ(rendering("application/json"), sqs_query::Rendering::kJson);
  EXPECT_EQ(rendering("text/xml, APPLICATION/JSON ; q=0.5"), sqs_query::Rendering::kJson);
  EXPECT_EQ(rendering("application/jsonp"), sqs_query::Rendering::kXml);
  EXPECT_EQ(rendering("*/*"), sqs_query::Rendering::kXml);
  request.headers.clear();
  EXPECT_EQ(sqs_query::RenderingFor(request), sqs_query::Rendering::kXml);
}

TEST(SqsJson, DirectWriterMatchesTheSerialiser) {
  // The hot actions write JSON text directly; it must be byte for byte what
  // EncodeResult's serialiser writes for the same strings.
  const std::string cases[] = {
      "",
      "plain ascii 0123456789 ~!@#$%^&*()_+{}[]|:;'<>,.?/",
      "quote \" and backslash \\ and slash /",
      std::string("controls \x01\x07\b\t\n\x0b\f\r\x1f and DEL \x7f", 30),
      "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
      "bad utf-8 \xc3 \xff \xed\xa0\x80 end",
      std::string(1000, 'x') + "\"",
  };
  for (const std::string& text : cases) {
    std::string direct;
    lqsd::sqs_json::AppendString(&direct, text);
    lqsd::Json holder = lqsd::Json::object();
    holder["k"] = text;
    const std::string full = lqsd::sqs_json::EncodeResult(holder, "id").body;
    EXPECT_EQ("{\"k\":" + direct + "}", full) << text;
  }
}

TEST(ErrorMap, ProtocolSpecificMessages) {
  const SqsError e = NonExistentQueue();
  EXPECT_EQ(e.query_code, "AWS.SimpleQueueService.NonExistentQueue");
  EXPECT_EQ(JsonType(e), "com.amazonaws.sqs#QueueDoesNotExist");
  EXPECT_EQ(MessageFor(e, Protocol::kJson), "The specified queue does not exist.");
  EXPECT_EQ(MessageFor(e, Protocol::kQuery),
            "The specified queue does not exist for this wsdl version.");

  const HttpResponse j = sqs_json::EncodeError(e, "rid");
  EXPECT_EQ(j.status, 400);
  bool header = false;
  for (const auto& [k, v] : j.headers) {
    if (k == "x-amzn-query-error") header = v == "AWS.SimpleQueueService.NonExistentQueue;Sender";
  }
  EXPECT_TRUE(header);
  const SqsError purge = ErrorFromStatus(lqs::Status(lqs::ErrorCode::kPurgeQueueInProgress, "p"));
  EXPECT_EQ(purge.http_status, 403);
  const SqsError ipv = InvalidParameterValue("x");
  EXPECT_EQ(JsonType(ipv), "com.amazon.coral.service#InvalidParameterValueException");
  EXPECT_EQ(ipv.query_code, "InvalidParameterValue");
}

TEST(Router, QueueUrls) {
  Actions actions("123456789012");
  RouterConfig config;
  Router router(&actions, config);
  EXPECT_EQ(router.QueueFromUrl("http://localhost:9324/123456789012/q1").name, "q1");
  EXPECT_EQ(router.QueueFromUrl("https://sqs.us-east-1.amazonaws.com/123456789012/q1?x").name,
            "q1");
  EXPECT_EQ(router.QueueFromUrl("http://h/000000000000/q1").name, "");  // another account
  EXPECT_EQ(router.QueueFromUrl("q1").name, "q1");                      // bare name (lenient)
  EXPECT_EQ(router.QueueFromUrl("http://h/").name, "");
  EXPECT_EQ(router.QueueFromPath("/123456789012/q1")->name, "q1");
  EXPECT_FALSE(router.QueueFromPath("/").has_value());

  HttpRequest json;
  json.headers = {{"x-amz-target", "AmazonSQS.ListQueues"}};
  EXPECT_EQ(DetectProtocol(json), Protocol::kJson);
  HttpRequest form;
  form.method = "POST";
  form.headers = {{"content-type", "application/x-www-form-urlencoded"}};
  EXPECT_EQ(DetectProtocol(form), Protocol::kQuery);
}

// Queue names come from the last two path segments, each percent-decoded
// after splitting at '/', with empty segments skipped.
TEST(Router, QueueUrlSegments) {
  Actions actions("123456789012");
  RouterConfig config;
  Router router(&actions, config);
  EXPECT_EQ(router.QueueFromUrl("http://h/123456789012/q1/").name, "q1");
  EXPECT_EQ(router.QueueFromUrl("http://h//123456789012//q1#frag").name, "q1");
  EXPECT_EQ(router.QueueFromUrl("http://h/x/123456789012/q1").name, "q1");
  EXPECT_EQ(router.QueueFromUrl("http://h/12345678901%32/q%31").name, "q1");
  EXPECT_EQ(router.QueueFromUrl("http://h/123456789012/a%2Fb").name, "a/b");
  EXPECT_EQ(router.QueueFromUrl("http://h/123456789012%2Fq1").name, "");  // one segment
  EXPECT_EQ(router.QueueFromUrl("/q%41").name, "qA");
  EXPECT_EQ(router.QueueFromUrl("http://h").name, "");
  EXPECT_EQ(router.QueueFromUrl("").name, "");
  EXPECT_EQ(router.QueueFromPath("//123456789012/q1/")->name, "q1");
  EXPECT_EQ(router.QueueFromPath("/000000000000/q1")->name, "");  // not ours
  EXPECT_FALSE(router.QueueFromPath("/a/123456789012/q1").has_value());
  EXPECT_FALSE(router.QueueFromPath("/q1").has_value());

  // Without SigV4 the router reads a few header fields; with it, any.
  EXPECT_EQ(Router::HeadersRead(config),
            (std::vector<std::string>{"host", "x-amz-target", "content-type", "x-amzn-trace-id",
                                      "accept", "authorization"}));
  SigV4Verifier verifier(std::map<std::string, std::string>{{"K", "S"}});
  config.auth = &verifier;
  EXPECT_TRUE(Router::HeadersRead(config).empty());
}

// The example of the AWS SigV4 documentation (IAM ListUsers, GET).
TEST(SigV4, DocumentationExample) {
  HttpRequest req;
  req.method = "GET";
  req.target = "/?Action=ListUsers&Version=2010-05-08";
  req.headers = {{"content-type", "application/x-www-form-urlencoded; charset=utf-8"},
                 {"host", "iam.amazonaws.com"},
                 {"x-amz-date", "20150830T123600Z"}};
  const std::string canonical =
      CanonicalRequest(req, "content-type;host;x-amz-date", Sha256Hex(""), false);
  EXPECT_EQ(Sha256Hex(canonical),
            "f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59");
  const std::string to_sign =
      "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/iam/aws4_request\n" +
      Sha256Hex(canonical);
  EXPECT_EQ(SignatureFor("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "20150830", "us-east-1", "iam",
                         to_sign),
            "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7");

  SigV4Verifier verifier(std::map<std::string, std::string>{
      {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"}});
  const int64_t now = *ParseAmzDate("20150830T123600Z");
  req.headers.emplace_back(
      "authorization",
      "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, "
      "SignedHeaders=content-type;host;x-amz-date, "
      "Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7");
  EXPECT_FALSE(verifier.Verify(req, now).has_value());
  const auto late = verifier.Verify(req, now + 3600);
  ASSERT_TRUE(late.has_value());
  EXPECT_EQ(late->query_code, "SignatureDoesNotMatch");

  HttpRequest tampered = req;
  tampered.target = "/?Action=ListUsers&Version=2010-05-09";
  const auto bad = verifier.Verify(tampered, now);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->query_code, "SignatureDoesNotMatch");
  EXPECT_EQ(bad->http_status, 403);

  SigV4Verifier other(std::map<std::string, std::string>{{"SOMEONEELSE", "x"}});
  EXPECT_EQ(other.Verify(req, now)->query_code, "InvalidClientTokenId");

  HttpRequest unsigned_req;
  unsigned_req.method = "POST";
  unsigned_req.target = "/";
  EXPECT_EQ(verifier.Verify(unsigned_req, now)->query_code, "MissingAuthenticationToken");
  unsigned_req.headers = {{"authorization", "AWS4-HMAC-SHA256 Credential=x"}};
  const auto incomplete = verifier.Verify(unsigned_req, now);
  EXPECT_EQ(incomplete->query_code, "IncompleteSignature");
  EXPECT_EQ(incomplete->http_status, 400);
}

// What the `lqs` CLI signs (wire::SignRequest) is what lqsd verifies.
TEST(SigV4, SignRequestVerifies) {
  HttpRequest req;
  req.method = "POST";
  req.target = "/";
  req.body = R"({"QueueName":"jobs"})";
  req.headers = {{"host", "127.0.0.1:9324"},
                 {"content-type", "application/x-amz-json-1.0"},
                 {"x-amz-target", "AmazonSQS.CreateQueue"}};
  lqs::wire::SigningCredentials who{"AKID", "SECRET", "", "eu-west-1"};
  const int64_t now = *ParseAmzDate("20261201T120000Z");
  auto sign = [&](const lqs::wire::SigningCredentials& c) {
    HttpRequest signed_req = req;
    for (auto& field : lqs::wire::SignRequest(c, "POST", "/", req.headers, req.body, now)) {
      signed_req.headers.push_back(std::move(field));
    }
    return signed_req;
  };
  SigV4Verifier verifier(std::map<std::string, std::string>{{"AKID", "SECRET"}});

  const HttpRequest plain = sign(who);
  EXPECT_EQ(*plain.Header("x-amz-date"), "20261201T120000Z");
  // botocore 1.43's SigV4Auth signs this request the same, byte for byte.
  EXPECT_EQ(*plain.Header("authorization"),
            "AWS4-HMAC-SHA256 Credential=AKID/20261201/eu-west-1/sqs/aws4_request, "
            "SignedHeaders=content-type;host;x-amz-date;x-amz-target, "
            "Signature=30134f576488c079a18bc9cf8763ec8ad2c1047fa25bee78317be9ffd40345da");
  EXPECT_EQ(plain.Header("x-amz-security-token"), nullptr);
  EXPECT_FALSE(verifier.Verify(plain, now).has_value());
  EXPECT_EQ(SigningRegion(plain), "eu-west-1");
  std::string verified_region = "unset";
  EXPECT_FALSE(verifier.Verify(plain, now, &verified_region).has_value());
  EXPECT_EQ(verified_region, "eu-west-1");
  verified_region = "unset";
  EXPECT_TRUE(verifier.Verify(plain, now + 3600, &verified_region).has_value());
  EXPECT_EQ(verified_region, "unset");  // only a verified scope is handed out

  who.session_token = "TOKEN";
  const HttpRequest with_token = sign(who);
  EXPECT_EQ(*with_token.Header("x-amz-security-token"), "TOKEN");
  EXPECT_NE(with_token.Header("authorization")->find("x-amz-security-token"), std::string::npos);
  EXPECT_FALSE(verifier.Verify(with_token, now).has_value());

  HttpRequest changed_body = plain;
  changed_body.body = R"({"QueueName":"other"})";
  EXPECT_EQ(verifier.Verify(changed_body, now)->query_code, "SignatureDoesNotMatch");
  who.secret_access_key = "WRONG";
  EXPECT_EQ(verifier.Verify(sign(who), now)->query_code, "SignatureDoesNotMatch");
}

TEST(Endpoint, DefaultIoThreadsLeaveHalfTheCoresToClients) {
  EXPECT_EQ(DefaultIoThreads(0), 1);  // unknown
  EXPECT_EQ(DefaultIoThreads(1), 1);
  EXPECT_EQ(DefaultIoThreads(2), 1);
  EXPECT_EQ(DefaultIoThreads(3), 1);
  EXPECT_EQ(DefaultIoThreads(8), 4);
  EXPECT_EQ(DefaultIoThreads(16), 8);
}

// A plain blocking TCP client on 127.0.0.1:`port`.
int Connect(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Everything the server sends until it closes the connection.
std::string ReadToEnd(int fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) return out;
    out.append(buf, static_cast<size_t>(n));
  }
}

// An HttpServer on one I/O thread whose handler answers every request with
// its sequence number, and whose Committer notes how many bytes of answers
// each client socket held when it ran.
struct CommitProbe {
  explicit CommitProbe(bool commit_succeeds, int clients = 1) {
    server = std::make_unique<HttpServer>(
        std::vector<boost::asio::io_context*>{&context}, HttpServer::Limits{},
        [this](const HttpRequest&, Poster, Responder respond, AbandonHook) {
          HttpResponse r;
          r.body = "answer " + std::to_string(++handled);
          respond(std::move(r));
        },
        [](const HttpRequest&, int status) {
          HttpResponse r;
          r.status = status;
          return r;
        });
    server->SetCommitter([this, commit_succeeds] {
      for (size_t i = 0; i < all_clients.size(); ++i) {
        int waiting = 0;
        ::ioctl(all_clients[i], FIONREAD, &waiting);
        bytes_at_commit[i].push_back(waiting);
      }
      ++commits;
      return commit_succeeds;
    });
    std::string error;
    EXPECT_TRUE(server->Listen("127.0.0.1", 0, &error)) << error;
    for (int i = 0; i < clients; ++i) {
      all_clients.push_back(Connect(server->port()));
      EXPECT_GE(all_clients.back(), 0);
    }
    client = all_clients.front();
    bytes_at_commit.resize(all_clients.size());
  }

  void Send(const std::string& bytes, size_t which = 0) const {
    ASSERT_EQ(::send(all_clients[which], bytes.data(), bytes.size(), 0),
              static_cast<ssize_t>(bytes.size()));
  }
  void Run() {
    thread = std::thread([this] { context.run(); });
  }
  void Stop() {
    server->Stop();
    context.stop();
    if (thread.joinable()) thread.join();
  }

  ~CommitProbe() {
    Stop();
    for (int fd : all_clients) ::close(fd);
  }

  boost::asio::io_context context{1};
  std::unique_ptr<HttpServer> server;
  std::vector<int> all_clients;
  int client = -1;  // the first
  std::atomic<int> handled{0};
  std::atomic<int> commits{0};
  // Per client, per commit; the I/O thread's, read after Stop().
  std::vector<std::vector<int>> bytes_at_commit;
  std::thread thread;
};

TEST(HttpServer, EachAnswerIsWrittenAfterTheCommitOfItsRound) {
  CommitProbe probe(/*commit_succeeds=*/true);
  // Pipelined: a request is read only after the answer before it went out,
  // so each is a round of its own, committed before its answer is written.
  probe.Send(
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\na"
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nb"
      "POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 1\r\n\r\nc");
  probe.Run();
  // The client reads nothing until the third commit, so that the Committer
  // sees every answer written before it.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (probe.commits.load() < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  probe.Stop();  // the third answer was written in the handler that committed it
  const std::string answers = ReadToEnd(probe.client);
  ASSERT_EQ(probe.bytes_at_commit[0].size(), 3u);
  size_t answer_start = 0;
  for (int k = 0; k < 3; ++k) {
    const size_t at = answers.find("HTTP/1.1 200", answer_start);
    ASSERT_NE(at, std::string::npos) << answers;
    EXPECT_LE(static_cast<size_t>(probe.bytes_at_commit[0][static_cast<size_t>(k)]), at)
        << "answer " << k + 1 << " reached the client before its commit";
    EXPECT_NE(answers.find("answer " + std::to_string(k + 1), at), std::string::npos);
    answer_start = at + 1;
  }
}

TEST(HttpServer, ConnectionsAnsweredInOneRoundWaitForItsCommit) {
  constexpr int kClients = 4;
  CommitProbe probe(/*commit_succeeds=*/true, kClients);
  for (size_t i = 0; i < kClients; ++i) {
    probe.Send("POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 1\r\n\r\na", i);
  }
  probe.Run();
  std::vector<std::string> answers;
  for (int fd : probe.all_clients) answers.push_back(ReadToEnd(fd));
  probe.Stop();
  for (const std::string& a : answers) EXPECT_NE(a.find("answer "), std::string::npos) << a;
  // However the requests fell into rounds, each answer reached its client
  // after a commit: at the first commit no client had any.
  ASSERT_GE(probe.commits.load(), 1);
  ASSERT_LE(probe.commits.load(), kClients);
  for (const auto& per_commit : probe.bytes_at_commit) EXPECT_EQ(per_commit.front(), 0);
}

// A failed commit: the answer that claimed success is not sent; the
// Rejecter's for 503 goes out instead (lqsd: ServiceUnavailable), and the
// connection is closed after it.
TEST(HttpServer, AFailedCommitAnswersTheRejecters503AndCloses) {
  CommitProbe probe(/*commit_succeeds=*/false);
  probe.Send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\na");
  probe.Run();
  const std::string answer = ReadToEnd(probe.client);  // ends: the server closed
  EXPECT_EQ(answer.rfind("HTTP/1.1 503 ", 0), 0u) << answer;
  EXPECT_EQ(answer.find("answer 1"), std::string::npos) << answer;
  EXPECT_NE(answer.find("Connection: close"), std::string::npos) << answer;
  EXPECT_EQ(probe.commits.load(), 1);
  EXPECT_EQ(probe.handled.load(), 1);
}

}  // namespace
}  // namespace lqsd
