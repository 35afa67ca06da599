// wire/bridge_stats_json.cc — see bridge_stats_json.h.

#include "wire/bridge_stats_json.h"

namespace lqs::wire {

nlohmann::ordered_json BridgeStatsJson(const BridgeStats& s) {
  nlohmann::ordered_json j;
  j["Bridge"] = s.name;
  j["Direction"] = s.direction == BridgeDirection::kForward ? "forward" : "pull";
  j["Running"] = s.running;
  j["Online"] = s.online;
  j["Transferred"] = s.transferred;
  j["Duplicates"] = s.duplicates;
  j["DeadLettered"] = s.dead_lettered;
  j["Stuck"] = s.stuck;
  j["Md5Mismatches"] = s.md5_mismatches;
  j["Failures"] = nlohmann::ordered_json::object();
  for (const auto& [code, n] : s.failures) j["Failures"][code] = n;
  j["BackoffMs"] = s.backoff_ms;
  j["LastSuccessMs"] = s.last_success_ms;
  j["LastErrorMs"] = s.last_error_ms;
  j["LastError"] = s.last_error;
  j["Backlog"] = s.backlog;
  j["OldestAgeSeconds"] = s.oldest_age_seconds;
  return j;
}

}  // namespace lqs::wire
