// Unit tests of wire/sqs_codec: the JSON bodies the CLI's remote mode sends
// match the SQS JSON 1.0 examples of docs/sqs-reference.md §12.1 (produced by botocore),
// and answers and errors (§12.2, §12.3) decode into lqs types.

#include <gtest/gtest.h>

#include "tools/commands.h"
#include "tools/output.h"
#include "wire/sqs_codec.h"

namespace lqs::wire::codec {
using lqs_cli::ExitCodeFor;
using lqs_cli::kExitIoError;
using lqs_cli::kExitSqsError;
using lqs_cli::kServerErrorCode;
using lqs_cli::RequestFromJson;
namespace {

using lqs::ErrorCode;

Json J(const char* text) { return Json::parse(text); }

// JSON equality regardless of member order.
void ExpectSameJson(const Json& got, const char* want) {
  EXPECT_EQ(nlohmann::json::parse(got.dump()), nlohmann::json::parse(want)) << got.dump();
}

lqs::MessageAttributeValue Str(const std::string& type, const std::string& v) {
  lqs::MessageAttributeValue a;
  a.data_type = type;
  a.string_value = v;
  return a;
}

TEST(Base64, RoundTripsEveryLength) {
  EXPECT_EQ(Base64Encode(std::string("\x00\x01", 2)), "AAE=");
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  for (size_t n = 0; n < all.size(); n += 7) {
    auto back = Base64Decode(Base64Encode(all.substr(0, n)));
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, all.substr(0, n));
  }
  EXPECT_FALSE(Base64Decode("a!==").has_value());
}

// docs/sqs-reference.md §12.1, SendMessage.
TEST(Encode, SendMessageMatchesBotocore) {
  lqs::SendMessageRequest r;
  r.body = "hello";
  r.delay_seconds = 5;
  lqs::MessageAttributeValue b;
  b.data_type = "Binary";
  b.binary_value = std::string("\x00\x01", 2);
  r.message_attributes["b"] = b;
  r.message_attributes["a"] = Str("String", "x");
  r.message_system_attributes["AWSTraceHeader"] = Str("String", "Root=1-abc");
  r.message_group_id = "g";
  r.message_deduplication_id = "d";
  ExpectSameJson(
      EncodeSendMessage("http://localhost:9324/000000000000/q1", r),
      R"({"QueueUrl": "http://localhost:9324/000000000000/q1", "MessageBody": "hello", "DelaySeconds": 5,
 "MessageAttributes": {"b": {"DataType": "Binary", "BinaryValue": "AAE="},
                       "a": {"DataType": "String", "StringValue": "x"}},
 "MessageSystemAttributes": {"AWSTraceHeader": {"DataType": "String", "StringValue": "Root=1-abc"}},
 "MessageGroupId": "g", "MessageDeduplicationId": "d"})");
}

// §12.1, ReceiveMessage (the CLI sends the current MessageSystemAttributeNames
// rather than the deprecated AttributeNames).
TEST(Encode, ReceiveMessage) {
  lqs::ReceiveMessageRequest r;
  r.message_system_attribute_names = {"All"};
  r.message_attribute_names = {"All"};
  r.max_number_of_messages = 10;
  r.wait_time_seconds = 20;
  r.visibility_timeout = 30;
  r.receive_request_attempt_id = "r1";
  ExpectSameJson(EncodeReceiveMessage("u", r),
                 R"({"QueueUrl": "u", "MessageSystemAttributeNames": ["All"],
                     "MessageAttributeNames": ["All"], "MaxNumberOfMessages": 10,
                     "WaitTimeSeconds": 20, "VisibilityTimeout": 30,
                     "ReceiveRequestAttemptId": "r1"})");
  lqs::ReceiveMessageRequest plain;
  ExpectSameJson(EncodeReceiveMessage("u", plain),
                 R"({"QueueUrl": "u", "MaxNumberOfMessages": 1})");
}

// §12.1, CreateQueue: attribute values stay strings; tags is lower-case.
TEST(Encode, CreateQueue) {
  ExpectSameJson(
      EncodeCreateQueue("q1.fifo", {{"FifoQueue", "true"}, {"VisibilityTimeout", "60"}},
                        {{"k", "v"}}),
      R"({"QueueName": "q1.fifo", "Attributes": {"FifoQueue": "true", "VisibilityTimeout": "60"}, "tags": {"k": "v"}})");
  ExpectSameJson(EncodeCreateQueue("q", {}, {}), R"({"QueueName": "q"})");
}

// §12.1, SendMessageBatch.
TEST(Encode, SendMessageBatch) {
  std::vector<lqs::SendMessageBatchEntry> entries(2);
  entries[0].id = "e1";
  entries[0].request.body = "b1";
  entries[0].request.message_attributes["n"] = Str("Number", "1");
  entries[1].id = "e2";
  entries[1].request.body = "b2";
  entries[1].request.delay_seconds = 3;
  ExpectSameJson(EncodeSendMessageBatch("…", entries),
                 R"({"QueueUrl": "…", "Entries": [{"Id": "e1", "MessageBody": "b1",
  "MessageAttributes": {"n": {"DataType": "Number", "StringValue": "1"}}},
  {"Id": "e2", "MessageBody": "b2", "DelaySeconds": 3}]})");
}

// §12.1, StartMessageMoveTask.
TEST(Encode, StartMessageMoveTask) {
  lqs::StartMessageMoveTaskRequest r;
  r.source_arn = "arn:aws:sqs:us-east-1:000000000000:dlq";
  r.max_number_of_messages_per_second = 10;
  ExpectSameJson(
      EncodeStartMessageMoveTask(r),
      R"({"SourceArn": "arn:aws:sqs:us-east-1:000000000000:dlq", "MaxNumberOfMessagesPerSecond": 10})");
}

TEST(Encode, ListQueuesAndDeleteBatch) {
  ExpectSameJson(EncodeListQueues({}), "{}");  // botocore sends {} without arguments
  lqs::ListQueuesRequest r;
  r.queue_name_prefix = "jo";
  r.max_results = 5;
  r.next_token = "t";
  ExpectSameJson(EncodeListQueues(r),
                 R"({"QueueNamePrefix": "jo", "MaxResults": 5, "NextToken": "t"})");
  ExpectSameJson(EncodeDeleteMessageBatch("u", {{"a", "h1"}, {"b", "h2"}}),
                 R"({"QueueUrl": "u", "Entries": [{"Id": "a", "ReceiptHandle": "h1"},
                                                  {"Id": "b", "ReceiptHandle": "h2"}]})");
}

// §12.2 responses.
TEST(Decode, ReceiveMessage) {
  auto r = DecodeReceiveMessage(
      J(R"({"Messages":[{"MessageId":"m1","ReceiptHandle":"rh","MD5OfBody":"5d",
  "Body":"hi","Attributes":{"SenderId":"AIDAEXAMPLE","SentTimestamp":"1700000000000",
                "ApproximateReceiveCount":"1"},
  "MD5OfMessageAttributes":"ma",
  "MessageAttributes":{"k":{"DataType":"String","StringValue":"v"},
                       "bin":{"DataType":"Binary","BinaryValue":"AAE="}}}]})"));
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->messages.size(), 1u);
  const auto& m = r->messages[0];
  EXPECT_EQ(m.message_id, "m1");
  EXPECT_EQ(m.receipt_handle, "rh");
  EXPECT_EQ(m.body, "hi");
  EXPECT_EQ(m.attributes.at("ApproximateReceiveCount"), "1");
  EXPECT_EQ(m.message_attributes.at("k").string_value, "v");
  EXPECT_EQ(m.message_attributes.at("bin").binary_value, std::string("\x00\x01", 2));
  EXPECT_EQ(m.md5_of_message_attributes.value_or(""), "ma");
  // No messages: "{}".
  auto empty = DecodeReceiveMessage(J("{}"));
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->messages.empty());
}

// What lqsd answers and `lqs receive` prints (wire/message_json.h) reads back
// as the same message, with SQS's members in lqsd's order.
TEST(Encode, ReceivedMessageAsLqsdWritesIt) {
  lqs::ReceivedMessage m;
  m.message_id = "m1";
  m.receipt_handle = "rh";
  m.md5_of_body = "5d";
  m.body = "hi";
  m.attributes["ApproximateReceiveCount"] = "2";
  m.message_attributes["k"] = Str("String", "v");
  lqs::MessageAttributeValue bin;
  bin.data_type = "Binary.raw";
  bin.binary_value = std::string("\x00\xff", 2);
  m.message_attributes["bin"] = bin;
  m.md5_of_message_attributes = "ma";
  const Json j = lqs::wire::ReceivedMessageJson(m);
  std::vector<std::string> members;
  for (const auto& item : j.items()) members.push_back(item.key());
  EXPECT_EQ(members, (std::vector<std::string>{"MessageId", "ReceiptHandle", "MD5OfBody", "Body",
                                               "Attributes", "MD5OfMessageAttributes",
                                               "MessageAttributes"}));
  EXPECT_EQ(j["MessageAttributes"]["bin"].dump(),
            R"({"BinaryValue":"AP8=","DataType":"Binary.raw"})");
  auto back = DecodeReceiveMessage(Json{{"Messages", Json::array({j})}});
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->messages.size(), 1u);
  const lqs::ReceivedMessage& r = back->messages[0];
  EXPECT_EQ(r.message_id, m.message_id);
  EXPECT_EQ(r.receipt_handle, m.receipt_handle);
  EXPECT_EQ(r.md5_of_body, m.md5_of_body);
  EXPECT_EQ(r.body, m.body);
  EXPECT_EQ(r.attributes, m.attributes);
  EXPECT_EQ(r.message_attributes.at("k").string_value, "v");
  EXPECT_EQ(r.message_attributes.at("bin").binary_value, bin.binary_value);
  EXPECT_EQ(r.message_attributes.at("bin").data_type, "Binary.raw");
  EXPECT_EQ(r.md5_of_message_attributes, m.md5_of_message_attributes);

  // Nothing optional: only the four members.
  lqs::ReceivedMessage plain;
  plain.message_id = "m2";
  EXPECT_EQ(lqs::wire::ReceivedMessageJson(plain).size(), 4u);
}

TEST(Decode, BatchesAndTasksAndLists) {
  auto s = DecodeSendMessageBatch(
      J(R"({"Successful":[{"Id":"e1","MessageId":"m","MD5OfMessageBody":"x"}],
    "Failed":[{"Id":"e2","SenderFault":true,"Code":"InvalidMessageContents","Message":"bad"}]})"));
  ASSERT_EQ(s.successful.size(), 1u);
  EXPECT_EQ(s.successful[0].result.message_id, "m");
  ASSERT_EQ(s.failed.size(), 1u);
  EXPECT_EQ(s.failed[0].code, "InvalidMessageContents");

  auto t = DecodeListMessageMoveTasks(
      J(R"({"Results":[{"TaskHandle":"h","Status":"RUNNING","SourceArn":"a",
    "ApproximateNumberOfMessagesMoved":2,"ApproximateNumberOfMessagesToMove":10,
    "MaxNumberOfMessagesPerSecond":1,"StartedTimestamp":1700000000000}]})"));
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].approximate_number_of_messages_moved, 2);
  EXPECT_EQ(t[0].approximate_number_of_messages_to_move, 10);
  EXPECT_EQ(t[0].max_number_of_messages_per_second.value_or(0), 1);
  EXPECT_EQ(t[0].started_timestamp, 1700000000000);

  auto l =
      DecodeListQueues(J(R"({"QueueUrls":["http://h:1/123456789012/a","http://h:1/123456789012/b"],
                                   "NextToken":"n"})"));
  EXPECT_EQ(l.queue_names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(l.next_token, "n");
  auto d = DecodeListQueues(J(R"({"queueUrls":["http://h:1/1/src"]})"), "queueUrls");
  EXPECT_EQ(d.queue_names, (std::vector<std::string>{"src"}));
}

// lqsd (like SQS) leaves out an empty list on the JSON protocol: a batch
// without failures has no Failed, one without successes no Successful, and
// nothing to list is {}.
TEST(Decode, AbsentListsAreEmpty) {
  auto s = DecodeSendMessageBatch(
      J(R"({"Successful":[{"Id":"e1","MessageId":"m","MD5OfMessageBody":"x"}]})"));
  EXPECT_EQ(s.successful.size(), 1u);
  EXPECT_TRUE(s.failed.empty());
  s = DecodeSendMessageBatch(
      J(R"({"Failed":[{"Id":"e2","SenderFault":true,"Code":"C","Message":"m"}]})"));
  EXPECT_TRUE(s.successful.empty());
  EXPECT_EQ(s.failed.size(), 1u);
  auto b = DecodeBatchResult(J(R"({"Successful":[{"Id":"a"}]})"));
  EXPECT_EQ(b.successful, (std::vector<std::string>{"a"}));
  EXPECT_TRUE(b.failed.empty());
  b = DecodeBatchResult(
      J(R"({"Failed":[{"Id":"a","SenderFault":true,"Code":"C","Message":"m"}]})"));
  EXPECT_TRUE(b.successful.empty());
  EXPECT_EQ(b.failed.size(), 1u);
  EXPECT_TRUE(DecodeListMessageMoveTasks(J("{}")).empty());
  EXPECT_TRUE(DecodeListQueues(J("{}"), "queueUrls").queue_names.empty());
  EXPECT_TRUE(DecodeListQueues(J("{}")).queue_names.empty());
  auto r = DecodeReceiveMessage(J("{}"));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->messages.empty());
}

// §12.3 errors: the query code header wins, __type is the fallback.
TEST(Decode, Errors) {
  lqs::Status s = DecodeError(
      400, "AWS.SimpleQueueService.NonExistentQueue;Sender",
      R"({"__type":"com.amazonaws.sqs#QueueDoesNotExist","message":"The specified queue does not exist."})",
      kServerErrorCode);
  EXPECT_EQ(s.code(), ErrorCode::kQueueDoesNotExist);
  EXPECT_EQ(s.message(), "The specified queue does not exist.");
  EXPECT_EQ(ExitCodeFor(s), kExitSqsError);

  s = DecodeError(403, "", R"({"__type":"com.amazonaws.sqs#PurgeQueueInProgress","message":"m"})",
                  kServerErrorCode);
  EXPECT_EQ(s.code(), ErrorCode::kPurgeQueueInProgress);
  s = DecodeError(
      400, "",
      R"({"__type":"com.amazon.coral.service#InvalidParameterValueException","message":"m"})",
      kServerErrorCode);
  EXPECT_EQ(s.code(), ErrorCode::kInvalidParameterValue);
  s = DecodeError(404, "",
                  R"({"__type":"com.amazonaws.sqs#ResourceNotFoundException","message":"m"})",
                  kServerErrorCode);
  EXPECT_EQ(s.code(), ErrorCode::kResourceNotFound);
  s = DecodeError(400, "QueueAlreadyExists;Sender", "{}", kServerErrorCode);
  EXPECT_EQ(s.code(), ErrorCode::kQueueNameExists);
  s = DecodeError(503, "", "Service Unavailable", kServerErrorCode);
  EXPECT_EQ(s.code(), ErrorCode::kIOError);
  EXPECT_EQ(ExitCodeFor(s), kExitIoError);
  s = DecodeError(400, "", R"({"__type":"com.amazonaws.sqs#SomethingNew","message":"m"})",
                  kServerErrorCode);
  EXPECT_EQ(s.code(), kServerErrorCode);
  EXPECT_EQ(s.message(), "SomethingNew: m");
  EXPECT_EQ(ExitCodeFor(s), kExitSqsError);
  s = DecodeError(403, "MissingAuthenticationToken;Sender",
                  R"({"__type":"com.amazon.coral.service#MissingAuthenticationTokenException",)"
                  R"("message":"Request is missing Authentication Token"})",
                  kServerErrorCode);
  EXPECT_EQ(s.message(), "MissingAuthenticationToken: Request is missing Authentication Token");
  EXPECT_EQ(ExitCodeFor(s), kExitSqsError);
  s = DecodeError(404, "", "<html>not here</html>", kServerErrorCode);  // not an SQS answer at all
  EXPECT_EQ(s.code(), ErrorCode::kInternal);
  EXPECT_EQ(ExitCodeFor(s), kExitIoError);
}

// The CLI's JSON-lines input shape (also the export shape).
TEST(Lines, RequestFromJson) {
  auto r = RequestFromJson(J(R"("just a body")"), false);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->body, "just a body");
  r = RequestFromJson(J(R"({"type":"message","queue":"q","MessageId":"x","Body":"b",
    "MessageAttributes":{"bin":{"DataType":"Binary","BinaryValue":"AAE="}},
    "Attributes":{"AWSTraceHeader":"Root=1","SentTimestamp":"1"},"state":"visible"})"),
                      true);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->body, "b");
  EXPECT_EQ(r->message_attributes.at("bin").binary_value, std::string("\x00\x01", 2));
  EXPECT_EQ(r->message_system_attributes.at("AWSTraceHeader").string_value, "Root=1");
  EXPECT_FALSE(r->delay_seconds.has_value());
  EXPECT_FALSE(RequestFromJson(J(R"({"NoBody":1})"), false).ok());
  EXPECT_FALSE(RequestFromJson(J("42"), false).ok());
}

}  // namespace
}  // namespace lqs::wire::codec
