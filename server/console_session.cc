// Web console logins (see console_session.h).

#include "server/console_session.h"

#include <algorithm>
#include <utility>

#include <openssl/rand.h>

namespace lqsd {

ConsoleSessions::ConsoleSessions(const SigV4Verifier* keys, std::shared_ptr<lqs::Clock> clock,
                                 int64_t ttl_ms)
    : keys_(keys), clock_(std::move(clock)), ttl_ms_(ttl_ms) {}

namespace {

// "1.2.3.4:5678" -> "1.2.3.4", "[::1]:5678" -> "[::1]": one client however
// many connections it opens.
std::string_view WithoutPort(std::string_view client) {
  const size_t colon = client.rfind(':');
  if (colon == std::string_view::npos) return client;
  if (client.front() == '[' && client.find(']') > colon) return client;  // no port
  return client.substr(0, colon);
}

}  // namespace

ConsoleSessions::LoginResult ConsoleSessions::Login(std::string_view key_id,
                                                    std::string_view secret,
                                                    std::string_view client) {
  LoginResult result;
  const int64_t now = clock_->NowMillis();
  const std::string address(WithoutPort(client));
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = failures_.find(address);
    if (it != failures_.end()) {
      std::deque<int64_t>& times = it->second;
      while (!times.empty() && times.front() <= now - kFailureWindowMs) times.pop_front();
      if (times.size() >= kMaxFailures) {
        result.throttled = true;
        result.retry_after_seconds = (times.front() + kFailureWindowMs - now + 999) / 1000;
        return result;
      }
    }
  }
  if (keys_ == nullptr || key_id.empty() || !keys_->SecretMatches(key_id, secret)) {
    std::lock_guard<std::mutex> lock(mu_);
    if (failures_.size() >= kMaxTrackedClients && failures_.count(address) == 0) {
      std::erase_if(failures_, [now](const auto& entry) {
        return entry.second.empty() || entry.second.back() <= now - kFailureWindowMs;
      });
      if (failures_.size() >= kMaxTrackedClients) failures_.clear();
    }
    failures_[address].push_back(now);
    return result;
  }
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) return result;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  token.reserve(2 * sizeof(bytes));
  for (const unsigned char b : bytes) {
    token += kHex[b >> 4];
    token += kHex[b & 15];
  }
  std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(expiry_, [now](const auto& entry) { return entry.second <= now; });
  if (expiry_.size() >= kMaxSessions) {
    expiry_.erase(
        std::min_element(expiry_.begin(), expiry_.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; }));
  }
  expiry_[token] = now + ttl_ms_;
  result.token = std::move(token);
  return result;
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
