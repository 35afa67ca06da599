#include "wire/move_task_json.h"

namespace lqs::wire {

nlohmann::ordered_json MoveTaskJson(const lqs::MessageMoveTask& task) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  if (!task.task_handle.empty()) j["TaskHandle"] = task.task_handle;
  j["Status"] = task.status;
  j["SourceArn"] = task.source_arn;
  if (task.destination_arn) j["DestinationArn"] = *task.destination_arn;
  if (task.max_number_of_messages_per_second) {
    j["MaxNumberOfMessagesPerSecond"] = *task.max_number_of_messages_per_second;
  }
  j["ApproximateNumberOfMessagesMoved"] = task.approximate_number_of_messages_moved;
  j["ApproximateNumberOfMessagesToMove"] = task.approximate_number_of_messages_to_move;
  if (task.failure_reason) j["FailureReason"] = *task.failure_reason;
  j["StartedTimestamp"] = task.started_timestamp;
  return j;
}

}  // namespace lqs::wire
