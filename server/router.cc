// Protocol detection, action dispatch, queue URL resolution (see router.h).

#include "server/router.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <optional>
#include <vector>

#include "server/action_outputs.h"
#include "server/clock_endpoint.h"
#include "server/peek_endpoint.h"
#include "server/sqs_json.h"
#include "server/sqs_query.h"
#include "server/text_util.h"
#include "wire/bridge_stats_json.h"
#include "wire/region_name.h"

namespace lqsd {
namespace {

constexpr size_t kMaxQueryParams = 5000;

HttpResponse EncodeError(Protocol protocol, sqs_query::Rendering rendering, const SqsError& error,
                         const std::string& request_id) {
  return protocol == Protocol::kJson ? sqs_json::EncodeError(error, request_id)
                                     : sqs_query::EncodeError(error, request_id, rendering);
}

// The last pieces of a path split at '/' (empty pieces skipped), still
// percent-encoded: last[0] is the last one, last[1] the one before, and so
// on; `count` is how many there are, counted up to 5.
struct PathTail {
  std::string_view last[4];
  int count = 0;
};

PathTail TailSegments(std::string_view path) {
  PathTail out;
  size_t end = path.size();
  while (out.count < 5) {
    while (end > 0 && path[end - 1] == '/') --end;
    if (end == 0) break;
    const size_t slash = path.rfind('/', end - 1);
    const size_t begin = slash == std::string_view::npos ? 0 : slash + 1;
    if (out.count < 4) out.last[out.count] = path.substr(begin, end - begin);
    ++out.count;
    end = begin;
  }
  return out;
}

// PercentDecode(raw, false) == text.
bool DecodedEquals(std::string_view raw, std::string_view text) {
  if (raw.find('%') == std::string_view::npos) return raw == text;
  return PercentDecode(raw, false) == text;
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

// [.../queue/<region>]/<account>/<name>: a queue of this server when the
// account is `account_id` and the region, if any, a region name.
Router::QueueRef OurQueue(const PathTail& tail, std::string_view account_id) {
  if (!DecodedEquals(tail.last[1], account_id)) return {};
  Router::QueueRef ref;
  if (tail.count >= 4 && tail.last[3] == "queue") {
    ref.region = PercentDecode(tail.last[2], false);
    if (!lqs::wire::IsRegionName(ref.region)) return {};
  }
  ref.name = PercentDecode(tail.last[0], false);
  return ref;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// "host:port" ("[v6]:port" too) split into the host and ":port"; the port
// part is empty when there is none or it is not all digits.
struct HostPort {
  std::string_view host;
  std::string_view port;  // ":9324" or empty
};

HostPort SplitHostPort(std::string_view authority) {
  HostPort out{authority, {}};
  size_t colon = std::string_view::npos;
  if (StartsWith(authority, "[")) {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return out;
    if (close + 1 < authority.size() && authority[close + 1] == ':') colon = close + 1;
  } else {
    colon = authority.find(':');
    if (colon != std::string_view::npos &&
        authority.find(':', colon + 1) != std::string_view::npos) {
      return out;  // a bare IPv6 address
    }
  }
  if (colon == std::string_view::npos) return out;
  out.host = authority.substr(0, colon);
  const std::string_view digits = authority.substr(colon + 1);
  bool numeric = !digits.empty() && digits.size() <= 5;
  for (const char c : digits) numeric = numeric && c >= '0' && c <= '9';
  if (numeric) out.port = authority.substr(colon);
  return out;
}

// us-east-1, us-gov-west-1: letters, one or more "-letters", then "-digits".
bool LooksLikeAwsRegion(std::string_view region) {
  int groups = 0;
  size_t begin = 0;
  while (true) {
    const size_t dash = region.find('-', begin);
    const std::string_view group = region.substr(
        begin, dash == std::string_view::npos ? std::string_view::npos : dash - begin);
    if (group.empty()) return false;
    const bool last = dash == std::string_view::npos;
    for (const char c : group) {
      if (last ? !(c >= '0' && c <= '9') : !(c >= 'a' && c <= 'z')) return false;
    }
    ++groups;
    if (last) return groups >= 3;
    begin = dash + 1;
  }
}

// SCHEME://AUTHORITY[/PATH] split, the path without a trailing '/'; false
// when `url` has no scheme or no authority.
bool SplitOrigin(std::string_view url, std::string* scheme, std::string* authority,
                 std::string* path) {
  const size_t sep = url.find("://");
  if (sep == std::string_view::npos || sep == 0) return false;
  const size_t slash = url.find('/', sep + 3);
  const std::string_view auth = url.substr(
      sep + 3, slash == std::string_view::npos ? std::string_view::npos : slash - (sep + 3));
  if (auth.empty()) return false;
  std::string_view rest = slash == std::string_view::npos ? std::string_view() : url.substr(slash);
  while (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  *scheme = std::string(url.substr(0, sep + 3));
  *authority = std::string(auth);
  *path = std::string(rest);
  return true;
}

bool IsIpAddress(std::string_view host) {
  if (StartsWith(host, "[")) return true;
  for (const char c : host) {
    if (!((c >= '0' && c <= '9') || c == '.')) return false;
  }
  return true;
}

}  // namespace

std::string PublicUrlProblem(std::string_view public_url, UrlStyle style) {
  if (style != UrlStyle::kHost || public_url.empty()) return {};
  std::string scheme, authority, path;
  if (!SplitOrigin(public_url, &scheme, &authority, &path)) {
    return "with host-style URLs the public URL must be SCHEME://HOST[:PORT][/PATH], got '" +
           std::string(public_url) + "'";
  }
  if (IsIpAddress(SplitHostPort(authority).host)) {
    return "with host-style URLs the public URL's host must be a name (sqs.<region>. goes before "
           "it), not an IP address: '" +
           std::string(public_url) + "'";
  }
  return {};
}

Protocol DetectProtocol(const HttpRequest& request) {
  if (const std::string* target = request.Header("x-amz-target")) {
    if (StartsWith(*target, sqs_json::kTargetPrefix)) return Protocol::kJson;
  }
  if (const std::string* type = request.Header("content-type")) {
    if (StartsWithLower(*type, "application/x-amz-json")) return Protocol::kJson;
  }
  if (request.Header("x-amz-target") != nullptr && request.method == "POST") {
    return Protocol::kJson;  // some other target: answered as an unknown operation
  }
  return Protocol::kQuery;
}

struct Router::Call {
  Responder respond;  // the connection's
  std::atomic<bool> answered{false};
  Protocol protocol = Protocol::kQuery;
  sqs_query::Rendering rendering = sqs_query::Rendering::kXml;  // of query-protocol responses
  std::string request_id;
  std::string action_name;  // empty until known
  std::chrono::steady_clock::time_point start;
  std::string log_line;  // "<remote> <method> <path> json|query ", when logging
};

Router::Router(Actions* actions, RouterConfig config)
    : actions_(actions), config_(std::move(config)) {
  if (SplitOrigin(config_.public_url, &public_scheme_, &public_authority_, &public_path_)) {
    public_host_ = AsciiLower(SplitHostPort(public_authority_).host);
  } else {
    public_scheme_.clear();
    public_authority_.clear();
    public_path_.clear();
  }
}

std::vector<std::string> Router::HeadersRead(const RouterConfig& config) {
  if (config.auth != nullptr) return {};
  return {"host", "x-amz-target", "content-type", "x-amzn-trace-id", "accept", "authorization"};
}

void Router::BeginShutdown() {
  stopping_.store(true);
  actions_->SetStopping();
}

Router::QueueRef Router::QueueFromUrl(std::string_view url) const {
  std::string_view path = url;
  const size_t scheme = url.find("://");
  if (scheme != std::string_view::npos) {
    const size_t slash = url.find('/', scheme + 3);
    path = slash == std::string_view::npos ? std::string_view() : url.substr(slash);
  }
  size_t end = 0;  // path.find_first_of("?#"), without a memchr per character
  while (end < path.size() && path[end] != '?' && path[end] != '#') ++end;
  path = path.substr(0, end);
  const PathTail tail = TailSegments(path);
  if (tail.count == 0) return {};
  if (tail.count == 1) {
    // Not a URL but a bare queue name (or "/<name>"): accepted, leniently.
    if (scheme != std::string_view::npos) return {};
    return {PercentDecode(tail.last[0], false), std::string()};
  }
  QueueRef ref = OurQueue(tail, config_.account_id);
  if (!ref.name.empty() && ref.region.empty() && scheme != std::string_view::npos) {
    // http://sqs.<region>.<rest>/<account>/<name>
    std::string_view authority = url.substr(scheme + 3);
    authority = authority.substr(0, authority.find_first_of("/?#"));
    if (std::optional<std::string> region = RegionOfHost(authority)) ref.region = *region;
  }
  return ref;
}

std::optional<std::string> Router::RegionOfHost(std::string_view host) const {
  std::string name = AsciiLower(SplitHostPort(host).host);
  if (!name.empty() && name.back() == '.') name.pop_back();  // a fully qualified name
  if (!StartsWith(name, "sqs.") || name == public_host_) return std::nullopt;
  const size_t dot = name.find('.', 4);
  if (dot == std::string::npos || dot + 1 == name.size()) return std::nullopt;
  std::string region = name.substr(4, dot - 4);
  const std::string_view rest = std::string_view(name).substr(dot + 1);
  if (!lqs::wire::IsRegionName(region)) return std::nullopt;
  const bool ours = rest == "localhost" || (!public_host_.empty() && rest == public_host_);
  if (!ours && !LooksLikeAwsRegion(region)) return std::nullopt;
  return region;
}

std::string Router::QueueUrlPrefix(const HttpRequest& request, std::string_view region,
                                   bool is_default) const {
  std::string out;
  if (config_.url_style == UrlStyle::kHost && !public_scheme_.empty()) {
    out = public_scheme_ + "sqs.";
    out += region;
    out += '.';
    out += public_authority_;
    out += public_path_;
  } else if (config_.url_style == UrlStyle::kHost && config_.public_url.empty()) {
    // The port the client reached us on: the Host header's (none when the
    // header has none: the scheme's default), else the listening port.
    const std::string* host = request.Header("host");
    const std::string_view authority =
        host != nullptr && IsSaneHost(*host) ? std::string_view(*host) : config_.default_host;
    out = "http://sqs.";
    out += region;
    out += ".localhost";
    out += SplitHostPort(authority).port;
  } else {
    out = BaseUrl(request);  // path style; or a public URL host style cannot use
    if (!is_default) {
      out += "/queue/";
      out += region;
    }
  }
  out += '/';
  out += config_.account_id;
  return out;
}

std::optional<Router::QueueRef> Router::QueueFromPath(std::string_view raw_path) const {
  const PathTail tail = TailSegments(raw_path);
  if (tail.count != 2 && !(tail.count == 4 && tail.last[3] == "queue")) return std::nullopt;
  return OurQueue(tail, config_.account_id);
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
  } else if (http_status == 503) {
    // The commit of the request's change failed (HttpServer's Committer):
    // SQS's retryable server error, as the library's kIOError is.
    error = ErrorFromStatus(lqs::Status(
        lqs::ErrorCode::kIOError,
        "lqsd could not make this request's change durable (the disk refused the write: "
        "see lqsd's log); the change may or may not have been applied; retry"));
  } else {
    error = MalformedRequest("Malformed HTTP request.");
  }
  HttpResponse r =
      EncodeError(DetectProtocol(head), sqs_query::RenderingFor(head), error, request_id);
  r.close = true;
  if (config_.log_requests) {
    std::fprintf(stderr, "lqsd: %s %s %s -> %d (rejected)\n", head.remote.c_str(),
                 head.method.c_str(), SanitizeUtf8(head.target.substr(0, 200)).c_str(),
                 http_status);
  }
  return r;
}

void Router::Handle(const HttpRequest& request, Poster post, Responder respond,
                    AbandonHook abandon) {
  // Exactly one response per request, whatever happens below.
  auto call = std::make_shared<Call>();
  call->respond = std::move(respond);
  call->request_id = NewRequestId();
  active_calls_.fetch_add(1);
  try {
    // With a key file, the ops paths (/metrics, /health, /bridges) need a signature like any
    // request.
    std::optional<SqsError> ops_refused;
    if (IsConsoleRequest(request)) {
      HttpResponse r = ServeConsole(request);
      if (config_.log_requests) {
        std::fprintf(stderr, "lqsd: %s %s %s (console) -> %d\n", request.remote.c_str(),
                     request.method.c_str(), SanitizeUtf8(request.RawPath().substr(0, 200)).c_str(),
                     r.status);
      }
      Answer(*call, std::move(r));
      active_calls_.fetch_sub(1);
      return;
    }
    if (IsOpsRequest(request)) {
      if (config_.auth != nullptr) {
        ops_refused = config_.auth->Verify(request, static_cast<int64_t>(std::time(nullptr)));
      }
      if (!ops_refused.has_value()) {
        Answer(*call, ServeOps(request));
        active_calls_.fetch_sub(1);
        return;
      }
    }
    call->protocol = DetectProtocol(request);
    call->rendering = sqs_query::RenderingFor(request);
    call->start = std::chrono::steady_clock::now();
    if (config_.log_requests) {
      call->log_line = request.remote + " " + request.method + " " +
                       SanitizeUtf8(request.RawPath().substr(0, 200)) +
                       (call->protocol == Protocol::kJson ? " json " : " query ");
    }
    if (ops_refused.has_value()) {
      Reply(*call, EncodeError(call->protocol, call->rendering, *ops_refused, call->request_id));
    } else if (stopping_.load()) {
      HttpResponse r =
          EncodeError(call->protocol, call->rendering,
                      ServiceUnavailable("The server is shutting down."), call->request_id);
      r.close = true;
      Reply(*call, std::move(r));
    } else {
      Dispatch(request, call, std::move(post), std::move(abandon));
    }
  } catch (const std::exception& e) {
    Answer(*call, EncodeError(call->protocol, call->rendering,
                              InternalFailure(std::string("Internal error: ") + e.what()),
                              call->request_id));
  }
  active_calls_.fetch_sub(1);
}

void Router::Answer(Call& call, HttpResponse response) {
  if (!call.answered.exchange(true)) call.respond(std::move(response));
}

void Router::Reply(Call& call, HttpResponse response) {
  const auto now = std::chrono::steady_clock::now();
  if (config_.log_requests) {
    const double ms = std::chrono::duration<double, std::milli>(now - call.start).count();
    std::fprintf(stderr, "lqsd: %s%s -> %d (%.1f ms)\n", call.log_line.c_str(),
                 SanitizeUtf8(call.action_name.substr(0, 64)).c_str(), response.status, ms);
  }
  // Unknown actions share one label value (the label set stays bounded).
  const double seconds = std::chrono::duration<double>(now - call.start).count();
  metrics_.Record(Actions::IsKnown(call.action_name) ? std::string_view(call.action_name)
                                                     : std::string_view("unknown"),
                  response.status, seconds);
  Answer(call, std::move(response));
}

bool Router::IsOpsPath(std::string_view path) {
  return path == "/metrics" || path == "/health" || path == "/bridges";
}

bool Router::IsOpsRequest(const HttpRequest& request) const {
  if (request.method != "GET") return false;
  if (!IsOpsPath(request.RawPath())) return false;
  // Anything that looks like an SQS request stays an SQS request.
  if (request.Header("x-amz-target") != nullptr) return false;
  for (const auto& [name, value] : ParseFormPairs(request.RawQuery())) {
    if (name == "Action") return false;
  }
  return true;
}

void Router::HandleOps(const HttpRequest& request, const Responder& respond) {
  active_calls_.fetch_add(1);  // Shutdown waits for it, as for Handle()
  HttpResponse r;
  try {
    const std::string_view path = request.RawPath();
    if (IsOpsRequest(request)) {
      r = ServeOps(request);
    } else {
      r.headers.emplace_back("Content-Type", "text/plain; charset=utf-8");
      r.status = IsOpsPath(path) && request.method != "GET" ? 405 : 404;
      if (r.status == 405) r.headers.emplace_back("Allow", "GET");
      r.body = "this listener serves only GET /metrics, GET /health and GET /bridges\n";
    }
  } catch (const std::exception& e) {
    r = HttpResponse();
    r.status = 500;
    r.headers.emplace_back("Content-Type", "text/plain; charset=utf-8");
    r.body = std::string("internal error: ") + e.what() + "\n";
  }
  if (config_.log_requests) {
    std::fprintf(stderr, "lqsd: %s %s %s (metrics listener) -> %d\n", request.remote.c_str(),
                 request.method.c_str(), SanitizeUtf8(request.target.substr(0, 200)).c_str(),
                 r.status);
  }
  active_calls_.fetch_sub(1);
  respond(std::move(r));
}

HttpResponse Router::ServeOps(const HttpRequest& request) {
  HttpResponse r;
  r.headers.emplace_back("Cache-Control", "no-store");
  if (request.RawPath() == "/metrics") {
    r.headers.emplace_back("Content-Type", std::string(Metrics::kContentType));
    r.body = metrics_.Render(config_.regions->OpenRegions(), config_.bridge_stats
                                                                 ? config_.bridge_stats()
                                                                 : std::vector<lqs::BridgeStats>());
    return r;
  }
  if (request.RawPath() == "/bridges") {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    if (config_.bridge_stats) {
      for (const auto& stats : config_.bridge_stats()) {
        list.push_back(lqs::wire::BridgeStatsJson(stats));
      }
    }
    r.headers.emplace_back("Content-Type", "application/json");
    r.body = nlohmann::ordered_json{{"bridges", std::move(list)}}.dump() + "\n";
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
  auto listed = config_.regions->default_broker()->ListQueues(probe);
  if (!listed.ok()) {
    r.status = 503;
    r.body = "unavailable: " + SanitizeUtf8(listed.status().ToString()) + "\n";
    return r;
  }
  r.body = "ok\n";
  return r;
}

bool Router::IsConsoleRequest(const HttpRequest& request) const {
  return config_.console != nullptr && Console::IsConsolePath(request.RawPath()) &&
         request.Header("x-amz-target") == nullptr &&
         (request.method == "GET" || request.method == "POST");
}

HttpResponse Router::ServeConsole(const HttpRequest& request) {
  if (stopping_.load()) {
    HttpResponse r;
    r.status = 503;
    r.headers.emplace_back("Content-Type", "text/plain; charset=utf-8");
    r.body = "shutting down\n";
    r.close = true;
    return r;
  }
  Regions& regions = *config_.regions;
  return config_.console->Serve(request, regions.default_broker(),
                                QueueUrlPrefix(request, regions.default_region(), true));
}

void Router::ServePeek(const HttpRequest& request, Call& call,
                       std::optional<std::string> verified_region) {
  auto fail = [&](const SqsError& error) {
    Reply(call, EncodeError(call.protocol, call.rendering, error, call.request_id));
  };
  const peek::PeekRequest peek_request = peek::ParsePeekRequest(request);
  QueueRef ref;
  if (peek_request.path_form) {
    if (peek_request.account_id == config_.account_id &&
        lqs::wire::IsRegionName(peek_request.region) && !peek_request.queue_name.empty()) {
      ref = {peek_request.queue_name, peek_request.region};
    }
  } else if (!peek_request.queue_url.empty()) {
    ref = QueueFromUrl(peek_request.queue_url);
  }
  if (ref.name.empty()) return fail(NonExistentQueue());
  ActionRequest action;
  if (auto error =
          ChooseRegion(request, std::move(ref.region), std::move(verified_region), &action)) {
    return fail(*error);
  }
  lqs::StatusOr<std::shared_ptr<lqs::Queue>> queue = action.broker->GetQueue(ref.name);
  if (!queue.ok()) return fail(ErrorFromStatus(queue.status()));
  lqs::StatusOr<lqs::ReceiveMessageResult> peeked =
      peek::Peek(**queue, peek_request.show_invisible, peek_request.show_delayed);
  if (!peeked.ok()) return fail(ErrorFromStatus(peeked.status()));
  const Json output = ReceiveMessageOutput(*peeked);
  Reply(call,
        call.protocol == Protocol::kJson
            ? sqs_json::EncodeResult(output, call.request_id)
            : sqs_query::EncodeResult("ReceiveMessage", output, call.request_id, call.rendering));
}

std::optional<SqsError> Router::ChooseRegion(const HttpRequest& request, std::string region,
                                             std::optional<std::string> verified_region,
                                             ActionRequest* action) const {
  Regions& regions = *config_.regions;
  if (region.empty() && regions.multi_region()) {
    // http://sqs.<region>.<rest>:PORT as the client's endpoint
    if (const std::string* host = request.Header("host")) {
      if (std::optional<std::string> named = RegionOfHost(*host)) region = std::move(*named);
    }
  }
  if (region.empty() && regions.multi_region()) {
    std::optional<std::string> signed_for =
        verified_region.has_value() ? std::move(verified_region) : SigningRegion(request);
    if (signed_for.has_value()) {
      if (!lqs::wire::IsRegionName(*signed_for)) {
        return IncompleteSignature("Credential should be scoped to a valid region: '" +
                                   SanitizeUtf8(signed_for->substr(0, 64)) +
                                   "' is not a region name (" +
                                   std::string(lqs::wire::kRegionNameRule) + ").");
      }
      region = std::move(*signed_for);
    }
  }
  if (region.empty() || !regions.multi_region()) region = regions.default_region();
  lqs::StatusOr<lqs::Broker*> broker = regions.Get(region);
  if (!broker.ok()) return ErrorFromStatus(broker.status());
  action->broker = *broker;
  action->queue_url_prefix = QueueUrlPrefix(request, region, region == regions.default_region());
  return std::nullopt;
}

void Router::Dispatch(const HttpRequest& request, const std::shared_ptr<Call>& call, Poster post,
                      AbandonHook abandon) {
  const Protocol protocol = call->protocol;
  const std::string& request_id = call->request_id;
  std::string* action_name = &call->action_name;
  auto fail = [&](const SqsError& error) {
    Reply(*call, EncodeError(protocol, call->rendering, error, request_id));
  };

  std::optional<std::string> verified_region;  // the credential scope's, once verified
  const bool from_console =
      config_.console != nullptr && config_.console->AuthorizesApiCall(request);
  if (config_.auth != nullptr && !from_console) {
    std::string signed_region;
    if (auto error = config_.auth->Verify(request, static_cast<int64_t>(std::time(nullptr)),
                                          &signed_region)) {
      return fail(*error);
    }
    verified_region = std::move(signed_region);
  }
  if (peek::IsPeekRequest(request)) return ServePeek(request, *call, std::move(verified_region));
  if (clock_endpoint::IsClockRequest(request)) {
    return Reply(*call, config_.manual_clock != nullptr
                            ? clock_endpoint::Serve(request, *config_.manual_clock)
                            : sqs_query::EncodeUnknownOperation(request_id));
  }

  ActionRequest action;
  action.protocol = protocol;
  action.post = std::move(post);
  action.on_abandon = std::move(abandon);
  if (const std::string* trace = request.Header("x-amzn-trace-id")) action.trace_header = *trace;
  const std::optional<QueueRef> path_queue = QueueFromPath(request.RawPath());
  std::string url_region;  // the region the queue URL or path names, if any

  if (protocol == Protocol::kJson) {
    const std::string* target = request.Header("x-amz-target");
    action.action = target != nullptr ? sqs_json::ActionFromTarget(*target) : std::string();
    *action_name = action.action;
    if (!Actions::IsKnown(action.action)) return fail(UnknownOperation(400));
    if (auto error = action.input.Parse(request.body)) return fail(*error);
    // JSON requests may arrive on a queue path (a client using the queue URL
    // as its endpoint); dispatch is by header, the path only supplies a queue.
    if (const auto url = RequestInput::Find(action.input.root(), "QueueUrl")) {
      if (!url->is_string()) return fail(SerializationError("Expected a string for QueueUrl."));
      QueueRef ref = QueueFromUrl(url->get_string().value_unsafe());
      action.queue_name = std::move(ref.name);
      url_region = std::move(ref.region);
    } else if (path_queue.has_value() && Actions::TargetsQueue(action.action)) {
      action.queue_name = path_queue->name;
      url_region = path_queue->region;
    }
  } else {
    sqs_query::Params params = ParseFormPairs(request.RawQuery());
    if (request.method == "POST") {
      const std::string* type = request.Header("content-type");
      if (type == nullptr || StartsWithLower(*type, "application/x-www-form-urlencoded")) {
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
        Reply(*call, sqs_query::EncodeUnknownOperation(request_id));
        return;
      }
      return fail(MissingAction());
    }
    action.action = *name;
    *action_name = action.action;
    if (!Actions::IsKnown(action.action)) return fail(InvalidAction(SanitizeUtf8(action.action)));
    // Non-queue actions on a queue URL are refused; GetQueueUrl is allowed (§11.3).
    if (path_queue.has_value() && !Actions::TargetsQueue(action.action) &&
        action.action != "GetQueueUrl") {
      return fail(InvalidAction(action.action));
    }
    // The decoder writes well-formed JSON of the action's shape (sqs_query.h);
    // a map of more than RequestInput::kMaxMembers entries is refused here.
    if (auto error =
            action.input.Parse(sqs_json::Dump(sqs_query::DecodeParams(action.action, params)))) {
      return fail(*error);
    }
    if (const std::string* url = sqs_query::Find(params, "QueueUrl")) {
      QueueRef ref = QueueFromUrl(*url);
      action.queue_name = std::move(ref.name);
      url_region = std::move(ref.region);
    } else if (path_queue.has_value() && Actions::TargetsQueue(action.action)) {
      action.queue_name = path_queue->name;
      url_region = path_queue->region;
    }
  }
  if (auto error =
          ChooseRegion(request, std::move(url_region), std::move(verified_region), &action)) {
    return fail(*error);
  }

  actions_->Run(std::move(action), [this, call](ActionResult result) {
    const std::string& id = call->request_id;
    if (result.error.has_value()) {
      Reply(*call, EncodeError(call->protocol, call->rendering, *result.error, id));
    } else if (call->protocol == Protocol::kJson) {
      Reply(*call, result.json_body.empty()
                       ? sqs_json::EncodeResult(result.output, id)
                       : sqs_json::EncodeEncodedResult(std::move(result.json_body), id));
    } else {
      Reply(*call, sqs_query::EncodeResult(call->action_name, result.output, id, call->rendering));
    }
  });
}

}  // namespace lqsd
