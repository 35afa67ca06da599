#include "tests/crash_child_support.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <thread>
#include <utility>

#include <fcntl.h>
#include <unistd.h>

#include "lib/engine/open.h"
#include "tests/test_profile.h"

namespace lqs::testing {

void Die(const std::string& what) {
  // The executable's name (glibc): lqs_crash_child, lqs_worker_crash_child.
  std::fprintf(stderr, "%s: %s\n", program_invocation_short_name, what.c_str());
  std::_Exit(2);
}

ChildArgs ParseChildArgs(int argc, char** argv, int extra_args, const char* extra_usage) {
  if (argc != 4 + extra_args) {
    std::fprintf(stderr, "usage: %s <db_dir> <oracle_dir> <seed>%s%s\n", argv[0],
                 *extra_usage != '\0' ? " " : "", extra_usage);
    std::exit(2);
  }
  ChildArgs args;
  args.db_dir = argv[1];
  args.oracle_dir = argv[2];
  args.seed = std::strtoull(argv[3], nullptr, 10);
  args.seed_text = std::to_string(args.seed);
  std::error_code ec;
  std::filesystem::create_directories(args.oracle_dir, ec);
  if (ec) Die("cannot create " + args.oracle_dir + ": " + ec.message());
  return args;
}

Options ChildOptions(const ChildArgs& args, Durability durability) {
  Options options = TestProfileOptions();
  options.path = args.db_dir;
  options.durability = durability;
  options.background_maintenance = true;
  options.maintenance_interval_ms = 200;
  return options;
}

// ---- OracleLog ----------------------------------------------------------------------

OracleLog::OracleLog(const std::string& path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) Die("cannot open oracle file " + path + ": " + std::strerror(errno));
}

OracleLog::~OracleLog() { ::close(fd_); }

void OracleLog::Record(const char* event, const std::string& value) {
  Append(std::string(event) + " " + value + "\n");
}

void OracleLog::Record(const char* event, const std::vector<std::string>& values) {
  std::string lines;
  for (const auto& value : values) {
    lines += event;
    lines += ' ';
    lines += value;
    lines += '\n';
  }
  if (!lines.empty()) Append(lines);
}

void OracleLog::Append(const std::string& lines) {
  size_t done = 0;
  while (done < lines.size()) {
    const ssize_t n = ::write(fd_, lines.data() + done, lines.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      Die(std::string("oracle write failed: ") + std::strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
}

// ---- The database -------------------------------------------------------------------

std::unique_ptr<Broker> OpenOrDie(const Options& options) {
  auto opened = Broker::Open(options);
  if (!opened.ok()) Die("open failed: " + opened.status().ToString());
  return std::move(opened).value();
}

ChildDatabase OpenChildDatabase(Options options) {
  if (const char* wb = std::getenv("LQS_CRASH_WRITE_BUFFER_BYTES")) {
    options.write_buffer_bytes = std::strtoll(wb, nullptr, 10);
  }
  ChildDatabase db;
  const char* journal = std::getenv("LQS_POWER_LOSS_JOURNAL");
  if (journal == nullptr) {
    db.broker = OpenOrDie(options);
    return db;
  }
  auto opened = OpenFaultyBroker(options, journal);
  if (!opened.ok()) Die("open " + options.path + ": " + opened.status().ToString());
  return std::move(opened).value();
}

StatusOr<QueueWithDlq> CreateQueueWithDlq(Broker& broker, const std::string& name,
                                          const std::string& dlq_name,
                                          int visibility_timeout_seconds, int max_receive_count) {
  QueueWithDlq out;
  auto dlq = broker.CreateQueue(dlq_name, {}, {});
  if (!dlq.ok()) return dlq.status();
  out.dlq = std::move(dlq).value();
  const std::string redrive = "{\"deadLetterTargetArn\":\"" + out.dlq->arn() +
                              "\",\"maxReceiveCount\":\"" + std::to_string(max_receive_count) +
                              "\"}";
  auto queue = broker.CreateQueue(
      name,
      {{std::string(attr::kVisibilityTimeout), std::to_string(visibility_timeout_seconds)},
       {std::string(attr::kRedrivePolicy), redrive}},
      {});
  if (!queue.ok()) return queue.status();
  out.queue = std::move(queue).value();
  return out;
}

StatusOr<CrashQueues> CreateCrashQueues(Broker& broker) {
  auto queues = CreateQueueWithDlq(broker, kCrashWorkQueue, kCrashDeadLetterQueue, 2, 3);
  if (!queues.ok()) return queues.status();
  auto fifo =
      broker.CreateQueue(kCrashFifoQueue, {{"FifoQueue", "true"}, {"VisibilityTimeout", "2"}}, {});
  if (!fifo.ok()) return fifo.status();
  return CrashQueues{queues->queue, queues->dlq, *fifo};
}

void PaceProducer(Queue& q, int64_t step, int64_t max_backlog, std::chrono::milliseconds pause) {
  if (step % 10 == 0) {
    for (;;) {
      auto s = q.GetStats();
      if (!s.ok() || s->visible <= max_backlog) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  std::this_thread::sleep_for(pause);
}

void SignalReady() {
  std::printf("ready\n");
  std::fflush(stdout);
}

void ChildThreads::Start(const std::string& name, std::function<void(OracleLog&)> fn) {
  logs_.push_back(
      std::make_unique<OracleLog>(args_.oracle_dir + "/" + args_.seed_text + "-" + name + ".log"));
  threads_.emplace_back([&log = *logs_.back(), fn = std::move(fn)] { fn(log); });
}

void ChildThreads::RunUntilKilled() {
  SignalReady();
  for (auto& t : threads_) t.join();
}

}  // namespace lqs::testing
