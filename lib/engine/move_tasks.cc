#include "lib/engine/move_tasks.h"

#include <algorithm>

#include <absl/strings/escaping.h>
#include <nlohmann/json.hpp>
#include <rocksdb/iterator.h>

#include "lib/engine/ids.h"
#include "lib/engine/queue_impl.h"
#include "lib/storage/keys.h"
#include "lib/storage/range_iterator.h"

namespace lqs::engine {
namespace {

// Task handles are the task's JSON in standard base64 (SQS's handles are
// opaque base64 text; docs/sqs-reference.md §8).
std::string Base64(const std::string& in) { return absl::Base64Escape(in); }

bool Unbase64(const std::string& in, std::string* out) {
  return absl::Base64Unescape(in, out) && !out->empty();
}

Status SourceMissing() {
  return Status(ErrorCode::kResourceNotFound,
                "The resource that you specified for the SourceArn parameter doesn't exist.");
}

// An ARN parameter that is not even shaped like one (the queue it names, if
// any, is looked up afterwards).
Status CheckArnSyntax(const std::string& arn, const char* parameter) {
  if (arn.rfind("arn:", 0) == 0) return Status::OK();
  return Status(ErrorCode::kInvalidParameterValue,
                "Value " + arn + " for parameter " + parameter + " is invalid.");
}

}  // namespace

std::string MoveTaskManager::HandleFor(const storage::MoveTaskRecord& r) {
  nlohmann::json j = {{"taskId", r.task_id}, {"sourceArn", r.source_arn}};
  return Base64(j.dump());
}

Status MoveTaskManager::Load() {
  storage::RangeIterator it(core_->db(), storage::Cf::kCatalog, std::string(1, storage::kTaskTag),
                            std::string(1, storage::kTaskTag + 1));
  notify::MutexLock lock(&mu_);
  const int64_t now = core_->NowMillis();
  for (; it.Valid(); it.Next()) {
    Task t;
    Status st = storage::DecodeMoveTask(it.value(), &t.record);
    if (!st.ok()) return st;
    t.last_step_ms = now;
    tasks_[t.record.task_id] = t;
  }
  return it.status("loading move tasks");
}

Status MoveTaskManager::PersistLocked(const Task& task) {
  rocksdb::WriteBatch batch;
  batch.Put(core_->db()->cf(storage::Cf::kCatalog), storage::TaskKey(task.record.task_id),
            storage::EncodeMoveTask(task.record));
  return core_->db()->Write(&batch, /*must_sync=*/true);
}

StatusOr<std::string> MoveTaskManager::Start(const StartMessageMoveTaskRequest& request) {
  if (request.source_arn.empty()) {
    return Status(ErrorCode::kMissingParameter,
                  "The request must contain the parameter SourceArn.");
  }
  if (Status st = CheckArnSyntax(request.source_arn, "SourceArn"); !st.ok()) return st;
  std::shared_ptr<QueueImpl> source = core_->FindByArn(request.source_arn);
  if (!source) return SourceMissing();
  if (request.max_number_of_messages_per_second &&
      (*request.max_number_of_messages_per_second < 1 ||
       *request.max_number_of_messages_per_second > 500)) {
    return Status(ErrorCode::kInvalidParameterValue,
                  "Value " + std::to_string(*request.max_number_of_messages_per_second) +
                      " for parameter MaxNumberOfMessagesPerSecond is invalid. Reason: Must be "
                      "between 1 and 500.");
  }
  std::shared_ptr<QueueImpl> destination;
  if (request.destination_arn) {
    if (Status st = CheckArnSyntax(*request.destination_arn, "DestinationArn"); !st.ok()) {
      return st;
    }
    destination = core_->FindByArn(*request.destination_arn);
    if (!destination) {
      return Status(ErrorCode::kResourceNotFound,
                    "The resource that you specified for the DestinationArn parameter doesn't "
                    "exist.");
    }
    if (destination == source) {
      return Status(ErrorCode::kInvalidParameterValue,
                    "Source queue arn and destination queue arn cannot be the same.");
    }
    if (destination->is_fifo() != source->is_fifo()) {
      return Status(ErrorCode::kInvalidParameterValue,
                    "The source queue and destination queue must be of the same queue type.");
    }
  }
  bool is_dlq = false;
  for (const auto& q : core_->AllQueues()) {
    if (q->HasDeadLetterTarget(request.source_arn)) is_dlq = true;
  }
  if (!is_dlq) {
    return Status(ErrorCode::kInvalidParameterValue,
                  "Source queue must be configured as a Dead Letter Queue.");
  }
  notify::MutexLock lock(&mu_);
  for (const auto& [id, t] : tasks_) {
    if (t.record.source_arn == request.source_arn &&
        (t.record.status == "RUNNING" || t.record.status == "CANCELLING")) {
      return Status(ErrorCode::kInvalidParameterValue,
                    "There is already a task running. Only one active task is allowed for a "
                    "source queue arn at a given time.");
    }
  }
  Task t;
  t.record.task_id = NewMessageId();
  t.record.source_arn = request.source_arn;
  t.record.destination_arn = request.destination_arn.value_or("");
  t.record.rate = request.max_number_of_messages_per_second.value_or(0);
  t.record.status = "RUNNING";
  t.record.to_move = source->Counts().visible;
  t.record.started_ms = core_->NowMillis();
  t.last_step_ms = t.record.started_ms;
  Status st = PersistLocked(t);
  if (!st.ok()) return st;
  std::string handle = HandleFor(t.record);
  tasks_[t.record.task_id] = std::move(t);
  return handle;
}

StatusOr<int64_t> MoveTaskManager::Cancel(const std::string& task_handle) {
  std::string json_text;
  nlohmann::json j;
  if (Unbase64(task_handle, &json_text)) j = nlohmann::json::parse(json_text, nullptr, false);
  if (!j.is_object() || !j.contains("taskId") || !j["taskId"].is_string() ||
      !j.contains("sourceArn") || !j["sourceArn"].is_string()) {
    return Status(ErrorCode::kInvalidParameterValue, "Value for parameter TaskHandle is invalid.");
  }
  if (!core_->FindByArn(j["sourceArn"].get<std::string>())) return SourceMissing();
  notify::MutexLock lock(&mu_);
  auto it = tasks_.find(j["taskId"].get<std::string>());
  if (it == tasks_.end()) return Status(ErrorCode::kResourceNotFound, "Task does not exist.");
  Task& t = it->second;
  // Only a RUNNING task can be cancelled. SQS's model lists
  // ResourceNotFoundException, not InvalidParameterValue, among this action's
  // errors: a task that is no longer running is not found (docs/sqs_compat.md).
  if (t.record.status != "RUNNING") {
    return Status(ErrorCode::kResourceNotFound,
                  "Only active tasks can be cancelled. Task status is " + t.record.status + ".");
  }
  t.record.status = "CANCELLING";
  Status st = PersistLocked(t);
  if (!st.ok()) return st;
  return t.record.moved;
}

StatusOr<std::vector<MessageMoveTask>> MoveTaskManager::List(const std::string& source_arn,
                                                             int max_results) {
  if (max_results < 1 || max_results > 10) {
    return Status(ErrorCode::kInvalidParameterValue,
                  "Value " + std::to_string(max_results) +
                      " for parameter MaxResults is invalid. Reason: Must be between 1 and 10.");
  }
  if (!core_->FindByArn(source_arn)) return SourceMissing();
  notify::MutexLock lock(&mu_);
  std::vector<const Task*> matching;
  for (const auto& [id, t] : tasks_) {
    if (t.record.source_arn == source_arn) matching.push_back(&t);
  }
  std::sort(matching.begin(), matching.end(), [](const Task* a, const Task* b) {
    return a->record.started_ms != b->record.started_ms
               ? a->record.started_ms > b->record.started_ms
               : a->record.task_id > b->record.task_id;
  });
  std::vector<MessageMoveTask> out;
  for (const Task* t : matching) {
    if (static_cast<int>(out.size()) >= max_results) break;
    MessageMoveTask m;
    const auto& r = t->record;
    if (r.status == "RUNNING") m.task_handle = HandleFor(r);
    m.status = r.status;
    m.source_arn = r.source_arn;
    if (!r.destination_arn.empty()) m.destination_arn = r.destination_arn;
    if (r.rate > 0) m.max_number_of_messages_per_second = r.rate;
    m.approximate_number_of_messages_moved = r.moved;
    m.approximate_number_of_messages_to_move = r.to_move;
    if (!r.failure_reason.empty()) m.failure_reason = r.failure_reason;
    m.started_timestamp = r.started_ms;
    out.push_back(std::move(m));
  }
  return out;
}

Status MoveTaskManager::Step() {
  notify::MutexLock lock(&mu_);
  const int64_t now = core_->NowMillis();
  for (auto& [id, t] : tasks_) {
    if (t.record.status == "CANCELLING") {
      t.record.status = "CANCELLED";
      Status st = PersistLocked(t);
      if (!st.ok()) return st;
      continue;
    }
    if (t.record.status != "RUNNING") continue;
    const int rate = t.record.rate > 0 ? t.record.rate : kDefaultRate;
    // Credit accrues at `rate` per second of the injected clock; at most two
    // seconds' worth is kept, so a late step catches up without a burst.
    t.credit = std::min<double>(
        t.credit + static_cast<double>(now - t.last_step_ms) / 1000.0 * rate, 2.0 * rate);
    t.last_step_ms = now;
    const int64_t budget = static_cast<int64_t>(t.credit);
    std::shared_ptr<QueueImpl> source = core_->FindByArn(t.record.source_arn);
    std::shared_ptr<QueueImpl> destination;
    if (!t.record.destination_arn.empty()) destination = core_->FindByArn(t.record.destination_arn);
    std::string failure;
    if (!source || (!t.record.destination_arn.empty() && !destination)) {
      failure = "AWS.SimpleQueueService.NonExistentQueue";
    } else if (budget > 0) {
      StatusOr<int64_t> moved = source->MoveMessagesOut(destination.get(), budget, &failure);
      if (!moved.ok()) return moved.status();
      t.record.moved += *moved;
      t.credit -= static_cast<double>(*moved);
      if (failure.empty() && *moved < budget) t.record.status = "COMPLETED";
    }
    if (!failure.empty()) {
      t.record.status = "FAILED";
      t.record.failure_reason = failure;
    }
    Status st = PersistLocked(t);
    if (!st.ok()) return st;
  }
  return Status::OK();
}

}  // namespace lqs::engine
