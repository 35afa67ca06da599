// lib/engine/move_tasks.h — message move tasks (StartMessageMoveTask,
// CancelMessageMoveTask, ListMessageMoveTasks): redriving a dead-letter
// queue's messages back to their sources or to a chosen queue.
//
// Tasks are persisted in the catalog, progress in steps (Step() from the
// maintenance thread or RunMaintenance) at the task's rate measured on the
// injected clock, and resume after a restart.
//
// Thread safety: all methods are thread-safe.

#ifndef LQS_LIB_ENGINE_MOVE_TASKS_H_
#define LQS_LIB_ENGINE_MOVE_TASKS_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lib/engine/core.h"
#include "lib/storage/records.h"

#include "lqs/types.h"

namespace lqs::engine {

class MoveTaskManager {
 public:
  explicit MoveTaskManager(std::shared_ptr<Core> core) : core_(std::move(core)) {}

  Status Load();
  StatusOr<std::string> Start(const StartMessageMoveTaskRequest& request);
  StatusOr<int64_t> Cancel(const std::string& task_handle);
  StatusOr<std::vector<MessageMoveTask>> List(const std::string& source_arn, int max_results);
  // Advances running tasks by what their rate allows since the last step.
  Status Step();

  // The rate used when a task gives none (messages per second).
  static constexpr int kDefaultRate = 100;

 private:
  struct Task {
    storage::MoveTaskRecord record;
    int64_t last_step_ms = 0;
    double credit = 0;
  };
  Status PersistLocked(const Task& task) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  static std::string HandleFor(const storage::MoveTaskRecord& r);

  std::shared_ptr<Core> core_;
  // Held across a task's moves (so taken before the queues' locks).
  notify::Mutex mu_;
  std::map<std::string, Task> tasks_ ABSL_GUARDED_BY(mu_);  // by task id
};

}  // namespace lqs::engine

#endif  // LQS_LIB_ENGINE_MOVE_TASKS_H_
