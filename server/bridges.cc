// server/bridges.cc — see bridges.h.

#include "server/bridges.h"

#include <fstream>
#include <sstream>
#include <utility>

#include "lqs/limits.h"

namespace lqsd {
namespace {

using lqs::BridgeDirection;
using lqs::ErrorCode;
using lqs::Status;

Status BadSpec(const std::string& where, const std::string& value, const std::string& want) {
  return Status(ErrorCode::kInvalidParameterValue, where + ": \"" + value + "\" is not " + want);
}

bool IsUrl(const std::string& s) {
  return s.rfind("http://", 0) == 0 || s.rfind("https://", 0) == 0;
}

}  // namespace

lqs::StatusOr<BridgeSpec> ParseBridgeFlag(BridgeDirection direction, const std::string& value) {
  const bool forward = direction == BridgeDirection::kForward;
  const std::string flag = forward ? "--forward" : "--pull";
  const std::string want =
      forward ? "LOCAL_QUEUE=REMOTE_QUEUE_URL" : "REMOTE_QUEUE_URL=LOCAL_QUEUE";
  // A queue name has no '=', a URL may: split at the name's side.
  const size_t eq = forward ? value.find('=') : value.rfind('=');
  if (eq == std::string::npos) return BadSpec(flag, value, want);
  BridgeSpec spec;
  spec.direction = direction;
  spec.local_queue = forward ? value.substr(0, eq) : value.substr(eq + 1);
  spec.remote_url = forward ? value.substr(eq + 1) : value.substr(0, eq);
  if (spec.local_queue.empty() || !IsUrl(spec.remote_url)) return BadSpec(flag, value, want);
  return spec;
}

lqs::StatusOr<std::vector<BridgeSpec>> ReadBridgesFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status(ErrorCode::kIOError, "cannot read the bridges file " + path);
  std::vector<BridgeSpec> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string kind, a, b, extra;
    if (!(words >> kind)) continue;
    const std::string where = path + ":" + std::to_string(n);
    if (!(words >> a >> b) || (words >> extra) || (kind != "forward" && kind != "pull")) {
      return BadSpec(where, line,
                     "\"forward LOCAL_QUEUE REMOTE_QUEUE_URL\" or \"pull REMOTE_QUEUE_URL "
                     "LOCAL_QUEUE\"");
    }
    BridgeSpec spec;
    spec.direction = kind == "forward" ? BridgeDirection::kForward : BridgeDirection::kPull;
    spec.local_queue = spec.direction == BridgeDirection::kForward ? a : b;
    spec.remote_url = spec.direction == BridgeDirection::kForward ? b : a;
    if (!IsUrl(spec.remote_url)) return BadSpec(where, spec.remote_url, "an http(s):// queue URL");
    out.push_back(std::move(spec));
  }
  return out;
}

Status Bridges::Start(lqs::Broker* broker, const std::vector<BridgeSpec>& specs,
                      const lqs::BridgeOptions& common,
                      std::function<void(const std::string&)> log) {
  for (const BridgeSpec& spec : specs) {
    if (!broker->GetQueue(spec.local_queue).ok()) {
      lqs::AttributeMap attributes;
      const std::string& name = spec.local_queue;
      if (name.ends_with(lqs::limits::kFifoQueueNameSuffix)) {
        attributes["FifoQueue"] = "true";
      }
      auto created = broker->CreateQueue(name, attributes, {});
      if (!created.ok()) {
        Stop();
        return Status(created.status().code(), "creating the bridge's local queue " + name + ": " +
                                                   created.status().message());
      }
      log("created queue " + name + " for a bridge");
    }
    lqs::BridgeOptions o = common;
    o.direction = spec.direction;
    o.local_queue = spec.local_queue;
    o.remote_queue_url = spec.remote_url;
    o.log = [log](std::string_view line) { log(std::string(line)); };
    auto bridge = lqs::Bridge::Start(broker, std::move(o));
    if (!bridge.ok()) {
      Stop();
      return bridge.status();
    }
    log("bridge started: " + (*bridge)->Stats().name);
    bridges_.push_back(std::move(*bridge));
  }
  return Status::OK();
}

void Bridges::Stop() {
  for (auto& b : bridges_) b->Stop();
  for (auto& b : bridges_) b->Wait().IgnoreError();
}

std::vector<lqs::BridgeStats> Bridges::Stats() const {
  std::vector<lqs::BridgeStats> out;
  out.reserve(bridges_.size());
  for (const auto& b : bridges_) out.push_back(b->Stats());
  return out;
}

}  // namespace lqsd
