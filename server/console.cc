// The web console's pages and API (see console.h).

#include "server/console.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

#include "server/console_api.h"
#include "server/console_assets.h"
#include "server/error_map.h"
#include "server/text_util.h"

namespace lqsd {
namespace {

constexpr std::string_view kPrefix = "/console";
constexpr std::string_view kLoginPath = "/console/login";
constexpr std::string_view kApiPrefix = "/console/api/";
// Where login.html shows why a login failed.
constexpr std::string_view kErrorMark = "<!--lqs:error-->";
constexpr size_t kDefaultMessageLimit = 100;
constexpr size_t kMaxMessageLimit = 1000;

HttpResponse Base(int status) {
  HttpResponse r;
  r.status = status;
  r.headers.emplace_back("Cache-Control", "no-store");
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  r.headers.emplace_back("X-Frame-Options", "DENY");
  r.headers.emplace_back("Referrer-Policy", "same-origin");
  r.headers.emplace_back("Content-Security-Policy",
                         "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; "
                         "form-action 'self'; base-uri 'none'");
  return r;
}

HttpResponse Redirect(std::string_view location) {
  HttpResponse r = Base(303);
  r.headers.emplace_back("Location", std::string(location));
  r.headers.emplace_back("Content-Type", "text/plain; charset=utf-8");
  r.body = "see " + std::string(location) + "\n";
  return r;
}

HttpResponse Text(int status, std::string body) {
  HttpResponse r = Base(status);
  r.headers.emplace_back("Content-Type", "text/plain; charset=utf-8");
  r.body = std::move(body);
  return r;
}

HttpResponse JsonAnswer(int status, const Json& body) {
  HttpResponse r = Base(status);
  r.headers.emplace_back("Content-Type", "application/json");
  r.body = body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  return r;
}

HttpResponse JsonError(int status, std::string_view code, std::string_view message) {
  return JsonAnswer(status, Json{{"error", code}, {"message", message}});
}

HttpResponse AssetAnswer(const ConsoleAsset& asset) {
  HttpResponse r = Base(200);
  r.headers.emplace_back("Content-Type", std::string(asset.content_type));
  r.body = std::string(asset.body);
  return r;
}

std::string QueryParam(const HttpRequest& request, std::string_view name) {
  for (auto& [key, value] : ParseFormPairs(request.RawQuery())) {
    if (key == name) return std::move(value);
  }
  return {};
}

std::string HtmlEscape(std::string_view text) {
  static constexpr CharEscape kHtml[] = {
      {'<', "&lt;"}, {'>', "&gt;"}, {'&', "&amp;"}, {'"', "&quot;"}};
  return EscapeChars(text, kHtml);
}

HttpResponse LoginPage(int status, std::string_view error) {
  const ConsoleAsset* page = FindConsoleAsset("login.html");
  if (page == nullptr) return Text(500, "login.html is missing from this build\n");
  HttpResponse r = AssetAnswer(*page);
  r.status = status;
  if (!error.empty()) {
    const size_t at = r.body.find(kErrorMark);
    if (at != std::string::npos) {
      r.body.replace(at, kErrorMark.size(),
                     "<p class=\"error\" id=\"login-error\">" + HtmlEscape(error) + "</p>");
    }
  }
  return r;
}

// The authority of an Origin header's value ("http://host:port" -> "host:port").
std::string_view OriginAuthority(std::string_view origin) {
  const size_t sep = origin.find("://");
  return sep == std::string_view::npos ? origin : origin.substr(sep + 3);
}

// True when the browser reached the console over HTTPS: lqsd speaks plain
// HTTP, so that is through a TLS front (nginx, say) that says so in
// X-Forwarded-Proto, or a page whose Origin is https (a login form's POST
// carries one). Then the session cookie is Secure: a browser never sends it
// over plain HTTP. A spoofed header only keeps the spoofer's own cookie off
// plain HTTP.
bool ReachedOverHttps(const HttpRequest& request) {
  if (const std::string* proto = request.Header("x-forwarded-proto")) {
    if (AsciiLower(Trim(std::string_view(*proto).substr(0, proto->find(',')))) == "https") {
      return true;
    }
  }
  const std::string* origin = request.Header("origin");
  return origin != nullptr && StartsWithLower(*origin, "https://");
}

// The session cookie's Set-Cookie value: `value` for Max-Age `max_age_s`
// (0 clears it).
std::string SessionCookie(const HttpRequest& request, std::string_view value, int64_t max_age_s) {
  return std::string(ConsoleSessions::kCookieName) + "=" + std::string(value) +
         "; Path=/; HttpOnly; SameSite=Strict" + (ReachedOverHttps(request) ? "; Secure" : "") +
         "; Max-Age=" + std::to_string(max_age_s);
}

}  // namespace

Console::Console(ConsoleConfig config)
    : config_(std::move(config)), sessions_(config_.auth, config_.clock, config_.session_ttl_ms) {}

bool Console::IsConsolePath(std::string_view raw_path) {
  return raw_path == kPrefix ||
         (raw_path.size() > kPrefix.size() && raw_path.substr(0, kPrefix.size()) == kPrefix &&
          raw_path[kPrefix.size()] == '/');
}

bool Console::LoggedIn(const HttpRequest& request) {
  return config_.auth == nullptr || sessions_.RequestHasSession(request);
}

bool Console::AuthorizesApiCall(const HttpRequest& request) {
  if (config_.auth == nullptr) return false;
  const std::string* marker = request.Header("x-lqs-console");
  if (marker == nullptr || *marker != "1") return false;
  if (const std::string* origin = request.Header("origin")) {
    const std::string* host = request.Header("host");
    if (host == nullptr || OriginAuthority(*origin) != *host) return false;
  }
  return sessions_.RequestHasSession(request);
}

HttpResponse Console::ServeLogin(const HttpRequest& request) {
  if (config_.auth == nullptr) return Redirect("/console/");
  if (request.method == "GET") return LoginPage(200, {});
  if (request.method != "POST") return Text(405, "GET or POST\n");
  std::string key_id, secret;
  for (auto& [name, value] : ParseFormPairs(request.body)) {
    if (name == "access_key_id") {
      key_id = std::move(value);
    } else if (name == "secret") {
      secret = std::move(value);
    }
  }
  const ConsoleSessions::LoginResult login = sessions_.Login(key_id, secret, request.remote);
  if (login.throttled) {
    HttpResponse r = LoginPage(429, "Too many failed logins from this address: try again in " +
                                        std::to_string(login.retry_after_seconds) + " s.");
    r.headers.emplace_back("Retry-After", std::to_string(login.retry_after_seconds));
    return r;
  }
  if (!login.token.has_value()) {
    return LoginPage(401, "The access key id or the secret is wrong.");
  }
  const std::string& token = *login.token;
  HttpResponse r = Redirect("/console/");
  r.headers.emplace_back("Set-Cookie", SessionCookie(request, token, sessions_.ttl_ms() / 1000));
  return r;
}

HttpResponse Console::Serve(const HttpRequest& request, lqs::Broker* broker,
                            const std::string& queue_url_prefix) {
  const std::string_view path = request.RawPath();
  if (path == kLoginPath) return ServeLogin(request);
  if (path == "/console/logout") {
    if (request.method != "POST") return Text(405, "POST\n");
    if (config_.auth != nullptr) {
      sessions_.Logout(ConsoleSessions::CookieValue(request, ConsoleSessions::kCookieName));
    }
    HttpResponse r = Redirect(config_.auth != nullptr ? kLoginPath : "/console/");
    r.headers.emplace_back("Set-Cookie", SessionCookie(request, "", 0));
    return r;
  }
  if (path.substr(0, kApiPrefix.size()) == kApiPrefix) {
    if (config_.auth != nullptr) {
      const std::string* marker = request.Header("x-lqs-console");
      if (marker == nullptr || *marker != "1") {
        return JsonError(403, "MissingConsoleHeader",
                         "console API requests need the header X-Lqs-Console: 1");
      }
      if (!sessions_.RequestHasSession(request)) {
        return JsonError(401, "LoginRequired", "log in at /console/login");
      }
    }
    if (request.method != "GET") return JsonError(405, "MethodNotAllowed", "GET only");
    return ServeApi(request, path.substr(kApiPrefix.size()), broker, queue_url_prefix);
  }
  if (request.method != "GET") return Text(405, "GET\n");
  std::string_view name = path.size() > kPrefix.size() ? path.substr(kPrefix.size() + 1) : "";
  if (name.empty()) name = "index.html";
  const ConsoleAsset* asset = FindConsoleAsset(name);
  if (asset == nullptr || name == "login.html") return Text(404, "no such console page\n");
  // The console page itself needs a login; the files it loads hold no data.
  if (name == "index.html" && !LoggedIn(request)) return Redirect(kLoginPath);
  return AssetAnswer(*asset);
}

HttpResponse Console::ServeApi(const HttpRequest& request, std::string_view what,
                               lqs::Broker* broker, const std::string& queue_url_prefix) {
  if (what == "queues") {
    auto queues = console_api::Queues(broker, queue_url_prefix, config_.clock->NowMillis());
    if (!queues.ok()) return JsonError(503, "Unavailable", queues.status().ToString());
    Json out = std::move(*queues);
    out["auth"] = config_.auth != nullptr;
    return JsonAnswer(200, out);
  }
  const std::string queue = QueryParam(request, "queue");
  if (what == "history") {
    if (config_.history == nullptr) return JsonError(404, "NoHistory", "history is off");
    return JsonAnswer(200, console_api::History(*config_.history, queue));
  }
  if (what == "messages") {
    size_t limit = kDefaultMessageLimit;
    const std::string limit_text = QueryParam(request, "limit");
    if (!limit_text.empty()) {
      const long long parsed = std::atoll(limit_text.c_str());
      if (parsed < 1) return JsonError(400, "InvalidParameterValue", "limit must be >= 1");
      limit = std::min(static_cast<size_t>(parsed), kMaxMessageLimit);
    }
    auto messages = console_api::Messages(broker, queue, QueryParam(request, "id"), limit);
    if (!messages.ok()) {
      const SqsError error = ErrorFromStatus(messages.status());
      return JsonError(error.http_status, error.shape, error.message);
    }
    return JsonAnswer(200, *messages);
  }
  return JsonError(404, "NotFound", "no such console API");
}

}  // namespace lqsd
