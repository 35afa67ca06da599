#include "lib/engine/core.h"

#include <algorithm>

#include "lib/engine/queue_impl.h"

namespace lqs::engine {

Core::Core(Options options, std::unique_ptr<storage::Database> db, const std::string& secret,
           uint64_t seq_reserved, uint64_t next_queue_id)
    : options_(std::move(options)),
      db_(std::move(db)),
      handles_(secret),
      next_seq_(seq_reserved),
      seq_reserved_(seq_reserved),
      next_queue_id_(next_queue_id) {
  async_ = std::make_unique<notify::AsyncReceiver>(options_.clock);
}

int64_t Core::NowMillis() {
  const int64_t now = options_.clock->NowMillis();
  int64_t last = last_now_ms_.load(std::memory_order_relaxed);
  while (now > last && !last_now_ms_.compare_exchange_weak(last, now)) {
  }
  return std::max(now, last);
}

StatusOr<uint64_t> Core::AllocateSeqs(uint64_t n) {
  const uint64_t first = next_seq_.fetch_add(n);
  // A stale value is smaller: it only sends the call to the check below.
  if (first + n <= seq_reserved_.load(std::memory_order_acquire)) return first;
  notify::MutexLock lock(&seq_mu_);
  const uint64_t reserved = seq_reserved_.load(std::memory_order_relaxed);
  if (first + n > reserved) {
    const uint64_t reserve = std::max(first + n, reserved) + kSeqBlock;
    std::string value;
    storage::PutBE64(&value, reserve);
    rocksdb::WriteBatch batch;
    batch.Put(db_->cf(storage::Cf::kCatalog), storage::MetaKey(kMetaSeqReserved), value);
    // Always synced: a reservation must never be lost while seqs from it are.
    Status st = db_->Write(&batch, /*must_sync=*/true);
    if (!st.ok()) return st;
    seq_reserved_.store(reserve, std::memory_order_release);
  }
  return first;
}

uint64_t Core::AllocateQueueId(rocksdb::WriteBatch* batch) {
  const uint64_t id = next_queue_id_.fetch_add(1);
  std::string value;
  storage::PutBE64(&value, id + 1);
  batch->Put(db_->cf(storage::Cf::kCatalog), storage::MetaKey(kMetaNextQueueId), value);
  return id;
}

std::string Core::ArnFor(const std::string& queue_name) const {
  return "arn:aws:sqs:" + options_.region + ":" + options_.account_id + ":" + queue_name;
}

bool Core::NameFromArn(const std::string& arn, std::string* name) const {
  const std::string prefix = "arn:aws:sqs:" + options_.region + ":" + options_.account_id + ":";
  if (arn.size() <= prefix.size() || arn.compare(0, prefix.size(), prefix) != 0) return false;
  *name = arn.substr(prefix.size());
  return true;
}

std::shared_ptr<QueueImpl> Core::FindByName(const std::string& name) const {
  notify::ReaderMutexLock lock(&catalog_mu_);
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::shared_ptr<QueueImpl> Core::FindByArn(const std::string& arn) const {
  std::string name;
  if (!NameFromArn(arn, &name)) return nullptr;
  return FindByName(name);
}

std::shared_ptr<QueueImpl> Core::FindById(uint64_t id) const {
  notify::ReaderMutexLock lock(&catalog_mu_);
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<QueueImpl>> Core::AllQueues() const {
  notify::ReaderMutexLock lock(&catalog_mu_);
  std::vector<std::shared_ptr<QueueImpl>> out;
  out.reserve(by_name_.size());
  for (const auto& [name, q] : by_name_) out.push_back(q);
  return out;
}

void Core::AddQueue(std::shared_ptr<QueueImpl> q) {
  notify::WriterMutexLock lock(&catalog_mu_);
  by_id_[q->id()] = q;
  by_name_[q->name()] = std::move(q);
}

void Core::RemoveQueue(const std::string& name) {
  notify::WriterMutexLock lock(&catalog_mu_);
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return;
  by_id_.erase(it->second->id());
  by_name_.erase(it);
}

void Core::Shutdown() {
  closed_.store(true, std::memory_order_release);
  async_->Shutdown();
  std::vector<std::shared_ptr<QueueImpl>> queues = AllQueues();
  for (const auto& q : queues) q->WakeWaiters();
  {
    notify::WriterMutexLock lock(&catalog_mu_);
    by_name_.clear();
    by_id_.clear();
  }
}

}  // namespace lqs::engine
