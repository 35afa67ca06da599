// Deferred commits (Options::deferred_commits, lqs/commit_scope.h): inside a
// CommitScope a thread's changes reach the write-ahead log only at Commit(),
// they are visible before that, and nothing else is deferred. The log's size
// on disk shows when a change became durable: after a kill -9 only what the
// log holds comes back (durability_test.cc's KillNineRecoveryDeferredCommits
// proves that part with real crashes).

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "tests/testutil.h"

#include "lqs/lqs.h"

namespace lqs {
namespace {

using testing::TempDir;

class CommitScopeTest : public ::testing::Test {
 protected:
  void Open(bool deferred_commits, Durability durability = Durability::kProcess) {
    Options o = testing::TestProfileOptions();
    o.path = dir_.path() + "/db";
    o.clock = std::make_shared<ManualClock>();
    o.background_maintenance = false;  // no writes but the test's
    o.durability = durability;
    o.deferred_commits = deferred_commits;
    auto b = Broker::Open(o);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    broker_ = std::move(b).value();
    auto q = broker_->CreateQueue("jobs", {}, {});
    ASSERT_TRUE(q.ok()) << q.status().ToString();
    queue_ = *q;
  }

  void TearDown() override {
    if (broker_) {
      EXPECT_OK(broker_->Close());
    }
  }

  // Bytes in the database's write-ahead log files, as the kernel has them.
  uintmax_t LogBytes() const { return testing::WalBytes(dir_.path() + "/db"); }

  void Send(const std::string& body) {
    SendMessageRequest r;
    r.body = body;
    ASSERT_OK(queue_->SendMessage(r));
  }

  TempDir dir_;
  std::unique_ptr<Broker> broker_;
  std::shared_ptr<Queue> queue_;
};

TEST_F(CommitScopeTest, ChangesReachTheLogAtCommitAndAreVisibleBefore) {
  Open(/*deferred_commits=*/true);
  const uintmax_t before = LogBytes();
  CommitScope scope(broker_.get());
  Send("one");
  Send("two");
  EXPECT_EQ(LogBytes(), before) << "a deferred send was written to the log before Commit()";

  // Deferral hides nothing: the messages can be received (a change too).
  ReceiveMessageRequest r;
  r.max_number_of_messages = 10;
  auto got = queue_->ReceiveMessage(r);
  ASSERT_OK(got);
  EXPECT_EQ(got->messages.size(), 2u);
  EXPECT_EQ(LogBytes(), before);

  ASSERT_OK(scope.Commit());
  const uintmax_t committed = LogBytes();
  EXPECT_GT(committed, before) << "Commit() did not write the log";
  ASSERT_OK(scope.Commit());  // nothing pending: nothing written
  EXPECT_EQ(LogBytes(), committed);
}

TEST_F(CommitScopeTest, TheEndOfTheScopeCommits) {
  Open(/*deferred_commits=*/true);
  const uintmax_t before = LogBytes();
  {
    CommitScope scope(broker_.get());
    Send("one");
    EXPECT_EQ(LogBytes(), before);
  }
  EXPECT_GT(LogBytes(), before);
  // Out of the scope, this thread's changes are durable when a call returns.
  const uintmax_t after_scope = LogBytes();
  Send("two");
  EXPECT_GT(LogBytes(), after_scope);
}

// lqsd's I/O threads serve several regions, each a Broker of its own.
TEST_F(CommitScopeTest, OneThreadDefersOnTwoBrokersEachCommittedOnItsOwn) {
  Open(/*deferred_commits=*/true);
  Options o = broker_->options();
  o.path = dir_.path() + "/second";
  auto second = Broker::Open(o);
  ASSERT_OK(second);
  auto other_queue = (*second)->CreateQueue("jobs", {}, {});
  ASSERT_OK(other_queue);
  auto second_log_bytes = [&] { return testing::WalBytes(o.path); };
  {
    CommitScope first_scope(broker_.get());
    CommitScope second_scope(second->get());
    const uintmax_t first_before = LogBytes();
    const uintmax_t second_before = second_log_bytes();
    Send("to the first");
    SendMessageRequest r;
    r.body = "to the second";
    ASSERT_OK((*other_queue)->SendMessage(r));
    EXPECT_EQ(LogBytes(), first_before);
    EXPECT_EQ(second_log_bytes(), second_before) << "deferring on the second ended the first's";

    ASSERT_OK(second_scope.Commit());
    EXPECT_GT(second_log_bytes(), second_before);
    EXPECT_EQ(LogBytes(), first_before);
    ASSERT_OK(first_scope.Commit());
    EXPECT_GT(LogBytes(), first_before);
  }
  // Both scopes ended: durable at return again, on both.
  const uintmax_t second_after = second_log_bytes();
  SendMessageRequest r;
  r.body = "after";
  ASSERT_OK((*other_queue)->SendMessage(r));
  EXPECT_GT(second_log_bytes(), second_after);
  EXPECT_OK((*second)->Close());
}

TEST_F(CommitScopeTest, OtherThreadsAreNotDeferred) {
  Open(/*deferred_commits=*/true);
  CommitScope scope(broker_.get());
  const uintmax_t before = LogBytes();
  std::thread other([this] { Send("from another thread"); });
  other.join();
  EXPECT_GT(LogBytes(), before);
}

TEST_F(CommitScopeTest, WithoutTheOptionTheScopeDefersNothing) {
  Open(/*deferred_commits=*/false);
  CommitScope scope(broker_.get());
  const uintmax_t before = LogBytes();
  Send("one");
  EXPECT_GT(LogBytes(), before);
  EXPECT_OK(scope.Commit());
}

TEST_F(CommitScopeTest, FsyncModeDefersToo) {
  Open(/*deferred_commits=*/true, Durability::kFsync);
  CommitScope scope(broker_.get());
  const uintmax_t before = LogBytes();
  Send("one");
  EXPECT_EQ(LogBytes(), before);
  ASSERT_OK(scope.Commit());
  EXPECT_GT(LogBytes(), before);
}

TEST_F(CommitScopeTest, CommitAfterCloseIsOkAndTheChangesWereKept) {
  Open(/*deferred_commits=*/true);
  {
    CommitScope scope(broker_.get());
    Send("kept by Close");
    ASSERT_OK(broker_->Close());
    EXPECT_OK(scope.Commit());  // Close() wrote the log out
  }
  broker_.reset();
  Open(/*deferred_commits=*/true);  // creates "jobs" again: it exists, same attributes
  auto attrs = queue_->GetAttributes({std::string(attr::kApproximateNumberOfMessages)});
  ASSERT_OK(attrs);
  EXPECT_EQ((*attrs)[std::string(attr::kApproximateNumberOfMessages)], "1");
}

// RocksDB logs a debug line for every log write-out when its LOG is at DEBUG
// (the default of a build without NDEBUG, such as Debian's): a commit per
// round of requests must not add a line each to a LOG that never rotates.
TEST_F(CommitScopeTest, CommitsAddNothingToRocksDbsInfoLog) {
  Open(/*deferred_commits=*/true);
  {
    CommitScope scope(broker_.get());
    for (int i = 0; i < 200; ++i) {
      Send("m" + std::to_string(i));
      ASSERT_OK(scope.Commit());
    }
  }
  ASSERT_OK(broker_->Close());
  std::ifstream log(dir_.path() + "/db/LOG");
  ASSERT_TRUE(log.good());
  int debug_lines = 0;
  for (std::string line; std::getline(log, line);) {
    if (line.find("[DEBUG]") != std::string::npos) ++debug_lines;
  }
  EXPECT_EQ(debug_lines, 0);
}

}  // namespace
}  // namespace lqs
