#include "wire/message_json.h"

#include "wire/base64.h"

namespace lqs::wire {

nlohmann::ordered_json MessageAttributeValueJson(const lqs::MessageAttributeValue& value) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  if (value.IsBinary()) {
    j["BinaryValue"] = Base64Encode(value.binary_value);
  } else {
    j["StringValue"] = value.string_value;
  }
  j["DataType"] = value.data_type;
  return j;
}

nlohmann::ordered_json MessageAttributesJson(const lqs::MessageAttributeMap& attributes) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [name, value] : attributes) j[name] = MessageAttributeValueJson(value);
  return j;
}

nlohmann::ordered_json ReceivedMessageJson(const lqs::ReceivedMessage& message) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j["MessageId"] = message.message_id;
  j["ReceiptHandle"] = message.receipt_handle;
  j["MD5OfBody"] = message.md5_of_body;
  j["Body"] = message.body;
  if (!message.attributes.empty()) {
    nlohmann::ordered_json attributes = nlohmann::ordered_json::object();
    for (const auto& [name, value] : message.attributes) attributes[name] = value;
    j["Attributes"] = std::move(attributes);
  }
  if (message.md5_of_message_attributes) {
    j["MD5OfMessageAttributes"] = *message.md5_of_message_attributes;
  }
  if (!message.message_attributes.empty()) {
    j["MessageAttributes"] = MessageAttributesJson(message.message_attributes);
  }
  return j;
}

}  // namespace lqs::wire
