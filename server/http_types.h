// server/http_types.h — the HTTP request and response as lqsd's protocol layers
// see them, independent of the HTTP library (Beast stays in http_server.cc).
//
// Thread safety: plain values.

#ifndef LQS_SERVER_HTTP_TYPES_H_
#define LQS_SERVER_HTTP_TYPES_H_

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lqsd {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string target;  // the raw request-target: "/123456789012/q?Action=..."
  // Header fields in arrival order; names lower-cased, values as received.
  // The HTTP server copies only the fields it was told the handler reads
  // (HttpServer::KeepHeaders), all of them by default.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string remote;  // "127.0.0.1:53412", for logs

  // The first value of header `lower_name`, or nullptr.
  const std::string* Header(std::string_view lower_name) const {
    for (const auto& [name, value] : headers) {
      if (name == lower_name) return &value;
    }
    return nullptr;
  }
  // The raw (still percent-encoded) path and query string of `target`.
  std::string_view RawPath() const {
    const std::string_view t = target;
    return t.substr(0, t.find('?'));
  }
  std::string_view RawQuery() const {
    const std::string_view t = target;
    const size_t q = t.find('?');
    return q == std::string_view::npos ? std::string_view() : t.substr(q + 1);
  }
};

struct HttpResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;  // Content-Length is added later
  std::string body;
  bool close = false;  // close the connection after sending
};

// Runs a closure on the executor of the connection a request came from.
using Poster = std::function<void(std::function<void()>)>;
// Completes a request; may be called from any thread, exactly once.
using Responder = std::function<void(HttpResponse)>;
// For handlers that answer later (long polls): hook(fn) asks the connection
// to run fn once, on its executor, if the client closes the connection (or
// resets it) before the response is written; fn typically withdraws the
// pending work and answers at once (the answer is then discarded). Never runs
// after the response was written. Call it from inside the handler; a later
// call replaces fn.
using AbandonHook = std::function<void(std::function<void()>)>;

}  // namespace lqsd

#endif  // LQS_SERVER_HTTP_TYPES_H_
