// server/actions.h — one handler per SQS action, over a protocol-neutral
// request/response model.
//
// The model is the SQS API's own shape, as the AWS JSON 1.0 protocol spells
// it (docs/sqs-reference.md §6, §12): an ActionRequest carries the input members as a
// JSON object (request_input.h; the query decoder produces the same shape from
// Attribute.N.Name style parameters; blobs are base64 strings in both), and a handler answers
// with the output members as a JSON object (insertion-ordered) or an SqsError.
// The protocol codecs (sqs_json, sqs_query) turn those into bytes; the router
// decides which action runs and which queue the request addresses.
//
// Long polling: ReceiveMessage uses Queue::ReceiveMessageAsync. Its callback
// only posts the result to the connection's executor (ActionRequest::post),
// where the response is built; no thread waits. A parked receive whose
// client closes the connection is withdrawn (Queue::CancelReceive) through
// ActionRequest::on_abandon, so it leases nothing for nobody; it is answered
// with no messages (the answer goes nowhere, or to a half-closed client).
//
// Thread safety: Run() may be called concurrently from any number of threads.

#ifndef LQS_SERVER_ACTIONS_H_
#define LQS_SERVER_ACTIONS_H_

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/error_map.h"
#include "server/http_types.h"
#include "server/request_input.h"

#include "lqs/broker.h"

namespace lqsd {

using Json = nlohmann::ordered_json;

struct ActionRequest {
  std::string action;  // "SendMessage"
  Protocol protocol = Protocol::kJson;
  RequestInput input;  // the input members (request_input.h)
  // The queue the request addresses (from QueueUrl, else the request path).
  // nullopt: neither was given. Empty: given, but it names no queue of this
  // server (another account, malformed URL).
  std::optional<std::string> queue_name;
  // The Broker of the request's region (regions.h), chosen by the router;
  // every action runs on it.
  lqs::Broker* broker = nullptr;
  // Queue URLs handed out are queue_url_prefix/<name>: "http://HOST/<account>"
  // in the default region, "http://HOST/queue/<region>/<account>" in others;
  // with host-style URLs "http://sqs.<region>.localhost:PORT/<account>"
  // (Router::QueueUrlPrefix).
  std::string queue_url_prefix;
  std::string trace_header;  // the X-Amzn-Trace-Id header (SendMessage's AWSTraceHeader)
  Poster post;               // runs a closure on the connection's executor
  // Long polls register here what to do if the client goes away (see
  // AbandonHook); may be empty.
  AbandonHook on_abandon;
};

struct ActionResult {
  std::optional<SqsError> error;
  Json output = Json::object();  // the output members, when no error
  // The hot actions (SendMessage(Batch), ReceiveMessage, DeleteMessageBatch,
  // ChangeMessageVisibilityBatch) answering a JSON-protocol request write
  // their output object here as text instead (output then stays empty), by
  // the same encoder that writes `output` for the query protocol
  // (action_outputs.h): no Json tree per message.
  std::string json_body;
};

using ActionDone = std::function<void(ActionResult)>;

class Actions {
 public:
  // `after_park` (optional) runs after a ReceiveMessage parked a long poll
  // (a hook for tests and metrics).
  explicit Actions(std::string account_id, std::function<void()> after_park = nullptr);

  // The 23 actions of docs/sqs-reference.md §2.1.
  static bool IsKnown(std::string_view action);
  // Actions addressed by QueueUrl (or the request path).
  static bool TargetsQueue(std::string_view action);
  // Actions whose output has members (the query protocol then writes a
  // <{Action}Result> element, possibly empty).
  static bool HasOutput(std::string_view action);

  // Runs `request.action`; calls `done` exactly once, on this thread or (for
  // a long poll) later through request.post. Never throws.
  void Run(ActionRequest request, ActionDone done);

  // From now on a long poll that ends because the Broker closed answers with
  // no messages (a clean shutdown) instead of ServiceUnavailable.
  void SetStopping() { stopping_.store(true); }

  static std::string QueueUrl(const ActionRequest& request, const std::string& name);

 private:
  using Handler = Json (Actions::*)(const ActionRequest&);
  // Writes output (or json_body, for JSON requests of the hot actions).
  using FastHandler = void (Actions::*)(const ActionRequest&, ActionResult*);
  struct Entry;
  static const Entry* Find(std::string_view action);

  std::shared_ptr<lqs::Queue> ResolveQueue(const ActionRequest& request);
  void ReceiveMessage(ActionRequest request, ActionDone done);

  // The hot actions: each writes its output itself (FastHandler).
  void SendMessage(const ActionRequest& r, ActionResult* out);
  void SendMessageBatch(const ActionRequest& r, ActionResult* out);
  void DeleteMessage(const ActionRequest& r, ActionResult* out);
  void DeleteMessageBatch(const ActionRequest& r, ActionResult* out);
  void ChangeMessageVisibility(const ActionRequest& r, ActionResult* out);
  void ChangeMessageVisibilityBatch(const ActionRequest& r, ActionResult* out);
  // The others return their output as a Json tree (Handler), which Run
  // encodes for the request's protocol.
  Json CreateQueue(const ActionRequest& r);
  Json DeleteQueue(const ActionRequest& r);
  Json GetQueueUrl(const ActionRequest& r);
  Json ListQueues(const ActionRequest& r);
  Json GetQueueAttributes(const ActionRequest& r);
  Json SetQueueAttributes(const ActionRequest& r);
  Json PurgeQueue(const ActionRequest& r);
  Json TagQueue(const ActionRequest& r);
  Json UntagQueue(const ActionRequest& r);
  Json ListQueueTags(const ActionRequest& r);
  Json AddPermission(const ActionRequest& r);
  Json RemovePermission(const ActionRequest& r);
  Json ListDeadLetterSourceQueues(const ActionRequest& r);
  Json StartMessageMoveTask(const ActionRequest& r);
  Json CancelMessageMoveTask(const ActionRequest& r);
  Json ListMessageMoveTasks(const ActionRequest& r);

  std::string account_id_;
  std::function<void()> after_park_;
  std::atomic<bool> stopping_{false};
};

}  // namespace lqsd

#endif  // LQS_SERVER_ACTIONS_H_
