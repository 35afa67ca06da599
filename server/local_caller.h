// server/local_caller.h — lqsd's request handling for a caller in the same
// process, without sockets: lqs.client() in the Python package runs every
// SQS action through it, so that the client answers exactly as lqsd does
// (the same routing, queue-URL rules, validation order, errors and output
// encoding), and a fix to any of them lands once.
//
// A LocalCaller holds a Router and Actions over a borrowed Broker (one
// region: every region a queue URL names is the Broker's). Call() builds an
// AWS JSON 1.0 request (docs/sqs-reference.md §12) for an action and its
// JSON input, hands it to the Router and waits for the answer, running on
// the calling thread whatever the answer posts (a long poll's completion).
// Handle() does the same for any request, of either protocol (the tests
// of lqsd's request handling run through it).
//
// Ownership: the Broker is borrowed and must outlive the LocalCaller.
// Thread safety: Call() may be called concurrently from any number of
// threads; each blocks only itself (a long poll blocks its caller).

#ifndef LQS_SERVER_LOCAL_CALLER_H_
#define LQS_SERVER_LOCAL_CALLER_H_

#include <memory>
#include <string>
#include <string_view>

#include "server/http_types.h"

#include "lqs/broker.h"

namespace lqsd {

struct LocalCallerConfig {
  std::string account_id = "123456789012";
  // The queue URLs handed out are endpoint_url/<account_id>/<name>.
  std::string endpoint_url = "http://localhost:9324";
};

class LocalCaller {
 public:
  LocalCaller(lqs::Broker* broker, LocalCallerConfig config);
  ~LocalCaller();
  LocalCaller(const LocalCaller&) = delete;
  LocalCaller& operator=(const LocalCaller&) = delete;

  // Runs SQS action `action` ("SendMessage") on `json_input`, its input
  // members as the JSON protocol's request body; returns lqsd's HTTP answer
  // (status, x-amzn-RequestId, x-amzn-query-error on errors, the JSON body).
  // Never throws.
  HttpResponse Call(std::string_view action, std::string json_input);

  // Answers `request` (either protocol, as lqsd receives it over HTTP) as
  // lqsd would. Never throws.
  HttpResponse Handle(const HttpRequest& request);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace lqsd

#endif  // LQS_SERVER_LOCAL_CALLER_H_
