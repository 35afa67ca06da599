// server/router.h — from an HTTP request to an SQS action and back.
//
// For each request the router: detects the protocol (sqs-api.md §12.1: an
// X-Amz-Target of AmazonSQS.* or a JSON 1.0 content type is JSON, anything
// else is the query protocol, by GET or POST, on / or on a queue path);
// checks the SigV4 signature when a key file was given; finds the action
// (JSON: X-Amz-Target; query: Action, with InvalidAction for unknown actions
// and for non-queue actions sent to a queue path, §10.3); decodes the input;
// resolves the queue (the QueueUrl parameter wins over the path; the host in
// QueueUrl is ignored, the account must be this server's); runs the action;
// and encodes the result or error in the request's protocol with a fresh
// request id (body and x-amzn-RequestId header); a query request whose
// Accept header lists application/json gets the JSON rendering of the query
// response (sqs_query.h, Rendering).
//
// Queue URLs in responses are http://<Host header>/<account-id>/<name>
// (or --public-url when set).
//
// Operational endpoints (when RouterConfig::broker is set): GET /metrics
// (Prometheus text format, see metrics.h) and GET /health ("ok" while the
// Broker is open, 503 otherwise). They are matched before SQS routing and
// only when the request cannot be an SQS request: method GET, path exactly
// "/metrics" or "/health" (SQS queue paths have two segments), no Action
// query parameter and no X-Amz-Target header. They are not authenticated.
// Every SQS request is counted in the metrics when its response is sent.
//
// Thread safety: Handle() may be called concurrently from any thread.

#ifndef LQS_SERVER_ROUTER_H_
#define LQS_SERVER_ROUTER_H_

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/actions.h"
#include "server/error_map.h"
#include "server/http_types.h"
#include "server/metrics.h"
#include "server/sigv4.h"

namespace lqsd {

struct RouterConfig {
  std::string account_id = "123456789012";
  // Base of the queue URLs handed out ("https://sqs.example.com"); empty:
  // "http://" + the request's Host header.
  std::string public_url;
  // Host part used when a request has no Host header ("127.0.0.1:9324").
  std::string default_host = "127.0.0.1:9324";
  // Log one line per request to stderr.
  bool log_requests = false;
  // SigV4 keys; nullptr: requests are not authenticated.
  const SigV4Verifier* auth = nullptr;
  // The Broker GET /metrics reads queue stats from and GET /health checks;
  // nullptr: those paths are not served (they go to SQS routing).
  lqs::Broker* broker = nullptr;
};

class Router {
 public:
  Router(Actions* actions, RouterConfig config);

  // The request header fields Handle() and Reject() read (lower-case
  // names), for HttpServer::KeepHeaders: empty (all fields) when SigV4 is on,
  // since a signature may cover any header.
  static std::vector<std::string> HeadersRead(const RouterConfig& config);

  // Answers `request` (read during the call only); `respond` is called
  // exactly once, possibly later and from another thread (long polls
  // complete through `post`). `abandon` (optional) lets a long poll learn
  // that its client went away (see AbandonHook). Never throws.
  void Handle(const HttpRequest& request, Poster post, Responder respond,
              AbandonHook abandon = nullptr);

  // The answer to a request the HTTP layer refused before reading it whole:
  // 413 (body too large), 431 (header too large) or 400 (malformed). The
  // connection is then closed.
  HttpResponse Reject(const HttpRequest& head, int http_status, size_t body_limit) const;

  // After this, new requests get 503 ServiceUnavailable and long polls that
  // end because the Broker closed answer with no messages.
  void BeginShutdown();
  // Requests currently inside a synchronous library call (not parked long polls).
  int active_calls() const { return active_calls_.load(); }

  // Exposed for tests: the queue a QueueUrl names (empty: not one of ours).
  std::string QueueNameFromUrl(std::string_view url) const;
  // The queue a request path names; nullopt when the path is not /<account>/<name>.
  std::optional<std::string> QueueNameFromPath(std::string_view raw_path) const;

  // The request metrics (also rendered by GET /metrics).
  const Metrics& metrics() const { return metrics_; }

 private:
  // One request in flight (router.cc): its id, protocol, action and
  // responder, shared by whatever may answer it.
  struct Call;
  // Sets call->action_name as soon as the action is known (for the metrics
  // and the request log).
  void Dispatch(const HttpRequest& request, const std::shared_ptr<Call>& call, Poster post,
                AbandonHook abandon);
  // Answers once: later answers to the same call are dropped.
  static void Answer(Call& call, HttpResponse response);
  // Logs the request (when asked to), counts it in the metrics, answers.
  void Reply(Call& call, HttpResponse response);
  std::string BaseUrl(const HttpRequest& request) const;
  // GET /metrics or GET /health (see above).
  bool IsOpsRequest(const HttpRequest& request) const;
  HttpResponse ServeOps(const HttpRequest& request);

  Actions* actions_;
  RouterConfig config_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> active_calls_{0};
  Metrics metrics_;
};

// The protocol of a request (sqs-api.md §12.1).
Protocol DetectProtocol(const HttpRequest& request);

}  // namespace lqsd

#endif  // LQS_SERVER_ROUTER_H_
