// server/listen_address.h — the HOST:PORT form of lqsd's --listen and
// --metrics-listen flags (and lqs.Server's metrics_listen).
//
// Accepted: "127.0.0.1:9324", "[::1]:9324" (an IPv6 host in brackets),
// "localhost:0" (localhost means 127.0.0.1; port 0: any free port) and
// ":9324" (no host: 127.0.0.1, loopback). The host is not resolved here:
// HttpServer::Listen refuses one that is not an IP address.
//
// Thread safety: a pure function.

#ifndef LQS_SERVER_LISTEN_ADDRESS_H_
#define LQS_SERVER_LISTEN_ADDRESS_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace lqsd {

// Splits `text` into *host and *port; false (outputs untouched) when it is
// not HOST:PORT with a port of 0 to 65535.
bool ParseListenAddress(std::string_view text, std::string* host, uint16_t* port);

}  // namespace lqsd

#endif  // LQS_SERVER_LISTEN_ADDRESS_H_
