// wire/sqs_http_client.h — a synchronous client for the SQS JSON 1.0
// protocol (docs/sqs-reference.md §12) over HTTP or HTTPS, signed with SigV4
// (wire/sigv4.h) when given credentials. The `lqs` CLI's remote mode and the
// bridges (lqs/bridge.h) both call remote endpoints through it, so there is
// one HTTP client and one signer.
//
// HTTPS verifies the server's certificate and host name against the system's
// CA store (OpenSSL's default paths) and, when given, one more CA file.
// One keep-alive connection per client, opened on first use; a request on a
// reused connection that the server had closed is sent once more on a new
// one (nothing was read back, so nothing was acted on twice by this client).
//
// Errors: a request that got no HTTP answer (resolve, connect, TLS, timeout,
// a connection cut before the whole answer) is a kIOError Status naming the
// action and the endpoint. Any HTTP answer, success or not, is an
// SqsHttpReply: the caller reads the status and the error.
// Thread safety: one thread at a time per SqsHttpClient (use one per
// thread), except Abort().

#ifndef LQS_WIRE_SQS_HTTP_CLIENT_H_
#define LQS_WIRE_SQS_HTTP_CLIENT_H_

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wire/sigv4.h"

#include "lqs/status.h"

namespace lqs::wire {

// Where a queue URL or an endpoint URL points: http(s)://HOST[:PORT][/...].
struct SqsEndpoint {
  bool tls = false;
  std::string host;         // without brackets for IPv6
  std::string port;         // default 80 / 443
  std::string host_header;  // as written in the URL (HOST[:PORT])
  std::string origin;       // scheme://host_header
};

// Errors: InvalidParameterValue naming `what` (a flag or member) when the
// URL is not http:// or https:// with a host and a numeric port.
StatusOr<SqsEndpoint> ParseSqsEndpoint(std::string_view url, std::string_view what);

struct SqsHttpOptions {
  // Signs every request when set; unsigned otherwise.
  std::optional<SigningCredentials> signing;
  // A PEM file of CAs trusted besides the system's (HTTPS only).
  std::string ca_file;
  // Seconds for one exchange (connect, TLS, write, read), beyond any
  // extra seconds the call asks for (a long poll's wait).
  int timeout_seconds = 30;
  std::string user_agent = "lqs";
};

struct SqsHttpReply {
  int status = 0;           // HTTP status
  std::string query_error;  // x-amzn-query-error, when the server sent one
  std::string body;
};

class SqsHttpClient {
 public:
  SqsHttpClient(SqsEndpoint endpoint, SqsHttpOptions options);
  ~SqsHttpClient();
  SqsHttpClient(const SqsHttpClient&) = delete;
  SqsHttpClient& operator=(const SqsHttpClient&) = delete;

  // POSTs `payload` (a JSON object) as SQS action `action` and reads the
  // answer. `extra_seconds` lengthens the timeout (a long poll's wait).
  StatusOr<SqsHttpReply> Call(std::string_view action, const std::string& payload,
                              int extra_seconds = 0);

  // GETs `path` (canonical form: unreserved characters and '/' only; one of
  // lqsd's operational paths such as /bridges, or /_aws/sqs/messages) with
  // the query string of the decoded pairs `query` (none when empty; sent in
  // SigV4's canonical form, CanonicalQuery) and the extra fields `headers`
  // (lower-case names), all signed like a Call, and reads the answer.
  StatusOr<SqsHttpReply> Get(std::string_view path,
                             std::vector<std::pair<std::string, std::string>> query = {},
                             std::vector<std::pair<std::string, std::string>> headers = {});

  // Closes the connection (the next Call opens a new one).
  void Close();

  // Ends the Call in progress, if any, and makes every later one fail at
  // once (kIOError "stopped"). The one method that may be called from
  // another thread, while a Call runs: how a bridge stops a long poll.
  void Abort();

  const SqsEndpoint& endpoint() const { return endpoint_; }

 private:
  struct Connection;
  using Header = std::pair<std::string, std::string>;
  // One request: a POST of `payload` when it has one, else a GET. `what`
  // names it in errors; `query` is the canonical query string (empty: none);
  // `headers` are sent and signed.
  StatusOr<SqsHttpReply> Exchange(std::string_view what, std::string_view path,
                                  std::string_view query, const std::optional<std::string>& payload,
                                  std::vector<Header> headers, int extra_seconds);
  // Runs `c`'s operations to completion (or to Abort()).
  void Run(Connection* c);

  SqsEndpoint endpoint_;
  SqsHttpOptions options_;
  std::unique_ptr<Connection> connection_;
  std::mutex abort_mu_;
  bool aborted_ = false;           // guarded by abort_mu_
  Connection* running_ = nullptr;  // guarded by abort_mu_: the one running
};

}  // namespace lqs::wire

#endif  // LQS_WIRE_SQS_HTTP_CLIENT_H_
