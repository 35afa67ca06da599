// lib/engine/table_writes_in_flight.cc — see table_writes_in_flight.h.

#include "lib/engine/table_writes_in_flight.h"

#include <utility>

namespace lqs::engine {

TableWritesInFlight::Registration::Registration(TableWritesInFlight* owner,
                                                std::vector<std::string> keys)
    : owner_(owner), keys_(std::move(keys)) {
  owner_->Add(keys_);
}

TableWritesInFlight::Registration::~Registration() { owner_->Remove(keys_); }

void TableWritesInFlight::Add(const std::vector<std::string>& keys) {
  if (keys.empty()) return;
  notify::MutexLock lock(&mu_);
  keys_.insert(keys.begin(), keys.end());
}

void TableWritesInFlight::Remove(const std::vector<std::string>& keys) {
  if (keys.empty()) return;
  {
    notify::MutexLock lock(&mu_);
    for (const std::string& k : keys) keys_.erase(keys_.find(k));
  }
  removed_.SignalAll();
}

void TableWritesInFlight::WaitUntilNoneTouched(
    const std::function<bool(const std::string&)>& touches) {
  notify::MutexLock lock(&mu_);
  for (;;) {
    bool touched = false;
    for (const std::string& k : keys_) {
      if (touches(k)) {
        touched = true;
        break;
      }
    }
    if (!touched) return;
    if (wait_hook_) wait_hook_();
    removed_.Wait(&mu_);
  }
}

}  // namespace lqs::engine
