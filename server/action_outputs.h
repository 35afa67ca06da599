// server/action_outputs.h — the output members of the hot actions
// (SendMessage, SendMessageBatch, ReceiveMessage, DeleteMessageBatch,
// ChangeMessageVisibilityBatch), each written by one encoder over the two
// forms of output_writer.h: JSON text for the JSON protocol
// (ActionResult::json_body, no Json tree per message), a Json tree for the
// query protocol (ActionResult::output, which sqs_query encodes).
//
// The trees keep an empty Successful or Failed (the legacy JSON rendering
// of query responses shows it as []); the text leaves it out, as
// sqs_json::EncodeResult does with the tree. ReceiveMessage's messages have
// wire::ReceivedMessageJson's members, in its order (the CLI prints that).
//
// Thread safety: pure functions.

#ifndef LQS_SERVER_ACTION_OUTPUTS_H_
#define LQS_SERVER_ACTION_OUTPUTS_H_

#include <string>

#include "server/actions.h"

#include "lqs/types.h"

namespace lqsd {

// Sets out->json_body (protocol kJson) or out->output (kQuery).
void SetOutput(Protocol protocol, const lqs::SendMessageResult& result, ActionResult* out);
void SetOutput(Protocol protocol, const lqs::SendMessageBatchResult& result, ActionResult* out);
void SetOutput(Protocol protocol, const lqs::BatchResult& result, ActionResult* out);
void SetOutput(Protocol protocol, const lqs::ReceiveMessageResult& result, ActionResult* out);

// The two forms of the same encoders, for tests: sqs_json::EncodeResult of
// the tree is the text (tests/server/lqsd_json_test.cc).
Json ReceiveMessageOutput(const lqs::ReceiveMessageResult& result);
std::string ReceiveMessageOutputJson(const lqs::ReceiveMessageResult& result);
Json SendMessageBatchOutput(const lqs::SendMessageBatchResult& result);
std::string SendMessageBatchOutputJson(const lqs::SendMessageBatchResult& result);
Json BatchResultOutput(const lqs::BatchResult& result);
std::string BatchResultOutputJson(const lqs::BatchResult& result);

}  // namespace lqsd

#endif  // LQS_SERVER_ACTION_OUTPUTS_H_
