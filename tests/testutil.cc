#include "tests/testutil.h"

#include <cstdlib>
#include <filesystem>
#include <string_view>

#include <rocksdb/db.h>
#include <rocksdb/merge_operator.h>

#include "lib/storage/counters.h"

namespace lqs::testing {

namespace {
constexpr const char* kDeathTestDirEnv = "LQS_DEATH_TEST_DIR";
}  // namespace

DeathTestDir::DeathTestDir() {
  if (const char* inherited = std::getenv(kDeathTestDirEnv)) {
    path_ = inherited;
    return;
  }
  own_ = std::make_unique<TempDir>();
  path_ = own_->path();
  ::setenv(kDeathTestDirEnv, path_.c_str(), 1);
}

DeathTestDir::~DeathTestDir() {
  if (own_) ::unsetenv(kDeathTestDirEnv);
}

Options BrokerTest::MakeOptions() {
  Options o = TestProfileOptions();
  o.path = dir_.path() + "/db";
  o.clock = clock_;
  o.durability = durability_;
  o.max_disk_bytes = max_disk_bytes_;
  o.max_inflight_per_queue = max_inflight_per_queue_;
  o.background_maintenance = false;
  return o;
}

void BrokerTest::SetUp() { Open(); }

void BrokerTest::TearDown() {
  if (broker_) {
    ExpectConsistent();
    EXPECT_OK(broker_->Close());
  }
}

void BrokerTest::Open() {
  auto b = Broker::Open(MakeOptions());
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  broker_ = std::move(b).value();
}

void BrokerTest::Reopen() {
  ASSERT_OK(broker_->Close());
  broker_.reset();
  Open();
}

std::shared_ptr<Queue> BrokerTest::MakeQueue(const std::string& name, const AttributeMap& attrs) {
  auto q = broker_->CreateQueue(name, attrs, {});
  EXPECT_TRUE(q.ok()) << q.status().ToString();
  return q.ok() ? *q : nullptr;
}

std::string BrokerTest::Redrive(const std::string& dlq, int max_receive_count) {
  return "{\"deadLetterTargetArn\":\"" + broker_->ArnFor(dlq) +
         "\",\"maxReceiveCount\":" + std::to_string(max_receive_count) + "}";
}

std::string BrokerTest::Send(Queue& q, const std::string& body) {
  SendMessageRequest r;
  r.body = body;
  auto res = q.SendMessage(r);
  EXPECT_TRUE(res.ok()) << res.status().ToString();
  return res.ok() ? res->message_id : "";
}

StatusOr<SendMessageResult> BrokerTest::SendDelayed(Queue& q, const std::string& body,
                                                    int delay_seconds) {
  SendMessageRequest r;
  r.body = body;
  r.delay_seconds = delay_seconds;
  return q.SendMessage(r);
}

StatusOr<SendMessageResult> BrokerTest::SendWithAttributes(Queue& q, const std::string& body,
                                                           const MessageAttributeMap& attributes) {
  SendMessageRequest r;
  r.body = body;
  r.message_attributes = attributes;
  return q.SendMessage(r);
}

std::vector<ReceivedMessage> BrokerTest::Receive(Queue& q, int n, std::optional<int> vt) {
  ReceiveMessageRequest r;
  r.max_number_of_messages = n;
  r.visibility_timeout = vt;
  r.wait_time_seconds = 0;
  r.message_system_attribute_names = {"All"};
  r.message_attribute_names = {"All"};
  auto res = q.ReceiveMessage(r);
  EXPECT_TRUE(res.ok()) << res.status().ToString();
  return res.ok() ? res->messages : std::vector<ReceivedMessage>{};
}

std::array<int64_t, 3> BrokerTest::Counts(Queue& q) {
  auto a = q.GetAttributes({"All"});
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  if (!a.ok()) return {-1, -1, -1};
  return {std::stoll((*a)["ApproximateNumberOfMessages"]),
          std::stoll((*a)["ApproximateNumberOfMessagesNotVisible"]),
          std::stoll((*a)["ApproximateNumberOfMessagesDelayed"])};
}

void BrokerTest::RedriveForOneSecond(const Queue& dlq, int per_second) {
  StartMessageMoveTaskRequest r;
  r.source_arn = dlq.arn();
  r.max_number_of_messages_per_second = per_second;
  ASSERT_OK(broker_->StartMessageMoveTask(r));
  clock_->AdvanceSeconds(1);
  ASSERT_OK(broker_->RunMaintenance());
}

void BrokerTest::ExpectConsistent() {
  auto problems = broker_->Verify();
  ASSERT_TRUE(problems.ok()) << problems.status().ToString();
  for (const auto& p : *problems) ADD_FAILURE() << "inconsistent: " << p;
}

void BrokerTest::DropRawColumnFamily(const std::string& cf_name) {
  WithRawDb(/*read_only=*/false, cf_name, [&](rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf) {
    ASSERT_NE(cf, nullptr) << "no column family " << cf_name;
    ASSERT_TRUE(db->DropColumnFamily(cf).ok());
  });
}

void BrokerTest::WithRawDb(
    bool read_only, const std::string& cf_name,
    const std::function<void(rocksdb::DB*, rocksdb::ColumnFamilyHandle*)>& fn) {
  EXPECT_OK(broker_->Close());
  broker_.reset();
  const std::string path = MakeOptions().path;
  std::vector<std::string> names;
  EXPECT_TRUE(rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), path, &names).ok());
  rocksdb::ColumnFamilyOptions cf_options;
  cf_options.disable_auto_compactions = true;
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (const auto& n : names) {
    descriptors.emplace_back(n, cf_options);
    if (n == "counters")
      descriptors.back().options.merge_operator = storage::NewCounterMergeOperator();
  }
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s =
      read_only
          ? rocksdb::DB::OpenForReadOnly(rocksdb::DBOptions(), path, descriptors, &handles, &raw)
          : rocksdb::DB::Open(rocksdb::DBOptions(), path, descriptors, &handles, &raw);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (s.ok()) {
    std::unique_ptr<rocksdb::DB> db(raw);
    rocksdb::ColumnFamilyHandle* cf = nullptr;
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == cf_name) cf = handles[i];
    }
    fn(db.get(), cf);
    for (auto* h : handles) EXPECT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
    EXPECT_TRUE(db->Close().ok());
  }
  Open();
}

}  // namespace lqs::testing
