#include "lib/worker/scheduler.h"

#include <algorithm>
#include <map>

namespace lqs::worker {

namespace {
constexpr size_t kCompactAbove = 1024;
}  // namespace

Scheduler::Scheduler(std::shared_ptr<Clock> clock, bool fifo, double rate_per_second,
                     double per_group_rate_per_second)
    : wait_(clock),
      fifo_(fifo),
      limiter_(rate_per_second, per_group_rate_per_second, clock->NowMillis()) {}

bool Scheduler::Push(std::vector<Job>* jobs) {
  {
    std::lock_guard<std::mutex> lock(wait_.mu());
    if (closed_) return false;
    for (Job& job : *jobs) jobs_.push_back(std::move(job));
    ++changes_;
  }
  wait_.Notify();
  return true;
}

std::map<std::string, int> Scheduler::GroupCounts(const Job& job) {
  std::map<std::string, int> per_group;
  for (const auto& m : job.messages) ++per_group[GroupOf(m)];
  return per_group;
}

bool Scheduler::MayStart(int64_t now, const Job& job) {
  if (job.messages.size() == 1) {
    const WorkerMessage& m = job.messages.front();
    const std::string group = GroupOf(m);
    if (fifo_ && !group.empty() && busy_.count(group) != 0) return false;
    return limiter_.CanStart(now, group, 1);
  }
  // A batch: its size against the overall rate, each group's share against
  // the group's.
  const std::map<std::string, int> per_group = GroupCounts(job);
  if (!limiter_.CanStart(now, "", static_cast<double>(job.messages.size()))) return false;
  for (const auto& [g, n] : per_group) {
    if (!g.empty() && !limiter_.CanStart(now, g, n)) return false;
  }
  return true;
}

int64_t Scheduler::ReadyAt(int64_t now, const Job& job) {
  if (job.messages.size() == 1) {
    const WorkerMessage& m = job.messages.front();
    const std::string group = GroupOf(m);
    if (fifo_ && !group.empty() && busy_.count(group) != 0) return ClockWait::kNever;
    return limiter_.ReadyAt(now, group, 1);
  }
  const std::map<std::string, int> per_group = GroupCounts(job);
  int64_t at = limiter_.ReadyAt(now, "", static_cast<double>(job.messages.size()));
  for (const auto& [g, n] : per_group) {
    if (!g.empty()) at = std::max(at, limiter_.ReadyAt(now, g, n));
  }
  return at;
}

void Scheduler::Start(int64_t now, const Job& job) {
  if (job.messages.size() == 1) {
    const std::string group = GroupOf(job.messages.front());
    if (fifo_ && !group.empty()) busy_.insert(group);
    limiter_.Started(now, group, 1);
    return;
  }
  const std::map<std::string, int> per_group = GroupCounts(job);
  limiter_.Started(now, "", static_cast<double>(job.messages.size()));
  for (const auto& [g, n] : per_group) {
    // The overall bucket was charged above; charge only the group's.
    if (!g.empty()) limiter_.GroupStarted(now, g, n);
  }
}

int64_t Scheduler::Pick(int64_t now, int64_t* ready_at) {
  *ready_at = ClockWait::kNever;
  std::set<std::string> blocked;  // groups whose first waiting job cannot start
  for (size_t i = 0; i < jobs_.size(); ++i) {
    const Job& job = jobs_[i];
    const bool single = job.messages.size() == 1;
    const std::string group = single ? GroupOf(job.messages.front()) : std::string();
    // A FIFO group's later message never overtakes its earlier one.
    if (fifo_ && single && !group.empty() && blocked.count(group) != 0) continue;
    if (MayStart(now, job)) return static_cast<int64_t>(i);
    *ready_at = std::min(*ready_at, ReadyAt(now, job));
    if (single && !group.empty()) blocked.insert(group);
  }
  return -1;
}

bool Scheduler::Next(Job* job) {
  std::unique_lock<std::mutex> lock(wait_.mu());
  for (;;) {
    if (closed_) return false;
    const int64_t now = wait_.clock().NowMillis();
    int64_t ready_at = ClockWait::kNever;
    const int64_t i = Pick(now, &ready_at);
    if (i >= 0) {
      *job = std::move(jobs_[static_cast<size_t>(i)]);
      jobs_.erase(jobs_.begin() + i);
      Start(now, *job);
      ++running_;
      ++changes_;
      if (limiter_.group_buckets() > kCompactAbove) limiter_.Compact(now);
      return true;
    }
    const uint64_t changes = changes_;
    wait_.WaitUntil(lock, ready_at, [&] { return closed_ || changes_ != changes; });
  }
}

std::vector<Job> Scheduler::Done(const Job& job, bool failed) {
  std::vector<Job> removed;
  {
    std::lock_guard<std::mutex> lock(wait_.mu());
    if (running_ > 0) --running_;
    if (fifo_ && job.messages.size() == 1) {
      const std::string group = GroupOf(job.messages.front());
      if (!group.empty()) {
        busy_.erase(group);
        if (failed) {
          for (auto it = jobs_.begin(); it != jobs_.end();) {
            if (it->messages.size() == 1 && GroupOf(it->messages.front()) == group) {
              removed.push_back(std::move(*it));
              it = jobs_.erase(it);
            } else {
              ++it;
            }
          }
        }
      }
    }
    ++changes_;
  }
  wait_.Notify();
  return removed;
}

std::vector<Job> Scheduler::Close() {
  std::vector<Job> waiting;
  {
    std::lock_guard<std::mutex> lock(wait_.mu());
    closed_ = true;
    ++changes_;
    waiting.assign(std::make_move_iterator(jobs_.begin()), std::make_move_iterator(jobs_.end()));
    jobs_.clear();
  }
  wait_.Notify();
  return waiting;
}

bool Scheduler::WaitIdle(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(wait_.mu());
  return wait_.WaitRealUntil(lock, deadline, [this] { return running_ == 0; });
}

size_t Scheduler::waiting() const {
  std::lock_guard<std::mutex> lock(wait_.mu());
  return jobs_.size();
}

}  // namespace lqs::worker
