// Which database serves a region (see regions.h).

#include "server/regions.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "wire/region_name.h"

#include "lqs/options.h"

namespace lqsd {
namespace {

// The calling thread's group commit (regions.h): for which Regions, and the
// Brokers it defers on (the default one first).
struct ThreadDeferral {
  const Regions* owner = nullptr;
  std::vector<lqs::Broker*> brokers;
};
thread_local ThreadDeferral this_thread;

}  // namespace

Regions::Regions(lqs::Broker* default_broker, Config config)
    : default_broker_(default_broker),
      default_region_(default_broker->options().region),
      config_(std::move(config)) {}

Regions::~Regions() { CloseAll().IgnoreError(); }

lqs::StatusOr<lqs::Broker*> Regions::Get(std::string_view region) {
  if (region == default_region_ || !multi_region()) return default_broker_;
  if (!lqs::wire::IsRegionName(region)) {
    return lqs::Status(lqs::ErrorCode::kInvalidParameterValue,
                       "'" + std::string(region.substr(0, 64)) + "' is not a region name (" +
                           std::string(lqs::wire::kRegionNameRule) + ").");
  }
  std::string opened_path;
  lqs::Broker* broker = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return lqs::Status(lqs::ErrorCode::kClosed, "the server is shutting down");
    if (auto it = others_.find(region); it != others_.end()) return DeferredHere(it->second.get());
    if (others_.size() + 1 >= config_.max_regions) {
      return lqs::Status(lqs::ErrorCode::kOverLimit, "This server already serves " +
                                                         std::to_string(config_.max_regions) +
                                                         " regions, its limit; region " +
                                                         std::string(region) + " cannot be added.");
    }
    lqs::Options options = default_broker_->options();
    options.region = std::string(region);
    options.path = (std::filesystem::path(config_.root) / options.region).string();
    std::error_code ec;
    std::filesystem::create_directories(config_.root, ec);
    if (ec) {
      return lqs::Status(lqs::ErrorCode::kIOError,
                         "cannot create " + config_.root + ": " + ec.message());
    }
    auto opened = lqs::Broker::Open(options);
    if (!opened.ok()) return opened.status();
    broker = opened.value().get();
    others_.emplace(options.region, std::move(opened).value());
    opened_path = options.path;
  }
  if (config_.on_open) config_.on_open(std::string(region), opened_path);
  return DeferredHere(broker);
}

lqs::Broker* Regions::DeferredHere(lqs::Broker* broker) const {
  if (this_thread.owner != this) return broker;
  auto& mine = this_thread.brokers;
  if (std::find(mine.begin(), mine.end(), broker) == mine.end()) {
    broker->DeferCommits(true);
    mine.push_back(broker);
  }
  return broker;
}

void Regions::DeferCommitsOnThisThread() {
  if (this_thread.owner == this) return;
  this_thread = ThreadDeferral();
  this_thread.owner = this;
  DeferredHere(default_broker_);
}

lqs::Status Regions::CommitThisThread() {
  if (this_thread.owner != this) return lqs::Status::OK();
  lqs::Status first;
  for (lqs::Broker* broker : this_thread.brokers) {
    lqs::Status s = broker->Commit();
    if (!s.ok() && first.ok()) first = std::move(s);
  }
  return first;
}

void Regions::EndDeferralOnThisThread() {
  if (this_thread.owner != this) return;
  for (lqs::Broker* broker : this_thread.brokers) {
    broker->Commit().IgnoreError();
    broker->DeferCommits(false);
  }
  this_thread = ThreadDeferral();
}

std::vector<std::pair<std::string, lqs::Broker*>> Regions::OpenRegions() const {
  std::vector<std::pair<std::string, lqs::Broker*>> out;
  out.emplace_back(default_region_, default_broker_);
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [name, broker] : others_) out.emplace_back(name, broker.get());
  return out;
}

lqs::Status Regions::CloseAll() {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  lqs::Status first;
  for (auto& [name, broker] : others_) {
    lqs::Status s = broker->Close();
    if (!s.ok() && first.ok()) first = s;
  }
  return first;
}

}  // namespace lqsd
