// server/console.h — lqsd's web console: pages under /console and the small
// JSON API its script reads (docs/console.md).
//
// Paths (GET unless said):
//   /console, /console/           the console (index.html)
//   /console/<file>               the other embedded files (console_assets.h)
//   /console/login                the login form; POST: log in (a form body
//                                 with access_key_id and secret)
//   /console/logout               POST: ends the session
//   /console/api/queues           the default region's queues: counts, age of
//                                 the oldest message, redrive policy, which
//                                 are dead-letter queues and of whom
//   /console/api/history?queue=N  queue N's samples (queue_history.h)
//   /console/api/messages?queue=N[&id=ID][&limit=K]
//                                 a peek of queue N (peek_endpoint.h's Peek:
//                                 every message, in every state, nothing
//                                 changed), in ReceiveMessage's JSON output
//                                 shape with IsVisible and IsDelayed; with
//                                 id, only that message; at most K (default
//                                 100, at most 1000), "Truncated" when more
//                                 matched.
// Actions (purge, send, redrive and its progress) are the SQS JSON API's,
// which the script calls on "/" like any client.
//
// Protection, with an auth file (console_session.h): the pages but
// login.html and the files it uses answer 303 to /console/login without a
// live session cookie; the API answers 401 unless the request has a live
// session cookie and the header X-Lqs-Console: 1 (a plain HTML form cannot
// send it, and another origin's script cannot without a CORS preflight lqsd
// never grants). SQS requests carrying both are accepted without a SigV4
// signature (AuthorizesApiCall); when they carry an Origin header, it must be
// the Host they were sent to. Without an auth file everything is open, like
// the API; lqsd warns when it listens beyond loopback that way.
//
// Every answer has Cache-Control: no-store and a Content-Security-Policy
// that allows only the console's own files (no inline script, no framing).
//
// Thread safety: Serve() and AuthorizesApiCall() may run concurrently.

#ifndef LQS_SERVER_CONSOLE_H_
#define LQS_SERVER_CONSOLE_H_

#include <memory>
#include <string>
#include <string_view>

#include "server/console_session.h"
#include "server/http_types.h"
#include "server/queue_history.h"
#include "server/sigv4.h"

#include "lqs/broker.h"
#include "lqs/clock.h"

namespace lqsd {

struct ConsoleConfig {
  const SigV4Verifier* auth = nullptr;  // borrowed; nullptr: the console is open
  std::shared_ptr<lqs::Clock> clock = lqs::SystemClock::Default();
  const QueueHistory* history = nullptr;  // borrowed; nullptr: no history
  int64_t session_ttl_ms = ConsoleSessions::kDefaultTtlMs;
};

class Console {
 public:
  explicit Console(ConsoleConfig config);

  // "/console" or a path below it.
  static bool IsConsolePath(std::string_view raw_path);

  // Answers a request on a console path. `broker`: the default region's;
  // `queue_url_prefix`: its queue URLs' prefix (router.h), "/" + name after.
  HttpResponse Serve(const HttpRequest& request, lqs::Broker* broker,
                     const std::string& queue_url_prefix);

  // True when `request` (an SQS request) comes from a logged-in console
  // (see above), so it needs no signature.
  bool AuthorizesApiCall(const HttpRequest& request);

  ConsoleSessions& sessions() { return sessions_; }

 private:
  bool LoggedIn(const HttpRequest& request);
  HttpResponse ServeLogin(const HttpRequest& request);
  HttpResponse ServeApi(const HttpRequest& request, std::string_view what, lqs::Broker* broker,
                        const std::string& queue_url_prefix);

  ConsoleConfig config_;
  ConsoleSessions sessions_;
};

}  // namespace lqsd

#endif  // LQS_SERVER_CONSOLE_H_
