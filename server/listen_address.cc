#include "server/listen_address.h"

namespace lqsd {

bool ParseListenAddress(std::string_view text, std::string* host, uint16_t* port) {
  std::string_view h;
  std::string_view p;
  if (!text.empty() && text[0] == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return false;
    }
    h = text.substr(1, close - 1);
    p = text.substr(close + 2);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return false;
    h = text.substr(0, colon);
    p = text.substr(colon + 1);
  }
  if (p.empty() || p.size() > 5 || p.find_first_not_of("0123456789") != std::string_view::npos) {
    return false;
  }
  int value = 0;
  for (const char c : p) value = value * 10 + (c - '0');
  if (value > 65535) return false;
  *host = h.empty() || h == "localhost" ? "127.0.0.1" : std::string(h);
  *port = static_cast<uint16_t>(value);
  return true;
}

}  // namespace lqsd
