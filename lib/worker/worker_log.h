// lib/worker/worker_log.h — the worker's log lines.
//
// Every line about a message names the queue, the MessageId and the receive
// count: "queue=jobs message_id=… receive_count=2: handler failed, retry in 4 s: …".
//
// Thread safety: all methods are thread-safe if the user's logger is.

#ifndef LQS_LIB_WORKER_WORKER_LOG_H_
#define LQS_LIB_WORKER_WORKER_LOG_H_

#include <string>

#include "lqs/worker.h"

namespace lqs::worker {

class WorkerLog {
 public:
  // `logger` empty: kWarning and above to stderr.
  WorkerLog(std::string queue_name, WorkerLogger logger);

  void Queue(WorkerLogLevel level, const std::string& text) const;
  void Message(WorkerLogLevel level, const std::string& message_id, int receive_count,
               const std::string& text) const;
  void Message(WorkerLogLevel level, const WorkerMessage& m, const std::string& text) const {
    Message(level, m.message_id, m.receive_count, text);
  }

  static const char* LevelName(WorkerLogLevel level);

 private:
  void Emit(WorkerLogLevel level, const std::string& line) const;

  std::string queue_name_;
  WorkerLogger logger_;
};

}  // namespace lqs::worker

#endif  // LQS_LIB_WORKER_WORKER_LOG_H_
