// tools/remote_backend.cc — the CLI's Backend over HTTP(S): the SQS JSON 1.0
// protocol to lqsd or any SQS endpoint through wire/sqs_http_client.h,
// unsigned or signed with SigV4 (RemoteOptions::signing).

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tools/backend.h"
#include "tools/output.h"
#include "wire/sqs_http_client.h"

#include "lqs/limits.h"

namespace lqs_cli {
namespace {

using codec::Json;
using lqs::ErrorCode;

class RemoteBackend final : public Backend {
 public:
  RemoteBackend(RemoteOptions options, lqs::wire::SqsEndpoint endpoint)
      : options_(std::move(options)),
        client_(std::move(endpoint),
                lqs::wire::SqsHttpOptions{options_.signing, options_.ca_file,
                                          options_.timeout_seconds, "lqs-cli"}) {}
  ~RemoteBackend() override { Close().IgnoreError(); }

  std::string Describe() const override {
    return "remote " + options_.endpoint +
           (options_.signing ? " (region " + options_.signing->region + ")" : "");
  }
  bool IsRemote() const override { return true; }

  StatusOr<std::string> CreateQueue(const std::string& name, const lqs::AttributeMap& attributes,
                                    const lqs::TagMap& tags) override {
    auto r = Call("CreateQueue", codec::EncodeCreateQueue(name, attributes, tags));
    if (!r.ok()) return r.status();
    std::string url = (*r).value("QueueUrl", "");
    urls_[name] = url;
    return url;
  }
  Status DeleteQueue(const std::string& name) override {
    auto url = Url(name);
    if (!url.ok()) return url.status();
    auto r = Call("DeleteQueue", Json{{"QueueUrl", *url}});
    urls_.erase(name);
    return r.status();
  }
  StatusOr<lqs::ListQueuesResult> ListQueues(const lqs::ListQueuesRequest& request) override {
    auto r = Call("ListQueues", codec::EncodeListQueues(request));
    if (!r.ok()) return r.status();
    return codec::DecodeListQueues(*r);
  }
  StatusOr<lqs::ListQueuesResult> ListDeadLetterSourceQueues(
      const std::string& dlq, const lqs::ListQueuesRequest& request) override {
    auto url = Url(dlq);
    if (!url.ok()) return url.status();
    Json body = codec::EncodeListQueues(request);
    body.erase("QueueNamePrefix");
    body["QueueUrl"] = *url;
    auto r = Call("ListDeadLetterSourceQueues", body);
    if (!r.ok()) return r.status();
    return codec::DecodeListQueues(*r, "queueUrls");
  }
  StatusOr<lqs::AttributeMap> GetAttributes(const std::string& queue,
                                            const std::vector<std::string>& names) override {
    auto url = Url(queue);
    if (!url.ok()) return url.status();
    Json body{{"QueueUrl", *url}};
    if (!names.empty()) body["AttributeNames"] = names;
    auto r = Call("GetQueueAttributes", body);
    if (!r.ok()) return r.status();
    return codec::DecodeStringMap(*r, "Attributes");
  }
  Status SetAttributes(const std::string& queue, const lqs::AttributeMap& attributes) override {
    return CallOnQueue(queue, "SetQueueAttributes",
                       Json{{"Attributes", codec::StringMap(attributes)}});
  }
  Status TagQueue(const std::string& queue, const lqs::TagMap& tags) override {
    return CallOnQueue(queue, "TagQueue", Json{{"Tags", codec::StringMap(tags)}});
  }
  Status UntagQueue(const std::string& queue, const std::vector<std::string>& keys) override {
    return CallOnQueue(queue, "UntagQueue", Json{{"TagKeys", keys}});
  }
  StatusOr<lqs::TagMap> ListQueueTags(const std::string& queue) override {
    auto url = Url(queue);
    if (!url.ok()) return url.status();
    auto r = Call("ListQueueTags", Json{{"QueueUrl", *url}});
    if (!r.ok()) return r.status();
    return codec::DecodeStringMap(*r, "Tags");
  }
  StatusOr<std::string> QueueArn(const std::string& queue) override {
    auto a = GetAttributes(queue, {"QueueArn"});
    if (!a.ok()) return a.status();
    auto it = a->find("QueueArn");
    if (it == a->end()) return Status(ErrorCode::kInternal, "the server returned no QueueArn");
    return it->second;
  }

  StatusOr<lqs::SendMessageResult> SendMessage(const std::string& queue,
                                               const lqs::SendMessageRequest& request) override {
    return CallOnQueue(queue, "SendMessage", codec::EncodeSendMessage, request,
                       codec::DecodeSendMessageResult);
  }
  StatusOr<lqs::SendMessageBatchResult> SendMessageBatch(
      const std::string& queue, const std::vector<lqs::SendMessageBatchEntry>& entries) override {
    return CallOnQueue(queue, "SendMessageBatch", codec::EncodeSendMessageBatch, entries,
                       codec::DecodeSendMessageBatch);
  }
  StatusOr<lqs::ReceiveMessageResult> ReceiveMessage(
      const std::string& queue, const lqs::ReceiveMessageRequest& request) override {
    auto url = Url(queue);
    if (!url.ok()) return url.status();
    auto r = Call("ReceiveMessage", codec::EncodeReceiveMessage(*url, request),
                  request.wait_time_seconds.value_or(lqs::limits::kMaxWaitTimeSeconds));
    if (!r.ok()) return r.status();
    return codec::DecodeReceiveMessage(*r);
  }
  Status DeleteMessage(const std::string& queue, const std::string& receipt_handle) override {
    return CallOnQueue(queue, "DeleteMessage", Json{{"ReceiptHandle", receipt_handle}});
  }
  StatusOr<lqs::BatchResult> DeleteMessageBatch(
      const std::string& queue, const std::vector<lqs::DeleteMessageBatchEntry>& entries) override {
    return CallOnQueue(queue, "DeleteMessageBatch", codec::EncodeDeleteMessageBatch, entries,
                       codec::DecodeBatchResult);
  }
  Status ChangeMessageVisibility(const std::string& queue, const std::string& receipt_handle,
                                 int timeout) override {
    return CallOnQueue(queue, "ChangeMessageVisibility",
                       Json{{"ReceiptHandle", receipt_handle}, {"VisibilityTimeout", timeout}});
  }
  Status PurgeQueue(const std::string& queue) override {
    return CallOnQueue(queue, "PurgeQueue", Json::object());
  }

  // SQS exposes only the three gauges; the totals and the age of the oldest
  // message are CloudWatch metrics, which lqsd does not serve this way.
  StatusOr<Stats> GetStats(const std::string& queue) override {
    auto a = GetAttributes(queue,
                           {"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible",
                            "ApproximateNumberOfMessagesDelayed"});
    if (!a.ok()) return a.status();
    auto num = [&](const char* name) -> int64_t {
      auto it = a->find(name);
      if (it == a->end()) return 0;
      try {
        return std::stoll(it->second);
      } catch (...) {
        return 0;
      }
    };
    Stats s;
    s.has_counters = false;
    s.has_oldest_age = false;
    s.stats.visible = num("ApproximateNumberOfMessages");
    s.stats.in_flight = num("ApproximateNumberOfMessagesNotVisible");
    s.stats.delayed = num("ApproximateNumberOfMessagesDelayed");
    return s;
  }
  // GET /_aws/sqs/messages (LocalStack's developer endpoint, which lqsd
  // serves: server/peek_endpoint.h) with every state shown, as a JSON-protocol
  // ReceiveMessage answer. The state comes from IsVisible and IsDelayed;
  // visible_at_ms is unknown (0).
  Status ScanMessages(const std::string& queue,
                      const std::function<bool(const lqs::StoredMessage&)>& fn) override {
    auto url = Url(queue);
    if (!url.ok()) return url.status();
    StatusOr<lqs::wire::SqsHttpReply> reply = client_.Get(
        kPeekPath, {{"QueueUrl", *url}, {"ShowInvisible", "true"}, {"ShowDelayed", "true"}},
        {{"content-type", "application/x-amz-json-1.0"}});
    if (!reply.ok()) {
      return Status(reply.status().code(), reply.status().message() + " (is lqsd running?)");
    }
    if (reply->status != 200) {
      Status error =
          codec::DecodeError(reply->status, reply->query_error, reply->body, kServerErrorCode);
      // The endpoint's own answers: no such queue, or the signature refused.
      if (error.code() == ErrorCode::kQueueDoesNotExist || reply->status == 403) return error;
      return NoPeekEndpoint("it answered HTTP " + std::to_string(reply->status));
    }
    Json j = Json::parse(reply->body, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) return NoPeekEndpoint("its answer is not JSON");
    StatusOr<lqs::ReceiveMessageResult> result = codec::DecodeReceiveMessage(j);
    if (!result.ok()) return NoPeekEndpoint("its answer is not ReceiveMessage's");
    for (lqs::ReceivedMessage& m : result->messages) {
      lqs::StoredMessage s;
      s.message_id = std::move(m.message_id);
      s.body = std::move(m.body);
      s.message_attributes = std::move(m.message_attributes);
      s.attributes = std::move(m.attributes);
      const auto flag = [&s](const char* name) {
        auto it = s.attributes.find(name);
        if (it == s.attributes.end()) return std::string();
        std::string value = std::move(it->second);
        s.attributes.erase(it);
        return value;
      };
      const std::string visible = flag("IsVisible");
      const std::string delayed = flag("IsDelayed");
      s.state = delayed == "true" ? "delayed" : visible == "false" ? "in_flight" : "visible";
      if (!fn(s)) break;
    }
    return Status::OK();
  }

  StatusOr<std::string> StartMessageMoveTask(
      const lqs::StartMessageMoveTaskRequest& request) override {
    auto r = Call("StartMessageMoveTask", codec::EncodeStartMessageMoveTask(request));
    if (!r.ok()) return r.status();
    return r->value("TaskHandle", "");
  }
  StatusOr<int64_t> CancelMessageMoveTask(const std::string& task_handle) override {
    auto r = Call("CancelMessageMoveTask", Json{{"TaskHandle", task_handle}});
    if (!r.ok()) return r.status();
    auto it = r->find("ApproximateNumberOfMessagesMoved");
    return it != r->end() && it->is_number() ? it->get<int64_t>() : int64_t{0};
  }
  StatusOr<std::vector<lqs::MessageMoveTask>> ListMessageMoveTasks(const std::string& source_arn,
                                                                   int max_results) override {
    auto r =
        Call("ListMessageMoveTasks", Json{{"SourceArn", source_arn}, {"MaxResults", max_results}});
    if (!r.ok()) return r.status();
    return codec::DecodeListMessageMoveTasks(*r);
  }

  StatusOr<std::vector<std::string>> Verify() override { return Unsupported("verify"); }
  Status CompactAll() override { return Unsupported("compact"); }
  Status Close() override {
    client_.Close();
    return Status::OK();
  }

 private:
  static constexpr std::string_view kPeekPath = "/_aws/sqs/messages";

  Status NoPeekEndpoint(const std::string& why) const {
    return Status(ErrorCode::kUnsupportedOperation,
                  "peek is not available from " + options_.endpoint +
                      ": it does not serve GET /_aws/sqs/messages (the developer endpoint of "
                      "lqsd and LocalStack; " +
                      why + "). Real SQS has no way to look at messages without receiving them.");
  }

  static Status Unsupported(const std::string& what) {
    return Status(ErrorCode::kUnsupportedOperation,
                  what +
                      " is not available over --endpoint: the SQS protocol has no such "
                      "action. Stop lqsd and run lqs with --data DIR on its database.");
  }

  // `action` on `queue`: a request of the queue's URL (first) and the
  // members of `members`; the URL's or the call's status.
  Status CallOnQueue(const std::string& queue, const std::string& action, const Json& members) {
    auto url = Url(queue);
    if (!url.ok()) return url.status();
    Json body{{"QueueUrl", *url}};
    for (const auto& [k, v] : members.items()) body[k] = v;
    return Call(action, body).status();
  }

  // `action` on `queue`: the request encode(url, arg) builds from the queue's
  // URL, the response `decode` reads; the URL's or the call's error otherwise.
  template <typename Encode, typename Arg, typename Decode>
  auto CallOnQueue(const std::string& queue, const std::string& action, const Encode& encode,
                   const Arg& arg, const Decode& decode)
      -> StatusOr<decltype(decode(std::declval<const Json&>()))> {
    auto url = Url(queue);
    if (!url.ok()) return url.status();
    auto r = Call(action, encode(*url, arg));
    if (!r.ok()) return r.status();
    return decode(*r);
  }

  StatusOr<std::string> Url(const std::string& name) {
    if (name.rfind("http://", 0) == 0 || name.rfind("https://", 0) == 0) return name;
    auto it = urls_.find(name);
    if (it != urls_.end()) return it->second;
    auto r = Call("GetQueueUrl", Json{{"QueueName", name}});
    if (!r.ok()) return r.status();
    std::string url = r->value("QueueUrl", "");
    urls_[name] = url;
    return url;
  }

  StatusOr<std::vector<Json>> Bridges() override {
    StatusOr<lqs::wire::SqsHttpReply> reply = client_.Get("/bridges");
    if (!reply.ok()) return reply.status();
    std::vector<Json> bridges;
    if (reply->status != 200) return bridges;  // not lqsd: no bridges to show
    Json j = Json::parse(reply->body, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.contains("bridges") && j["bridges"].is_array()) {
      for (auto& b : j["bridges"]) {
        if (b.is_object()) bridges.push_back(std::move(b));
      }
    }
    return bridges;
  }

  // One request/response exchange: the answer's JSON object, or its error.
  StatusOr<Json> Call(const std::string& action, const Json& body, int wait_seconds = 0) {
    StatusOr<lqs::wire::SqsHttpReply> reply = client_.Call(action, body.dump(), wait_seconds);
    if (!reply.ok()) {
      return Status(reply.status().code(), reply.status().message() + " (is lqsd running?)");
    }
    if (reply->status != 200)
      return codec::DecodeError(reply->status, reply->query_error, reply->body, kServerErrorCode);
    if (reply->body.empty()) return Json::object();
    Json j = Json::parse(reply->body, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) {
      return Status(ErrorCode::kInternal, action + ": the server's answer is not a JSON object: " +
                                              reply->body.substr(0, 200));
    }
    return j;
  }

  RemoteOptions options_;
  lqs::wire::SqsHttpClient client_;
  std::map<std::string, std::string> urls_;  // queue name -> URL
};

}  // namespace

StatusOr<std::unique_ptr<Backend>> OpenRemote(const RemoteOptions& options) {
  auto endpoint = lqs::wire::ParseSqsEndpoint(options.endpoint, "--endpoint");
  if (!endpoint.ok()) return endpoint.status();
  return std::unique_ptr<Backend>(new RemoteBackend(options, std::move(*endpoint)));
}

}  // namespace lqs_cli
