// server/console_api.h — the documents of the web console's JSON API
// (console.h), read through the Broker's public API.
//
// Thread safety: pure functions over thread-safe Brokers and QueueHistory.

#ifndef LQS_SERVER_CONSOLE_API_H_
#define LQS_SERVER_CONSOLE_API_H_

#include <cstddef>
#include <string>

#include "server/actions.h"
#include "server/queue_history.h"

#include "lqs/broker.h"
#include "lqs/status.h"

namespace lqsd::console_api {

// {"now_ms": ..., "queues": [{"name", "url", "arn", "fifo", "visible",
//  "in_flight", "delayed", "oldest_age_seconds", "dead_letter_target" (the
//  name of the queue its RedrivePolicy sends to, or null),
//  "max_receive_count" (or null), "dead_letter_sources": [names of the
//  queues whose RedrivePolicy targets it]}]}, in name order. Queues deleted
// meanwhile are left out. Errors: the Broker's (kClosed).
lqs::StatusOr<Json> Queues(lqs::Broker* broker, const std::string& queue_url_prefix,
                           int64_t now_ms);

// {"queue": name, "capacity": N, "samples": [[at_ms, visible, in_flight,
//  delayed, oldest_age_seconds], ...]} oldest first.
Json History(const QueueHistory& history, const std::string& queue);

// {"Messages": [...], "Total": n, "Truncated": bool}: the peek of `queue`
// (peek::Peek with every state shown), ReceiveMessage's JSON output for each
// message; with a non-empty `message_id`, that message alone (or none). At
// most `limit` messages. Errors: QueueDoesNotExist, the Queue's.
lqs::StatusOr<Json> Messages(lqs::Broker* broker, const std::string& queue,
                             const std::string& message_id, size_t limit);

}  // namespace lqsd::console_api

#endif  // LQS_SERVER_CONSOLE_API_H_
