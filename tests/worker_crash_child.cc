// tests/worker_crash_child.cc — the process that worker_crash_test.cc kills
// with SIGKILL: an lqs::Worker with the idempotency inbox, and a producer.
//
//   lqs_worker_crash_child <db_dir> <oracle_dir> <seed>
//
// Opens the database at <db_dir> (real clock, durability `process`,
// background maintenance on, so inbox sweeps run too), creates (or reuses)
// the queue "jobs" (VisibilityTimeout 10 s, RedrivePolicy maxReceiveCount 5
// to "jobs-dlq") and its DLQ, then runs until it is killed:
//
//  - a producer sending messages whose IdempotencyKey attribute is the
//    message's key: originals "k<seed>-<n>" (key = body; a key ending in
//    'x', every 16th, is poison), and now and then a duplicate
//    "<key>/d<m>" of an earlier original of this run whose key it has just
//    seen recorded in the inbox (InboxContains), like a producer that sends
//    the same work twice after it was done;
//  - a Worker (inbox on, 4 handler threads, heartbeats, backoff 1..2 s)
//    whose handler fails poison messages as non-retryable (to the DLQ at
//    once, MoveToDeadLetterQueue), fails 1 in 8 first deliveries as
//    retryable, and succeeds otherwise (DeleteMessageAndRecord).
//
// The oracle, one append-only file per role in <oracle_dir>, one write(2)
// per line, no fsync (it must survive a kill of this process only):
//   <seed>-producer.log:  pending <body>   BEFORE a send is attempted
//                         acked <body>     AFTER the send returned OK
//   <seed>-handler.log:   run <body>       at the start of a handler call
//                         violation <body> the handler found its message's
//                                          key already in the inbox (the
//                                          worker should have skipped it)
// Prints "ready" on stdout once the worker and the producer run. Never
// exits on its own.

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "lqs/lqs.h"
#include "lqs/worker.h"

namespace {

constexpr int64_t kMaxBacklog = 500;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "lqs_worker_crash_child: %s\n", what.c_str());
  std::_Exit(2);
}

// An append-only oracle file; Record() is one write(2) (O_APPEND), so
// several threads may share one.
class OracleLog {
 public:
  explicit OracleLog(const std::string& path) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) Die("cannot open oracle file " + path + ": " + std::strerror(errno));
  }
  ~OracleLog() { ::close(fd_); }
  OracleLog(const OracleLog&) = delete;
  OracleLog& operator=(const OracleLog&) = delete;

  void Record(const char* event, const std::string& body) {
    const std::string line = std::string(event) + " " + body + "\n";
    size_t done = 0;
    while (done < line.size()) {
      const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        Die(std::string("oracle write failed: ") + std::strerror(errno));
      }
      done += static_cast<size_t>(n);
    }
  }

 private:
  int fd_ = -1;
};

std::string KeyOf(const std::string& body) { return body.substr(0, body.find('/')); }
bool IsPoison(const std::string& key) { return !key.empty() && key.back() == 'x'; }

bool Send(lqs::Queue& q, OracleLog& log, const std::string& body) {
  lqs::SendMessageRequest r;
  r.body = body;
  r.message_attributes["IdempotencyKey"] = lqs::MessageAttributeValue{"String", KeyOf(body), ""};
  log.Record("pending", body);
  auto sent = q.SendMessage(r);
  if (!sent.ok()) {
    std::fprintf(stderr, "lqs_worker_crash_child: send failed: %s\n",
                 sent.status().ToString().c_str());
    return false;
  }
  log.Record("acked", body);
  return true;
}

void Produce(lqs::Queue& q, OracleLog& log, const std::string& prefix, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::deque<std::string> recent;  // originals sent (not poison), for duplicates
  int64_t dups = 0;
  for (int64_t n = 0;; ++n) {
    if (n % 10 == 0) {
      for (;;) {
        auto s = q.GetStats();
        if (!s.ok() || s->visible <= kMaxBacklog) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (!recent.empty() && rng() % 6 == 0) {
      const std::string& key = recent[rng() % recent.size()];
      auto done = q.InboxContains(key);
      if (done.ok() && *done) Send(q, log, key + "/d" + std::to_string(dups++));
    }
    const std::string key = prefix + std::to_string(n) + (n % 16 == 7 ? "x" : "");
    if (Send(q, log, key) && !IsPoison(key)) {
      recent.push_back(key);
      if (recent.size() > 200) recent.pop_front();
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <db_dir> <oracle_dir> <seed>\n", argv[0]);
    return 2;
  }
  const std::string db_dir = argv[1];
  const std::string oracle_dir = argv[2];
  const uint64_t seed = std::strtoull(argv[3], nullptr, 10);
  const std::string seed_text = std::to_string(seed);

  std::error_code ec;
  std::filesystem::create_directories(oracle_dir, ec);
  if (ec) Die("cannot create " + oracle_dir + ": " + ec.message());

  lqs::Options options;
  options.path = db_dir;
  options.durability = lqs::Durability::kProcess;
  options.background_maintenance = true;
  options.maintenance_interval_ms = 200;
  auto opened = lqs::Broker::Open(options);
  if (!opened.ok()) Die("open failed: " + opened.status().ToString());
  std::unique_ptr<lqs::Broker> broker = std::move(opened).value();

  auto dlq = broker->CreateQueue("jobs-dlq", {}, {});
  if (!dlq.ok()) Die("create jobs-dlq: " + dlq.status().ToString());
  const std::string redrive =
      "{\"deadLetterTargetArn\":\"" + (*dlq)->arn() + "\",\"maxReceiveCount\":\"5\"}";
  auto jobs = broker->CreateQueue("jobs",
                                  {{std::string(lqs::attr::kVisibilityTimeout), "10"},
                                   {std::string(lqs::attr::kRedrivePolicy), redrive}},
                                  {});
  if (!jobs.ok()) Die("create jobs: " + jobs.status().ToString());
  std::shared_ptr<lqs::Queue> q = *jobs;

  OracleLog producer_log(oracle_dir + "/" + seed_text + "-producer.log");
  OracleLog handler_log(oracle_dir + "/" + seed_text + "-handler.log");

  lqs::WorkerOptions wo;
  wo.inbox = true;
  wo.concurrency = 4;
  wo.max_messages_per_receive = 10;
  wo.wait_time_seconds = 1;
  wo.visibility_timeout_seconds = 10;
  wo.backoff_base_seconds = 1;
  wo.backoff_max_seconds = 2;
  wo.logger = [](lqs::WorkerLogLevel level, const std::string& line) {
    if (level == lqs::WorkerLogLevel::kError) {
      std::fprintf(stderr, "lqs_worker_crash_child: %s\n", line.c_str());
    }
  };
  std::atomic<uint64_t> handler_seed{seed * 7919};
  auto worker = lqs::Worker::Create(
      q, wo, [&](const lqs::WorkerMessage& m) -> lqs::HandlerResult {
        thread_local std::mt19937_64 rng(handler_seed.fetch_add(1));
        handler_log.Record("run", m.body);
        if (m.idempotency_key != KeyOf(m.body)) Die("wrong idempotency key for " + m.body);
        auto seen = q->InboxContains(m.idempotency_key);
        if (seen.ok() && *seen) handler_log.Record("violation", m.body);
        if (rng() % 4 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        if (IsPoison(m.idempotency_key)) return lqs::HandlerResult::NonRetryable("poison");
        if (m.receive_count == 1 && rng() % 8 == 0) return lqs::HandlerResult::Retry("transient");
        return lqs::HandlerResult::Success();
      });
  if (!worker.ok()) Die("Worker::Create: " + worker.status().ToString());
  lqs::Status st = (*worker)->Start();
  if (!st.ok()) Die("Worker::Start: " + st.ToString());

  std::thread producer([&] { Produce(*q, producer_log, "k" + seed_text + "-", seed * 131); });

  std::printf("ready\n");
  std::fflush(stdout);
  producer.join();  // never: runs until SIGKILL
  return 0;
}
