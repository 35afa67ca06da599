// The README's C++ example: open, create, send, receive, delete.
#include <cstdio>

#include "lqs/lqs.h"

int main() {
  lqs::Options options;
  options.path = "/tmp/lqs-quickstart";
  auto broker = lqs::Broker::Open(options);
  if (!broker.ok()) return std::puts(broker.status().ToString().c_str()), 1;

  auto queue = (*broker)->CreateQueue("jobs", {{"VisibilityTimeout", "60"}}, {});
  if (!queue.ok()) return std::puts(queue.status().ToString().c_str()), 1;

  lqs::SendMessageRequest send;
  send.body = "hello";
  auto sent = (*queue)->SendMessage(send);  // durable when it returns
  if (!sent.ok()) return std::puts(sent.status().ToString().c_str()), 1;

  lqs::ReceiveMessageRequest receive;
  receive.wait_time_seconds = 20;  // long poll
  auto got = (*queue)->ReceiveMessage(receive);
  if (!got.ok()) return std::puts(got.status().ToString().c_str()), 1;
  for (const auto& m : got->messages) {
    std::printf("got %s\n", m.body.c_str());
    lqs::Status st = (*queue)->DeleteMessage(m.receipt_handle);  // done: never redelivered
    if (!st.ok()) return std::puts(st.ToString().c_str()), 1;
  }
  return (*broker)->Close().ok() ? 0 : 1;
}
