// Bridges (lqs/bridge.h) between two real databases on one ManualClock: the
// remote is a second Broker behind lqsd's own request handling
// (server/local_caller.h), reached through a transport that the tests make
// fail: offline, answers lost after the remote acted, digests corrupted,
// deletes refused. Backoffs and leases run on the ManualClock, so days
// offline take no real time. tests/bridge/test_bridge.py runs the same
// bridges over real HTTP, through a fault proxy, with kill -9.

#include "lqs/bridge.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "server/local_caller.h"
#include "tests/testutil.h"

namespace lqs::testing {
namespace {

using Json = nlohmann::json;

constexpr const char* kRemoteBase = "http://localhost:9324/123456789012/";

// What the transport does to the calls; shared by every transport of a test.
struct Faults {
  std::mutex mu;
  bool offline = false;            // every call fails without reaching the remote
  int lose_send_answer_every = 0;  // every n-th SendMessageBatch reaches the remote, then fails
  int corrupt_md5 = 0;             // this many SendMessageBatch answers get a wrong digest
  bool fail_deletes = false;       // DeleteMessageBatch fails without reaching the remote
  int sends = 0;
  int lost_entries = 0;  // entries of sends whose answer was lost
  int corrupted = 0;
  std::map<std::string, int> calls;
};

class FaultyTransport final : public RemoteTransport {
 public:
  FaultyTransport(lqsd::LocalCaller* remote, Faults* faults) : remote_(remote), f_(faults) {}

  StatusOr<RemoteReply> Call(std::string_view action, const std::string& payload,
                             int /*extra_seconds*/) override {
    bool lose = false;
    bool corrupt = false;
    {
      std::lock_guard<std::mutex> lock(f_->mu);
      f_->calls[std::string(action)]++;
      if (f_->offline) return Status(ErrorCode::kIOError, "connection refused (test)");
      if (action == "DeleteMessageBatch" && f_->fail_deletes) {
        return Status(ErrorCode::kIOError, "connection reset (test)");
      }
      if (action == "SendMessageBatch") {
        ++f_->sends;
        lose = f_->lose_send_answer_every > 0 && f_->sends % f_->lose_send_answer_every == 0;
        if (!lose && f_->corrupt_md5 > 0) {
          --f_->corrupt_md5;
          corrupt = true;
        }
      }
    }
    lqsd::HttpResponse r = remote_->Call(action, payload);
    RemoteReply out;
    out.http_status = r.status;
    for (const auto& [name, value] : r.headers) {
      if (name == "x-amzn-query-error") out.query_error = value;
    }
    out.body = std::move(r.body);
    if (lose) {
      std::lock_guard<std::mutex> lock(f_->mu);
      f_->lost_entries += static_cast<int>(Json::parse(payload)["Entries"].size());
      return Status(ErrorCode::kIOError, "the answer was lost (test)");
    }
    if (corrupt) {
      Json j = Json::parse(out.body);
      for (auto& e : j["Successful"]) e["MD5OfMessageBody"] = "00000000000000000000000000000000";
      std::lock_guard<std::mutex> lock(f_->mu);
      f_->corrupted += static_cast<int>(j["Successful"].size());
      out.body = j.dump();
    }
    return out;
  }

 private:
  lqsd::LocalCaller* remote_;
  Faults* f_;
};

class BridgeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    local_ = OpenAt(local_dir_.path());
    remote_ = OpenAt(remote_dir_.path());
    caller_ = std::make_unique<lqsd::LocalCaller>(
        remote_.get(), lqsd::LocalCallerConfig{"123456789012", "http://localhost:9324"});
  }
  void TearDown() override {
    caller_.reset();
    ASSERT_OK(local_->Close());
    ASSERT_OK(remote_->Close());
  }

  std::unique_ptr<Broker> OpenAt(const std::string& path) {
    Options o = TestProfileOptions();
    o.path = path;
    o.clock = clock_;
    o.background_maintenance = false;
    auto b = Broker::Open(o);
    EXPECT_OK(b);
    return b.ok() ? std::move(*b) : nullptr;
  }

  BridgeOptions Forward(const std::string& local, const std::string& remote) {
    BridgeOptions o;
    o.direction = BridgeDirection::kForward;
    o.local_queue = local;
    o.remote_queue_url = kRemoteBase + remote;
    o.transport_factory = [this] {
      return std::unique_ptr<RemoteTransport>(new FaultyTransport(caller_.get(), &faults_));
    };
    o.backoff_base_ms = 100;
    o.backoff_max_ms = 60'000;
    o.log = [this](std::string_view line) {
      std::lock_guard<std::mutex> lock(log_mu_);
      log_.emplace_back(line);
    };
    return o;
  }
  BridgeOptions Pull(const std::string& remote, const std::string& local) {
    BridgeOptions o = Forward(local, remote);
    o.direction = BridgeDirection::kPull;
    o.wait_time_seconds = 0;  // the remote's long poll would wait on the ManualClock
    return o;
  }

  std::unique_ptr<Bridge> Start(const BridgeOptions& o) {
    auto b = Bridge::Start(local_.get(), o);
    EXPECT_OK(b);
    return b.ok() ? std::move(*b) : nullptr;
  }

  // Polls `done` for up to 60 s of real time, moving the clock `step_ms`
  // between polls (backoffs end, leases run out). Waits for no timeout: the
  // clock is moved instead.
  bool Eventually(const std::function<bool()>& done, int64_t step_ms = 0) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < give_up) {
      if (done()) return true;
      if (step_ms > 0) clock_->AdvanceMillis(step_ms);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return done();
  }

  static std::shared_ptr<Queue> Make(Broker& b, const std::string& name,
                                     const AttributeMap& attrs = {}) {
    auto q = b.CreateQueue(name, attrs, {});
    EXPECT_OK(q);
    return q.ok() ? *q : nullptr;
  }
  static int64_t Stored(Queue& q) {
    auto s = q.GetStats();
    return s.ok() ? s->visible + s->in_flight + s->delayed : -1;
  }
  // Receives and deletes every message of `q`.
  static std::vector<ReceivedMessage> Drain(Queue& q) {
    std::vector<ReceivedMessage> out;
    for (;;) {
      ReceiveMessageRequest r;
      r.max_number_of_messages = 10;
      r.wait_time_seconds = 0;
      r.message_system_attribute_names = {"All"};
      r.message_attribute_names = {"All"};
      auto got = q.ReceiveMessage(r);
      EXPECT_OK(got);
      if (!got.ok() || got->messages.empty()) return out;
      for (auto& m : got->messages) {
        EXPECT_OK(q.DeleteMessage(m.receipt_handle));
        out.push_back(std::move(m));
      }
    }
  }
  int LogLines(const std::string& part) {
    std::lock_guard<std::mutex> lock(log_mu_);
    return static_cast<int>(std::count_if(log_.begin(), log_.end(), [&](const std::string& l) {
      return l.find(part) != std::string::npos;
    }));
  }
  // The faults, read by the transport's threads: set them with the lock
  // held once a bridge runs (before Start() and after Wait(), faults() is
  // enough).
  Faults& faults() { return faults_; }
  void SetFaults(const std::function<void(Faults&)>& change) {
    std::lock_guard<std::mutex> lock(faults_.mu);
    change(faults_);
  }

  TempDir local_dir_;
  TempDir remote_dir_;
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>();
  std::unique_ptr<Broker> local_;
  std::unique_ptr<Broker> remote_;
  std::unique_ptr<lqsd::LocalCaller> caller_;
  Faults faults_;
  std::mutex log_mu_;
  std::vector<std::string> log_;
};

SendMessageRequest Rich(int i) {
  SendMessageRequest s;
  s.body = "body " + std::to_string(i) + " \xE2\x9C\x93 <&>";
  s.message_attributes["n"] = MessageAttributeValue{"Number", std::to_string(i), ""};
  s.message_attributes["s"] = MessageAttributeValue{"String.custom", "v" + std::to_string(i), ""};
  s.message_attributes["b"] = MessageAttributeValue{"Binary", "", std::string("\0\x01\xff", 3)};
  s.message_system_attributes["AWSTraceHeader"] = MessageAttributeValue{
      "String", "Root=1-5759e988-bd862e3fe1be46a99427" + std::to_string(i), ""};
  return s;
}

TEST_F(BridgeTest, ForwardMovesEveryMessageByteExact) {
  auto out = Make(*local_, "outbox");
  auto in = Make(*remote_, "inbox");
  const int n = 35;
  for (int i = 0; i < n; ++i) ASSERT_OK(out->SendMessage(Rich(i)));
  auto bridge = Start(Forward("outbox", "inbox"));
  ASSERT_TRUE(Eventually([&] { return Stored(*out) == 0; }));
  bridge->Stop();
  ASSERT_OK(bridge->Wait());
  const BridgeStats stats = bridge->Stats();
  EXPECT_EQ(stats.transferred, n);
  EXPECT_TRUE(stats.online);
  EXPECT_FALSE(stats.running);
  std::set<std::string> bodies;
  for (const ReceivedMessage& m : Drain(*in)) {
    bodies.insert(m.body);
    const int i = std::stoi(m.body.substr(5));
    const SendMessageRequest want = Rich(i);
    EXPECT_EQ(m.message_attributes, want.message_attributes);
    EXPECT_EQ(m.attributes.at("AWSTraceHeader"),
              want.message_system_attributes.at("AWSTraceHeader").string_value);
  }
  EXPECT_EQ(bodies.size(), static_cast<size_t>(n));
}

TEST_F(BridgeTest, OnceDrainsAndEnds) {
  auto out = Make(*local_, "outbox");
  auto in = Make(*remote_, "inbox");
  for (int i = 0; i < 23; ++i) ASSERT_OK(out->SendMessage(Rich(i)));
  BridgeOptions o = Forward("outbox", "inbox");
  o.once = true;
  auto bridge = Start(o);
  ASSERT_OK(bridge->Wait());
  EXPECT_EQ(Stored(*out), 0);
  EXPECT_EQ(Stored(*in), 23);
}

TEST_F(BridgeTest, OnceGivesUpWhenOfflineAndKeepsEverything) {
  auto out = Make(*local_, "outbox");
  auto in = Make(*remote_, "inbox");
  for (int i = 0; i < 12; ++i) ASSERT_OK(out->SendMessage(Rich(i)));
  faults().offline = true;
  BridgeOptions o = Forward("outbox", "inbox");
  o.once = true;
  o.once_attempts = 3;
  auto bridge = Start(o);
  auto ended = std::async(std::launch::async, [&] { return bridge->Wait(); });
  ASSERT_TRUE(Eventually(
      [&] { return ended.wait_for(std::chrono::seconds(0)) == std::future_status::ready; },
      o.backoff_max_ms));
  Status st = ended.get();
  EXPECT_CODE(st, kIOError);
  EXPECT_NE(st.message().find("could not be reached"), std::string::npos) << st.ToString();
  // Nothing was deleted, and what the bridge held is visible again.
  auto counts = out->GetStats();
  ASSERT_OK(counts);
  EXPECT_EQ(counts->visible, 12);
  EXPECT_EQ(Stored(*in), 0);
}

TEST_F(BridgeTest, DaysOfflineLoseNothingAndLogOneLinePerTransition) {
  auto out = Make(*local_, "outbox", {{"VisibilityTimeout", "30"}});
  auto in = Make(*remote_, "inbox");
  const int n = 50;
  for (int i = 0; i < n; ++i) ASSERT_OK(out->SendMessage(Rich(i)));
  faults().offline = true;
  BridgeOptions o = Forward("outbox", "inbox");
  o.backoff_max_ms = 300'000;
  // An hour's lease is renewed half an hour before it ends: thirty of the
  // test's clock steps, time enough for a lane to wake even under TSan.
  o.lease_seconds = 3600;
  auto bridge = Start(o);
  // Three days in steps of a minute.
  const int64_t start = clock_->NowMillis();
  ASSERT_TRUE(
      Eventually([&] { return clock_->NowMillis() - start >= 3LL * 86400 * 1000; }, 60'000));
  BridgeStats stats = bridge->Stats();
  EXPECT_FALSE(stats.online);
  EXPECT_GT(stats.failures["NetworkError"], 10);
  EXPECT_LE(stats.backoff_ms, o.backoff_max_ms);
  EXPECT_EQ(stats.transferred, 0);
  EXPECT_EQ(Stored(*out), n);
  SetFaults([](Faults& f) { f.offline = false; });
  ASSERT_TRUE(Eventually([&] { return Stored(*out) == 0; }, 10'000));
  bridge->Stop();
  ASSERT_OK(bridge->Wait());
  EXPECT_EQ(Drain(*in).size(), static_cast<size_t>(n));
  // The leases were renewed while the batches waited: a message leased once
  // was forwarded on its first receive.
  EXPECT_EQ(LogLines("offline"), 1);
  EXPECT_EQ(LogLines("online"), 1);
}

TEST_F(BridgeTest, LeasesAreKeptAliveWhileABatchWaits) {
  auto out = Make(*local_, "outbox");
  auto dlq = Make(*local_, "dlq");
  ASSERT_OK(out->SetAttributes({{"RedrivePolicy", R"({"deadLetterTargetArn":")" + dlq->arn() +
                                                      R"(","maxReceiveCount":1})"}}));
  auto in = Make(*remote_, "inbox");
  for (int i = 0; i < 10; ++i) ASSERT_OK(out->SendMessage(Rich(i)));
  faults().offline = true;
  BridgeOptions o = Forward("outbox", "inbox");
  // One lane holds the ten messages; the other would receive any whose
  // lease ended.
  o.max_batches_in_flight = 2;
  o.lease_seconds = 60;
  o.backoff_max_ms = 600'000;  // ten minutes between tries: ten leases long
  auto bridge = Start(o);
  const int64_t start = clock_->NowMillis();
  // Steps of two seconds: the lease is renewed fifteen steps before it ends.
  ASSERT_TRUE(Eventually([&] { return clock_->NowMillis() - start >= 3600'000; }, 2'000));
  // Had a lease ended, the message would have been received a second time
  // and moved to the DLQ (maxReceiveCount 1).
  EXPECT_EQ(Stored(*dlq), 0);
  SetFaults([](Faults& f) { f.offline = false; });
  ASSERT_TRUE(Eventually([&] { return Stored(*in) == 10; }, 5'000));
  EXPECT_EQ(Stored(*dlq), 0);
}

TEST_F(BridgeTest, DigestMismatchIsRetriedNeverDeleted) {
  auto out = Make(*local_, "outbox");
  auto in = Make(*remote_, "inbox");
  for (int i = 0; i < 20; ++i) ASSERT_OK(out->SendMessage(Rich(i)));
  faults().corrupt_md5 = 2;
  BridgeOptions o = Forward("outbox", "inbox");
  o.max_batches_in_flight = 1;
  auto bridge = Start(o);
  ASSERT_TRUE(Eventually([&] { return Stored(*out) == 0; }, 1'000));
  bridge->Stop();
  ASSERT_OK(bridge->Wait());
  const BridgeStats stats = bridge->Stats();
  EXPECT_EQ(stats.md5_mismatches, faults().corrupted);
  EXPECT_GT(stats.md5_mismatches, 0);
  // Each mismatched message was sent again: a duplicate, never a loss.
  std::multiset<std::string> bodies;
  for (const auto& m : Drain(*in)) bodies.insert(m.body);
  EXPECT_EQ(bodies.size(), static_cast<size_t>(20 + faults().corrupted));
  for (int i = 0; i < 20; ++i) EXPECT_GE(bodies.count(Rich(i).body), 1u);
}

TEST_F(BridgeTest, LostAnswersDuplicateOnlyTheirEntries) {
  auto out = Make(*local_, "outbox");
  auto in = Make(*remote_, "inbox");
  const int n = 200;
  for (int i = 0; i < n; ++i) ASSERT_OK(out->SendMessage(Rich(i)));
  faults().lose_send_answer_every = 3;
  auto bridge = Start(Forward("outbox", "inbox"));
  ASSERT_TRUE(Eventually([&] { return Stored(*out) == 0; }, 1'000));
  bridge->Stop();
  ASSERT_OK(bridge->Wait());
  std::multiset<std::string> bodies;
  for (const auto& m : Drain(*in)) bodies.insert(m.body);
  for (int i = 0; i < n; ++i) EXPECT_GE(bodies.count(Rich(i).body), 1u) << i;
  const int duplicates = static_cast<int>(bodies.size()) - n;
  EXPECT_GT(faults().lost_entries, 0);
  EXPECT_EQ(duplicates, faults().lost_entries);
}

TEST_F(BridgeTest, FifoKeepsGroupOrderAndDropsResendsRemotely) {
  auto out = Make(*local_, "out.fifo", {{"FifoQueue", "true"}});
  auto in = Make(*remote_, "in.fifo", {{"FifoQueue", "true"}});
  const int groups = 4;
  const int per_group = 40;
  for (int i = 0; i < per_group; ++i) {
    for (int g = 0; g < groups; ++g) {
      SendMessageRequest s;
      s.body = std::to_string(g) + ":" + std::to_string(i);
      s.message_group_id = "g" + std::to_string(g);
      s.message_deduplication_id = s.body;
      ASSERT_OK(out->SendMessage(s));
    }
  }
  faults().lose_send_answer_every = 4;
  auto bridge = Start(Forward("out.fifo", "in.fifo"));
  ASSERT_TRUE(Eventually([&] { return Stored(*out) == 0; }, 1'000));
  bridge->Stop();
  ASSERT_OK(bridge->Wait());
  EXPECT_GT(faults().lost_entries, 0);
  // The resends of lost answers fell in SQS's deduplication window.
  std::map<std::string, int> next;
  int total = 0;
  for (const auto& m : Drain(*in)) {
    const std::string g = m.body.substr(0, m.body.find(':'));
    const int i = std::stoi(m.body.substr(m.body.find(':') + 1));
    EXPECT_EQ(i, next[g]) << "group " << g << " out of order";
    next[g] = i + 1;
    ++total;
  }
  EXPECT_EQ(total, groups * per_group);
}

TEST_F(BridgeTest, FifoMessagesTooLargeForOneBatchKeepTheirOrder) {
  auto out = Make(*local_, "big.fifo", {{"FifoQueue", "true"}});
  auto in = Make(*remote_, "big.fifo", {{"FifoQueue", "true"}});
  // 700 KB, 600 KB, 1 KB: the second does not fit in the first's batch,
  // and the third, which would, must not pass it.
  const size_t sizes[] = {700'000, 600'000, 1'000};
  for (size_t i = 0; i < 3; ++i) {
    SendMessageRequest s;
    s.body = std::string(sizes[i], static_cast<char>('a' + i));
    s.message_group_id = "g";
    s.message_deduplication_id = std::to_string(i);
    ASSERT_OK(out->SendMessage(s));
  }
  BridgeOptions o = Forward("big.fifo", "big.fifo");
  o.once = true;
  o.max_batches_in_flight = 1;
  auto bridge = Start(o);
  ASSERT_OK(bridge->Wait());
  std::string order;
  for (const auto& m : Drain(*in)) order += m.body[0];
  EXPECT_EQ(order, "abc");
}

TEST_F(BridgeTest, RefusedMessageGoesToTheDeadLetterQueue) {
  auto out = Make(*local_, "outbox");
  auto dlq = Make(*local_, "outbox-dlq");
  ASSERT_OK(out->SetAttributes({{"RedrivePolicy", R"({"deadLetterTargetArn":")" + dlq->arn() +
                                                      R"(","maxReceiveCount":5})"}}));
  auto in = Make(*remote_, "inbox", {{"MaximumMessageSize", "1024"}});
  for (int i = 0; i < 9; ++i) ASSERT_OK(out->SendMessage(Rich(i)));
  SendMessageRequest big;
  big.body = std::string(4000, 'x');
  ASSERT_OK(out->SendMessage(big));
  auto bridge = Start(Forward("outbox", "inbox"));
  ASSERT_TRUE(Eventually([&] { return Stored(*out) == 0; }, 1'000));
  bridge->Stop();
  ASSERT_OK(bridge->Wait());
  EXPECT_EQ(Stored(*in), 9);
  auto dead = Drain(*dlq);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].body, big.body);
  EXPECT_EQ(dead[0].message_attributes.at("LqsBridgeErrorCode").string_value,
            "InvalidParameterValue");
  const BridgeStats stats = bridge->Stats();
  EXPECT_EQ(stats.dead_lettered, 1);
  EXPECT_EQ(stats.transferred, 9);
  EXPECT_EQ(stats.failures.at("InvalidParameterValue"), 1);
}

TEST_F(BridgeTest, RefusedMessageWithoutADeadLetterQueueIsKeptAndShownStuck) {
  auto out = Make(*local_, "outbox");
  auto in = Make(*remote_, "inbox", {{"MaximumMessageSize", "1024"}});
  SendMessageRequest big;
  big.body = std::string(4000, 'y');
  ASSERT_OK(out->SendMessage(big));
  ASSERT_OK(out->SendMessage(Rich(1)));
  BridgeOptions o = Forward("outbox", "inbox");
  o.backoff_max_ms = 600'000;
  auto bridge = Start(o);
  ASSERT_TRUE(Eventually([&] { return Stored(*in) == 1 && bridge->Stats().stuck == 1; }));
  EXPECT_EQ(Stored(*out), 1);  // kept, in flight until the longest backoff ends
  const int tries = bridge->Stats().failures.at("InvalidParameterValue");
  // Retried at the longest backoff, and still kept.
  ASSERT_TRUE(Eventually(
      [&] { return bridge->Stats().failures.at("InvalidParameterValue") > tries; }, 60'000));
  EXPECT_EQ(Stored(*out), 1);
  EXPECT_EQ(bridge->Stats().stuck, 1);
  EXPECT_EQ(LogLines("stuck"), 1);
}

TEST_F(BridgeTest, PullStoresThenDeletesRemotely) {
  auto local = Make(*local_, "commands");
  auto remote = Make(*remote_, "commands");
  for (int i = 0; i < 25; ++i) ASSERT_OK(remote->SendMessage(Rich(i)));
  BridgeOptions o = Pull(std::string("commands"), "commands");
  o.once = true;
  auto bridge = Start(o);
  ASSERT_OK(bridge->Wait());
  EXPECT_EQ(Stored(*remote), 0);
  auto got = Drain(*local);
  ASSERT_EQ(got.size(), 25u);
  for (const auto& m : got) {
    const SendMessageRequest want = Rich(std::stoi(m.body.substr(5)));
    EXPECT_EQ(m.message_attributes, want.message_attributes);
    EXPECT_EQ(m.attributes.at("AWSTraceHeader"),
              want.message_system_attributes.at("AWSTraceHeader").string_value);
  }
  EXPECT_EQ(bridge->Stats().transferred, 25);
}

TEST_F(BridgeTest, PullDropsARedeliveryOfWhatItStored) {
  auto local = Make(*local_, "commands");
  auto remote = Make(*remote_, "commands", {{"VisibilityTimeout", "30"}});
  for (int i = 0; i < 5; ++i) ASSERT_OK(remote->SendMessage(Rich(i)));
  faults().fail_deletes = true;  // stored locally, then the remote delete is lost
  auto bridge = Start(Pull("commands", "commands"));
  ASSERT_TRUE(Eventually([&] { return bridge->Stats().transferred == 5; }, 1'000));
  // The remote delivers them again after its visibility timeout.
  ASSERT_TRUE(Eventually([&] { return bridge->Stats().duplicates >= 5; }, 5'000));
  SetFaults([](Faults& f) { f.fail_deletes = false; });
  ASSERT_TRUE(Eventually([&] { return Stored(*remote) == 0; }, 5'000));
  bridge->Stop();
  ASSERT_OK(bridge->Wait());
  EXPECT_EQ(Drain(*local).size(), 5u);
  EXPECT_EQ(bridge->Stats().transferred, 5);
}

TEST_F(BridgeTest, PullKeepsFifoGroupsInOrder) {
  auto local = Make(*local_, "cmd.fifo", {{"FifoQueue", "true"}});
  auto remote = Make(*remote_, "cmd.fifo", {{"FifoQueue", "true"}});
  for (int i = 0; i < 30; ++i) {
    SendMessageRequest s;
    s.body = std::to_string(i % 3) + ":" + std::to_string(i / 3);
    s.message_group_id = "g" + std::to_string(i % 3);
    s.message_deduplication_id = s.body;
    ASSERT_OK(remote->SendMessage(s));
  }
  BridgeOptions o = Pull("cmd.fifo", "cmd.fifo");
  o.once = true;
  auto bridge = Start(o);
  ASSERT_OK(bridge->Wait());
  std::map<std::string, int> next;
  int total = 0;
  for (const auto& m : Drain(*local)) {
    const std::string g = m.body.substr(0, m.body.find(':'));
    EXPECT_EQ(m.attributes.at("MessageGroupId"), "g" + g);
    EXPECT_EQ(std::stoi(m.body.substr(m.body.find(':') + 1)), next[g]++);
    ++total;
  }
  EXPECT_EQ(total, 30);
}

TEST_F(BridgeTest, BridgesEndWhenTheLocalBrokerCloses) {
  auto out = Make(*local_, "outbox");
  auto commands = Make(*local_, "commands");
  auto remote = Make(*remote_, "commands");
  Make(*remote_, "inbox");
  for (int i = 0; i < 30; ++i) ASSERT_OK(remote->SendMessage(Rich(i)));
  auto forward = Start(Forward("outbox", "inbox"));
  auto pull = Start(Pull("commands", "commands"));
  ASSERT_TRUE(Eventually([&] { return pull->Stats().transferred > 0; }, 1'000));
  ASSERT_OK(local_->Close());
  // Neither waits for a Stop(): the closed Broker ends them.
  ASSERT_TRUE(
      Eventually([&] { return !forward->Stats().running && !pull->Stats().running; }, 1'000));
  EXPECT_OK(forward->Wait());
  EXPECT_OK(pull->Wait());
  forward.reset();
  pull.reset();
  local_ = OpenAt(local_dir_.path());
}

TEST_F(BridgeTest, StartChecksItsOptions) {
  Make(*local_, "std");
  Make(*local_, "f.fifo", {{"FifoQueue", "true"}});
  EXPECT_CODE(Bridge::Start(local_.get(), Forward("missing", "inbox")), kQueueDoesNotExist);
  EXPECT_CODE(Bridge::Start(local_.get(), Forward("std", "in.fifo")), kInvalidParameterValue);
  EXPECT_CODE(Bridge::Start(local_.get(), Forward("f.fifo", "inbox")), kInvalidParameterValue);
  BridgeOptions o = Forward("std", "inbox");
  o.max_batches_in_flight = 0;
  EXPECT_CODE(Bridge::Start(local_.get(), o), kInvalidParameterValue);
  o = Forward("std", "inbox");
  o.lease_seconds = o.request_timeout_seconds;
  EXPECT_CODE(Bridge::Start(local_.get(), o), kInvalidParameterValue);
  o = Forward("std", "inbox");
  o.transport_factory = nullptr;
  o.remote_queue_url = "ftp://example.com/q";
  auto bad = Bridge::Start(local_.get(), o);
  EXPECT_CODE(bad, kInvalidParameterValue);
  EXPECT_NE(bad.status().message().find("QueueUrl"), std::string::npos);
}

// ---- Credentials and regions --------------------------------------------------------

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(Credentials, FlagThenEnvironmentThenSharedFile) {
  TempDir dir;
  const std::string file = dir.path() + "/credentials";
  std::ofstream(file) << "[default]\naws_access_key_id = FILEKEY\naws_secret_access_key = s1\n"
                         "# a comment\n[edge]\naws_access_key_id=EDGEKEY\n"
                         "aws_secret_access_key=s2\naws_session_token=t2\n";
  ScopedEnv path("AWS_SHARED_CREDENTIALS_FILE", file.c_str());
  ScopedEnv profile("AWS_PROFILE", nullptr);
  ScopedEnv key("AWS_ACCESS_KEY_ID", "ENVKEY");
  ScopedEnv secret("AWS_SECRET_ACCESS_KEY", "envsecret");
  ScopedEnv token("AWS_SESSION_TOKEN", nullptr);

  auto c = ResolveCredentials(RemoteCredentials{"FLAGKEY", "flagsecret", "", ""});
  ASSERT_OK(c);
  EXPECT_EQ(c->access_key_id, "FLAGKEY");
  c = ResolveCredentials({});
  ASSERT_OK(c);
  EXPECT_EQ(c->access_key_id, "ENVKEY");
  EXPECT_EQ(c->secret_access_key, "envsecret");
  {
    ScopedEnv no_key("AWS_ACCESS_KEY_ID", nullptr);
    ScopedEnv no_secret("AWS_SECRET_ACCESS_KEY", nullptr);
    c = ResolveCredentials({});
    ASSERT_OK(c);
    EXPECT_EQ(c->access_key_id, "FILEKEY");
    c = ResolveCredentials({}, "edge");
    ASSERT_OK(c);
    EXPECT_EQ(c->access_key_id, "EDGEKEY");
    EXPECT_EQ(c->session_token, "t2");
    ScopedEnv edge("AWS_PROFILE", "edge");
    c = ResolveCredentials({});
    ASSERT_OK(c);
    EXPECT_EQ(c->access_key_id, "EDGEKEY");
    EXPECT_CODE(ResolveCredentials({}, "nope"), kInvalidParameterValue);
  }
  ScopedEnv half("AWS_SECRET_ACCESS_KEY", nullptr);
  EXPECT_CODE(ResolveCredentials({}), kInvalidParameterValue);
}

TEST(Credentials, NothingFoundMeansUnsigned) {
  ScopedEnv path("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/credentials");
  ScopedEnv profile("AWS_PROFILE", nullptr);
  ScopedEnv key("AWS_ACCESS_KEY_ID", nullptr);
  ScopedEnv secret("AWS_SECRET_ACCESS_KEY", nullptr);
  auto c = ResolveCredentials({});
  ASSERT_OK(c);
  EXPECT_TRUE(c->access_key_id.empty());
}

TEST(Credentials, RegionOfQueueUrl) {
  EXPECT_EQ(RegionOfQueueUrl("https://sqs.eu-west-1.amazonaws.com/123456789012/q"), "eu-west-1");
  EXPECT_EQ(RegionOfQueueUrl("https://sqs.cn-north-1.amazonaws.com.cn/1/q"), "cn-north-1");
  EXPECT_EQ(RegionOfQueueUrl("https://us-east-2.queue.amazonaws.com/1/q"), "us-east-2");
  EXPECT_EQ(RegionOfQueueUrl("http://127.0.0.1:9324/1/q"), "");
}

}  // namespace
}  // namespace lqs::testing
