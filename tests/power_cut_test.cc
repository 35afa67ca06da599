// The power-loss model (tests/fault_fs.h, tests/power_cut.h) on its own, and
// on a Broker: what a power cut keeps and what it takes. CTest names:
// power_loss.* (cmake/LqsTests.cmake).

#include "tests/power_cut.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <rocksdb/file_system.h>

#include "lib/engine/open.h"
#include "tests/crash_harness.h"
#include "tests/fault_fs.h"
#include "tests/testutil.h"

namespace lqs::testing {
namespace {

namespace fs = std::filesystem;
using rocksdb::IOOptions;

std::string Contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

class PowerLossModel : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = dir_.path() + "/data";
    fs::create_directories(data_);
    journal_ = dir_.path() + "/journal";
    fs_ = std::make_unique<FaultFileSystem>(rocksdb::FileSystem::Default(), journal_);
  }

  std::unique_ptr<rocksdb::FSWritableFile> Create(const std::string& name) {
    std::unique_ptr<rocksdb::FSWritableFile> f;
    EXPECT_TRUE(fs_->NewWritableFile(data_ + "/" + name, {}, &f, nullptr).ok());
    return f;
  }
  void Append(rocksdb::FSWritableFile& f, const std::string& text) {
    ASSERT_TRUE(f.Append(text, IOOptions(), nullptr).ok());
  }
  void Sync(rocksdb::FSWritableFile& f) { ASSERT_TRUE(f.Sync(IOOptions(), nullptr).ok()); }
  void SyncDir() {
    std::unique_ptr<rocksdb::FSDirectory> d;
    ASSERT_TRUE(fs_->NewDirectory(data_, IOOptions(), &d, nullptr).ok());
    ASSERT_TRUE(d->Fsync(IOOptions(), nullptr).ok());
  }
  PowerCutStats Cut(bool torn_tails = false) {
    PowerCutStats stats;
    std::string error;
    EXPECT_TRUE(ApplyPowerCut(journal_, 1, torn_tails, &stats, &error)) << error;
    return stats;
  }

  TempDir dir_;
  std::string data_, journal_;
  std::unique_ptr<FaultFileSystem> fs_;
};

TEST_F(PowerLossModel, UnsyncedBytesAreDropped) {
  auto f = Create("a");
  Append(*f, "synced");
  Sync(*f);
  Append(*f, "-unsynced");
  SyncDir();
  const PowerCutStats stats = Cut();
  EXPECT_EQ(Contents(data_ + "/a"), "synced");
  EXPECT_EQ(stats.files_truncated, 1);
  EXPECT_EQ(stats.bytes_dropped, 9);
}

TEST_F(PowerLossModel, TornTailsKeepAPrefixOfTheUnsyncedBytes) {
  auto f = Create("a");
  Append(*f, "synced");
  Sync(*f);
  Append(*f, std::string(1000, 'u'));
  SyncDir();
  Cut(/*torn_tails=*/true);
  const std::string after = Contents(data_ + "/a");
  ASSERT_GE(after.size(), 6u);
  EXPECT_EQ(after.substr(0, 6), "synced");
  EXPECT_LE(after.size(), 1006u);
}

TEST_F(PowerLossModel, AFileWithoutADirectorySyncVanishes) {
  auto f = Create("new");
  Append(*f, "data");
  Sync(*f);  // the bytes, not the directory entry
  const PowerCutStats stats = Cut();
  EXPECT_FALSE(fs::exists(data_ + "/new"));
  EXPECT_EQ(stats.files_removed, 1);
}

TEST_F(PowerLossModel, ADirectorySyncMakesTheEntryDurable) {
  auto f = Create("new");
  SyncDir();
  Cut();
  EXPECT_TRUE(fs::exists(data_ + "/new"));
  EXPECT_EQ(Contents(data_ + "/new"), "");  // nothing was synced
}

// RocksDB's CURRENT: a temporary file, synced, renamed over the old one,
// then the directory synced.
TEST_F(PowerLossModel, ARenameWithoutADirectorySyncIsUndone) {
  WriteFile(data_ + "/CURRENT", "old");  // durable: written before the journal
  auto f = Create("CURRENT.tmp");
  Append(*f, "new");
  Sync(*f);
  ASSERT_TRUE(
      fs_->RenameFile(data_ + "/CURRENT.tmp", data_ + "/CURRENT", IOOptions(), nullptr).ok());
  const PowerCutStats stats = Cut();
  EXPECT_EQ(Contents(data_ + "/CURRENT"), "old");
  EXPECT_FALSE(fs::exists(data_ + "/CURRENT.tmp"));
  EXPECT_EQ(stats.renames_undone, 1);
}

TEST_F(PowerLossModel, ARenameFollowedByADirectorySyncStays) {
  WriteFile(data_ + "/CURRENT", "old");
  auto f = Create("CURRENT.tmp");
  Append(*f, "new");
  Sync(*f);
  ASSERT_TRUE(
      fs_->RenameFile(data_ + "/CURRENT.tmp", data_ + "/CURRENT", IOOptions(), nullptr).ok());
  SyncDir();
  Cut();
  EXPECT_EQ(Contents(data_ + "/CURRENT"), "new");
}

TEST_F(PowerLossModel, FilesTheJournalNeverNamedAreUntouched) {
  WriteFile(data_ + "/old", "durable");
  auto f = Create("a");
  Append(*f, "x");
  Cut();
  EXPECT_EQ(Contents(data_ + "/old"), "durable");
  EXPECT_FALSE(fs::exists(journal_)) << "the journal is consumed by the cut";
}

// A subprocess opens a Broker over the journaling file system, sends, and
// ends without closing (as a kill would); the test cuts the power and
// counts what is left. With `durability` fsync every acknowledged send
// survives; with process, the cut takes them: the model really drops what
// was not synced.
int SendAndDie(const std::string& dir, Durability durability) {
  FaultFileSystem faults(rocksdb::FileSystem::Default(), dir + "/journal");
  auto env = faults.NewEnv();
  Options o = TestProfileOptions();
  o.path = dir + "/db";
  o.durability = durability;
  o.background_maintenance = false;
  auto broker = engine::OpenBroker(o, env.get());
  if (!broker.ok()) return 2;
  auto q = (*broker)->CreateQueue("jobs", {}, {});
  if (!q.ok()) return 2;
  for (int i = 0; i < 100; ++i) {
    SendMessageRequest r;
    r.body = "m" + std::to_string(i);
    if (!(*q)->SendMessage(r).ok()) return 3;
  }
  std::_Exit(0);
}

// The messages in the queue "jobs" of the database at `db` (0 if the queue
// itself is gone), checked by Verify() and by a drain of every one.
int64_t CountMessages(const std::string& db) {
  auto broker = OpenToCheck(db);
  EXPECT_OK(broker);
  if (!broker.ok()) return -1;
  ExpectVerifyClean(**broker, "the database after the crash");
  auto q = (*broker)->GetQueue("jobs");
  if (!q.ok()) return 0;
  int64_t received = 0;
  for (;;) {
    ReceiveMessageRequest r;
    r.max_number_of_messages = 10;
    r.visibility_timeout = 600;
    auto got = (*q)->ReceiveMessage(r);
    EXPECT_OK(got);
    if (!got.ok() || got->messages.empty()) break;
    received += static_cast<int64_t>(got->messages.size());
  }
  return received;
}

int64_t CountAfterPowerCut(const std::string& dir) {
  PowerCutStats stats;
  std::string error;
  EXPECT_TRUE(ApplyPowerCut(dir + "/journal", 7, false, &stats, &error)) << error;
  return CountMessages(dir + "/db");
}

TEST(PowerLoss, FsyncKeepsEveryAcknowledgedSend) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  DeathTestDir dir;
  EXPECT_EXIT(SendAndDie(dir.path(), Durability::kFsync), ::testing::ExitedWithCode(0), "");
  EXPECT_EQ(CountAfterPowerCut(dir.path()), 100);
}

TEST(PowerLoss, ProcessModeLosesWhatWasNotSynced) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  DeathTestDir dir;
  EXPECT_EXIT(SendAndDie(dir.path(), Durability::kProcess), ::testing::ExitedWithCode(0), "");
  // Without the cut (a kill -9 only) every send is there: the cut is what
  // takes them.
  fs::copy(dir.path() + "/db", dir.path() + "/killed-only", fs::copy_options::recursive);
  EXPECT_EQ(CountMessages(dir.path() + "/killed-only"), 100);
  EXPECT_LT(CountAfterPowerCut(dir.path()), 100);
}

}  // namespace
}  // namespace lqs::testing
