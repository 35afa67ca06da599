// Beast acceptor and sessions (see http_server.h).

#include "server/http_server.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <ctime>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <utility>

#include <boost/asio/basic_socket_acceptor.hpp>
#include <boost/asio/basic_stream_socket.hpp>
#include <boost/asio/basic_waitable_timer.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <sys/socket.h>

#include "server/io_loop.h"
#include "server/text_util.h"

namespace lqsd {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// Concrete executor types: no type-erased any_io_executor on the hot path.
using Executor = asio::io_context::executor_type;
using Socket = asio::basic_stream_socket<tcp, Executor>;
using Acceptor = asio::basic_socket_acceptor<tcp, Executor>;
using SteadyClock = std::chrono::steady_clock;
using Timer = asio::basic_waitable_timer<SteadyClock, asio::wait_traits<SteadyClock>, Executor>;

class Session;

// One I/O thread's context and the responses given on it since its last
// commit (see http_server.h, "Responses wait for the commit"). A flush
// (FlushOutbox) is posted exactly while `waiting` is not empty.
struct Outbox {
  explicit Outbox(asio::io_context* c) : context(c) {}
  asio::io_context* context;
  std::vector<std::shared_ptr<Session>> waiting;
  std::vector<std::shared_ptr<Session>> sending;  // spare, keeps its capacity
  bool extended = false;                          // the round was given one more turn of the loop
};

struct HttpServer::State {
  State(std::vector<asio::io_context*> ctx, Limits l, Handler h, Rejecter r)
      : contexts(std::move(ctx)),
        limits(l),
        handler(std::move(h)),
        rejecter(std::move(r)),
        acceptor(contexts.front()->get_executor()),
        retry_timer(contexts.front()->get_executor()) {
    for (asio::io_context* c : contexts) outboxes.push_back(std::make_unique<Outbox>(c));
  }

  std::vector<asio::io_context*> contexts;
  std::vector<std::unique_ptr<Outbox>> outboxes;  // one per context
  Committer commit;                               // see SetCommitter()
  Limits limits;
  HttpFieldFilter keep_headers;  // see KeepHeaders()
  Handler handler;
  Rejecter rejecter;
  Acceptor acceptor;
  Timer retry_timer;
  size_t next_context = 0;  // round robin (acceptor's thread only)
  std::atomic<bool> stopping{false};
  mutable std::mutex mu;
  std::map<Session*, std::weak_ptr<Session>> sessions;
};

namespace {

// "Sun, 06 Nov 1994 08:49:37 GMT", formatted once per second per thread.
const std::string& HttpDate() {
  thread_local std::time_t cached_second = -1;
  thread_local std::string cached;
  const std::time_t now = std::time(nullptr);
  if (now != cached_second) {
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[64];
    const size_t n = std::strftime(buf, sizeof(buf), "%a, %d %b %Y %H:%M:%S GMT", &tm);
    cached.assign(buf, n);
    cached_second = now;
  }
  return cached;
}

bool IEquals(std::string_view a, std::string_view b) {
  return beast::iequals(beast::string_view(a.data(), a.size()),
                        beast::string_view(b.data(), b.size()));
}

void AppendHeader(std::string* out, std::string_view name, std::string_view value) {
  out->append(name.data(), name.size());
  out->append(": ");
  out->append(value);
  out->append("\r\n");
}

}  // namespace

// ---- Sessions ----

void FlushOutbox(const std::shared_ptr<HttpServer::State>& state, Outbox* outbox);

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(Socket&& socket, Outbox* outbox, std::shared_ptr<HttpServer::State> state)
      : socket_(std::move(socket)),
        timer_(socket_.get_executor()),
        outbox_(outbox),
        state_(std::move(state)),
        reader_(&state_->limits, &state_->keep_headers) {
    beast::error_code ec;
    const tcp::endpoint remote = socket_.remote_endpoint(ec);
    if (!ec) request_.remote = remote.address().to_string() + ":" + std::to_string(remote.port());
    // Responses are first written with a plain non-blocking send (Write).
    socket_.non_blocking(true, ec);
  }

  ~Session() {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->sessions.erase(this);
  }

  void Start() {
    asio::dispatch(socket_.get_executor(), [self = shared_from_this()] { self->ReadHeader(); });
  }

  // Closes the connection now if it waits for a request, else after the
  // response in progress.
  void Stop() {
    asio::post(socket_.get_executor(), [self = shared_from_this()] {
      self->stop_requested_ = true;
      if (!self->busy_) self->Close();
    });
  }

 private:
  // ---- Reading a request (through reader_) ----
  // The body is parsed right after the header when it came with it (no
  // posted completion in between); a header already buffered (pipelining)
  // is parsed from a posted handler, as Beast's async_read_header did.
  void ReadHeader() {
    if (stop_requested_ || state_->stopping.load() || closed_) return Close();
    busy_ = false;
    reader_.Begin(&request_);
    SetDeadline(state_->limits.idle_timeout);
    if (reader_.buffered() == 0) return ReadMore();
    asio::post(socket_.get_executor(),
               [self = shared_from_this()] { self->Act(self->reader_.Parse()); });
  }

  void Act(HttpRequestReader::Step step) {
    switch (step) {
      case HttpRequestReader::Step::kRead:
        return ReadMore();
      case HttpRequestReader::Step::kHeader:
        return OnHeader();
      case HttpRequestReader::Step::kMessage:
        return OnMessage();
      case HttpRequestReader::Step::kReject:
        return Reject(reader_.reject_status());
      case HttpRequestReader::Step::kClose:
        return Close();
    }
  }

  void OnHeader() {
    busy_ = true;
    SetDeadline(state_->limits.io_timeout);
    version_ = reader_.version();
    if (reader_.expect_continue()) {
      static const std::string kContinue11 = "HTTP/1.1 100 Continue\r\n\r\n";
      static const std::string kContinue10 = "HTTP/1.0 100 Continue\r\n\r\n";
      asio::async_write(socket_, asio::buffer(version_ == 10 ? kContinue10 : kContinue11),
                        [self = shared_from_this()](beast::error_code wec, std::size_t) {
                          if (wec) return self->Close();
                          self->Act(self->reader_.ReadBody());
                        });
      return;
    }
    Act(reader_.ReadBody());
  }

  void ReadMore() {
    char* data = nullptr;
    size_t size = 0;
    if (reader_.Prepare(&data, &size) != HttpRequestReader::Step::kRead) {
      return Reject(reader_.reject_status());
    }
    socket_.async_read_some(
        asio::buffer(data, size),
        [self = shared_from_this()](beast::error_code ec, std::size_t n) { self->OnRead(ec, n); });
  }

  void OnRead(beast::error_code ec, std::size_t n) {
    NoteWorkArrived();
    // Asio reports the end of the stream with no bytes.
    if (ec == asio::error::eof) return Act(reader_.EndOfStream());
    if (ec) return Close();  // reset, timeout, cancelled
    Act(reader_.Received(n));
  }

  // ---- Handling ----
  void OnMessage() {
    ClearDeadline();  // handling (a long poll may wait 20 s) has no timeout
    keep_alive_ = reader_.keep_alive();
    responded_ = false;
    abandon_ = nullptr;

    // The Poster needs only the context (which outlives the server): the
    // std::function holds a plain pointer, without allocating.
    asio::io_context* context = outbox_->context;
    Poster post = [context](std::function<void()> fn) { asio::post(*context, std::move(fn)); };
    // On this connection's thread (a synchronous answer) the response is
    // written at once; from another thread it is posted.
    Responder respond = [self = shared_from_this()](HttpResponse response) {
      asio::dispatch(self->socket_.get_executor(),
                     [self, r = std::move(response)]() mutable { self->Write(std::move(r)); });
    };
    AbandonHook abandon = [self = shared_from_this()](std::function<void()> fn) {
      asio::dispatch(self->socket_.get_executor(), [self, fn = std::move(fn)]() mutable {
        if (self->responded_ || self->closed_) return;
        self->abandon_ = std::move(fn);
        self->WatchForClose();
      });
    };
    state_->handler(request_, std::move(post), std::move(respond), std::move(abandon));
  }

  // While a long poll waits, learn whether the client went away: the socket
  // becomes readable with nothing to read (end of stream) or with an error.
  void WatchForClose() {
    if (watching_ || closed_) return;
    watching_ = true;
    socket_.async_wait(
        Socket::wait_read, [self = shared_from_this(), gen = request_gen_](beast::error_code ec) {
          self->watching_ = false;
          if (gen != self->request_gen_ || self->responded_ || self->closed_) return;
          if (ec == asio::error::operation_aborted) return;
          if (!ec) {
            char c = 0;
            const ssize_t n = ::recv(self->socket_.native_handle(), &c, 1, MSG_PEEK | MSG_DONTWAIT);
            if (n > 0) return;  // the client sent more (pipelining): it is still there
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
              return self->WatchForClose();  // spurious
            }
          }
          // End of stream, reset, or an error: the client is gone.
          self->peer_closed_ = true;
          if (self->abandon_) {
            std::function<void()> fn = std::move(self->abandon_);
            self->abandon_ = nullptr;
            fn();  // usually answers at once; Write then closes the connection
          }
        });
  }

  // The request was refused (reader_.reject_status()): answer and close.
  void Reject(int status) {
    if (closed_) return Close();
    busy_ = true;
    keep_alive_ = false;
    Write(state_->rejecter(request_, status));
  }

  // ---- Writing the response ----
  void Write(HttpResponse response) {
    Format(std::move(response));
    // The response waits for the commit of this thread's changes, which runs
    // once the handlers already due on the thread have run.
    outbox_->waiting.push_back(shared_from_this());
    if (outbox_->waiting.size() == 1) {
      asio::post(*outbox_->context,
                 [state = state_, outbox = outbox_] { FlushOutbox(state, outbox); });
    }
  }

  // Makes out_head_ and out_body_ of `response`.
  void Format(HttpResponse response) {
    responded_ = true;
    ++request_gen_;  // a close watch still pending is stale from now on
    abandon_ = nullptr;
    const bool keep = keep_alive_ && !response.close && !stop_requested_ &&
                      !state_->stopping.load() && !peer_closed_ && !closed_;
    const unsigned status = static_cast<unsigned>(response.status);
    out_status_ = response.status;
    std::string& head = out_head_;
    head.clear();
    head.append(version_ == 10 ? "HTTP/1.0 " : "HTTP/1.1 ");
    head.append(std::to_string(status));
    head.push_back(' ');
    const beast::string_view reason = http::obsolete_reason(static_cast<http::status>(status));
    head.append(reason.data(), reason.size());
    head.append("\r\n");
    AppendHeader(&head, "Server", "lqsd");
    AppendHeader(&head, "Date", HttpDate());
    // As Beast's set(): one field per name, the last value given wins.
    const auto& fields = response.headers;
    for (size_t i = 0; i < fields.size(); ++i) {
      const std::string& name = fields[i].first;
      if (IEquals(name, "Server") || IEquals(name, "Date") || IEquals(name, "Content-Length") ||
          IEquals(name, "Connection")) {
        continue;  // ours
      }
      bool replaced = false;
      for (size_t j = i + 1; j < fields.size() && !replaced; ++j) {
        replaced = IEquals(fields[j].first, name);
      }
      if (!replaced) AppendHeader(&head, name, fields[i].second);
    }
    // prepare_payload(): no Content-Length on 1xx, 204 and 304.
    if (!(status < 200 || status == 204 || status == 304)) {
      AppendHeader(&head, "Content-Length", std::to_string(response.body.size()));
    }
    // keep_alive(): HTTP/1.1 says "close" to end; HTTP/1.0 says "keep-alive" to keep.
    if (version_ == 10) {
      if (keep) AppendHeader(&head, "Connection", "keep-alive");
    } else if (!keep) {
      AppendHeader(&head, "Connection", "close");
    }
    head.append("\r\n");
    out_body_ = std::move(response.body);
    keep_after_write_ = keep;
    SetDeadline(state_->limits.io_timeout);
  }

 public:
  // The response waited for the commit (FlushOutbox): send it, or, when the
  // commit failed, send the Rejecter's answer for status 503 instead (the
  // request's change is not durable: its outcome is unknown to the client)
  // and close the connection after it.
  void Send(bool committed) {
    if (!committed && out_status_ < 400) {
      // (An error answer claims no change: it stands.)
      HttpResponse failed = state_->rejecter(request_, 503);
      failed.close = true;
      Format(std::move(failed));
    }
    // Usually the socket takes the whole response at once: send it here
    // (what async_write's first attempt does too) and go on without a
    // posted completion. What is left, if anything, goes out asynchronously.
    std::array<asio::const_buffer, 2> buffers{asio::buffer(out_head_), asio::buffer(out_body_)};
    beast::error_code ec;
    size_t sent = closed_ ? 0 : socket_.write_some(buffers, ec);
    if (closed_ || ec == asio::error::would_block || ec == asio::error::try_again ||
        ec == asio::error::interrupted) {
      ec = {};
      sent = 0;
    }
    if (ec || sent == out_head_.size() + out_body_.size()) {
      written_ = ec ? Written::kFailed : Written::kDone;
      return AfterWrite();
    }
    if (sent >= out_head_.size()) {
      buffers = {asio::const_buffer(), asio::buffer(out_body_) + (sent - out_head_.size())};
    } else {
      buffers[0] = asio::buffer(out_head_) + sent;
    }
    asio::async_write(socket_, buffers,
                      [self = shared_from_this()](beast::error_code wec, std::size_t) {
                        self->written_ = wec ? Written::kFailed : Written::kDone;
                        self->AfterWrite();
                      });
  }

 private:
  void AfterWrite() {
    const Written written = written_;
    written_ = Written::kNo;
    if (written == Written::kFailed) return Close();
    if (!keep_after_write_) return Linger();
    ReadHeader();
  }

  // Closes after a final response without resetting it away: the client may
  // still be sending (a rejected body), and closing a socket with unread input
  // sends a RST that can destroy the response in flight. So: send FIN, read
  // and discard until the client closes (at most 5 s / 16 MiB), then close.
  void Linger() {
    beast::error_code ec;
    socket_.shutdown(tcp::socket::shutdown_send, ec);
    if (ec) return Close();
    drain_ = std::make_unique<char[]>(kDrainChunk);
    SetDeadline(std::chrono::seconds(5));
    DrainSome();
  }

  void DrainSome() {
    socket_.async_read_some(asio::buffer(drain_.get(), kDrainChunk),
                            [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                              self->drained_ += n;
                              if (ec || self->drained_ > kDrainLimit) return self->Close();
                              self->DrainSome();
                            });
  }

  void Close() {
    closed_ = true;
    beast::error_code ec;
    socket_.shutdown(tcp::socket::shutdown_send, ec);
    socket_.close(ec);
    timer_.cancel();
    timer_armed_ = false;
  }

  // ---- Timeouts: one deadline, one timer ----
  // The timer is re-armed only when a deadline moves earlier than the time
  // it is set for; when it fires early (the deadline moved later meanwhile)
  // it is set again for the current deadline.
  void SetDeadline(SteadyClock::duration d) {
    deadline_ = SteadyClock::now() + d;
    if (!timer_armed_ || deadline_ < timer_at_) ArmTimer(deadline_);
  }
  void ClearDeadline() { deadline_ = SteadyClock::time_point::max(); }

  void ArmTimer(SteadyClock::time_point at) {
    if (closed_) return;
    timer_at_ = at;
    timer_armed_ = true;
    timer_.expires_at(at);  // a wait still pending completes as aborted
    timer_.async_wait([weak = weak_from_this(), at](beast::error_code ec) {
      if (ec == asio::error::operation_aborted) return;
      if (auto self = weak.lock()) self->OnTimer(at);
    });
  }

  void OnTimer(SteadyClock::time_point at) {
    if (closed_ || at != timer_at_) return;
    timer_armed_ = false;
    if (deadline_ == SteadyClock::time_point::max()) return;  // no deadline now
    if (SteadyClock::now() >= deadline_) return Close();      // pending I/O fails
    ArmTimer(deadline_);
  }

  static constexpr size_t kDrainChunk = 16 << 10;
  static constexpr size_t kDrainLimit = 16 << 20;

  // How the response write went (Write), until AfterWrite acts on it.
  enum class Written { kNo, kDone, kFailed };

  Socket socket_;
  Timer timer_;
  Outbox* outbox_;  // the socket's context and its responses
  std::shared_ptr<HttpServer::State> state_;
  std::unique_ptr<char[]> drain_;
  size_t drained_ = 0;
  HttpRequestReader reader_;
  HttpRequest request_;   // the request being read or handled (reused)
  int out_status_ = 0;    // the status of the response in out_head_
  std::string out_head_;  // the response being written
  std::string out_body_;
  std::function<void()> abandon_;  // see AbandonHook
  SteadyClock::time_point deadline_ = SteadyClock::time_point::max();
  SteadyClock::time_point timer_at_{};
  uint64_t request_gen_ = 0;  // advances with each response
  unsigned version_ = 11;
  Written written_ = Written::kNo;
  bool timer_armed_ = false;
  bool keep_alive_ = true;
  bool keep_after_write_ = false;  // the response being written keeps the connection
  bool busy_ = false;              // a request is being read, handled or answered
  bool stop_requested_ = false;    // close after the response in progress
  bool responded_ = false;         // the current request's response was given
  bool watching_ = false;          // a close watch (WatchForClose) is pending
  bool peer_closed_ = false;       // the client closed or reset the connection
  bool closed_ = false;
};

void FlushOutbox(const std::shared_ptr<HttpServer::State>& state, Outbox* outbox) {
  // A round of several responses (several connections busy) waits one more
  // turn of the loop: the requests that the loop's poll found meanwhile join
  // it and share its commit. A lone response (one client) goes out at once.
  if (!outbox->extended && outbox->waiting.size() > 1) {
    outbox->extended = true;
    asio::post(*outbox->context, [state, outbox] { FlushOutbox(state, outbox); });
    return;
  }
  outbox->extended = false;
  std::vector<std::shared_ptr<Session>>& sending = outbox->sending;
  sending.swap(outbox->waiting);
  const bool committed = !state->commit || state->commit();
  for (const std::shared_ptr<Session>& session : sending) session->Send(committed);
  sending.clear();
}

namespace {

void Accept(const std::shared_ptr<HttpServer::State>& state) {
  const size_t index = state->next_context++ % state->contexts.size();
  Outbox* outbox = state->outboxes[index].get();
  auto socket = std::make_shared<Socket>(outbox->context->get_executor());
  state->acceptor.async_accept(*socket, [state, socket, outbox](beast::error_code ec) {
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
    socket->set_option(tcp::no_delay(true), opt_ec);
    auto session = std::make_shared<Session>(std::move(*socket), outbox, state);
    {
      std::lock_guard<std::mutex> lock(state->mu);
      state->sessions[session.get()] = session;
    }
    session->Start();
    Accept(state);
  });
}

}  // namespace

HttpServer::HttpServer(std::vector<asio::io_context*> contexts, Limits limits, Handler handler,
                       Rejecter rejecter)
    : state_(std::make_shared<State>(std::move(contexts), limits, std::move(handler),
                                     std::move(rejecter))) {}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::SetCommitter(Committer commit) { state_->commit = std::move(commit); }

void HttpServer::KeepHeaders(std::vector<std::string> lower_names) {
  state_->keep_headers = HttpFieldFilter(std::move(lower_names));
}

bool HttpServer::Listen(const std::string& host, uint16_t port, std::string* error) {
  beast::error_code ec;
  const asio::ip::address address = asio::ip::make_address(host, ec);
  if (ec) {
    *error = "invalid listen address '" + host + "': " + ec.message();
    return false;
  }
  const tcp::endpoint endpoint(address, port);
  Acceptor& acceptor = state_->acceptor;
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
