// server/bridges.h — the bridges lqsd runs (--forward, --pull, --bridges
// FILE): each one an lqs::Bridge (lqs/bridge.h) on the Broker of lqsd's
// default region, started with lqsd and stopped before its database
// closes. Their counters are lqs_bridge_* series of /metrics (metrics.h).
//
// Specs: "forward LOCAL_QUEUE=REMOTE_QUEUE_URL" and
// "pull REMOTE_QUEUE_URL=LOCAL_QUEUE" on the command line; in a --bridges
// file one bridge per line, "forward LOCAL_QUEUE REMOTE_QUEUE_URL" or
// "pull REMOTE_QUEUE_URL LOCAL_QUEUE", with blank lines and # comments.
//
// Thread safety: Stats() may be called from any thread at any time; Start
// and Stop from one thread.

#ifndef LQS_SERVER_BRIDGES_H_
#define LQS_SERVER_BRIDGES_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lqs/bridge.h"
#include "lqs/broker.h"

namespace lqsd {

struct BridgeSpec {
  lqs::BridgeDirection direction = lqs::BridgeDirection::kForward;
  std::string local_queue;
  std::string remote_url;
};

// "LOCAL=URL" (forward) or "URL=LOCAL" (pull). Errors: InvalidParameterValue
// naming the flag.
lqs::StatusOr<BridgeSpec> ParseBridgeFlag(lqs::BridgeDirection direction, const std::string& value);
// The lines of a --bridges file. Errors: kIOError (unreadable),
// InvalidParameterValue naming the file and line.
lqs::StatusOr<std::vector<BridgeSpec>> ReadBridgesFile(const std::string& path);

class Bridges {
 public:
  // Starts one bridge per spec with `common`'s settings. A local queue that
  // does not exist is created (a FIFO queue when its name ends in .fifo).
  // `log` gets the bridges' lines. Errors: the first bridge that fails to
  // start (the others are stopped).
  lqs::Status Start(lqs::Broker* broker, const std::vector<BridgeSpec>& specs,
                    const lqs::BridgeOptions& common, std::function<void(const std::string&)> log);
  // Stops every bridge and waits for it.
  void Stop();
  std::vector<lqs::BridgeStats> Stats() const;
  bool empty() const { return bridges_.empty(); }

 private:
  std::vector<std::unique_ptr<lqs::Bridge>> bridges_;
};

}  // namespace lqsd

#endif  // LQS_SERVER_BRIDGES_H_
