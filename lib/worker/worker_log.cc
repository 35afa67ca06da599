#include "lib/worker/worker_log.h"

#include <cstdio>
#include <exception>

namespace lqs::worker {

WorkerLog::WorkerLog(std::string queue_name, WorkerLogger logger)
    : queue_name_(std::move(queue_name)), logger_(std::move(logger)) {}

const char* WorkerLog::LevelName(WorkerLogLevel level) {
  switch (level) {
    case WorkerLogLevel::kDebug:
      return "DEBUG";
    case WorkerLogLevel::kInfo:
      return "INFO";
    case WorkerLogLevel::kWarning:
      return "WARNING";
    case WorkerLogLevel::kError:
      return "ERROR";
  }
  return "?";
}

void WorkerLog::Emit(WorkerLogLevel level, const std::string& line) const {
  if (logger_) {
    try {
      logger_(level, line);
    } catch (...) {
      // A logger that throws must not take a worker thread down.
    }
    return;
  }
  if (level < WorkerLogLevel::kWarning) return;
  std::fprintf(stderr, "lqs.worker %s %s\n", LevelName(level), line.c_str());
}

void WorkerLog::Queue(WorkerLogLevel level, const std::string& text) const {
  Emit(level, "queue=" + queue_name_ + ": " + text);
}

void WorkerLog::Message(WorkerLogLevel level, const std::string& message_id, int receive_count,
                        const std::string& text) const {
  Emit(level, "queue=" + queue_name_ + " message_id=" + message_id +
                  " receive_count=" + std::to_string(receive_count) + ": " + text);
}

}  // namespace lqs::worker
