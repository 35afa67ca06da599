// lib/bridge/http_transport.h — the bridges' default RemoteTransport: the
// SQS JSON 1.0 protocol over HTTP(S), signed with SigV4, through
// wire/sqs_http_client.h (the one HTTP client of lqs).
//
// Thread safety: as RemoteTransport: one thread calls Call(); Abort() may
// come from another.

#ifndef LQS_LIB_BRIDGE_HTTP_TRANSPORT_H_
#define LQS_LIB_BRIDGE_HTTP_TRANSPORT_H_

#include <string>
#include <string_view>
#include <utility>

#include "wire/sqs_http_client.h"

#include "lqs/bridge.h"

namespace lqs::bridge {

class HttpTransport final : public RemoteTransport {
 public:
  HttpTransport(wire::SqsEndpoint endpoint, wire::SqsHttpOptions options)
      : client_(std::move(endpoint), std::move(options)) {}

  StatusOr<RemoteReply> Call(std::string_view action, const std::string& payload,
                             int extra_seconds) override {
    StatusOr<wire::SqsHttpReply> r = client_.Call(action, payload, extra_seconds);
    if (!r.ok()) return r.status();
    return RemoteReply{r->status, std::move(r->query_error), std::move(r->body)};
  }
  void Abort() override { client_.Abort(); }

 private:
  wire::SqsHttpClient client_;
};

}  // namespace lqs::bridge

#endif  // LQS_LIB_BRIDGE_HTTP_TRANSPORT_H_
