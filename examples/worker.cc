// lqs_worker_example — a small job system on lqs::Worker: accept requests as
// commands on a queue, work them idempotently (the inbox), dead-letter the
// ones that can never succeed, and print the worker's counters and the
// queues' health.
//
// Usage: lqs_worker_example [--serve] [DB_DIR]
//   default: a temporary database, exits when the commands are worked off;
//   --serve: keeps working until SIGTERM or Ctrl-C (graceful shutdown).

#include "lqs/worker.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include <unistd.h>

#include "lqs/lqs.h"

namespace {

// ---- The application's side effects (a stand-in for a real database) --------------------

std::mutex balances_mu;
std::map<std::string, long> balances;
std::atomic<bool> provider_flaky{true};  // times out once for order-3

void Charge(const std::string& order, long amount) {
  if (order == "order-3" && provider_flaky.exchange(false)) {
    throw std::runtime_error("payment provider timed out for " + order);  // retried later
  }
  std::lock_guard<std::mutex> lock(balances_mu);
  balances[order] += amount;
}

// ---- The handler: the only code a user writes ------------------------------------------------

// Commands are "charge <order> <amount>".
lqs::HandlerResult Handle(const lqs::WorkerMessage& m) {
  char op[16], order[64];
  long amount = 0;
  if (std::sscanf(m.body.c_str(), "%15s %63s %ld", op, order, &amount) != 3) {
    // Retrying cannot fix a malformed command: straight to the dead-letter queue.
    return lqs::HandlerResult::NonRetryable("malformed command: '" + m.body + "'");
  }
  if (std::strcmp(op, "charge") != 0) {
    throw lqs::NonRetryableError(std::string("unknown operation ") + op);
  }
  Charge(order, amount);  // throwing anything else means "retry after a backoff"
  // Returning success: the worker deletes the message and, with the inbox on,
  // records its idempotency key in the same atomic write.
  return lqs::HandlerResult::Success();
}

// Accepting a request = enqueueing a command keyed by what makes it unique.
lqs::Status Enqueue(lqs::Queue& queue, const std::string& command, const std::string& key) {
  lqs::SendMessageRequest send;
  send.body = command;
  send.message_attributes["IdempotencyKey"] = {"String", key, ""};
  return queue.SendMessage(send).status();
}

int Fail(const lqs::Status& st) {
  std::fprintf(stderr, "lqs_worker_example: %s\n", st.ToString().c_str());
  return 1;
}

void PrintHealth(lqs::Queue& queue, lqs::Queue& dlq) {
  auto q = queue.GetStats();
  auto d = dlq.GetStats();
  if (!q.ok() || !d.ok()) return;
  std::printf("queue %s: %lld visible, %lld in flight, oldest %lld s; %s: %lld\n",
              queue.name().c_str(), static_cast<long long>(q->visible),
              static_cast<long long>(q->in_flight),
              static_cast<long long>(q->oldest_message_age_seconds), dlq.name().c_str(),
              static_cast<long long>(d->visible));
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  bool serve = false;
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--serve") == 0) {
      serve = true;
    } else {
      dir = argv[i];
    }
  }
  const bool temporary = dir.empty();
  if (temporary) {
    dir = (fs::temp_directory_path() / ("lqs-worker-" + std::to_string(::getpid()))).string();
  }

  lqs::Options options;
  options.path = dir;
  auto opened = lqs::Broker::Open(options);
  if (!opened.ok()) return Fail(opened.status());
  std::unique_ptr<lqs::Broker> broker = std::move(opened).value();

  // The work queue sends a message to its dead-letter queue after five failed
  // deliveries; the worker sends non-retryable failures there at once.
  auto dlq = broker->CreateQueue("commands-dlq", {}, {});
  if (!dlq.ok()) return Fail(dlq.status());
  auto queue =
      broker->CreateQueue("commands",
                          {{"RedrivePolicy", "{\"deadLetterTargetArn\":\"" + (*dlq)->arn() +
                                                 "\",\"maxReceiveCount\":\"5\"}"}},
                          {});
  if (!queue.ok()) return Fail(queue.status());

  // Requests arrive.
  const char* commands[][2] = {
      {"charge order-1 100", "charge:order-1"},
      {"charge order-2 250", "charge:order-2"},
      {"charge order-3 75", "charge:order-3"},
      {"refund order-2 250", "refund:order-2"},
      {"garbage", "garbage"},
  };
  for (const auto& c : commands) {
    lqs::Status st = Enqueue(**queue, c[0], c[1]);
    if (!st.ok()) return Fail(st);
  }
  PrintHealth(**queue, **dlq);

  lqs::WorkerOptions wo;
  wo.concurrency = 2;
  wo.inbox = true;              // a redelivered or re-sent command runs once
  wo.backoff_base_seconds = 1;  // a retry waits 1 s, 2 s, 4 s, ...
  wo.logger = [](lqs::WorkerLogLevel level, const std::string& line) {
    if (level >= lqs::WorkerLogLevel::kInfo) std::printf("  log: %s\n", line.c_str());
  };
  auto made = lqs::Worker::Create(*queue, wo, Handle);
  if (!made.ok()) return Fail(made.status());
  std::unique_ptr<lqs::Worker> worker = std::move(made).value();
  if (serve) {
    lqs::Status st = worker->InstallSignalHandlers(std::chrono::seconds(30));
    if (!st.ok()) return Fail(st);
  }
  lqs::Status st = worker->Start();
  if (!st.ok()) return Fail(st);

  if (serve) {
    std::printf("working; SIGTERM or Ctrl-C stops gracefully\n");
    worker->Wait();
  } else {
    // Three charges (one retried once), one unknown operation and one
    // malformed command for the dead-letter queue; then a client that timed
    // out sends its charge again, and the inbox acknowledges it unrun.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    auto settle = [&](int64_t n) {
      for (;;) {
        const lqs::WorkerStats s = worker->stats();
        if (s.succeeded + s.duplicates_skipped + s.dead_lettered >= n) return;
        if (std::chrono::steady_clock::now() > give_up) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    };
    settle(5);
    st = Enqueue(**queue, "charge order-1 100", "charge:order-1");
    if (!st.ok()) return Fail(st);
    settle(6);
    worker->Stop(std::chrono::seconds(30));
  }

  const lqs::WorkerStats s = worker->stats();
  std::printf(
      "worker: received %lld, succeeded %lld, retried %lld, dead-lettered %lld, "
      "duplicates skipped %lld, released %lld, handler p50 %.1f ms p99 %.1f ms\n",
      static_cast<long long>(s.received), static_cast<long long>(s.succeeded),
      static_cast<long long>(s.retried), static_cast<long long>(s.dead_lettered),
      static_cast<long long>(s.duplicates_skipped), static_cast<long long>(s.released),
      s.handler_p50_ms, s.handler_p99_ms);
  {
    std::lock_guard<std::mutex> lock(balances_mu);
    for (const auto& [order, total] : balances) {
      std::printf("balance %s = %ld\n", order.c_str(), total);
    }
  }
  PrintHealth(**queue, **dlq);
  lqs::ReceiveMessageRequest peek;
  peek.max_number_of_messages = 10;
  peek.wait_time_seconds = 0;
  peek.message_attribute_names = {"All"};
  auto dead = (*dlq)->ReceiveMessage(peek);
  if (dead.ok()) {
    for (const auto& m : dead->messages) {
      auto err = m.message_attributes.find("lqs.Error");
      std::printf("dead letter: '%s' (%s)\n", m.body.c_str(),
                  err == m.message_attributes.end() ? "?" : err->second.string_value.c_str());
    }
  }

  worker.reset();
  lqs::Status closed = broker->Close();
  if (temporary) fs::remove_all(dir);
  return closed.ok() ? 0 : Fail(closed);
}
