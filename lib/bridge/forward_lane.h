// lib/bridge/forward_lane.h — one lane of a forward bridge: a thread that
// leases up to ten local messages, sends them to the remote queue with
// SendMessageBatch, and deletes each local message once the remote
// acknowledged it with the same digests. A forward bridge runs
// max_batches_in_flight lanes.
//
// A lane keeps its messages leased until each is settled:
// - acknowledged with matching MD5s: deleted locally;
// - refused for good by the remote (a sender-fault entry error, or a
//   request refusal of a batch of one): moved to the local queue's
//   dead-letter queue with the remote's error in two message attributes
//   (LqsBridgeErrorCode, LqsBridgeErrorMessage), or, without a dead-letter
//   queue, released for backoff_max_ms and counted as stuck;
// - anything else (no answer, a server fault, throttling, a digest
//   mismatch): retried with backoff, the leases renewed meanwhile.
// A request refusal of a batch of several is retried one message per batch,
// to learn which message the remote refuses.
//
// FIFO: the message's MessageGroupId is kept and its MessageDeduplicationId
// is its local MessageId, so that a resend within SQS's five-minute window
// is dropped by the remote. The local FIFO queue leases a group's next
// message only after the previous one is deleted or released, so group
// order holds across lanes.
//
// Thread safety: a lane is run by one thread.

#ifndef LQS_LIB_BRIDGE_FORWARD_LANE_H_
#define LQS_LIB_BRIDGE_FORWARD_LANE_H_

#include "lib/bridge/bridge_runtime.h"

namespace lqs::bridge {

// Runs one lane until the bridge stops, or, with options().once, until the
// local queue has nothing visible.
void RunForwardLane(Runtime* runtime);

}  // namespace lqs::bridge

#endif  // LQS_LIB_BRIDGE_FORWARD_LANE_H_
