// Options::max_disk_bytes: at the budget, sends fail with OverStorageBudget
// (naming the budget) while receives, deletes, visibility changes and purges
// go on; once consumers drained the queue, maintenance reclaims the space and
// sends are accepted again, without a reopen. Real RocksDB on disk.

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/testutil.h"

namespace lqs {
namespace {

using testing::BrokerTest;
using testing::MessageStartsWith;

// 128 bodies of 64 KiB. The bounds below also hold with 1 MiB memtables,
// whose flushed data has its copy in the log on disk a while longer.
constexpr int64_t kBudget = 8 << 20;
constexpr int kFull = 128;

// 64 KiB that compression cannot shrink: a compaction (which compresses)
// must free only what was deleted.
std::string IncompressibleBody() {
  std::mt19937 gen(28);
  std::uniform_int_distribution<int> letter('!', '~');
  std::string body(64 << 10, ' ');
  for (char& c : body) c = static_cast<char>(letter(gen));
  return body;
}
const std::string kBody = IncompressibleBody();

class StorageBudgetTest : public BrokerTest {
 protected:
  void SetUp() override {
    max_disk_bytes_ = kBudget;
    BrokerTest::SetUp();
  }

  // Sends kBody until a send fails; returns that failure (and how many were
  // accepted in *sent).
  Status FillToBudget(Queue& q, int* sent) {
    *sent = 0;
    SendMessageRequest r;
    r.body = kBody;
    for (int i = 0; i < 10000; ++i) {
      auto res = q.SendMessage(r);
      if (!res.ok()) return res.status();
      ++*sent;
    }
    return Status::OK();
  }

  // Receives and deletes every message of `q`; returns how many.
  int Drain(Queue& q) {
    int n = 0;
    for (;;) {
      std::vector<ReceivedMessage> got = Receive(q, 10);
      if (got.empty()) return n;
      for (const auto& m : got) EXPECT_OK(q.DeleteMessage(m.receipt_handle));
      n += static_cast<int>(got.size());
    }
  }
};

std::string BudgetPrefix() {
  return "the database is at its storage budget (max_disk_bytes = " + std::to_string(kBudget) +
         " bytes, in use ";
}

TEST_F(StorageBudgetTest, SendsFailAtTheBudgetAndNamedIt) {
  auto q = MakeQueue("q");
  int sent = 0;
  Status full = FillToBudget(*q, &sent);
  ASSERT_CODE(full, kOverStorageBudget);
  EXPECT_TRUE(MessageStartsWith(full, BudgetPrefix()));
  // The budget is reached by what was written, not long before or after:
  // kFull bodies fill it, less the files' own bytes and the log's copies of
  // flushed data.
  EXPECT_GT(sent, kFull / 2);
  EXPECT_LE(sent, kFull + 2);
  EXPECT_GE(broker_->DiskBytesInUse(), static_cast<uint64_t>(kBudget));

  // A batch fails whole, not entry by entry. (A flush in the background may
  // turn the log into smaller tables and leave room for a batch first.)
  std::vector<SendMessageBatchEntry> batch(2);
  batch[0].id = "a";
  batch[0].request.body = kBody;
  batch[1].id = "b";
  batch[1].request.body = kBody;
  StatusOr<SendMessageBatchResult> batched = Status(ErrorCode::kInternal, "not sent");
  for (int i = 0; i < 5; ++i) {
    batched = q->SendMessageBatch(batch);
    if (!batched.ok()) break;
    EXPECT_TRUE(batched->failed.empty());
    sent += static_cast<int>(batched->successful.size());
  }
  EXPECT_CODE(batched, kOverStorageBudget);
  EXPECT_TRUE(MessageStartsWith(batched.status(), BudgetPrefix()));

  // The request's own errors come first: a retry would not fix them.
  SendMessageRequest bad;
  bad.body = "x";
  bad.delay_seconds = 901;
  EXPECT_CODE(q->SendMessage(bad), kInvalidParameterValue);

  // Every queue of the database is refused; creating one is allowed.
  auto other = MakeQueue("other");
  ASSERT_NE(other, nullptr);
  int other_sent = 0;
  EXPECT_CODE(FillToBudget(*other, &other_sent), kOverStorageBudget);
  EXPECT_LE(other_sent, kFull / 4 + 2);  // the log is at most a quarter

  // A send with an inbox record (a pull bridge's) is a send too.
  SendMessageRequest pulled;
  pulled.body = kBody;
  EXPECT_CODE(q->SendMessageAndRecord(pulled, "pull:m1", 60), kOverStorageBudget);
  EXPECT_FALSE(*q->InboxContains("pull:m1"));

  // The C++ code maps to a retryable server fault.
  const ErrorInfo& info = ErrorInfoFor(ErrorCode::kOverStorageBudget);
  EXPECT_EQ(info.shape, "ServiceUnavailable");
  EXPECT_FALSE(info.sender_fault);
  EXPECT_EQ(Counts(*q)[0], sent);
}

TEST_F(StorageBudgetTest, ConsumersDrainWhileOverAndSendsResumeAfterReclaim) {
  auto q = MakeQueue("q");
  auto purged = MakeQueue("purged");
  SendMessageRequest small;
  small.body = "to be purged";
  for (int i = 0; i < 5; ++i) ASSERT_OK(purged->SendMessage(small));
  int sent = 0;
  ASSERT_CODE(FillToBudget(*q, &sent), kOverStorageBudget);

  // Visibility changes, receives and deletes work while over.
  std::vector<ReceivedMessage> first = Receive(*q, 1, 30);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_OK(q->ChangeMessageVisibility(first[0].receipt_handle, 0));
  std::vector<ReceivedMessage> again = Receive(*q, 1, 30);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_OK(q->DeleteMessage(again[0].receipt_handle));
  // So does a purge.
  EXPECT_OK(purged->PurgeQueue());
  EXPECT_EQ(Counts(*purged)[0], 0);

  EXPECT_EQ(Drain(*q) + 1, sent);
  EXPECT_EQ(Counts(*q), (std::array<int64_t, 3>{0, 0, 0}));

  // One maintenance pass flushes and compacts the drained database.
  ASSERT_OK(broker_->RunMaintenance());
  EXPECT_LT(broker_->DiskBytesInUse(), static_cast<uint64_t>(kBudget) / 8);
  ASSERT_OK(q->SendMessage(small));
  ASSERT_OK(purged->SendMessage(small));

  // The budget holds again after the reclaim, and the database is whole.
  int more = 0;
  ASSERT_CODE(FillToBudget(*q, &more), kOverStorageBudget);
  EXPECT_GT(more, kFull / 2);
  ExpectConsistent();
}

TEST_F(StorageBudgetTest, MaintenanceDoesNotCompactWithoutDeletes) {
  auto q = MakeQueue("q");
  int sent = 0;
  ASSERT_CODE(FillToBudget(*q, &sent), kOverStorageBudget);
  // Nothing deleted: a reclaim would drop nothing, and the database stays
  // near its budget (a measurement after a flush may find some room: the
  // log's copy of what was flushed is gone).
  ASSERT_OK(broker_->RunMaintenance());
  int more = 0;
  ASSERT_CODE(FillToBudget(*q, &more), kOverStorageBudget);
  EXPECT_LE(more, kFull / 4 + 2);  // the log is at most a quarter
  // Messages survive reclaiming (CompactAll reclaims at once).
  ASSERT_OK(broker_->CompactAll());
  EXPECT_EQ(Counts(*q)[0], sent + more);
  EXPECT_EQ(Drain(*q), sent + more);
}

TEST_F(StorageBudgetTest, BudgetSurvivesReopen) {
  auto q = MakeQueue("q");
  int sent = 0;
  ASSERT_CODE(FillToBudget(*q, &sent), kOverStorageBudget);
  Reopen();
  q = broker_->GetQueue("q").value();
  // Close flushed the memtables: the log's copies are gone, the messages
  // are not, and the reopened database is as full.
  int more = 0;
  ASSERT_CODE(FillToBudget(*q, &more), kOverStorageBudget);
  EXPECT_LE(more, kFull / 4 + 2);  // the log is at most a quarter
  EXPECT_EQ(Drain(*q), sent + more);
  ASSERT_OK(broker_->RunMaintenance());
  SendMessageRequest r;
  r.body = "small";
  EXPECT_OK(q->SendMessage(r));
}

TEST_F(BrokerTest, NoBudgetByDefault) {
  auto q = MakeQueue("q");
  SendMessageRequest r;
  r.body = std::string(200 << 10, 'y');
  for (int i = 0; i < 40; ++i) ASSERT_OK(q->SendMessage(r));  // 8 MB
  EXPECT_EQ(broker_->options().max_disk_bytes, 0);
}

}  // namespace
}  // namespace lqs
