// tests/soak_test.cc — the soak test: 4 producers and 4 consumers on one
// standard queue for a bounded time, with resident memory sampled from
// /proc/self/status.
//
// Producers pause while more than 20,000 messages are waiting, so the run
// is a steady state of about that backlog.
//
// Proves, over a sustained mixed load with the real clock, background
// maintenance on and the default durability (process):
//   * nothing is lost or duplicated: every message sent is deleted exactly
//     once (count, sum and xor of sequence numbers agree between producers
//     and consumers after a final drain), and the queue's totals agree;
//   * memory is bounded: RSS growth from the end of warm-up (a quarter of the
//     run, at least 2 s) to the end stays under LQS_SOAK_RSS_GROWTH_MB
//     (default 128 MiB: the 32 MiB block cache plus memtables of 16 MiB for
//     the four busy column families, plus slack). The library's own memory is
//     O(in flight), which stays <= 40 messages here; anything that grew with
//     the number of messages sent would show up as growth.
//
//   LQS_SOAK_SECONDS=120 build/lqs_soak_test     # the long mode
//
// Figures are printed as one "soak:" line for docs/reliability.md.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/testutil.h"

namespace lqs::testing {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  const long long n = std::atoll(v);
  return n > 0 ? n : fallback;
}

// VmRSS in KiB, or -1.
int64_t ResidentKiB() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atoll(line.c_str() + 6);
  }
  return -1;
}

// Sequence numbers travel in the body: "<seq>:<padding>".
uint64_t SeqOf(const std::string& body) { return std::strtoull(body.c_str(), nullptr, 10); }

struct Tally {
  std::atomic<uint64_t> count{0}, sum{0}, xr{0};
  void Add(uint64_t seq) {
    count.fetch_add(1, std::memory_order_relaxed);
    sum.fetch_add(seq, std::memory_order_relaxed);
    xr.fetch_xor(seq, std::memory_order_relaxed);
  }
};

TEST(SoakTest, ProducersConsumersBoundedMemoryNothingLost) {
  const int64_t seconds = EnvInt("LQS_SOAK_SECONDS", 10);
  const int64_t growth_limit_mb = EnvInt("LQS_SOAK_RSS_GROWTH_MB", 128);
  constexpr int kProducers = 4, kConsumers = 4;
  constexpr int64_t kMaxBacklog = 20000;

  TempDir dir;
  Options options;
  options.path = dir.path() + "/db";  // real clock, maintenance on, durability process
  auto opened = Broker::Open(options);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::unique_ptr<Broker> broker = std::move(opened).value();
  auto created = broker->CreateQueue("soak", {{"VisibilityTimeout", "120"}}, {});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  std::shared_ptr<Queue> queue = *created;

  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::seconds(seconds);
  const auto warm_end = start + std::chrono::milliseconds(std::max<int64_t>(2000, seconds * 250));

  std::atomic<uint64_t> next_seq{1};
  std::atomic<bool> producers_done{false}, stop_sampling{false};
  std::atomic<int64_t> errors{0};
  std::mutex error_mu;
  std::string first_error;
  auto record_error = [&](const Status& s) {
    errors.fetch_add(1);
    std::lock_guard<std::mutex> lock(error_mu);
    if (first_error.empty()) first_error = s.ToString();
  };
  Tally sent, deleted;

  // RSS sampler: every 100 ms.
  int64_t rss_start = ResidentKiB(), rss_warm = -1, rss_max = rss_start, rss_end = -1;
  std::thread sampler([&] {
    while (!stop_sampling.load()) {
      const int64_t r = ResidentKiB();
      rss_max = std::max(rss_max, r);
      if (rss_warm < 0 && Clock::now() >= warm_end) rss_warm = r;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });

  std::vector<std::thread> threads;
  for (int p = 0; p < kProducers; ++p) {
    threads.emplace_back([&, p] {
      std::mt19937 rng(static_cast<uint32_t>(p) * 7919u + 1u);
      std::uniform_int_distribution<int> len(16, 2048);
      while (Clock::now() < deadline) {
        // Back-pressure: keep the backlog near kMaxBacklog, so the run
        // measures a steady state (and the final drain stays short) however
        // fast the consumers are on this machine.
        if ((rng() % 8) == 0) {
          auto st = queue->GetStats();
          if (st.ok() && st->visible > kMaxBacklog) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
            continue;
          }
        }
        const bool batch = (rng() % 4) != 0;
        const int n = batch ? 10 : 1;
        std::vector<SendMessageBatchEntry> entries(n);
        std::vector<uint64_t> seqs(n);
        for (int i = 0; i < n; ++i) {
          seqs[i] = next_seq.fetch_add(1);
          entries[i].id = "e" + std::to_string(i);
          entries[i].request.body = std::to_string(seqs[i]) + ":" + std::string(len(rng), 'x');
        }
        if (batch) {
          auto r = queue->SendMessageBatch(entries);
          if (!r.ok()) {
            record_error(r.status());
            continue;
          }
          for (const auto& f : r->failed) record_error(Status(ErrorCode::kInternal, f.message));
          for (const auto& s : r->successful) sent.Add(seqs[std::stoi(s.id.substr(1))]);
        } else {
          auto r = queue->SendMessage(entries[0].request);
          if (!r.ok()) {
            record_error(r.status());
            continue;
          }
          sent.Add(seqs[0]);
        }
      }
    });
  }
  for (int c = 0; c < kConsumers; ++c) {
    threads.emplace_back([&] {
      ReceiveMessageRequest req;
      req.max_number_of_messages = 10;
      req.wait_time_seconds = 1;
      for (;;) {
        const bool done = producers_done.load();
        auto r = queue->ReceiveMessage(req);
        if (!r.ok()) {
          record_error(r.status());
          return;
        }
        if (r->messages.empty()) {
          if (done) return;  // drained
          continue;
        }
        std::vector<DeleteMessageBatchEntry> entries;
        for (size_t i = 0; i < r->messages.size(); ++i) {
          entries.push_back({"d" + std::to_string(i), r->messages[i].receipt_handle});
        }
        auto d = queue->DeleteMessageBatch(entries);
        if (!d.ok()) {
          record_error(d.status());
          continue;
        }
        for (const auto& f : d->failed) record_error(Status(ErrorCode::kInternal, f.message));
        for (const auto& id : d->successful) {
          deleted.Add(SeqOf(r->messages[std::stoi(id.substr(1))].body));
        }
      }
    });
  }
  for (int p = 0; p < kProducers; ++p) threads[p].join();
  const auto produced_at = Clock::now();
  auto stats_before_drain = queue->GetStats();
  producers_done.store(true);
  for (size_t i = kProducers; i < threads.size(); ++i) threads[i].join();
  const auto drained_at = Clock::now();
  rss_end = ResidentKiB();
  stop_sampling.store(true);
  sampler.join();
  if (rss_warm < 0) rss_warm = rss_end;

  auto stats = queue->GetStats();
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  auto problems = broker->Verify();
  ASSERT_TRUE(problems.ok()) << problems.status().ToString();
  for (const auto& p : *problems) ADD_FAILURE() << "inconsistent: " << p;

  const double run_s = std::chrono::duration<double>(produced_at - start).count();
  const double drain_s = std::chrono::duration<double>(drained_at - produced_at).count();
  std::printf(
      "soak: %.1f s (+%.1f s drain), %llu sent (%.0f/s), %llu deleted, backlog at stop %lld, "
      "errors %lld; RSS start %lld KiB, after warm-up %lld KiB, max %lld KiB, end %lld KiB "
      "(growth %+lld KiB, limit %lld MiB%s)\n",
      run_s, drain_s, static_cast<unsigned long long>(sent.count.load()),
      sent.count.load() / std::max(run_s, 0.001),
      static_cast<unsigned long long>(deleted.count.load()),
      stats_before_drain.ok()
          ? static_cast<long long>(stats_before_drain->visible + stats_before_drain->in_flight)
          : -1LL,
      static_cast<long long>(errors.load()), static_cast<long long>(rss_start),
      static_cast<long long>(rss_warm), static_cast<long long>(rss_max),
      static_cast<long long>(rss_end), static_cast<long long>(rss_end - rss_warm),
      static_cast<long long>(growth_limit_mb), kSanitized ? ", not enforced under a sanitizer" : "");
  std::fflush(stdout);

  EXPECT_EQ(errors.load(), 0) << first_error;
  EXPECT_GT(sent.count.load(), 0u);
  // Nothing lost, nothing duplicated.
  EXPECT_EQ(deleted.count.load(), sent.count.load());
  EXPECT_EQ(deleted.sum.load(), sent.sum.load());
  EXPECT_EQ(deleted.xr.load(), sent.xr.load());
  EXPECT_EQ(stats->visible + stats->in_flight + stats->delayed, 0);
  EXPECT_EQ(stats->sent_total, static_cast<int64_t>(sent.count.load()));
  EXPECT_EQ(stats->deleted_total, static_cast<int64_t>(deleted.count.load()));
  // Bounded memory.
  if (!kSanitized) {
    EXPECT_LT(rss_end - rss_warm, growth_limit_mb * 1024)
        << "RSS grew from " << rss_warm << " KiB after warm-up to " << rss_end << " KiB";
  }
  EXPECT_TRUE(broker->Close().ok());
}

}  // namespace
}  // namespace lqs::testing
