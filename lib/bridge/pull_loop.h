// lib/bridge/pull_loop.h — one of a pull bridge's loops (it runs
// max_batches_in_flight of them, each on its own thread and connection):
// long-polls the remote queue (up to ten messages), sends them to the local
// queue with their remote MessageIds recorded, all in one write
// (Queue::SendMessagesAndRecord), and only then deletes them remotely: on a
// second thread and connection of the loop's, while the loop asks for its
// next messages (one delete in flight per loop).
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
// Thread safety: run by one thread (and its delete thread).

#ifndef LQS_LIB_BRIDGE_PULL_LOOP_H_
#define LQS_LIB_BRIDGE_PULL_LOOP_H_

#include "lib/bridge/bridge_runtime.h"

namespace lqs::bridge {

// Runs until the bridge stops, or, with options().once, until a receive
// comes back empty. FIFO: the remote does not deliver a group's next
// message before this one is deleted there, so loops keep group order.
void RunPullLoop(Runtime* runtime);

}  // namespace lqs::bridge

#endif  // LQS_LIB_BRIDGE_PULL_LOOP_H_
