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
// Thread safety: every method may be called concurrently.

#ifndef LQS_SERVER_CONSOLE_SESSION_H_
#define LQS_SERVER_CONSOLE_SESSION_H_

#include <cstdint>
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

  // `keys` is borrowed and must outlive this.
  ConsoleSessions(const SigV4Verifier* keys, std::shared_ptr<lqs::Clock> clock,
                  int64_t ttl_ms = kDefaultTtlMs);

  // A new session's token when `secret` is `key_id`'s; nullopt otherwise.
  std::optional<std::string> Login(std::string_view key_id, std::string_view secret);
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
};

}  // namespace lqsd

#endif  // LQS_SERVER_CONSOLE_SESSION_H_
