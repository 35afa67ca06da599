// wire/bridge_stats_json.h — a bridge's BridgeStats (lqs/bridge.h) as JSON,
// the shape `lqs forward --json` and `lqs pull --json` print and
// lqs.Bridge.stats() reads (docs/bridge.md, "Metrics").
//
// Thread safety: pure function.

#ifndef LQS_WIRE_BRIDGE_STATS_JSON_H_
#define LQS_WIRE_BRIDGE_STATS_JSON_H_

#include <nlohmann/json.hpp>

#include "lqs/bridge.h"

namespace lqs::wire {

nlohmann::ordered_json BridgeStatsJson(const BridgeStats& stats);

}  // namespace lqs::wire

#endif  // LQS_WIRE_BRIDGE_STATS_JSON_H_
