// lib/api/api_test_util.h — builders shared by the tests of lib/api/ (queue
// configs, requests, message attributes). Test-only; header-only. The Status
// matchers are tests/testutil.h's.

#ifndef LQS_LIB_API_API_TEST_UTIL_H_
#define LQS_LIB_API_API_TEST_UTIL_H_

#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "lib/api/message_rules.h"
#include "lib/api/queue_config.h"

namespace lqs::api::test_util {

inline constexpr char kDlqArn[] = "arn:aws:sqs:us-east-1:123456789012:dlq";
inline constexpr char kQueueArn[] = "arn:aws:sqs:us-east-1:111111111111:my-queue";

inline QueueConfig StandardQueue() { return QueueConfig{}; }

inline QueueConfig FifoQueue(bool content_based_deduplication = false) {
  QueueConfig queue;
  queue.fifo = true;
  queue.content_based_deduplication = content_based_deduplication;
  return queue;
}

// Applies `attributes` to a copy of `config`; returns the status and, via
// *out, the result.
inline Status Apply(const AttributeMap& attributes, bool creating, QueueConfig config,
                    QueueConfig* out = nullptr) {
  Status status = ApplyQueueAttributes(attributes, creating, &config);
  if (out != nullptr) *out = config;
  return status;
}

// SetQueueAttributes on `config`: the status alone.
inline Status Set(const AttributeMap& attributes, QueueConfig config = StandardQueue()) {
  return Apply(attributes, /*creating=*/false, std::move(config));
}

// `config` with `attributes` applied; fails the test if they are refused.
inline QueueConfig MustApply(const AttributeMap& attributes, QueueConfig config = StandardQueue(),
                             bool creating = false) {
  const Status status = ApplyQueueAttributes(attributes, creating, &config);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return config;
}

inline MessageAttributeValue StringAttr(std::string value, std::string type = "String") {
  MessageAttributeValue attr;
  attr.data_type = std::move(type);
  attr.string_value = std::move(value);
  return attr;
}

inline MessageAttributeValue NumberAttr(std::string value, std::string type = "Number") {
  return StringAttr(std::move(value), std::move(type));
}

inline MessageAttributeValue BinaryAttr(std::string value, std::string type = "Binary") {
  MessageAttributeValue attr;
  attr.data_type = std::move(type);
  attr.binary_value = std::move(value);
  return attr;
}

inline SendMessageRequest Request(std::string body) {
  SendMessageRequest request;
  request.body = std::move(body);
  return request;
}

// A FIFO send: group "group-1", deduplication id "dedup-1".
inline SendMessageRequest FifoRequest(std::string body) {
  SendMessageRequest request = Request(std::move(body));
  request.message_group_id = "group-1";
  request.message_deduplication_id = "dedup-1";
  return request;
}

}  // namespace lqs::api::test_util

#endif  // LQS_LIB_API_API_TEST_UTIL_H_
