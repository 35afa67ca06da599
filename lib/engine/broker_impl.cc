// The Broker: opening a database, the queue catalogue, move tasks and
// maintenance. Queue behaviour lives in queue_impl.cc.

#include <algorithm>
#include <memory>

#include <rocksdb/iterator.h>

#include "lib/api/queue_config.h"
#include "lib/engine/core.h"
#include "lib/engine/ids.h"
#include "lib/engine/move_tasks.h"
#include "lib/engine/open.h"
#include "lib/engine/queue_impl.h"
#include "lib/engine/tables.h"
#include "lib/engine/transaction.h"
#include "lib/engine/verify.h"
#include "lib/lease/receipt_handle.h"
#include "lib/storage/keys.h"
#include "lib/storage/range_iterator.h"
#include "lib/sweep/maintenance.h"

#include "lqs/broker.h"

namespace lqs {
namespace engine {
namespace {

constexpr char kFormatVersion[] = "lqs-1";

StatusOr<uint64_t> ReadMetaU64(storage::Database* db, const char* name, uint64_t fallback) {
  std::string value;
  bool found = false;
  Status st = db->Get(storage::Cf::kCatalog, storage::MetaKey(name), &value, &found);
  if (!st.ok()) return st;
  if (!found) return fallback;
  if (value.size() != 8)
    return Status(ErrorCode::kCorruption, std::string("meta ") + name + " is corrupt");
  return storage::GetBE64(value.data());
}

Status ValidateMaxResults(const ListQueuesRequest& r) {
  if (r.max_results && (*r.max_results < 1 || *r.max_results > 1000)) {
    return Status(ErrorCode::kInvalidParameterValue,
                  "Value " + std::to_string(*r.max_results) +
                      " for parameter MaxResults is invalid. Reason: MaxResults must be an "
                      "integer between 1 and 1000.");
  }
  return Status::OK();
}

// Pages through sorted names the way ListQueues does.
StatusOr<ListQueuesResult> Paginate(const std::vector<std::string>& sorted,
                                    const ListQueuesRequest& r) {
  Status st = ValidateMaxResults(r);
  if (!st.ok()) return st;
  std::string after;
  if (!r.next_token.empty() && !lease::Base64UrlDecode(r.next_token, &after)) {
    return Status(ErrorCode::kInvalidParameterValue, "Invalid NextToken value.");
  }
  ListQueuesResult out;
  const size_t limit = r.max_results ? static_cast<size_t>(*r.max_results) : 1000;
  for (const std::string& name : sorted) {
    if (!r.next_token.empty() && name <= after) continue;
    if (name.compare(0, r.queue_name_prefix.size(), r.queue_name_prefix) != 0) continue;
    if (out.queue_names.size() == limit) {
      if (r.max_results) out.next_token = lease::Base64UrlEncode(out.queue_names.back());
      break;
    }
    out.queue_names.push_back(name);
  }
  return out;
}

class BrokerImpl final : public Broker {
 public:
  explicit BrokerImpl(std::shared_ptr<Core> core) : core_(std::move(core)), tasks_(core_) {}
  ~BrokerImpl() override { Close().IgnoreError(); }

  Status Init();

  Status Close() override {
    notify::MutexLock lock(&close_mu_);
    if (closed_) return Status::OK();
    closed_ = true;
    if (maintenance_) maintenance_->Stop();
    if (listener_id_ != 0) core_->options().clock->RemoveListener(listener_id_);
    core_->Shutdown();
    notify::WriterMutexLock commits(&commit_mu_);  // none in progress
    return core_->db()->Close();
  }

  void DeferCommits(bool defer) override { core_->db()->DeferCommits(defer); }
  Status Commit() override {
    notify::ReaderMutexLock lock(&commit_mu_);
    // Close() wrote (and synced) the whole log: nothing is left pending.
    if (core_->closed()) return Status::OK();
    return core_->db()->Commit();
  }

  StatusOr<std::shared_ptr<Queue>> CreateQueue(const std::string& name,
                                               const AttributeMap& attributes,
                                               const TagMap& tags) override;
  StatusOr<std::shared_ptr<Queue>> GetQueue(const std::string& name) override {
    if (core_->closed()) return ClosedError();
    std::shared_ptr<QueueImpl> q = core_->FindByName(name);
    if (!q) {
      return Status(ErrorCode::kQueueDoesNotExist, "The specified queue does not exist.");
    }
    return std::shared_ptr<Queue>(q);
  }
  StatusOr<std::shared_ptr<Queue>> GetQueueByArn(const std::string& arn) override {
    if (core_->closed()) return ClosedError();
    std::string name;
    if (!core_->NameFromArn(arn, &name)) {
      return Status(ErrorCode::kInvalidParameterValue,
                    "Value " + arn + " is not a queue ARN of this region and account.");
    }
    return GetQueue(name);
  }
  Status DeleteQueue(const std::string& name) override;
  StatusOr<ListQueuesResult> ListQueues(const ListQueuesRequest& request) override {
    if (core_->closed()) return ClosedError();
    std::vector<std::string> names;
    for (const auto& q : core_->AllQueues()) names.push_back(q->name());
    return Paginate(names, request);
  }
  StatusOr<ListQueuesResult> ListDeadLetterSourceQueues(const std::string& dlq_name,
                                                        const ListQueuesRequest& request) override {
    if (core_->closed()) return ClosedError();
    std::shared_ptr<QueueImpl> dlq = core_->FindByName(dlq_name);
    if (!dlq) return Status(ErrorCode::kQueueDoesNotExist, "The specified queue does not exist.");
    std::vector<std::string> names;
    for (const auto& q : core_->AllQueues()) {
      if (q->HasDeadLetterTarget(dlq->arn())) names.push_back(q->name());
    }
    return Paginate(names, request);
  }

  StatusOr<std::string> StartMessageMoveTask(const StartMessageMoveTaskRequest& r) override {
    if (core_->closed()) return ClosedError();
    return tasks_.Start(r);
  }
  StatusOr<int64_t> CancelMessageMoveTask(const std::string& handle) override {
    if (core_->closed()) return ClosedError();
    return tasks_.Cancel(handle);
  }
  StatusOr<std::vector<MessageMoveTask>> ListMessageMoveTasks(const std::string& source_arn,
                                                              int max_results) override {
    if (core_->closed()) return ClosedError();
    return tasks_.List(source_arn, max_results);
  }

  Status RunMaintenance() override {
    if (core_->closed()) return ClosedError();
    notify::MutexLock lock(&maintenance_mu_);
    for (const auto& q : core_->AllQueues()) {
      StatusOr<int64_t> n = q->ExpireNow(100000, /*reclaim=*/true);
      if (!n.ok() && n.status().code() != ErrorCode::kQueueDoesNotExist) return n.status();
      if (q->is_fifo()) {
        Status st = q->ExpireDedupNow();
        if (!st.ok()) return st;
      }
    }
    // A database near its storage budget gets back what its consumers deleted.
    bool reclaimed = false;
    if (Status st = core_->db()->ReclaimForBudget(&reclaimed); !st.ok()) return st;
    return tasks_.Step();
  }

  Status CompactAll() override {
    if (core_->closed()) return ClosedError();
    return core_->db()->CompactAll();
  }

  uint64_t DiskBytesInUse() override {
    if (core_->closed()) return 0;
    return core_->db()->DiskBytesInUse();
  }

  StatusOr<std::vector<std::string>> Verify() override {
    if (core_->closed()) return ClosedError();
    return VerifyDatabase(*core_);
  }

  std::unique_ptr<Transaction> BeginTransaction() override { return NewTransaction(core_); }
  StatusOr<std::optional<std::string>> Get(std::string_view table, std::string_view key) override {
    return TableGet(*core_, table, key);
  }
  StatusOr<std::vector<TableEntry>> Scan(std::string_view table, std::string_view prefix) override {
    return TableScan(*core_, table, prefix);
  }
  StatusOr<std::vector<std::string>> ListTables() override { return TableNames(*core_); }

  const Options& options() const override { return core_->options(); }
  std::string ArnFor(const std::string& queue_name) const override {
    return core_->ArnFor(queue_name);
  }

 private:
  std::shared_ptr<Core> core_;
  MoveTaskManager tasks_;
  notify::Mutex close_mu_ ABSL_ACQUIRED_BEFORE(commit_mu_);
  bool closed_ ABSL_GUARDED_BY(close_mu_) = false;
  // Commit() shares it; Close() takes it alone to close the database.
  notify::SharedMutex commit_mu_;
  int listener_id_ = 0;
  // Serialises RunMaintenance (the maintenance thread and callers).
  notify::Mutex maintenance_mu_;
  std::unique_ptr<sweep::MaintenanceThread> maintenance_;
};

Status BrokerImpl::Init() {
  storage::Database* db = core_->db();
  // Queues.
  storage::RangeIterator it(db, storage::Cf::kCatalog, std::string(1, storage::kQueueRecordTag),
                            std::string(1, storage::kQueueRecordTag + 1));
  for (; it.Valid(); it.Next()) {
    storage::QueueRecord rec;
    Status st = storage::DecodeQueueRecord(it.value(), &rec);
    if (!st.ok()) return st;
    api::QueueConfig config;
    config.fifo = rec.fifo;
    AttributeMap attrs(rec.attributes.begin(), rec.attributes.end());
    st = api::ApplyQueueAttributes(attrs, /*creating=*/true, &config);
    if (!st.ok()) {
      return Status(ErrorCode::kCorruption,
                    "stored attributes of queue " + rec.name + " are invalid: " + st.message());
    }
    // A DeduplicationScope change on its way to deduplication (if any).
    const std::string& before = rec.deduplication_scope_before;
    if (!before.empty() && before != "queue" && before != "messageGroup") {
      return Status(ErrorCode::kCorruption,
                    "stored deduplication scope of queue " + rec.name + " is invalid");
    }
    config.deduplication_scope_before = before;
    config.deduplication_scope_changed_ms = rec.deduplication_scope_changed_ms;
    auto q = std::make_shared<QueueImpl>(core_, std::move(rec), std::move(config));
    st = q->Load();
    if (!st.ok()) return st;
    core_->AddQueue(std::move(q));
  }
  if (Status st = it.status("loading queues"); !st.ok()) return st;
  Status st = tasks_.Load();
  if (!st.ok()) return st;

  // Long polls wait on real time; a manual clock wakes them when it moves.
  std::weak_ptr<Core> weak = core_;
  listener_id_ = core_->options().clock->AddListener([weak] {
    if (auto core = weak.lock()) {
      for (const auto& q : core->AllQueues()) q->WakeWaiters();
      core->async_receiver().WakeAll();
    }
  });
  if (core_->options().background_maintenance) {
    maintenance_ = std::make_unique<sweep::MaintenanceThread>(
        std::chrono::milliseconds(std::max<int64_t>(10, core_->options().maintenance_interval_ms)),
        [this] { RunMaintenance().IgnoreError(); });
  }
  return Status::OK();
}

StatusOr<std::shared_ptr<Queue>> BrokerImpl::CreateQueue(const std::string& name,
                                                         const AttributeMap& attributes,
                                                         const TagMap& tags) {
  if (core_->closed()) return ClosedError();
  const bool fifo = api::RequestsFifo(attributes);
  Status st = api::ValidateQueueName(name, fifo);
  if (!st.ok()) return st;
  api::QueueConfig config;
  config.fifo = fifo;
  st = api::ApplyQueueAttributes(attributes, /*creating=*/true, &config);
  if (!st.ok()) return st;
  st = api::CheckPolicyLimits(attributes);
  if (!st.ok()) return st;
  notify::MutexLock catalog(&core_->catalog_mutex());
  if (std::shared_ptr<QueueImpl> existing = core_->FindByName(name)) {
    std::optional<std::string> differs =
        api::FirstDifferingAttribute(attributes, existing->config());
    if (differs) {
      return Status(ErrorCode::kQueueNameExists,
                    "A queue already exists with the same name and a different value for "
                    "attribute " +
                        *differs);
    }
    return std::shared_ptr<Queue>(existing);
  }
  storage::Database* db = core_->db();
  const int64_t now = core_->NowMillis();
  if (core_->options().enforce_queue_name_reuse_delay) {
    std::string value;
    bool found = false;
    st = db->Get(storage::Cf::kCatalog, storage::DeletedNameKey(name), &value, &found);
    if (!st.ok()) return st;
    if (found && value.size() == 8 &&
        now - static_cast<int64_t>(storage::GetBE64(value.data())) < 60000) {
      return Status(ErrorCode::kQueueDeletedRecently,
                    "You must wait 60 seconds after deleting a queue before you can create "
                    "another with the same name.");
    }
  }
  if (!tags.empty()) {
    st = api::ValidateTags({}, tags, name);
    if (!st.ok()) return st;
  }
  rocksdb::WriteBatch batch;
  storage::QueueRecord rec;
  rec.id = core_->AllocateQueueId(&batch);
  rec.name = name;
  rec.fifo = fifo;
  rec.created_ms = rec.modified_ms = now;
  AttributeMap rendered = api::RenderQueueConfig(config);
  rec.attributes.assign(rendered.begin(), rendered.end());
  rec.tags.assign(tags.begin(), tags.end());
  auto q = std::make_shared<QueueImpl>(core_, rec, config);
  if (config.redrive_policy) {
    // Checked against the catalogue (the DLQ must exist and allow us).
    st = q->SetAttributesCheckOnly(config);
    if (!st.ok()) return st;
  }
  batch.Put(db->cf(storage::Cf::kCatalog), storage::QueueRecordKey(name),
            storage::EncodeQueueRecord(rec));
  batch.Delete(db->cf(storage::Cf::kCatalog), storage::DeletedNameKey(name));
  st = db->Write(&batch, /*must_sync=*/true);
  if (!st.ok()) return st;
  core_->AddQueue(q);
  return std::shared_ptr<Queue>(q);
}

Status BrokerImpl::DeleteQueue(const std::string& name) {
  if (core_->closed()) return ClosedError();
  notify::MutexLock catalog(&core_->catalog_mutex());
  std::shared_ptr<QueueImpl> q = core_->FindByName(name);
  if (!q) return Status(ErrorCode::kQueueDoesNotExist, "The specified queue does not exist.");
  storage::Database* db = core_->db();
  rocksdb::WriteBatch batch;
  batch.Delete(db->cf(storage::Cf::kCatalog), storage::QueueRecordKey(name));
  std::string when;
  storage::PutBE64(&when, static_cast<uint64_t>(core_->NowMillis()));
  batch.Put(db->cf(storage::Cf::kCatalog), storage::DeletedNameKey(name), when);
  Status st = q->Destroy(&batch);
  if (!st.ok()) return st;
  core_->RemoveQueue(name);
  return Status::OK();
}

}  // namespace

StatusOr<std::unique_ptr<Broker>> OpenBroker(const Options& options, rocksdb::Env* env) {
  if (!options.clock) {
    return Status(ErrorCode::kInvalidParameterValue, "Options::clock is null");
  }
  StatusOr<std::unique_ptr<storage::Database>> db = storage::Database::Open(options, env);
  if (!db.ok()) return db.status();
  storage::Database* d = db->get();

  std::string format;
  bool found = false;
  Status st = d->Get(storage::Cf::kCatalog, storage::MetaKey(kMetaFormat), &format, &found);
  if (!st.ok()) return st;
  if (found && format != kFormatVersion) {
    return Status(ErrorCode::kCorruption, "the database at " + options.path + " has format '" +
                                              format + "', expected '" + kFormatVersion + "'");
  }
  std::string secret;
  st = d->Get(storage::Cf::kCatalog, storage::MetaKey(kMetaSecret), &secret, &found);
  if (!st.ok()) return st;
  if (!found) {
    secret = RandomBytes(32);
    rocksdb::WriteBatch batch;
    batch.Put(d->cf(storage::Cf::kCatalog), storage::MetaKey(kMetaFormat), kFormatVersion);
    batch.Put(d->cf(storage::Cf::kCatalog), storage::MetaKey(kMetaSecret), secret);
    st = d->Write(&batch, /*must_sync=*/true);
    if (!st.ok()) return st;
  }
  StatusOr<uint64_t> seq = ReadMetaU64(d, kMetaSeqReserved, 1);
  if (!seq.ok()) return seq.status();
  StatusOr<uint64_t> qid = ReadMetaU64(d, kMetaNextQueueId, 1);
  if (!qid.ok()) return qid.status();
  auto core = std::make_shared<Core>(options, std::move(db).value(), std::move(secret), *seq, *qid);
  auto broker = std::make_unique<BrokerImpl>(core);
  st = broker->Init();
  if (!st.ok()) {
    broker->Close().IgnoreError();
    return st;
  }
  return std::unique_ptr<Broker>(std::move(broker));
}

}  // namespace engine

StatusOr<std::unique_ptr<Broker>> Broker::Open(const Options& options) {
  return engine::OpenBroker(options, nullptr);
}

}  // namespace lqs
