// wire/message_json.h — a received message and its message attributes as
// SQS's JSON protocol spells them (ReceiveMessage's Messages[], docs/sqs-reference.md
// §6.5): `lqs receive` prints them; lqsd's encoder (server/action_outputs.cc)
// writes the same members, and lqsd_json_test checks that the two agree.
//
// Thread safety: pure functions.

#ifndef LQS_WIRE_MESSAGE_JSON_H_
#define LQS_WIRE_MESSAGE_JSON_H_

#include <nlohmann/json.hpp>

#include "lqs/types.h"

namespace lqs::wire {

// {"StringValue": ...} or {"BinaryValue": <base64>}, then "DataType".
nlohmann::ordered_json MessageAttributeValueJson(const lqs::MessageAttributeValue& value);

// {name: MessageAttributeValueJson, ...} in name order.
nlohmann::ordered_json MessageAttributesJson(const lqs::MessageAttributeMap& attributes);

// MessageId, ReceiptHandle, MD5OfBody, Body, then Attributes,
// MD5OfMessageAttributes and MessageAttributes, each only when present.
nlohmann::ordered_json ReceivedMessageJson(const lqs::ReceivedMessage& message);

}  // namespace lqs::wire

#endif  // LQS_WIRE_MESSAGE_JSON_H_
