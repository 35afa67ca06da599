#include "bench/systems.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <utility>

#include "bench/enum_names.h"

#include "lqs/lqs.h"

namespace lqs::bench {

const char* SystemName(SystemKind k) {
  static constexpr std::pair<SystemKind, const char*> kNames[] = {{SystemKind::kLqs, "lqs"},
                                                                  {SystemKind::kCeiling, "ceiling"},
                                                                  {SystemKind::kSqlite, "sqlite"}};
  return NameIn(kNames, k);
}

std::string MakeBody(size_t n) {
  static const char kAlphabet[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ,.-_";
  std::string s(n, 'x');
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    s[i] = kAlphabet[x % (sizeof(kAlphabet) - 1)];
  }
  return s;
}

std::string GroupName(int64_t i) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "g%07lld", static_cast<long long>(i));
  return buf;
}

namespace {

// lqs through its public API only.
class LqsSystem final : public QueueSystem {
 public:
  bool Init(const SystemConfig& config) {
    Options options;
    options.path = config.dir;
    options.durability = config.durability;
    auto broker = Broker::Open(options);
    if (!broker.ok()) {
      std::fprintf(stderr, "lqs: open %s: %s\n", config.dir.c_str(),
                   broker.status().ToString().c_str());
      return false;
    }
    broker_ = std::move(broker).value();
    groups_ = config.fifo_groups;
    AttributeMap attrs;
    if (groups_ > 0) attrs[std::string(attr::kFifoQueue)] = "true";
    auto queue = broker_->CreateQueue(groups_ > 0 ? "bench.fifo" : "bench", attrs, {});
    if (!queue.ok()) {
      std::fprintf(stderr, "lqs: CreateQueue: %s\n", queue.status().ToString().c_str());
      return false;
    }
    queue_ = std::move(queue).value();
    const std::string body = MakeBody(config.body_bytes);
    single_.body = body;
    for (int i = 1; i <= 10; ++i) {
      std::vector<SendMessageBatchEntry> entries;
      for (int j = 0; j < i; ++j) {
        SendMessageBatchEntry e;
        e.id = std::to_string(j);
        e.request.body = body;
        entries.push_back(std::move(e));
      }
      batches_[i] = std::move(entries);
    }
    for (int j = 0; j < 10; ++j) ids_.push_back(std::to_string(j));
    if (groups_ > 0) {
      // Dedup ids stay unique across reopens of the same directory.
      dedup_base_ =
          std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + "-";
    }
    return true;
  }

  bool Send(int n) override {
    if (groups_ > 0) return SendFifo(n);
    if (n == 1) return SendOne(single_);
    return BatchOk("SendMessageBatch", queue_->SendMessageBatch(batches_[n]));
  }

  int Receive(int max, std::vector<std::string>* handles) override {
    ReceiveMessageRequest req;
    req.max_number_of_messages = max;
    req.wait_time_seconds = 0;
    auto r = queue_->ReceiveMessage(req);
    if (!r.ok()) {
      Fail("ReceiveMessage", r.status());
      return -1;
    }
    for (auto& m : r->messages) handles->push_back(std::move(m.receipt_handle));
    return static_cast<int>(r->messages.size());
  }

  bool Delete(const std::vector<std::string>& handles) override {
    if (handles.size() == 1) {
      Status st = queue_->DeleteMessage(handles[0]);
      if (!st.ok()) return Fail("DeleteMessage", st);
      return true;
    }
    std::vector<DeleteMessageBatchEntry> entries;
    entries.reserve(handles.size());
    for (size_t i = 0; i < handles.size(); ++i) entries.push_back({ids_[i], handles[i]});
    return BatchOk("DeleteMessageBatch", queue_->DeleteMessageBatch(entries));
  }

  // A record under a new key and one message, in one commit (lqs/transaction.h).
  bool TxSend() override {
    char key[24];
    std::snprintf(key, sizeof(key), "rec-%016lld", static_cast<long long>(next_.fetch_add(1)));
    std::unique_ptr<Transaction> tx = broker_->BeginTransaction();
    if (Status st = tx->Put("bench", key, single_.body); !st.ok()) return Fail("Put", st);
    if (Status st = tx->SendMessage(queue_->name(), single_); !st.ok()) {
      return Fail("Transaction::SendMessage", st);
    }
    auto done = tx->Commit();
    if (!done.ok()) return Fail("Commit", done.status());
    return true;
  }

  // FIFO sends: the request objects are built per call (group and dedup ids
  // differ per message), as an application would.
  bool SendFifo(int n) {
    const int64_t first = next_.fetch_add(n);
    if (n == 1) {
      SendMessageRequest r = single_;
      r.message_group_id = GroupName(first % groups_);
      r.message_deduplication_id = dedup_base_ + std::to_string(first);
      return SendOne(r);
    }
    std::vector<SendMessageBatchEntry> entries = batches_[n];
    for (int j = 0; j < n; ++j) {
      entries[j].request.message_group_id = GroupName((first + j) % groups_);
      entries[j].request.message_deduplication_id = dedup_base_ + std::to_string(first + j);
    }
    return BatchOk("SendMessageBatch", queue_->SendMessageBatch(entries));
  }

  bool Close() override {
    queue_.reset();
    if (!broker_) return true;
    Status st = broker_->Close();
    broker_.reset();
    if (!st.ok()) return Fail("Close", st);
    return true;
  }

  ~LqsSystem() override { Close(); }

 private:
  static bool Fail(const char* what, const Status& st) {
    std::fprintf(stderr, "lqs: %s: %s\n", what, st.ToString().c_str());
    return false;
  }

  // A batch call's outcome: false, with the error or the first failed entry
  // on stderr, unless the call and every entry succeeded.
  template <typename BatchResult>
  static bool BatchOk(const char* what, const BatchResult& r) {
    if (!r.ok()) return Fail(what, r.status());
    if (!r->failed.empty()) {
      std::fprintf(stderr, "lqs: %s entry failed: %s\n", what, r->failed[0].message.c_str());
      return false;
    }
    return true;
  }

  bool SendOne(const SendMessageRequest& request) {
    auto r = queue_->SendMessage(request);
    if (!r.ok()) return Fail("SendMessage", r.status());
    return true;
  }

  std::unique_ptr<Broker> broker_;
  std::shared_ptr<Queue> queue_;
  SendMessageRequest single_;
  std::vector<SendMessageBatchEntry> batches_[11];
  std::vector<std::string> ids_;
  int groups_ = 0;
  std::string dedup_base_;
  std::atomic<int64_t> next_{0};
};

}  // namespace

std::unique_ptr<QueueSystem> OpenSystem(SystemKind kind, const SystemConfig& config) {
  std::error_code ec;
  std::filesystem::create_directories(config.dir, ec);
  switch (kind) {
    case SystemKind::kLqs:
      return MakeSystem<LqsSystem>(config);
    case SystemKind::kCeiling:
      return OpenRocksDbCeiling(config);
    case SystemKind::kSqlite:
      return OpenSqliteQueue(config);
  }
  return nullptr;
}

}  // namespace lqs::bench
