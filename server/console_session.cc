// Web console logins (see console_session.h).

#include "server/console_session.h"

#include <algorithm>
#include <utility>

#include <openssl/rand.h>

namespace lqsd {

ConsoleSessions::ConsoleSessions(const SigV4Verifier* keys, std::shared_ptr<lqs::Clock> clock,
                                 int64_t ttl_ms)
    : keys_(keys), clock_(std::move(clock)), ttl_ms_(ttl_ms) {}

std::optional<std::string> ConsoleSessions::Login(std::string_view key_id,
                                                  std::string_view secret) {
  if (keys_ == nullptr || key_id.empty() || !keys_->SecretMatches(key_id, secret)) {
    return std::nullopt;
  }
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) return std::nullopt;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  token.reserve(2 * sizeof(bytes));
  for (const unsigned char b : bytes) {
    token += kHex[b >> 4];
    token += kHex[b & 15];
  }
  const int64_t now = clock_->NowMillis();
  std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(expiry_, [now](const auto& entry) { return entry.second <= now; });
  if (expiry_.size() >= kMaxSessions) {
    expiry_.erase(
        std::min_element(expiry_.begin(), expiry_.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; }));
  }
  expiry_[token] = now + ttl_ms_;
  return token;
}

bool ConsoleSessions::Valid(std::string_view token) {
  if (token.empty()) return false;
  const int64_t now = clock_->NowMillis();
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = expiry_.find(token);
  if (it == expiry_.end()) return false;
  if (it->second <= now) {
    expiry_.erase(it);
    return false;
  }
  return true;
}

void ConsoleSessions::Logout(std::string_view token) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = expiry_.find(token);
  if (it != expiry_.end()) expiry_.erase(it);
}

std::string ConsoleSessions::CookieValue(const HttpRequest& request, std::string_view name) {
  for (const auto& [field, value] : request.headers) {
    if (field != "cookie") continue;
    std::string_view rest = value;
    while (!rest.empty()) {
      const size_t semi = rest.find(';');
      std::string_view pair = rest.substr(0, semi);
      rest = semi == std::string_view::npos ? std::string_view() : rest.substr(semi + 1);
      while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
      const size_t eq = pair.find('=');
      if (eq == std::string_view::npos || pair.substr(0, eq) != name) continue;
      std::string_view v = pair.substr(eq + 1);
      while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
      return std::string(v);
    }
  }
  return {};
}

bool ConsoleSessions::RequestHasSession(const HttpRequest& request) {
  return Valid(CookieValue(request, kCookieName));
}

}  // namespace lqsd
