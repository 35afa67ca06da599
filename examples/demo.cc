// lqs_demo — the main job of lqs in thirty lines of output: a durable queue
// with leases, a redelivery after a lease expires, and a dead-letter move.
//
// Usage: lqs_demo [DB_DIR]   (default: a temporary directory, removed at exit)

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <unistd.h>

#include "lqs/lqs.h"

namespace {

int Fail(const lqs::Status& st) {
  std::fprintf(stderr, "lqs_demo: %s\n", st.ToString().c_str());
  return 1;
}

std::string Short(const std::string& handle) { return "..." + handle.substr(handle.size() - 12); }

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  bool temporary = argc < 2;
  std::string dir =
      temporary ? (fs::temp_directory_path() / ("lqs-demo-" + std::to_string(::getpid()))).string()
                : argv[1];
  lqs::Options options;
  options.path = dir;
  std::printf("lqs %s — database at %s%s\n", lqs::Version(), dir.c_str(),
              temporary ? " (temporary)" : "");
  auto opened = lqs::Broker::Open(options);
  if (!opened.ok()) return Fail(opened.status());
  std::unique_ptr<lqs::Broker> broker = std::move(opened).value();

  // A dead-letter queue, and a work queue that sends a message there after
  // two failed deliveries. Leases last one second so the demo is quick.
  auto dlq = broker->CreateQueue("demo-dead-letters", {}, {});
  if (!dlq.ok()) return Fail(dlq.status());
  const std::string redrive =
      "{\"deadLetterTargetArn\":\"" + (*dlq)->arn() + "\",\"maxReceiveCount\":2}";
  auto jobs = broker->CreateQueue("demo-jobs",
                                  {{"VisibilityTimeout", "1"}, {"RedrivePolicy", redrive}}, {});
  if (!jobs.ok()) return Fail(jobs.status());
  lqs::Queue& q = **jobs;
  std::printf("created queues %s and %s (RedrivePolicy maxReceiveCount=2)\n", q.name().c_str(),
              (*dlq)->name().c_str());

  for (const char* body : {"resize photo 1", "resize photo 2"}) {
    lqs::SendMessageRequest send;
    send.body = body;
    auto sent = q.SendMessage(send);
    if (!sent.ok()) return Fail(sent.status());
    std::printf("sent     \"%s\"  MessageId=%s  MD5OfMessageBody=%s\n", body,
                sent->message_id.c_str(), sent->md5_of_message_body.c_str());
  }

  lqs::ReceiveMessageRequest receive;
  receive.max_number_of_messages = 10;
  receive.wait_time_seconds = 5;  // long poll: returns as soon as something is visible
  receive.message_system_attribute_names = {"ApproximateReceiveCount"};
  auto got = q.ReceiveMessage(receive);
  if (!got.ok()) return Fail(got.status());
  for (const auto& m : got->messages) {
    std::printf("received \"%s\"  receive #%s  handle=%s\n", m.body.c_str(),
                m.attributes.at("ApproximateReceiveCount").c_str(),
                Short(m.receipt_handle).c_str());
  }
  // The first job succeeds: delete it. The second "crashes": its lease runs out.
  lqs::Status st = q.DeleteMessage(got->messages[0].receipt_handle);
  if (!st.ok()) return Fail(st);
  std::printf("deleted  \"%s\" (done); \"%s\" is left to time out\n", got->messages[0].body.c_str(),
              got->messages[1].body.c_str());

  std::printf("long-polling: the lease ends after 1 s and the message comes back...\n");
  got = q.ReceiveMessage(receive);
  if (!got.ok()) return Fail(got.status());
  for (const auto& m : got->messages) {
    std::printf("received \"%s\" again  receive #%s  (new handle %s)\n", m.body.c_str(),
                m.attributes.at("ApproximateReceiveCount").c_str(),
                Short(m.receipt_handle).c_str());
  }
  std::printf("...and fails again. Its next receive would be #3 > maxReceiveCount=2,\n");
  receive.wait_time_seconds = 2;
  got = q.ReceiveMessage(receive);  // lease ends; the message moves to the DLQ instead
  if (!got.ok()) return Fail(got.status());
  std::printf("so the receive moves it to the dead-letter queue (returned %zu messages).\n",
              got->messages.size());

  lqs::ReceiveMessageRequest peek;
  peek.wait_time_seconds = 1;
  peek.message_system_attribute_names = {"All"};
  auto dead = (*dlq)->ReceiveMessage(peek);
  if (!dead.ok()) return Fail(dead.status());
  for (const auto& m : dead->messages) {
    std::printf("dead letter \"%s\"  receive #%s  from %s\n", m.body.c_str(),
                m.attributes.at("ApproximateReceiveCount").c_str(),
                m.attributes.at("DeadLetterQueueSourceArn").c_str());
  }
  auto attrs =
      q.GetAttributes({"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"});
  if (!attrs.ok()) return Fail(attrs.status());
  std::printf("demo-jobs now: %s visible, %s in flight\n",
              attrs->at("ApproximateNumberOfMessages").c_str(),
              attrs->at("ApproximateNumberOfMessagesNotVisible").c_str());

  auto problems = broker->Verify();
  if (!problems.ok()) return Fail(problems.status());
  std::printf("verify: %s\n", problems->empty() ? "consistent" : "PROBLEMS FOUND");
  st = broker->Close();
  if (!st.ok()) return Fail(st);
  if (temporary) fs::remove_all(dir);
  return problems->empty() && dead->messages.size() == 1 ? 0 : 1;
}
