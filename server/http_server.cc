// Beast acceptor and sessions (see http_server.h).

#include "server/http_server.h"

#include <atomic>
#include <ctime>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "server/text_util.h"

namespace lqsd {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

class Session;

struct HttpServer::State {
  State(asio::io_context& io, Limits l, Handler h, Rejecter r)
      : ioc(io),
        limits(l),
        handler(std::move(h)),
        rejecter(std::move(r)),
        acceptor(asio::make_strand(io)),
        retry_timer(acceptor.get_executor()) {}

  asio::io_context& ioc;
  Limits limits;
  Handler handler;
  Rejecter rejecter;
  tcp::acceptor acceptor;
  asio::steady_timer retry_timer;
  std::atomic<bool> stopping{false};
  mutable std::mutex mu;
  std::map<Session*, std::weak_ptr<Session>> sessions;
};

namespace {

std::string HttpDate() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  const size_t n = std::strftime(buf, sizeof(buf), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return std::string(buf, n);
}

bool IsHttpParseError(const beast::error_code& ec) {
  return ec.category() == http::make_error_code(http::error::bad_method).category() &&
         ec != http::error::end_of_stream && ec != http::error::partial_message &&
         ec != http::error::need_more && ec != http::error::need_buffer;
}

}  // namespace

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, std::shared_ptr<HttpServer::State> state)
      : stream_(std::move(socket)), state_(std::move(state)) {
    beast::error_code ec;
    const tcp::endpoint remote = stream_.socket().remote_endpoint(ec);
    if (!ec) remote_ = remote.address().to_string() + ":" + std::to_string(remote.port());
  }

  ~Session() {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->sessions.erase(this);
  }

  void Start() {
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->ReadHeader(); });
  }

  // Closes the connection now if it waits for a request, else after the
  // response in progress.
  void Stop() {
    asio::post(stream_.get_executor(), [self = shared_from_this()] {
      self->stop_requested_ = true;
      if (!self->busy_) self->Close();
    });
  }

 private:
  void ReadHeader() {
    if (stop_requested_ || state_->stopping.load()) return Close();
    busy_ = false;
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(state_->limits.max_header_bytes));
    parser_->body_limit(state_->limits.max_body_bytes);
    stream_.expires_after(state_->limits.idle_timeout);
    http::async_read_header(stream_, buffer_, *parser_,
                            beast::bind_front_handler(&Session::OnHeader, shared_from_this()));
  }

  void OnHeader(beast::error_code ec, std::size_t) {
    if (ec) return OnReadError(ec);
    busy_ = true;
    stream_.expires_after(state_->limits.io_timeout);
    const auto& req = parser_->get();
    version_ = req.version();
    const auto expect = req[http::field::expect];
    if (beast::iequals(expect, "100-continue") && !parser_->is_done()) {
      auto res = std::make_shared<http::response<http::empty_body>>(http::status::continue_,
                                                                    req.version());
      http::async_write(stream_, *res,
                        [self = shared_from_this(), res](beast::error_code wec, std::size_t) {
                          if (wec) return self->Close();
                          self->ReadBody();
                        });
      return;
    }
    ReadBody();
  }

  void ReadBody() {
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&Session::OnBody, shared_from_this()));
  }

  void OnBody(beast::error_code ec, std::size_t) {
    if (ec) return OnReadError(ec);
    stream_.expires_never();
    http::request<http::string_body> msg = parser_->release();
    keep_alive_ = msg.keep_alive();
    HttpRequest request = Convert(msg);
    request.body = std::move(msg.body());

    auto self = shared_from_this();
    Poster post = [self](std::function<void()> fn) {
      asio::post(self->stream_.get_executor(), std::move(fn));
    };
    Responder respond = [self](HttpResponse response) {
      asio::post(self->stream_.get_executor(),
                 [self, r = std::move(response)]() mutable { self->Write(std::move(r)); });
    };
    state_->handler(std::move(request), std::move(post), std::move(respond));
  }

  void OnReadError(const beast::error_code& ec) {
    int status = 0;
    if (ec == http::error::body_limit) {
      status = 413;
    } else if (ec == http::error::header_limit) {
      status = 431;
    } else if (IsHttpParseError(ec)) {
      status = 400;
    }
    if (status == 0) return Close();  // EOF, reset, timeout, cancelled
    busy_ = true;
    HttpRequest head;
    // Fields parsed so far (a body_limit error comes before "header done").
    if (parser_.has_value()) head = Convert(parser_->get());
    head.remote = remote_;
    keep_alive_ = false;
    Write(state_->rejecter(head, status));
  }

  template <typename Message>
  HttpRequest Convert(const Message& msg) const {
    HttpRequest r;
    r.method = std::string(msg.method_string());
    r.target = std::string(msg.target());
    for (const auto& field : msg) {
      r.headers.emplace_back(AsciiLower(std::string(field.name_string())),
                             std::string(field.value()));
    }
    r.remote = remote_;
    return r;
  }

  void Write(HttpResponse response) {
    auto res = std::make_shared<http::response<http::string_body>>();
    res->version(version_ == 10 ? 10 : 11);
    res->result(static_cast<unsigned>(response.status));
    res->set(http::field::server, "lqsd");
    res->set(http::field::date, HttpDate());
    for (const auto& [name, value] : response.headers) res->set(name, value);
    res->body() = std::move(response.body);
    const bool keep =
        keep_alive_ && !response.close && !stop_requested_ && !state_->stopping.load();
    res->keep_alive(keep);
    res->prepare_payload();
    stream_.expires_after(state_->limits.io_timeout);
    http::async_write(stream_, *res,
                      [self = shared_from_this(), res, keep](beast::error_code ec, std::size_t) {
                        if (ec) return self->Close();
                        if (!keep) return self->Linger();
                        self->ReadHeader();
                      });
  }

  // Closes after a final response without resetting it away: the client may
  // still be sending (a rejected body), and closing a socket with unread input
  // sends a RST that can destroy the response in flight. So: send FIN, read
  // and discard until the client closes (at most 5 s / 16 MiB), then close.
  void Linger() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    if (ec) return Close();
    drain_ = std::make_unique<char[]>(kDrainChunk);
    stream_.expires_after(std::chrono::seconds(5));
    DrainSome();
  }

  void DrainSome() {
    stream_.async_read_some(asio::buffer(drain_.get(), kDrainChunk),
                            [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                              self->drained_ += n;
                              if (ec || self->drained_ > kDrainLimit) return self->Close();
                              self->DrainSome();
                            });
  }

  void Close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    stream_.socket().close(ec);
  }

  static constexpr size_t kDrainChunk = 16 << 10;
  static constexpr size_t kDrainLimit = 16 << 20;

  beast::tcp_stream stream_;
  std::shared_ptr<HttpServer::State> state_;
  std::unique_ptr<char[]> drain_;
  size_t drained_ = 0;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::string remote_;
  unsigned version_ = 11;
  bool keep_alive_ = true;
  bool busy_ = false;            // a request is being read, handled or answered
  bool stop_requested_ = false;  // close after the response in progress
};

namespace {

void Accept(const std::shared_ptr<HttpServer::State>& state) {
  state->acceptor.async_accept(asio::make_strand(state->ioc),
                               [state](beast::error_code ec, tcp::socket socket) {
                                 if (state->stopping.load() || !state->acceptor.is_open()) return;
                                 if (ec) {
                                   // Out of descriptors or a transient error: try again shortly.
                                   state->retry_timer.expires_after(std::chrono::milliseconds(50));
                                   state->retry_timer.async_wait([state](beast::error_code) {
                                     if (!state->stopping.load()) Accept(state);
                                   });
                                   return;
                                 }
                                 beast::error_code opt_ec;
                                 socket.set_option(tcp::no_delay(true), opt_ec);
                                 auto session = std::make_shared<Session>(std::move(socket), state);
                                 {
                                   std::lock_guard<std::mutex> lock(state->mu);
                                   state->sessions[session.get()] = session;
                                 }
                                 session->Start();
                                 Accept(state);
                               });
}

}  // namespace

HttpServer::HttpServer(asio::io_context& ioc, Limits limits, Handler handler, Rejecter rejecter)
    : state_(std::make_shared<State>(ioc, limits, std::move(handler), std::move(rejecter))) {}

HttpServer::~HttpServer() { Stop(); }

bool HttpServer::Listen(const std::string& host, uint16_t port, std::string* error) {
  beast::error_code ec;
  const asio::ip::address address = asio::ip::make_address(host, ec);
  if (ec) {
    *error = "invalid listen address '" + host + "': " + ec.message();
    return false;
  }
  const tcp::endpoint endpoint(address, port);
  tcp::acceptor& acceptor = state_->acceptor;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    *error = "cannot listen on " + host + ":" + std::to_string(port) + ": " + ec.message();
    return false;
  }
  Accept(state_);
  return true;
}

uint16_t HttpServer::port() const {
  beast::error_code ec;
  const tcp::endpoint endpoint = state_->acceptor.local_endpoint(ec);
  return ec ? 0 : endpoint.port();
}

void HttpServer::Stop() {
  if (state_->stopping.exchange(true)) return;
  std::shared_ptr<State> state = state_;
  asio::post(state->acceptor.get_executor(), [state] {
    beast::error_code ec;
    state->acceptor.close(ec);
    state->retry_timer.cancel();
  });
  std::vector<std::shared_ptr<Session>> sessions;
  {
    std::lock_guard<std::mutex> lock(state->mu);
    for (auto& [ptr, weak] : state->sessions) {
      if (auto s = weak.lock()) sessions.push_back(std::move(s));
    }
  }
  for (auto& s : sessions) s->Stop();
}

size_t HttpServer::open_connections() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->sessions.size();
}

}  // namespace lqsd
