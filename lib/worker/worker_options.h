// lib/worker/worker_options.h — checking WorkerOptions.
//
// Thread safety: pure functions.

#ifndef LQS_LIB_WORKER_WORKER_OPTIONS_H_
#define LQS_LIB_WORKER_WORKER_OPTIONS_H_

#include "lqs/status.h"
#include "lqs/worker.h"

namespace lqs::worker {

// OK, or InvalidParameterValue naming the first invalid option
// ("WorkerOptions.concurrency") and its rule.
Status ValidateOptions(const WorkerOptions& options);

// max_in_progress, with 0 resolved to concurrency + max_messages_per_receive.
int EffectiveMaxInProgress(const WorkerOptions& options);

}  // namespace lqs::worker

#endif  // LQS_LIB_WORKER_WORKER_OPTIONS_H_
