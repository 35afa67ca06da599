// server/http_server.h — lqsd's HTTP/1.1 server: a Beast acceptor and one
// session per connection, with keep-alive.
//
// Threads: the server is given N io_contexts, each meant to be run by exactly
// one thread (concurrency hint 1). Connections are spread over them round
// robin and each lives on its context for good, so a connection's handlers
// never run concurrently (no strand needed) and a request is read, handled
// and answered on one thread without handing work between threads: no
// scheduler wake-ups, no locks on the I/O path. The acceptor runs on the
// first context.
//
// Responses wait for the commit: a response is not written when the handler
// gives it but queued on its thread, and the thread writes its queue out in
// a handler posted behind the work already due (the requests that arrived
// together; a round of several responses waits one more turn of the loop,
// so that requests found by its next poll join it): first the Committer
// (SetCommitter) runs once, then every queued response goes out. lqsd's
// Committer makes the changes of all those requests durable with one log
// write (lqs/commit_scope.h), so a client never hears of a change that a
// crash could still lose, and a loaded thread pays one log write, and wakes
// its clients, once per round of requests instead of once per request. If
// the Committer fails, each queued response that claims success (status
// below 400) is replaced by the Rejecter's for status 503 (lqsd: SQS's
// retryable ServiceUnavailable) and its connection closed after it: the
// change may or may not be applied, as after a crash, and a client retries.
// An error response stands: it claims no change.
//
// A session reads one request (header first: "Expect: 100-continue" is
// answered, and the body limit is enforced before the body is read), hands it
// to the handler with a Poster for its context, a Responder and an
// AbandonHook, and reads the next request only after the response is
// written and the handler has returned. The request is parsed straight into
// an HttpRequest the session reuses (the handler gets a reference, valid
// during the call only), with the header fields KeepHeaders() names. A
// response is written (after the commit, above) with a plain non-blocking
// send when the socket takes it all (else the rest is written
// asynchronously); one given from another thread (long polls complete from
// the Broker's receiver thread) is posted to the connection's context
// first. A handler that never responds keeps only its connection waiting:
// no thread is held. While a handler that registered an abandon hook waits,
// the session watches the socket: when the client closes or resets the
// connection, the hook runs (lqsd withdraws the parked receive).
//
// The response head is formatted directly (Server, Date, the handler's
// fields, Content-Length, and Connection as Beast's keep_alive() would set
// it) and written with the body in one gather write.
//
// Limits: bodies over Limits::max_body_bytes get 413, headers over
// max_header_bytes 431, malformed HTTP 400 (through the Rejecter, which
// speaks the request's SQS protocol); then the connection is closed. Idle
// keep-alive connections are closed after idle_timeout; reading a request or
// writing a response may take io_timeout (one timer per connection, re-armed
// only when a deadline moves earlier, not once per operation).
//
// Stop(): stops accepting, closes idle connections, and lets busy ones finish
// their response and close.
//
// Thread safety: Listen() before the io_contexts run; Stop() and
// open_connections() from any thread.
//
// Each session reads its requests through an HttpRequestReader (below), the
// socket-free part of the session, which fuzz/fuzz_http_request.cc drives
// with bytes.

#ifndef LQS_SERVER_HTTP_SERVER_H_
#define LQS_SERVER_HTTP_SERVER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "server/http_types.h"

namespace lqsd {

class HttpServer {
 public:
  struct Limits {
    size_t max_body_bytes = 4 << 20;
    size_t max_header_bytes = 16 << 10;
    std::chrono::seconds idle_timeout{75};  // keep-alive connection waiting for a request
    std::chrono::seconds io_timeout{60};    // reading one request, writing one response
  };
  // `request` is valid during the call only; see above.
  using Handler = std::function<void(const HttpRequest& request, Poster, Responder, AbandonHook)>;
  // The response to a request refused with `status` (400, 413, 431), or
  // whose change the Committer could not make durable (503).
  using Rejecter = std::function<HttpResponse(const HttpRequest& head, int status)>;
  // Runs on an I/O thread before the responses queued on it are written;
  // false: answer them with 503 instead (see above).
  using Committer = std::function<bool()>;

  // `contexts` (at least one) must outlive the server; see above.
  HttpServer(std::vector<boost::asio::io_context*> contexts, Limits limits, Handler handler,
             Rejecter rejecter);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Request header fields the handler and the rejecter will read
  // (lower-case names); the others are not copied into HttpRequest::headers.
  // Empty (the default): all fields. Call before Listen().
  void KeepHeaders(std::vector<std::string> lower_names);

  // The Committer (none by default: responses are written after the round
  // without one). Call before Listen().
  void SetCommitter(Committer commit);

  // Binds `host`:`port` (port 0: any free port) and starts accepting once the
  // io_context runs. On failure returns false and sets *error.
  bool Listen(const std::string& host, uint16_t port, std::string* error);
  // The bound port.
  uint16_t port() const;

  void Stop();
  size_t open_connections() const;

  struct State;  // shared with the sessions (http_server.cc)

 private:
  std::shared_ptr<State> state_;
};

// The request header fields copied into HttpRequest::headers (see
// HttpServer::KeepHeaders): built once, read by any number of readers.
class HttpFieldFilter {
 public:
  // Lower-case names; empty: every field.
  explicit HttpFieldFilter(std::vector<std::string> lower_names = {});

  struct Field {
    int known;         // the name as Beast's http::field; unknown: matched by name
    std::string name;  // lower-case
  };
  bool all() const { return all_; }
  const std::vector<Field>& fields() const { return fields_; }

 private:
  std::vector<Field> fields_;
  bool all_ = true;
};

// One connection's requests read from its byte stream, without the socket:
// Beast's HTTP/1 request parser (with Limits::max_header_bytes and
// max_body_bytes) writing into an HttpRequest, and the receive buffer, which
// keeps the bytes that arrived after a request (pipelining) for the next.
//
// Per request: Begin(), then Parse(); while a step is kRead, receive at most
// the room Prepare() offers and report it with Received() (or the end of the
// stream with EndOfStream()). At kHeader the header is complete (method,
// target and the kept fields are in the request): the caller may answer
// "100 Continue" (expect_continue()) and then calls ReadBody(), which
// continues the same way up to kMessage (the request is complete).
//
// The whole header, request line included, counts against max_header_bytes;
// a request whose Transfer-Encoding does not end in chunked is malformed.
// The outcome does not depend on how the bytes are split among receives,
// except for two kinds of malformed request, which are refused (400, 431)
// or wait for more bytes (and are closed unanswered at the end of the
// stream) depending on what came with their first receive: a header that
// does not end within max_header_bytes, and a request line with a version
// shorter than "HTTP/x.y" (Beast parses a header once its end is buffered,
// or at once on a request's first put). How many fields a 431 request holds
// depends on it too.
//
//   kReject: the request is malformed (reject_status() 400), its header is
//     over max_header_bytes (431) or its body over max_body_bytes (413),
//     or the buffer cannot grow (400); the request holds the fields parsed
//     so far and no body. Answer and close: the stream cannot be resumed.
//   kClose: the stream ended between requests or inside one (which is then
//     never answered); close.
//
// Ownership: `limits` and `filter` are borrowed and must outlive the reader;
// the request given to Begin() too, until the next Begin().
// Thread safety: one thread at a time.
class HttpRequestReader {
 public:
  enum class Step { kRead, kHeader, kMessage, kReject, kClose };

  HttpRequestReader(const HttpServer::Limits* limits, const HttpFieldFilter* filter);
  ~HttpRequestReader();
  HttpRequestReader(const HttpRequestReader&) = delete;
  HttpRequestReader& operator=(const HttpRequestReader&) = delete;

  // Starts the next request, read into `*request` (its method, target, body
  // and header slots are reused; `remote` is left alone).
  void Begin(HttpRequest* request);
  // Parses what the buffer holds.
  Step Parse();
  // After kHeader: reads the body (what the buffer holds first).
  Step ReadBody();

  // The room for the next receive (up to 64 KiB, doubling as receives fill
  // it): kRead with *data and *size set, valid until Received(); kReject
  // when the buffer cannot grow.
  Step Prepare(char** data, size_t* size);
  // `n` bytes (at most the room offered) were received into the room.
  Step Received(size_t n);
  // The stream ended.
  Step EndOfStream();

  // Bytes received and not parsed yet (the start of a pipelined request).
  size_t buffered() const;
  // Valid from kHeader: the request's HTTP version (10, 11) and whether the
  // first Expect field asks for "100-continue" while the body is still due.
  unsigned version() const;
  bool expect_continue() const;
  // Valid at kMessage: the connection stays open after the response (as
  // Beast's message::keep_alive()).
  bool keep_alive() const;
  // Valid at kReject: 400, 413 or 431.
  int reject_status() const { return reject_status_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int reject_status_ = 0;
};

}  // namespace lqsd

#endif  // LQS_SERVER_HTTP_SERVER_H_
