// server/console_session.h — logins to lqsd's web console (console.h) when
// lqsd runs with --auth-file.
//
// A login presents an access key id and its secret from the key file
// (SigV4Verifier::SecretMatches); it gets a session: a random token of 32
// bytes (OpenSSL's RAND_bytes, hex), kept in a table in memory with its
// expiry, `ttl_ms` after the login by the clock (lqs/clock.h). The browser
// holds the token in an HttpOnly, SameSite=Strict cookie named kCookieName.
// A token is valid until it expires or is logged out; expired ones are
// removed when met and at each login. A restart forgets every session.
// At most kMaxSessions live at once: a login beyond that drops the one that
// expires first.
//
// Guessing is slowed per client address: after kMaxFailures failed logins
// from one address within kFailureWindowMs, further logins from it (right or
// wrong) are refused as throttled until the oldest of those failures leaves
// the window. The failures of at most kMaxTrackedClients addresses are kept
// (beyond that, the table is cleared of addresses with no recent failure,
// then of all).
//
// Thread safety: every method may be called concurrently.

#ifndef LQS_SERVER_CONSOLE_SESSION_H_
#define LQS_SERVER_CONSOLE_SESSION_H_

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "server/http_types.h"
#include "server/sigv4.h"

#include "lqs/clock.h"

namespace lqsd {

class ConsoleSessions {
 public:
  static constexpr std::string_view kCookieName = "lqs_console";
  static constexpr int64_t kDefaultTtlMs = 12LL * 3600 * 1000;
  static constexpr size_t kMaxSessions = 1000;
  static constexpr size_t kMaxFailures = 10;
  static constexpr int64_t kFailureWindowMs = 60 * 1000;
  static constexpr size_t kMaxTrackedClients = 10000;

  struct LoginResult {
    std::optional<std::string> token;  // set when the login succeeded
    bool throttled = false;            // refused without checking: too many failures
    int64_t retry_after_seconds = 0;   // when throttled
  };

  // `keys` is borrowed and must outlive this.
  ConsoleSessions(const SigV4Verifier* keys, std::shared_ptr<lqs::Clock> clock,
                  int64_t ttl_ms = kDefaultTtlMs);

  // A new session's token when `secret` is `key_id`'s and `client` (the
  // client's address, "ip:port" or "ip") is not throttled.
  LoginResult Login(std::string_view key_id, std::string_view secret, std::string_view client);
  // True while `token` names a live session.
  bool Valid(std::string_view token);
  void Logout(std::string_view token);
  int64_t ttl_ms() const { return ttl_ms_; }

  // The value of the cookie `name` in `request`'s Cookie header fields;
  // empty when there is none.
  static std::string CookieValue(const HttpRequest& request, std::string_view name);
  // True when `request` carries a cookie with a live session's token.
  bool RequestHasSession(const HttpRequest& request);

 private:
  const SigV4Verifier* keys_;
  std::shared_ptr<lqs::Clock> clock_;
  const int64_t ttl_ms_;
  std::mutex mu_;
  std::map<std::string, int64_t, std::less<>> expiry_;  // token -> expiry (ms)
  // client address (no port) -> times of its recent failed logins, oldest first
  std::map<std::string, std::deque<int64_t>, std::less<>> failures_;
};

}  // namespace lqsd

#endif  // LQS_SERVER_CONSOLE_SESSION_H_
