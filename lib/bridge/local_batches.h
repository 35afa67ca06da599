// lib/bridge/local_batches.h — the bridges' batch calls on the local queue:
// deleting and changing the visibility of many receipt handles, ten per
// call (SQS's batch limit, which the library applies too).
//
// Thread safety: as lqs::Queue.

#ifndef LQS_LIB_BRIDGE_LOCAL_BATCHES_H_
#define LQS_LIB_BRIDGE_LOCAL_BATCHES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lqs/queue.h"

namespace lqs::bridge {

// Deletes the messages of `handles`; returns how many were deleted. A
// handle that fails (a FIFO lease that ended) is left: its message is
// leased and forwarded again.
int64_t DeleteHandles(Queue& queue, const std::vector<std::string>& handles);

// Sets the visibility timeout of each handle's message to `seconds`
// (0: release now). Failures are ignored: a lease that could not be
// changed ends by itself.
void SetVisibility(Queue& queue, const std::vector<std::string>& handles, int seconds);

}  // namespace lqs::bridge

#endif  // LQS_LIB_BRIDGE_LOCAL_BATCHES_H_
