// wire/sqs_http_client.cc — Boost.Beast over a TCP or an OpenSSL stream.

#include "wire/sqs_http_client.h"

#include <chrono>
#include <mutex>
#include <utility>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

namespace lqs::wire {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using asio::ip::tcp;

namespace {

constexpr std::string_view kContentType = "application/x-amz-json-1.0";
constexpr size_t kMaxAnswerBytes = size_t{64} << 20;

Status BadUrl(std::string_view url, std::string_view what) {
  return Status(ErrorCode::kInvalidParameterValue,
                "Value " + std::string(url) + " for parameter " + std::string(what) +
                    " is invalid. Reason: expected http://HOST[:PORT][/PATH] or "
                    "https://HOST[:PORT][/PATH].");
}

// True for errors of a keep-alive connection that the server closed
// before this request reached it.
bool IsStaleConnection(const beast::error_code& ec) {
  return ec == http::error::end_of_stream || ec == asio::error::connection_reset ||
         ec == asio::error::broken_pipe || ec == asio::error::eof ||
         ec == asio::ssl::error::stream_truncated;
}

}  // namespace

StatusOr<SqsEndpoint> ParseSqsEndpoint(std::string_view url, std::string_view what) {
  SqsEndpoint e;
  std::string_view rest;
  if (url.substr(0, 7) == "http://") {
    rest = url.substr(7);
  } else if (url.substr(0, 8) == "https://") {
    e.tls = true;
    rest = url.substr(8);
  } else {
    return BadUrl(url, what);
  }
  if (const size_t slash = rest.find_first_of("/?#"); slash != std::string_view::npos) {
    rest = rest.substr(0, slash);
  }
  if (rest.empty() || rest.find('@') != std::string_view::npos) return BadUrl(url, what);
  e.host_header = std::string(rest);
  std::string_view port;
  if (rest[0] == '[') {
    const size_t close = rest.find(']');
    if (close == std::string_view::npos) return BadUrl(url, what);
    e.host = std::string(rest.substr(1, close - 1));
    std::string_view after = rest.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return BadUrl(url, what);
      port = after.substr(1);
    }
  } else if (const size_t colon = rest.rfind(':'); colon != std::string_view::npos) {
    e.host = std::string(rest.substr(0, colon));
    port = rest.substr(colon + 1);
  } else {
    e.host = std::string(rest);
  }
  if (port.empty() && e.host_header.back() == ':') return BadUrl(url, what);
  e.port = port.empty() ? (e.tls ? "443" : "80") : std::string(port);
  if (e.host.empty() || e.port.find_first_not_of("0123456789") != std::string::npos ||
      e.port.size() > 5) {
    return BadUrl(url, what);
  }
  e.origin = (e.tls ? "https://" : "http://") + e.host_header;
  return e;
}

// One open connection: plain TCP, or TLS over TCP. Every operation is
// asynchronous and run to completion on the caller's thread, because
// Beast's timeouts (tcp_stream::expires_after) apply to asynchronous
// operations only.
struct SqsHttpClient::Connection {
  asio::io_context ioc;
  std::optional<ssl::context> tls_context;
  std::optional<beast::tcp_stream> plain;
  std::optional<beast::ssl_stream<beast::tcp_stream>> secure;

  beast::tcp_stream& tcp() { return secure ? beast::get_lowest_layer(*secure) : *plain; }

  template <typename Fn>
  void WithStream(Fn&& fn) {
    if (secure) {
      fn(*secure);
    } else {
      fn(*plain);
    }
  }
};

SqsHttpClient::SqsHttpClient(SqsEndpoint endpoint, SqsHttpOptions options)
    : endpoint_(std::move(endpoint)), options_(std::move(options)) {}

SqsHttpClient::~SqsHttpClient() { Close(); }

void SqsHttpClient::Close() {
  if (!connection_) return;
  beast::error_code ec;
  connection_->tcp().socket().shutdown(tcp::socket::shutdown_both, ec);
  connection_->tcp().close();
  connection_.reset();
}

void SqsHttpClient::Abort() {
  std::lock_guard<std::mutex> lock(abort_mu_);
  aborted_ = true;
  if (running_ != nullptr) {
    Connection* c = running_;
    asio::post(c->ioc, [c] { c->tcp().cancel(); });
  }
}

void SqsHttpClient::Run(Connection* c) {
  {
    std::lock_guard<std::mutex> lock(abort_mu_);
    if (aborted_) asio::post(c->ioc, [c] { c->tcp().cancel(); });
    running_ = c;
  }
  c->ioc.restart();
  c->ioc.run();
  std::lock_guard<std::mutex> lock(abort_mu_);
  running_ = nullptr;
}

StatusOr<SqsHttpReply> SqsHttpClient::Call(std::string_view action, const std::string& payload,
                                           int extra_seconds) {
  const std::string target = "AmazonSQS." + std::string(action);
  return Exchange(action, "/", {}, payload,
                  {{"content-type", std::string(kContentType)}, {"x-amz-target", target}},
                  extra_seconds);
}

StatusOr<SqsHttpReply> SqsHttpClient::Get(
    std::string_view path, std::vector<std::pair<std::string, std::string>> query,
    std::vector<std::pair<std::string, std::string>> headers) {
  const std::string canonical_query = CanonicalQuery(std::move(query));
  return Exchange("GET " + std::string(path), path, canonical_query, std::nullopt,
                  std::move(headers), 0);
}

StatusOr<SqsHttpReply> SqsHttpClient::Exchange(std::string_view what, std::string_view path,
                                               std::string_view query,
                                               const std::optional<std::string>& payload,
                                               std::vector<Header> headers, int extra_seconds) {
  const auto timeout = std::chrono::seconds(options_.timeout_seconds + extra_seconds);
  auto fail = [&](std::string_view step, const beast::error_code& ec) {
    Close();
    const bool timed_out = ec == beast::error::timeout;
    return Status(ErrorCode::kIOError, std::string(what) + " to " + endpoint_.origin + ": " +
                                           std::string(step) + ": " +
                                           (timed_out ? "timed out" : ec.message()));
  };
  for (int attempt = 0; attempt < 2; ++attempt) {
    {
      std::lock_guard<std::mutex> lock(abort_mu_);
      if (aborted_) {
        return Status(ErrorCode::kIOError,
                      std::string(what) + " to " + endpoint_.origin + ": stopped");
      }
    }
    const bool reused = connection_ != nullptr;
    beast::error_code ec;
    if (!connection_) {
      auto c = std::make_unique<Connection>();
      tcp::resolver resolver(c->ioc);
      auto results = resolver.resolve(endpoint_.host, endpoint_.port, ec);
      if (ec) return fail("cannot resolve " + endpoint_.host, ec);
      if (endpoint_.tls) {
        c->tls_context.emplace(ssl::context::tls_client);
        c->tls_context->set_default_verify_paths(ec);
        if (!options_.ca_file.empty()) {
          c->tls_context->load_verify_file(options_.ca_file, ec);
          if (ec) {
            return Status(ErrorCode::kInvalidParameterValue,
                          "cannot read the CA file " + options_.ca_file + ": " + ec.message());
          }
        }
        c->tls_context->set_verify_mode(ssl::verify_peer);
        c->secure.emplace(c->ioc, *c->tls_context);
        c->secure->set_verify_callback(ssl::host_name_verification(endpoint_.host));
        // SNI, for servers that host several names.
        SSL_set_tlsext_host_name(c->secure->native_handle(), endpoint_.host.c_str());
      } else {
        c->plain.emplace(c->ioc);
      }
      c->tcp().expires_after(timeout);
      c->tcp().async_connect(results,
                             [&](const beast::error_code& e, const tcp::endpoint&) { ec = e; });
      Run(c.get());
      if (ec) return fail("cannot connect", ec);
      if (c->secure) {
        c->tcp().expires_after(timeout);
        c->secure->async_handshake(ssl::stream_base::client,
                                   [&](const beast::error_code& e) { ec = e; });
        Run(c.get());
        if (ec) return fail("TLS handshake failed", ec);
      }
      connection_ = std::move(c);
    }

    const bool post = payload.has_value();
    std::string target(path);
    if (!query.empty()) target.append("?").append(query);
    http::request<http::string_body> req{post ? http::verb::post : http::verb::get, target, 11};
    req.set(http::field::host, endpoint_.host_header);
    for (const auto& [name, value] : headers) req.set(name, value);
    if (post) req.set("x-amzn-query-mode", "true");
    req.set(http::field::user_agent, options_.user_agent);
    req.keep_alive(true);
    if (post) {
      req.body() = *payload;
      req.prepare_payload();
    }
    if (options_.signing) {
      const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
      std::vector<Header> signed_headers = headers;
      signed_headers.emplace_back("host", endpoint_.host_header);
      for (auto& [name, value] :
           SignRequest(*options_.signing, post ? "POST" : "GET", path, std::move(signed_headers),
                       post ? std::string_view(*payload) : std::string_view(), now, query)) {
        req.set(name, value);
      }
    }

    connection_->tcp().expires_after(timeout);
    http::response_parser<http::string_body> parser;
    parser.body_limit(kMaxAnswerBytes);
    beast::flat_buffer buffer;
    bool got_any = false;
    connection_->WithStream([&](auto& stream) {
      http::async_write(stream, req, [&](const beast::error_code& e, size_t) {
        if (e) {
          ec = e;
          return;
        }
        http::async_read_header(stream, buffer, parser, [&](const beast::error_code& e2, size_t) {
          got_any = buffer.size() > 0 || parser.got_some();
          if (e2) {
            ec = e2;
            return;
          }
          http::async_read(stream, buffer, parser,
                           [&](const beast::error_code& e3, size_t) { ec = e3; });
        });
      });
      Run(connection_.get());
    });
    if (ec) {
      if (reused && attempt == 0 && !got_any && IsStaleConnection(ec)) {
        Close();
        continue;
      }
      return fail(got_any ? "the answer was cut short" : "no answer", ec);
    }
    http::response<http::string_body> res = parser.release();
    if (!res.keep_alive()) Close();
    SqsHttpReply reply;
    reply.status = static_cast<int>(res.result_int());
    if (auto it = res.find("x-amzn-query-error"); it != res.end()) {
      reply.query_error = std::string(it->value());
    }
    reply.body = std::move(res.body());
    return reply;
  }
  return Status(ErrorCode::kIOError,
                std::string(what) + " to " + endpoint_.origin + ": the connection was closed");
}

}  // namespace lqs::wire
