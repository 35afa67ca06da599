// wire/move_task_json.h — a message move task as SQS's JSON protocol spells
// one entry of ListMessageMoveTasks' Results (docs/sqs-reference.md §6.11): lqsd answers
// with it, and `lqs redrive` prints it, member for member the same.
//
// Thread safety: a pure function.

#ifndef LQS_WIRE_MOVE_TASK_JSON_H_
#define LQS_WIRE_MOVE_TASK_JSON_H_

#include <nlohmann/json.hpp>

#include "lqs/types.h"

namespace lqs::wire {

// TaskHandle (only while the task runs), Status, SourceArn, DestinationArn
// and MaxNumberOfMessagesPerSecond (when set), ApproximateNumberOfMessages-
// Moved/-ToMove, FailureReason (when set), StartedTimestamp, in that order.
nlohmann::ordered_json MoveTaskJson(const lqs::MessageMoveTask& task);

}  // namespace lqs::wire

#endif  // LQS_WIRE_MOVE_TASK_JSON_H_
