// server/peek_endpoint.h — LocalStack's SQS developer endpoint, served by
// lqsd: every message of a queue and its state, read without changing
// anything, so that tools written for LocalStack's endpoint work with lqsd.
//
// Requests (GET or POST):
//   /_aws/sqs/messages?QueueUrl=URL[&ShowInvisible=true][&ShowDelayed=true]
//   /_aws/sqs/messages/<region>/<account-id>/<queue-name>[?Show...]
// The parameters may also come in a form body (POST,
// application/x-www-form-urlencoded), and QueueUrl as a member of a JSON body
// (an AWS client's ReceiveMessage sent to this path). QueueUrl is any queue
// URL lqsd accepts elsewhere (router.h: path or host style, any region). In
// the path form the account id must be this server's and the region is
// served as a /queue/<region>/ URL's is. ShowInvisible and ShowDelayed are
// on when their value is "true" or "1" (any case).
//
// Answer: a ReceiveMessage answer holding the queue's messages, in
// Queue::ScanMessages's order (received ones first, then the queued ones in
// delivery order): always the visible ones, the in-flight ones with
// ShowInvisible, the delayed ones with ShowDelayed. It is encoded exactly as
// lqsd encodes ReceiveMessage for the same request: the JSON protocol's
// {"Messages": [...]} when the request is a JSON-protocol one (Content-Type
// application/x-amz-json-1.0 or an X-Amz-Target), else the query protocol's
// XML, or its JSON rendering when Accept lists application/json
// (sqs_query.h). Each message has MessageId, ReceiptHandle (the placeholder
// kReceiptHandle, which no action accepts: a peek leases nothing), MD5OfBody,
// Body, every system attribute the message has (SentTimestamp,
// ApproximateReceiveCount, and those of FIFO and dead-lettered messages),
// and its message attributes with MD5OfMessageAttributes. Its state is told
// by two attributes, as LocalStack's endpoint adds them: IsVisible
// ("true"/"false"; only with ShowInvisible) and IsDelayed (only with
// ShowDelayed). A message is in exactly one state: visible (receivable now,
// including one whose lease ended), in flight (IsVisible false, IsDelayed
// false) or delayed (IsVisible false, IsDelayed true).
//
// Nothing changes: the messages are read with Queue::ScanMessages, which
// takes no lease, counts no receive, moves no visibility and writes nothing.
// The scan runs on the I/O thread and is O(messages): a developer's tool,
// not for queues of millions of messages.
//
// Errors, in the request's protocol: no QueueUrl, a URL or path that names
// no queue of this server (another account, not a queue URL) or a queue that
// does not exist: QueueDoesNotExist (query: AWS.SimpleQueueService.
// NonExistentQueue), HTTP 400, as ReceiveMessage answers; with --auth-file,
// the SigV4 refusals every request gets (an unsigned peek: 403
// MissingAuthenticationToken).
//
// Why it is not on --metrics-listen: that listener is unauthenticated, and a
// peek shows message bodies, which may hold anything the application sends.
// The endpoint is an SQS-side request: it is served where the SQS API is and
// needs a signature exactly when the API does.
//
// Thread safety: pure functions; Peek() calls the Queue, which is
// thread-safe.

#ifndef LQS_SERVER_PEEK_ENDPOINT_H_
#define LQS_SERVER_PEEK_ENDPOINT_H_

#include <string>
#include <string_view>

#include "server/http_types.h"

#include "lqs/queue.h"
#include "lqs/status.h"
#include "lqs/types.h"

namespace lqsd::peek {

inline constexpr std::string_view kPath = "/_aws/sqs/messages";
// The ReceiptHandle of every message a peek shows (LocalStack's).
inline constexpr std::string_view kReceiptHandle = "SQS/BACKDOOR/ACCESS";

// GET or POST on kPath or below it.
bool IsPeekRequest(const HttpRequest& request);

struct PeekRequest {
  // The QueueUrl parameter; empty when the request has none.
  std::string queue_url;
  // The path form: /_aws/sqs/messages/<region>/<account_id>/<queue_name>.
  bool path_form = false;
  std::string region, account_id, queue_name;  // empty unless a well-formed path form
  bool show_invisible = false;
  bool show_delayed = false;
};

// Reads a request IsPeekRequest accepted. A path below kPath that is not
// three non-empty segments, or a body that cannot be read, leaves the queue
// unnamed (the caller answers QueueDoesNotExist).
PeekRequest ParsePeekRequest(const HttpRequest& request);

// The messages of `queue` a peek with these options shows, with IsVisible
// and IsDelayed as above. Errors: the Queue's (QueueDoesNotExist when it was
// deleted meanwhile, kIOError).
lqs::StatusOr<lqs::ReceiveMessageResult> Peek(lqs::Queue& queue, bool show_invisible,
                                              bool show_delayed);

}  // namespace lqsd::peek

#endif  // LQS_SERVER_PEEK_ENDPOINT_H_
