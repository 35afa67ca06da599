// tools/local_backend.cc — the CLI's Backend over an lqs::Broker opened on a
// database directory.

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tools/backend.h"

#include "lqs/limits.h"
#include "lqs/lqs.h"

namespace lqs_cli {
namespace {

using lqs::Broker;
using lqs::Queue;

class LocalBackend final : public Backend {
 public:
  LocalBackend(std::unique_ptr<Broker> broker, std::string path)
      : broker_(std::move(broker)), path_(std::move(path)) {}
  ~LocalBackend() override { Close().IgnoreError(); }

  std::string Describe() const override { return "local " + path_; }
  bool IsRemote() const override { return false; }
  Broker* broker() override { return broker_.get(); }

  StatusOr<std::string> CreateQueue(const std::string& name, const lqs::AttributeMap& attributes,
                                    const lqs::TagMap& tags) override {
    auto q = broker_->CreateQueue(name, attributes, tags);
    if (!q.ok()) return q.status();
    return (*q)->name();
  }
  Status DeleteQueue(const std::string& name) override {
    queues_.erase(name);
    return broker_->DeleteQueue(name);
  }
  StatusOr<lqs::ListQueuesResult> ListQueues(const lqs::ListQueuesRequest& request) override {
    return broker_->ListQueues(request);
  }
  StatusOr<lqs::ListQueuesResult> ListDeadLetterSourceQueues(
      const std::string& dlq, const lqs::ListQueuesRequest& request) override {
    return broker_->ListDeadLetterSourceQueues(dlq, request);
  }
  StatusOr<lqs::AttributeMap> GetAttributes(const std::string& queue,
                                            const std::vector<std::string>& names) override {
    return OnQueue(queue, [&](Queue& q) { return q.GetAttributes(names); });
  }
  Status SetAttributes(const std::string& queue, const lqs::AttributeMap& attributes) override {
    return OnQueue(queue, [&](Queue& q) { return q.SetAttributes(attributes); });
  }
  Status TagQueue(const std::string& queue, const lqs::TagMap& tags) override {
    return OnQueue(queue, [&](Queue& q) { return q.TagQueue(tags); });
  }
  Status UntagQueue(const std::string& queue, const std::vector<std::string>& keys) override {
    return OnQueue(queue, [&](Queue& q) { return q.UntagQueue(keys); });
  }
  StatusOr<lqs::TagMap> ListQueueTags(const std::string& queue) override {
    return OnQueue(queue, [&](Queue& q) { return q.ListQueueTags(); });
  }
  StatusOr<std::string> QueueArn(const std::string& queue) override {
    return OnQueue(queue, [&](Queue& q) -> StatusOr<std::string> { return q.arn(); });
  }

  StatusOr<lqs::SendMessageResult> SendMessage(const std::string& queue,
                                               const lqs::SendMessageRequest& request) override {
    return OnQueue(queue, [&](Queue& q) { return q.SendMessage(request); });
  }
  StatusOr<lqs::SendMessageBatchResult> SendMessageBatch(
      const std::string& queue, const std::vector<lqs::SendMessageBatchEntry>& entries) override {
    return OnQueue(queue, [&](Queue& q) { return q.SendMessageBatch(entries); });
  }
  StatusOr<lqs::ReceiveMessageResult> ReceiveMessage(
      const std::string& queue, const lqs::ReceiveMessageRequest& request) override {
    return OnQueue(queue, [&](Queue& q) { return q.ReceiveMessage(request); });
  }
  Status DeleteMessage(const std::string& queue, const std::string& receipt_handle) override {
    return OnQueue(queue, [&](Queue& q) { return q.DeleteMessage(receipt_handle); });
  }
  StatusOr<lqs::BatchResult> DeleteMessageBatch(
      const std::string& queue, const std::vector<lqs::DeleteMessageBatchEntry>& entries) override {
    return OnQueue(queue, [&](Queue& q) { return q.DeleteMessageBatch(entries); });
  }
  Status ChangeMessageVisibility(const std::string& queue, const std::string& receipt_handle,
                                 int timeout) override {
    return OnQueue(queue,
                   [&](Queue& q) { return q.ChangeMessageVisibility(receipt_handle, timeout); });
  }
  Status PurgeQueue(const std::string& queue) override {
    return OnQueue(queue, [&](Queue& q) { return q.PurgeQueue(); });
  }

  StatusOr<Stats> GetStats(const std::string& queue) override {
    auto q = Get(queue);
    if (!q.ok()) return q.status();
    auto s = (*q)->GetStats();
    if (!s.ok()) return s.status();
    Stats out;
    out.stats = *s;
    return out;
  }
  Status ScanMessages(const std::string& queue,
                      const std::function<bool(const lqs::StoredMessage&)>& fn) override {
    return OnQueue(queue, [&](Queue& q) { return q.ScanMessages(fn); });
  }

  StatusOr<std::string> StartMessageMoveTask(
      const lqs::StartMessageMoveTaskRequest& request) override {
    return broker_->StartMessageMoveTask(request);
  }
  StatusOr<int64_t> CancelMessageMoveTask(const std::string& task_handle) override {
    return broker_->CancelMessageMoveTask(task_handle);
  }
  StatusOr<std::vector<lqs::MessageMoveTask>> ListMessageMoveTasks(const std::string& source_arn,
                                                                   int max_results) override {
    return broker_->ListMessageMoveTasks(source_arn, max_results);
  }

  StatusOr<std::vector<std::string>> Verify() override { return broker_->Verify(); }
  Status CompactAll() override { return broker_->CompactAll(); }
  Status Close() override {
    if (closed_) return Status::OK();
    closed_ = true;
    queues_.clear();
    return broker_->Close();
  }

 private:
  // `call` on the queue named `name`, or Get's error.
  template <typename Call>
  auto OnQueue(const std::string& name, const Call& call)
      -> decltype(call(std::declval<Queue&>())) {
    auto q = Get(name);
    if (!q.ok()) return q.status();
    return call(**q);
  }

  StatusOr<std::shared_ptr<Queue>> Get(const std::string& name) {
    auto it = queues_.find(name);
    if (it != queues_.end()) return it->second;
    auto q = broker_->GetQueue(name);
    if (!q.ok()) return q.status();
    queues_[name] = *q;
    return *q;
  }

  std::unique_ptr<Broker> broker_;
  std::string path_;
  // Handles stay valid until the queue is deleted; then every call on them
  // fails with QueueDoesNotExist, which is what the CLI reports anyway.
  std::map<std::string, std::shared_ptr<Queue>> queues_;
  bool closed_ = false;
};

}  // namespace

StatusOr<std::unique_ptr<Backend>> OpenLocal(const LocalOptions& options) {
  lqs::Options o;
  o.path = options.path;
  o.create_if_missing = options.create_if_missing;
  o.durability = lqs::ParseDurability(options.durability).value_or(o.durability);
  o.maintenance_interval_ms = options.maintenance_interval_ms;
  if (!options.region.empty()) o.region = options.region;
  if (!options.account_id.empty()) o.account_id = options.account_id;
  o.max_disk_bytes = options.max_disk_bytes;
  auto broker = Broker::Open(o);
  if (!broker.ok()) return broker.status();
  return std::unique_ptr<Backend>(new LocalBackend(std::move(*broker), options.path));
}

StatusOr<std::vector<std::string>> ListAllQueues(Backend& backend, const std::string& prefix) {
  std::vector<std::string> names;
  lqs::ListQueuesRequest request;
  request.queue_name_prefix = prefix;
  request.max_results = lqs::limits::kMaxListQueuesResults;
  while (true) {
    auto page = backend.ListQueues(request);
    if (!page.ok()) return page.status();
    names.insert(names.end(), page->queue_names.begin(), page->queue_names.end());
    if (page->next_token.empty()) break;
    request.next_token = page->next_token;
  }
  return names;
}

}  // namespace lqs_cli
