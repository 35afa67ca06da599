// Protocol detection, action dispatch, queue URL resolution (see router.h).

#include "server/router.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <vector>

#include "server/sqs_json.h"
#include "server/sqs_query.h"
#include "server/text_util.h"

namespace lqsd {
namespace {

constexpr size_t kMaxQueryParams = 5000;

HttpResponse EncodeError(Protocol protocol, const SqsError& error, const std::string& request_id) {
  return protocol == Protocol::kJson ? sqs_json::EncodeError(error, request_id)
                                     : sqs_query::EncodeError(error, request_id);
}

std::vector<std::string> PathSegments(std::string_view path) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > pos) out.push_back(PercentDecode(path.substr(pos, slash - pos), false));
    pos = slash + 1;
  }
  return out;
}

bool IsSaneHost(std::string_view host) {
  if (host.empty() || host.size() > 255) return false;
  for (const char c : host) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '-' || c == '_' || c == ':' || c == '[' || c == ']';
    if (!ok) return false;
  }
  return true;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

Protocol DetectProtocol(const HttpRequest& request) {
  if (const std::string* target = request.Header("x-amz-target")) {
    if (StartsWith(*target, sqs_json::kTargetPrefix)) return Protocol::kJson;
  }
  if (const std::string* type = request.Header("content-type")) {
    if (StartsWith(AsciiLower(*type), "application/x-amz-json")) return Protocol::kJson;
  }
  if (request.Header("x-amz-target") != nullptr && request.method == "POST") {
    return Protocol::kJson;  // some other target: answered as an unknown operation
  }
  return Protocol::kQuery;
}

Router::Router(Actions* actions, RouterConfig config)
    : actions_(actions), config_(std::move(config)) {}

void Router::BeginShutdown() {
  stopping_.store(true);
  actions_->SetStopping();
}

std::string Router::QueueNameFromUrl(std::string_view url) const {
  std::string_view path = url;
  const size_t scheme = url.find("://");
  if (scheme != std::string_view::npos) {
    const size_t slash = url.find('/', scheme + 3);
    path = slash == std::string_view::npos ? std::string_view() : url.substr(slash);
  }
  path = path.substr(0, path.find_first_of("?#"));
  const std::vector<std::string> segments = PathSegments(path);
  if (segments.empty()) return std::string();
  if (segments.size() == 1) {
    // Not a URL but a bare queue name (or "/<name>"): accepted, leniently.
    return scheme == std::string_view::npos ? segments[0] : std::string();
  }
  if (segments[segments.size() - 2] != config_.account_id) return std::string();
  return segments.back();
}

std::optional<std::string> Router::QueueNameFromPath(std::string_view raw_path) const {
  const std::vector<std::string> segments = PathSegments(raw_path);
  if (segments.size() != 2) return std::nullopt;
  if (segments[0] != config_.account_id) return std::string();  // names no queue of ours
  return segments[1];
}

std::string Router::BaseUrl(const HttpRequest& request) const {
  if (!config_.public_url.empty()) return config_.public_url;
  const std::string* host = request.Header("host");
  if (host != nullptr && IsSaneHost(*host)) return "http://" + *host;
  return "http://" + config_.default_host;
}

HttpResponse Router::Reject(const HttpRequest& head, int http_status, size_t body_limit) const {
  const std::string request_id = NewRequestId();
  SqsError error;
  if (http_status == 413) {
    error = RequestEntityTooLarge(body_limit);
  } else if (http_status == 431) {
    error = MalformedRequest("Request header fields too large.");
    error.http_status = 431;
  } else {
    error = MalformedRequest("Malformed HTTP request.");
  }
  HttpResponse r = EncodeError(DetectProtocol(head), error, request_id);
  r.close = true;
  if (config_.log_requests) {
    std::fprintf(stderr, "lqsd: %s %s %s -> %d (rejected)\n", head.remote.c_str(),
                 head.method.c_str(), SanitizeUtf8(head.target.substr(0, 200)).c_str(),
                 http_status);
  }
  return r;
}

void Router::Handle(HttpRequest request, Poster post, Responder respond_once,
                    AbandonHook abandon) {
  const std::string request_id = NewRequestId();
  // Exactly one response per request, whatever happens below.
  auto answered = std::make_shared<std::atomic<bool>>(false);
  Responder respond = [answered, respond_once](HttpResponse r) {
    if (!answered->exchange(true)) respond_once(std::move(r));
  };
  Protocol protocol = Protocol::kQuery;
  active_calls_.fetch_add(1);
  try {
    if (IsOpsRequest(request)) {
      respond(ServeOps(request));
      active_calls_.fetch_sub(1);
      return;
    }
    protocol = DetectProtocol(request);
    auto action_name = std::make_shared<std::string>();
    const auto start = std::chrono::steady_clock::now();
    // Counts the request in the metrics as its response goes out; unknown
    // actions share one label value (the label set stays bounded).
    Responder reply = [this, respond, start, action_name](HttpResponse r) {
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      metrics_.Record(Actions::IsKnown(*action_name) ? std::string_view(*action_name)
                                                     : std::string_view("unknown"),
                      r.status, seconds);
      respond(std::move(r));
    };
    if (config_.log_requests) {
      std::string line = request.remote + " " + request.method + " " +
                         SanitizeUtf8(request.RawPath().substr(0, 200)) +
                         (protocol == Protocol::kJson ? " json " : " query ");
      reply = [counted = std::move(reply), start, line, action_name](HttpResponse r) {
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        std::fprintf(stderr, "lqsd: %s%s -> %d (%.1f ms)\n", line.c_str(),
                     SanitizeUtf8(action_name->substr(0, 64)).c_str(), r.status, ms);
        counted(std::move(r));
      };
    }
    if (stopping_.load()) {
      HttpResponse r =
          EncodeError(protocol, ServiceUnavailable("The server is shutting down."), request_id);
      r.close = true;
      reply(std::move(r));
    } else {
      Dispatch(request, protocol, request_id, post, reply, std::move(abandon), action_name.get());
    }
  } catch (const std::exception& e) {
    respond(EncodeError(protocol, InternalFailure(std::string("Internal error: ") + e.what()),
                        request_id));
  }
  active_calls_.fetch_sub(1);
}

bool Router::IsOpsRequest(const HttpRequest& request) const {
  if (config_.broker == nullptr || request.method != "GET") return false;
  const std::string_view path = request.RawPath();
  if (path != "/metrics" && path != "/health") return false;
  // Anything that looks like an SQS request stays an SQS request.
  if (request.Header("x-amz-target") != nullptr) return false;
  for (const auto& [name, value] : ParseFormPairs(request.RawQuery())) {
    if (name == "Action") return false;
  }
  return true;
}

HttpResponse Router::ServeOps(const HttpRequest& request) {
  HttpResponse r;
  r.headers.emplace_back("Cache-Control", "no-store");
  if (request.RawPath() == "/metrics") {
    r.headers.emplace_back("Content-Type", std::string(Metrics::kContentType));
    r.body = metrics_.Render(config_.broker);
    return r;
  }
  // /health: the Broker answers (ListQueues fails with kClosed once it is closed).
  r.headers.emplace_back("Content-Type", "text/plain; charset=utf-8");
  if (stopping_.load()) {
    r.status = 503;
    r.body = "shutting down\n";
    return r;
  }
  lqs::ListQueuesRequest probe;
  probe.max_results = 1;
  auto listed = config_.broker->ListQueues(probe);
  if (!listed.ok()) {
    r.status = 503;
    r.body = "unavailable: " + SanitizeUtf8(listed.status().ToString()) + "\n";
    return r;
  }
  r.body = "ok\n";
  return r;
}

void Router::Dispatch(HttpRequest& request, Protocol protocol, const std::string& request_id,
                      const Poster& post, const Responder& respond, AbandonHook abandon,
                      std::string* action_name) {
  auto fail = [&](const SqsError& error) { respond(EncodeError(protocol, error, request_id)); };

  if (config_.auth != nullptr) {
    if (auto error = config_.auth->Verify(request, static_cast<int64_t>(std::time(nullptr)))) {
      return fail(*error);
    }
  }

  ActionRequest action;
  action.protocol = protocol;
  action.base_url = BaseUrl(request);
  action.post = post;
  action.on_abandon = std::move(abandon);
  if (const std::string* trace = request.Header("x-amzn-trace-id")) action.trace_header = *trace;
  const std::optional<std::string> path_queue = QueueNameFromPath(request.RawPath());

  if (protocol == Protocol::kJson) {
    const std::string* target = request.Header("x-amz-target");
    action.action = target != nullptr ? sqs_json::ActionFromTarget(*target) : std::string();
    *action_name = action.action;
    if (!Actions::IsKnown(action.action)) return fail(UnknownOperation(400));
    if (auto error = sqs_json::DecodeBody(request.body, &action.params)) return fail(*error);
    // JSON requests may arrive on a queue path (a client using the queue URL
    // as its endpoint); dispatch is by header, the path only supplies a queue.
    const auto url = action.params.find("QueueUrl");
    if (url != action.params.end() && !url->is_null()) {
      if (!url->is_string()) return fail(SerializationError("Expected a string for QueueUrl."));
      action.queue_name = QueueNameFromUrl(url->get<std::string>());
    } else if (path_queue.has_value() && Actions::TargetsQueue(action.action)) {
      action.queue_name = path_queue;
    }
  } else {
    sqs_query::Params params = ParseFormPairs(request.RawQuery());
    if (request.method == "POST") {
      const std::string* type = request.Header("content-type");
      if (type == nullptr || StartsWith(AsciiLower(*type), "application/x-www-form-urlencoded")) {
        for (auto& p : ParseFormPairs(request.body)) params.push_back(std::move(p));
      }
    }
    // The largest SQS request (a 10-entry batch with 10 attributes each) has
    // a few hundred parameters.
    if (params.size() > kMaxQueryParams) {
      return fail(MalformedRequest("The request has more than " + std::to_string(kMaxQueryParams) +
                                   " parameters."));
    }
    const std::string* name = sqs_query::Find(params, "Action");
    if (name == nullptr || name->empty()) {
      if (request.method == "GET") {
        respond(sqs_query::EncodeUnknownOperation(request_id));
        return;
      }
      return fail(MissingAction());
    }
    action.action = *name;
    *action_name = action.action;
    if (!Actions::IsKnown(action.action)) return fail(InvalidAction(SanitizeUtf8(action.action)));
    // Non-queue actions on a queue URL are refused; GetQueueUrl is allowed (§10.3).
    if (path_queue.has_value() && !Actions::TargetsQueue(action.action) &&
        action.action != "GetQueueUrl") {
      return fail(InvalidAction(action.action));
    }
    action.params = sqs_query::DecodeParams(action.action, params);
    if (const std::string* url = sqs_query::Find(params, "QueueUrl")) {
      action.queue_name = QueueNameFromUrl(*url);
    } else if (path_queue.has_value() && Actions::TargetsQueue(action.action)) {
      action.queue_name = path_queue;
    }
  }

  actions_->Run(std::move(action),
                [protocol, name = *action_name, request_id, respond](ActionResult result) {
                  if (result.error.has_value()) {
                    respond(EncodeError(protocol, *result.error, request_id));
                  } else if (protocol == Protocol::kJson) {
                    respond(result.json_body.empty()
                                ? sqs_json::EncodeResult(result.output, request_id)
                                : sqs_json::EncodeEncodedResult(std::move(result.json_body),
                                                                request_id));
                  } else {
                    respond(sqs_query::EncodeResult(name, result.output, request_id));
                  }
                });
}

}  // namespace lqsd
