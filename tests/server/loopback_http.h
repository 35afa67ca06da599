// tests/server/loopback_http.h — one HTTP/1.1 request to a server on
// 127.0.0.1, on a connection of its own, for tests that drive a real lqsd
// Endpoint over loopback (lqsd_console_test.cc, lqsd_disk_fault_test.cc).
//
// Blocking; throws boost::system::system_error when the connection or the
// exchange fails (gtest reports it as the test's failure).

#ifndef LQS_TESTS_SERVER_LOOPBACK_HTTP_H_
#define LQS_TESTS_SERVER_LOOPBACK_HTTP_H_

#include <cctype>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

namespace lqs::testing {

struct HttpReply {
  int status = 0;
  std::multimap<std::string, std::string> headers;  // names lower-cased
  std::string body;

  // The first value of the header `name` (lower case), or "".
  std::string Header(const std::string& name) const {
    const auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
  // The body parsed as JSON (discarded, not thrown, when it is not JSON).
  nlohmann::json Json() const { return nlohmann::json::parse(body, nullptr, false); }
};

// Sends `verb target` with `headers` and `body` to 127.0.0.1:`port`, with
// Host: `host` (empty: "127.0.0.1:port"), and reads the whole answer.
inline HttpReply LoopbackRequest(
    const std::string& port, boost::beast::http::verb verb, const std::string& target,
    const std::vector<std::pair<std::string, std::string>>& headers = {},
    const std::string& body = "", const std::string& host = "") {
  namespace http = boost::beast::http;
  boost::asio::io_context io;
  boost::asio::ip::tcp::resolver resolver(io);
  boost::asio::ip::tcp::socket socket(io);
  boost::asio::connect(socket, resolver.resolve("127.0.0.1", port));
  http::request<http::string_body> req(verb, target, 11);
  req.set(http::field::host, host.empty() ? "127.0.0.1:" + port : host);
  for (const auto& [name, value] : headers) req.set(name, value);
  req.body() = body;
  req.prepare_payload();
  http::write(socket, req);
  boost::beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(socket, buffer, res);
  HttpReply reply;
  reply.status = static_cast<int>(res.result_int());
  for (const auto& field : res) {
    std::string name(field.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    reply.headers.emplace(std::move(name), std::string(field.value()));
  }
  reply.body = res.body();
  return reply;
}

}  // namespace lqs::testing

#endif  // LQS_TESTS_SERVER_LOOPBACK_HTTP_H_
