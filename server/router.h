// server/router.h — from an HTTP request to an SQS action and back.
//
// For each request the router: detects the protocol (docs/sqs-reference.md §13.1: an
// X-Amz-Target of AmazonSQS.* or a JSON 1.0 content type is JSON, anything
// else is the query protocol, by GET or POST, on / or on a queue path);
// checks the SigV4 signature when a key file was given; finds the action
// (JSON: X-Amz-Target; query: Action, with InvalidAction for unknown actions
// and for non-queue actions sent to a queue path, §11.3); decodes the input;
// resolves the queue (the QueueUrl parameter wins over the path; the host in
// QueueUrl only ever names a region, the account must be this server's);
// picks the region and its Broker (below); runs the action; and encodes the
// result or error in the request's protocol with a fresh request id (body
// and x-amzn-RequestId header); a query request whose Accept header lists
// application/json gets the JSON rendering of the query response
// (sqs_query.h, Rendering).
//
// Regions (regions.h): a request is served in the first region of
//  1. its queue URL (the QueueUrl parameter, else the request path of an
//     action on a queue): /queue/<region>/ in its path, else a host name
//     sqs.<region>.<rest> (RegionOfHost; for the request path, the Host
//     header's);
//  2. its Host header, when that is sqs.<region>.<rest> (RegionOfHost), for
//     any action (a client whose endpoint is http://sqs.eu-west-1.localhost:N);
//  3. the credential scope it is signed for (SigV4, whether verified or not);
//  4. the default region (an unsigned request).
// A credential scope whose region is not a region name
// (lqs::wire::IsRegionName) gets IncompleteSignature; a /queue/<region>/ URL
// whose region is not one names no queue of this server.
//
// Queue URLs in responses (url_style.h): path style (the default),
// http://<Host header>/<account-id>/<name> in the default region and
// http://<Host header>/queue/<region>/<account-id>/<name> in the others,
// --public-url replacing http://<Host header>; host style,
// http://sqs.<region>.localhost<:port>/<account-id>/<name> in every region,
// the port the Host header's (none when it has none; the listening port when
// there is no usable Host header), or, with --public-url
// SCHEME://HOST[:PORT][/PATH], SCHEME://sqs.<region>.HOST[:PORT][/PATH]/
// <account-id>/<name>. Both forms are accepted as QueueUrl and as request
// paths, whatever the style.
//
// Operational endpoints: GET /metrics (Prometheus text format, see
// metrics.h; the queues of every open region), GET /health ("ok" while
// the default region's Broker is open, 503 otherwise) and GET /bridges
// (JSON, {"bridges": [...]}, each bridge's stats in wire/bridge_stats_json.h's
// shape; what `lqs stats` shows). They are matched before SQS routing and
// only when the request cannot be an SQS request: method GET, path exactly
// one of those (SQS queue paths have two or four segments), no Action
// query parameter and no X-Amz-Target header. Through Handle() they need a
// valid signature when a key file was given (else the SigV4 error an SQS
// request would get, counted in the metrics as action "unknown");
// HandleOps() (lqsd's --metrics-listen listener) serves them without
// authentication and nothing else.
// LocalStack's developer endpoint, GET /_aws/sqs/messages (peek_endpoint.h),
// is routed after the signature check, like an SQS request, and only there:
// it shows message bodies, so the unauthenticated HandleOps() never serves it.
// The manual clock's GET /_lqs/clock and POST /_lqs/clock/advance
// (clock_endpoint.h) are routed the same way: after the signature check,
// never by HandleOps(); without a manual clock they get the 404 a GET of an
// unknown path gets.
// Every SQS request (and peek, as action "unknown") is counted in the metrics
// when its response is sent.
// The web console (console.h), when configured: GET and POST on /console and
// below, without an X-Amz-Target header, are the console's, matched first
// and protected by its login (not counted in the metrics; logged with
// log_requests, without the query string); with a key file,
// an SQS request the console sends (Console::AuthorizesApiCall) is accepted
// in place of a signature, and served in the default region unless its queue
// URL names another.
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
#include "server/console.h"
#include "server/error_map.h"
#include "server/http_types.h"
#include "server/metrics.h"
#include "server/regions.h"
#include "server/sigv4.h"
#include "server/url_style.h"

#include "lqs/clock.h"

namespace lqsd {

struct RouterConfig {
  std::string account_id = "123456789012";
  // Base of the queue URLs handed out ("https://sqs.example.com"); empty:
  // "http://" + the request's Host header.
  std::string public_url;
  // The form of the queue URLs handed out (see above); with kHost, a
  // public_url must be SCHEME://HOST... with HOST a name (PublicUrlProblem).
  UrlStyle url_style = UrlStyle::kPath;
  // Host part used when a request has no Host header ("127.0.0.1:9324").
  std::string default_host = "127.0.0.1:9324";
  // Log one line per request to stderr.
  bool log_requests = false;
  // SigV4 keys; nullptr: requests are not authenticated.
  const SigV4Verifier* auth = nullptr;
  // The Brokers that serve the regions (borrowed). Required by Handle();
  // the URL helpers below work without it.
  Regions* regions = nullptr;
  // The bridges' counters for /metrics (lqs_bridge_*); unset: none.
  std::function<std::vector<lqs::BridgeStats>()> bridge_stats;
  // The clock of GET /_lqs/clock and POST /_lqs/clock/advance
  // (clock_endpoint.h; borrowed); nullptr: they answer 404.
  lqs::ManualClock* manual_clock = nullptr;
  // The web console (console.h), borrowed; nullptr: /console is not served.
  Console* console = nullptr;
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

  // The operational endpoints alone, unauthenticated (see above): GET
  // /metrics, GET /health and GET /bridges are served, any other request gets 404 (405
  // for another method on those paths). `respond` is called before the call
  // returns. Never throws.
  void HandleOps(const HttpRequest& request, const Responder& respond);

  // The answer to a request the HTTP layer refused before reading it whole:
  // 413 (body too large), 431 (header too large) or 400 (malformed); or, for
  // 503, to a request whose change the commit could not make durable
  // (ServiceUnavailable, the library's kIOError). The connection is then
  // closed.
  HttpResponse Reject(const HttpRequest& head, int http_status, size_t body_limit) const;

  // After this, new requests get 503 ServiceUnavailable and long polls that
  // end because the Broker closed answer with no messages.
  void BeginShutdown();
  // Requests currently inside a synchronous library call (not parked long polls).
  int active_calls() const { return active_calls_.load(); }

  // A queue named by a URL or a request path.
  struct QueueRef {
    std::string name;    // empty: not a queue of this server
    std::string region;  // from a /queue/<region>/ URL; empty: the URL names none
  };
  // Exposed for tests: the queue a QueueUrl names.
  QueueRef QueueFromUrl(std::string_view url) const;
  // The queue a request path names; nullopt when the path is neither
  // /<account>/<name> nor /queue/<region>/<account>/<name>.
  std::optional<QueueRef> QueueFromPath(std::string_view raw_path) const;

  // The region a host name ("HOST" or "HOST:PORT", any case) names:
  // <region> when it is sqs.<region>.<rest>, <region> is a region name and
  // either looks like an AWS region (letters, one or more -letters groups,
  // -digits: us-east-1, us-gov-west-1) or <rest> is one of this server's own
  // host names (localhost, the --public-url's host). nullopt otherwise, and
  // for the --public-url's host itself. The restriction keeps host names
  // such as a Kubernetes service's sqs.default.svc.cluster.local from
  // naming a region "default".
  std::optional<std::string> RegionOfHost(std::string_view host) const;
  // Exposed for tests: the queue URLs of a request in `region` are this
  // prefix + "/" + name (see above); `is_default`: `region` is the default
  // region.
  std::string QueueUrlPrefix(const HttpRequest& request, std::string_view region,
                             bool is_default) const;

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
  // Sets action->broker and action->queue_url_prefix for the request's region
  // (see above; `region`: the one its queue URL names, or empty;
  // `verified_region`: the credential scope's, when --auth-file verified it,
  // else read from the request here); the error to answer when there is none.
  std::optional<SqsError> ChooseRegion(const HttpRequest& request, std::string region,
                                       std::optional<std::string> verified_region,
                                       ActionRequest* action) const;
  // Answers a request peek::IsPeekRequest accepted, once its signature (if
  // any is needed) was verified (peek_endpoint.h).
  void ServePeek(const HttpRequest& request, Call& call,
                 std::optional<std::string> verified_region);
  // "/metrics", "/health" or "/bridges".
  static bool IsOpsPath(std::string_view path);
  // GET on an ops path (see above).
  bool IsOpsRequest(const HttpRequest& request) const;
  HttpResponse ServeOps(const HttpRequest& request);
  // A request on a console path (see above).
  bool IsConsoleRequest(const HttpRequest& request) const;
  HttpResponse ServeConsole(const HttpRequest& request);

  Actions* actions_;
  RouterConfig config_;
  // config_.public_url split ("https://", "example.com:8443", "/sqs"), and its
  // host lower-cased without the port; all empty without a usable one.
  std::string public_scheme_, public_authority_, public_path_, public_host_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> active_calls_{0};
  Metrics metrics_;
};

// The protocol of a request (docs/sqs-reference.md §13.1).
Protocol DetectProtocol(const HttpRequest& request);

// Why `public_url` cannot be the base of `style`'s queue URLs (for lqsd's
// command line); empty when it can. Host style needs SCHEME://HOST[:PORT]
// [/PATH] with HOST a name, not an IP address (sqs.<region>. goes before it).
std::string PublicUrlProblem(std::string_view public_url, UrlStyle style);

}  // namespace lqsd

#endif  // LQS_SERVER_ROUTER_H_
