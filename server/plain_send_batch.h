// server/plain_send_batch.h — a JSON-protocol SendMessageBatch body of the
// usual shape, decoded straight into the library's batch entries.
//
// The generic path (sqs_json::DecodeBody into a document tree, then
// actions.cc reading each member out of it) costs a batch send about 36,000
// instructions, an eighth of all that lqsd spends on one (docs/
// performance.md). This decoder reads the text once, into the entries.
//
// Like json_fast.h, it has no rules of its own: it accepts only bodies whose
// outcome through the generic path it knows to be exactly the entries it
// returns, and declines everything else (the caller then takes the generic
// path, which decides what happens, errors included). Accepted: after
// optional JSON whitespace, an object whose members are "QueueUrl" (a
// string) and "Entries" (an array of at most kMaxEntries objects), each
// entry's members among "Id", "MessageBody", "MessageGroupId",
// "MessageDeduplicationId" (strings) and "DelaySeconds" (a non-negative
// integer of at most 9 digits, no leading zero), then optional whitespace.
// Strings must be printable ASCII without escapes. Declined: anything else,
// among it any other member (MessageAttributes included), a repeated
// member, null, escapes, non-ASCII text, numbers of any other form.
//
// Thread safety: a pure function.

#ifndef LQS_SERVER_PLAIN_SEND_BATCH_H_
#define LQS_SERVER_PLAIN_SEND_BATCH_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lqs/limits.h"
#include "lqs/types.h"

namespace lqsd::plain_send_batch {

// Batches of more entries are declined (SQS allows 10; the generic path
// reports the error).
inline constexpr size_t kMaxEntries = lqs::limits::kMaxBatchEntries;

struct Decoded {
  std::optional<std::string> queue_url;  // absent: nullopt
  std::vector<lqs::SendMessageBatchEntry> entries;
};

// The body decoded as above, or nullopt when it is not of that shape. May
// throw std::bad_alloc.
std::optional<Decoded> Decode(std::string_view body);

}  // namespace lqsd::plain_send_batch

#endif  // LQS_SERVER_PLAIN_SEND_BATCH_H_
