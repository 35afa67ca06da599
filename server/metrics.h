// server/metrics.h — lqsd's Prometheus metrics (GET /metrics) and the request
// counters behind them.
//
// Two kinds of series:
//  - per-queue gauges and counters, read from the library at scrape time
//    (Broker::ListQueues, Broker::GetQueue, Queue::GetStats) of every open
//    region (regions.h), labelled queue="<name>",region="<region>", and the
//    number of queues by region;
//  - each bridge's counters and state (bridges.h), labelled bridge="<name>",
//    read at scrape time;
//  - request counts and latencies by SQS action and HTTP status, recorded by
//    the router as each request completes (Record()).
// Render() writes the Prometheus text exposition format, version 0.0.4, with
// # HELP and # TYPE lines.
//
// Thread safety: Record() and Render() may be called concurrently from any
// thread (one mutex guards the request series).

#ifndef LQS_SERVER_METRICS_H_
#define LQS_SERVER_METRICS_H_

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lqs/bridge.h"
#include "lqs/broker.h"

namespace lqsd {

class Metrics {
 public:
  // Upper bounds (seconds) of lqsd_request_duration_seconds' buckets; +Inf
  // is implied. Long polls last up to 20 s.
  static constexpr std::array<double, 10> kBuckets = {0.001, 0.005, 0.01, 0.025, 0.05,
                                                      0.1,   0.25,  1.0,  5.0,   20.0};

  // The Content-Type of Render()'s output.
  static constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

  // Counts one completed request. `action` should be a known SQS action name
  // or a fixed placeholder ("unknown"): it becomes a label value.
  void Record(std::string_view action, int http_status, double seconds);

  // The exposition text: the queue series of each (region, Broker) (a
  // region whose listing fails has none), the bridges' series
  // (lqs_bridge_*, labelled bridge="<name>") and the request series.
  std::string Render(const std::vector<std::pair<std::string, lqs::Broker*>>& regions,
                     const std::vector<lqs::BridgeStats>& bridges = {}) const;

 private:
  struct ActionSeries {
    std::map<int, uint64_t> by_status;                // HTTP status -> requests
    std::array<uint64_t, kBuckets.size()> buckets{};  // not cumulative
    uint64_t count = 0;
    double sum = 0;
  };

  mutable std::mutex mu_;
  std::map<std::string, ActionSeries, std::less<>> actions_;
};

// A label value escaped for the text format: \ -> \\, " -> \", newline -> \n.
std::string EscapeLabelValue(std::string_view value);

}  // namespace lqsd

#endif  // LQS_SERVER_METRICS_H_
