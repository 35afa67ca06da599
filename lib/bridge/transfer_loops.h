// lib/bridge/transfer_loops.h — the two kinds of thread that move a
// bridge's messages, both run on its Runtime (bridge_runtime.h) by
// lib/bridge/bridge.cc: forward lanes (forward_lane.cc) and pull loops
// (pull_loop.cc).
//
// Thread safety: each loop is run by one thread (a pull loop also starts
// its delete thread); they share only the Runtime.

#ifndef LQS_LIB_BRIDGE_TRANSFER_LOOPS_H_
#define LQS_LIB_BRIDGE_TRANSFER_LOOPS_H_

#include "lib/bridge/bridge_runtime.h"

namespace lqs::bridge {

// One lane of a forward bridge: a thread that leases up to ten local messages, sends them to the
// remote queue with SendMessageBatch, and deletes each local message once the remote acknowledged
// it with the same digests. A forward bridge runs max_batches_in_flight lanes.
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
// Runs one lane until the bridge stops, or, with options().once, until the
// local queue has nothing visible.
void RunForwardLane(Runtime* runtime);

// One of a pull bridge's loops (it runs max_batches_in_flight of them, each on its own thread and
// connection): long-polls the remote queue (up to ten messages), sends them to the local queue with
// their remote MessageIds recorded, all in one write (Queue::SendMessagesAndRecord), and only then
// deletes them remotely: on a second thread and connection of the loop's, while the loop asks for
// its next messages (one delete in flight per loop).
//
// A message whose local send failed is not deleted remotely: the remote
// delivers it again after its visibility timeout (and, after its
// maxReceiveCount, moves it to the remote dead-letter queue). A message
// delivered again after its local send (a crash before the remote delete,
// a lost delete) finds its MessageId recorded: it is counted as a duplicate
// and deleted remotely, not sent again. Records are kept for
// dedup_window_seconds, at least the remote VisibilityTimeout plus a minute.
//
// What a pulled message keeps: its body, its message attributes, its
// AWSTraceHeader and, into a FIFO queue, its MessageGroupId (its
// MessageDeduplicationId is its remote MessageId).
//
// Runs until the bridge stops, or, with options().once, until a receive
// comes back empty. FIFO: the remote does not deliver a group's next
// message before this one is deleted there, so loops keep group order.
void RunPullLoop(Runtime* runtime);

}  // namespace lqs::bridge

#endif  // LQS_LIB_BRIDGE_TRANSFER_LOOPS_H_
