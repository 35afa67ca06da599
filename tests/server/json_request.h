// tests/server/json_request.h — an AWS JSON 1.0 request as a client sends
// it to lqsd (POST /, X-Amz-Target, the JSON content type), for tests that
// hand requests to the Router directly.

#ifndef LQS_TESTS_SERVER_JSON_REQUEST_H_
#define LQS_TESTS_SERVER_JSON_REQUEST_H_

#include <string>

#include "server/http_types.h"

namespace lqsd {

inline HttpRequest JsonRequest(const std::string& action, const std::string& body) {
  HttpRequest request;
  request.method = "POST";
  request.target = "/";
  request.headers = {{"host", "127.0.0.1:9324"},
                     {"x-amz-target", "AmazonSQS." + action},
                     {"content-type", "application/x-amz-json-1.0"}};
  request.body = body;
  return request;
}

}  // namespace lqsd

#endif  // LQS_TESTS_SERVER_JSON_REQUEST_H_
