// Queue depth history for the web console (see queue_history.h).

#include "server/queue_history.h"

#include <set>
#include <utility>

#include "lqs/limits.h"
#include "lqs/queue.h"

namespace lqsd {

QueueHistory::QueueHistory(std::shared_ptr<lqs::Clock> clock, size_t capacity)
    : clock_(std::move(clock)), capacity_(capacity < 1 ? 1 : capacity) {}

void QueueHistory::Sample(lqs::Broker* broker) {
  std::map<std::string, HistorySample> taken;
  std::set<std::string> listed;
  lqs::ListQueuesRequest request;
  request.max_results = lqs::limits::kMaxListQueuesResults;
  for (;;) {
    auto page = broker->ListQueues(request);
    if (!page.ok()) return;
    for (const std::string& name : page->queue_names) {
      listed.insert(name);
      auto queue = broker->GetQueue(name);
      if (!queue.ok()) continue;
      auto stats = (*queue)->GetStats();
      if (!stats.ok()) continue;
      HistorySample s;
      s.visible = stats->visible;
      s.in_flight = stats->in_flight;
      s.delayed = stats->delayed;
      s.oldest_age_seconds = stats->oldest_message_age_seconds;
      taken.emplace(name, s);
    }
    if (page->next_token.empty()) break;
    request.next_token = page->next_token;
  }
  const int64_t now = clock_->NowMillis();
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = rings_.begin(); it != rings_.end();) {
    it = listed.count(it->first) == 0 ? rings_.erase(it) : std::next(it);
  }
  for (auto& [name, sample] : taken) {
    sample.at_ms = now;
    std::deque<HistorySample>& ring = rings_[name];
    ring.push_back(sample);
    while (ring.size() > capacity_) ring.pop_front();
  }
}

std::vector<HistorySample> QueueHistory::Get(const std::string& queue) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = rings_.find(queue);
  if (it == rings_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

std::vector<std::string> QueueHistory::Queues() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  out.reserve(rings_.size());
  for (const auto& entry : rings_) out.push_back(entry.first);
  return out;
}

HistorySampler::HistorySampler(QueueHistory* history, lqs::Broker* broker,
                               std::chrono::milliseconds interval)
    : history_(history), broker_(broker), interval_(interval) {}

HistorySampler::~HistorySampler() { Stop(); }

void HistorySampler::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { Run(); });
}

void HistorySampler::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void HistorySampler::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    lock.unlock();
    history_->Sample(broker_);
    lock.lock();
    cv_.wait_for(lock, interval_, [this] { return stop_; });
  }
}

}  // namespace lqsd
