// server/url_style.h — the form of the queue URLs lqsd hands out (lqsd
// --url-style, lqs.Server(url_style=...)); the router builds them
// (router.h, "Queue URLs").
//
//  - kPath (the default): one host for every region, the region in the path:
//    http://<Host header>/<account>/<name> in the default region,
//    http://<Host header>/queue/<region>/<account>/<name> in the others.
//  - kHost: the region in the host name, as SQS's own URLs
//    (https://sqs.<region>.amazonaws.com/<account>/<name>) and LocalStack's
//    standard endpoint strategy put it: http://sqs.<region>.localhost:<port>/
//    <account>/<name> in every region, the default one included.
//
// Requests may use either form whatever the style (router.h).
//
// Thread safety: pure functions.

#ifndef LQS_SERVER_URL_STYLE_H_
#define LQS_SERVER_URL_STYLE_H_

#include <optional>
#include <string_view>

namespace lqsd {

enum class UrlStyle { kPath, kHost };

// "path" or "host"; nullopt for anything else.
inline std::optional<UrlStyle> ParseUrlStyle(std::string_view text) {
  if (text == "path") return UrlStyle::kPath;
  if (text == "host") return UrlStyle::kHost;
  return std::nullopt;
}

}  // namespace lqsd

#endif  // LQS_SERVER_URL_STYLE_H_
