// bridge_consumer.cc — the installed lqs/bridge.h and lqs::lqs_bridge, from a
// find_package(lqs) consumer (tests/install/run.sh): a bridge whose local
// queue is missing is refused by Bridge::Start with QueueDoesNotExist.
//
// Usage: bridge_consumer_cc DIR   (a scratch directory for the database)

#include <cstdio>

#include "lqs/bridge.h"
#include "lqs/lqs.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  lqs::Options options;
  options.path = argv[1];
  auto broker = lqs::Broker::Open(options);
  if (!broker.ok()) return std::puts(broker.status().ToString().c_str()), 1;
  lqs::BridgeOptions o;
  o.local_queue = "missing";
  o.remote_queue_url = "http://127.0.0.1:1/123456789012/inbox";
  auto bridge = lqs::Bridge::Start(broker->get(), o);
  if (bridge.ok() || bridge.status().code() != lqs::ErrorCode::kQueueDoesNotExist) {
    std::puts("bridge_consumer_cc: expected QueueDoesNotExist");
    return 1;
  }
  std::puts("bridge_consumer_cc: Bridge::Start refused a missing queue");
  return (*broker)->Close().ok() ? 0 : 1;
}
