// lib/engine/queue_attributes.cc — a queue's configuration: Get/Set
// attributes, tags, permissions (the Policy attribute) and the RedrivePolicy
// checks against the catalogue. Members of QueueImpl (queue_impl.h).
//
// The config and record change under mu_ (and the catalogue's change mutex
// when other queues are involved), are persisted synchronously before they
// change in memory, and are copied for sends under send_config_mu_.

#include <algorithm>

#include "lib/engine/queue_common.h"
#include "lib/engine/queue_impl.h"

#include "lqs/attributes.h"

namespace lqs::engine {

bool QueueImpl::HasDeadLetterTarget(const std::string& arn) const {
  notify::MutexLock lock(&send_config_mu_);
  return send_config_->redrive_policy &&
         send_config_->redrive_policy->dead_letter_target_arn == arn;
}

StatusOr<AttributeMap> QueueImpl::GetAttributes(const std::vector<std::string>& names) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  Status valid = api::ValidateAttributeNames(names);
  if (!valid.ok()) return valid;
  AttributeMap out;
  if (names.empty()) return out;
  StatusOr<int64_t> expired = ExpireNow(4096, /*reclaim=*/false);
  if (!expired.ok()) return expired.status();
  QueueCounts counts = Counts();
  AttributeMap all;
  storage::QueueRecord rec;
  {
    notify::MutexLock lock(&mu_);
    all = api::RenderQueueConfig(config_);
    rec = record_;
  }
  all[std::string(attr::kApproximateNumberOfMessages)] = std::to_string(counts.visible);
  all[std::string(attr::kApproximateNumberOfMessagesNotVisible)] =
      std::to_string(counts.not_visible);
  all[std::string(attr::kApproximateNumberOfMessagesDelayed)] = std::to_string(counts.delayed);
  all[std::string(attr::kCreatedTimestamp)] = std::to_string(rec.created_ms / 1000);
  all[std::string(attr::kLastModifiedTimestamp)] = std::to_string(rec.modified_ms / 1000);
  all[std::string(attr::kQueueArn)] = arn_;
  const bool want_all = std::find(names.begin(), names.end(), "All") != names.end();
  for (const auto& [k, v] : all) {
    if (want_all || std::find(names.begin(), names.end(), k) != names.end()) out[k] = v;
  }
  return out;
}

Status QueueImpl::PersistRecordLocked(const storage::QueueRecord& record, bool sync) {
  rocksdb::WriteBatch batch;
  batch.Put(core_->db()->cf(Cf::kCatalog), storage::QueueRecordKey(name_),
            storage::EncodeQueueRecord(record));
  return core_->db()->Write(&batch, sync);
}

Status QueueImpl::ValidateRedriveTargets(const api::QueueConfig& config) const {
  if (!config.redrive_policy) return Status::OK();
  const std::string& target = config.redrive_policy->dead_letter_target_arn;
  const std::string json = api::RedrivePolicyJson(*config.redrive_policy);
  auto invalid = [&](const std::string& reason) {
    return Status(ErrorCode::kInvalidParameterValue,
                  "Value " + json + " for parameter RedrivePolicy is invalid. Reason: " + reason);
  };
  std::shared_ptr<QueueImpl> dlq = core_->FindByArn(target);
  if (!dlq) return invalid("Dead letter target does not exist.");
  if (dlq->is_fifo() != fifo_) {
    return invalid("Dead-letter target must be the same type of queue as the source queue.");
  }
  api::QueueConfig dlq_config = dlq->config();
  if (dlq_config.redrive_allow_policy) {
    const auto& allow = *dlq_config.redrive_allow_policy;
    const bool allowed = allow.redrive_permission == "allowAll" ||
                         (allow.redrive_permission == "byQueue" &&
                          std::find(allow.source_queue_arns.begin(), allow.source_queue_arns.end(),
                                    arn_) != allow.source_queue_arns.end());
    if (!allowed) {
      return invalid("Queue " + target + " does not allow " + arn_ +
                     " as a dead-letter source (RedriveAllowPolicy).");
    }
  }
  return Status::OK();
}

Status QueueImpl::SetAttributes(const AttributeMap& attributes) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  if (attributes.empty()) {
    return Status(ErrorCode::kMissingParameter,
                  "The request must contain the parameter Attributes.");
  }
  notify::MutexLock catalog(&core_->catalog_mutex());
  const api::QueueConfig current = config();
  api::QueueConfig next = current;
  Status st = api::ApplyQueueAttributes(attributes, /*creating=*/false, &next);
  if (!st.ok()) return st;
  st = api::CheckPolicyLimits(attributes);
  if (!st.ok()) return st;
  st = ValidateRedriveTargets(next);
  if (!st.ok()) return st;
  notify::MutexLock lock(&mu_);
  storage::QueueRecord rec = record_;
  AttributeMap rendered = api::RenderQueueConfig(next);
  rec.attributes.assign(rendered.begin(), rendered.end());
  rec.modified_ms = core_->NowMillis();
  api::NoteDeduplicationScopeChange(current, rec.modified_ms, &next);
  rec.deduplication_scope_before = next.deduplication_scope_before;
  rec.deduplication_scope_changed_ms = next.deduplication_scope_changed_ms;
  st = PersistRecordLocked(rec, true);
  if (!st.ok()) return st;
  record_ = std::move(rec);
  config_ = next;
  {
    notify::MutexLock c(&send_config_mu_);
    send_config_ = std::make_shared<const api::QueueConfig>(std::move(next));
  }
  // A shorter wait or retention may end waits sooner.
  NotifyLocked();
  return Status::OK();
}

Status QueueImpl::TagQueue(const TagMap& tags) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  notify::MutexLock lock(&mu_);
  TagMap existing(record_.tags.begin(), record_.tags.end());
  Status st = api::ValidateTags(existing, tags, name_);
  if (!st.ok()) return st;
  for (const auto& [k, v] : tags) existing[k] = v;
  storage::QueueRecord rec = record_;
  rec.tags.assign(existing.begin(), existing.end());
  st = PersistRecordLocked(rec, true);
  if (!st.ok()) return st;
  record_ = std::move(rec);
  return Status::OK();
}

Status QueueImpl::UntagQueue(const std::vector<std::string>& keys) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  if (keys.empty()) {
    return Status(ErrorCode::kMissingParameter, "The request must contain the parameter TagKeys.");
  }
  notify::MutexLock lock(&mu_);
  TagMap existing(record_.tags.begin(), record_.tags.end());
  for (const auto& k : keys) existing.erase(k);
  storage::QueueRecord rec = record_;
  rec.tags.assign(existing.begin(), existing.end());
  Status st = PersistRecordLocked(rec, true);
  if (!st.ok()) return st;
  record_ = std::move(rec);
  return Status::OK();
}

StatusOr<TagMap> QueueImpl::ListQueueTags() {
  Status live = CheckLive();
  if (!live.ok()) return live;
  notify::MutexLock lock(&mu_);
  return TagMap(record_.tags.begin(), record_.tags.end());
}

Status QueueImpl::AddPermission(const std::string& label,
                                const std::vector<std::string>& account_ids,
                                const std::vector<std::string>& actions) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  notify::MutexLock lock(&mu_);
  StatusOr<std::string> policy = api::PolicyAddPermission(
      config_.policy, arn_, core_->options().account_id, label, account_ids, actions);
  if (!policy.ok()) return policy.status();
  return SetAttributesLockedPolicy(*policy);
}

Status QueueImpl::RemovePermission(const std::string& label) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  notify::MutexLock lock(&mu_);
  StatusOr<std::string> policy = api::PolicyRemovePermission(config_.policy, label);
  if (!policy.ok()) return policy.status();
  return SetAttributesLockedPolicy(*policy);
}

Status QueueImpl::SetAttributesLockedPolicy(const std::string& policy) {
  api::QueueConfig next = config_;
  next.policy = policy;
  storage::QueueRecord rec = record_;
  AttributeMap rendered = api::RenderQueueConfig(next);
  rec.attributes.assign(rendered.begin(), rendered.end());
  rec.modified_ms = core_->NowMillis();
  Status st = PersistRecordLocked(rec, true);
  if (!st.ok()) return st;
  record_ = std::move(rec);
  config_ = next;
  notify::MutexLock c(&send_config_mu_);
  send_config_ = std::make_shared<const api::QueueConfig>(std::move(next));
  return Status::OK();
}

}  // namespace lqs::engine
