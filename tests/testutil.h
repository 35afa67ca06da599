// tests/testutil.h — helpers for the engine tests: a temporary database
// directory, a Broker on a ManualClock, and Status matchers.

#ifndef LQS_TESTS_TESTUTIL_H_
#define LQS_TESTS_TESTUTIL_H_

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "lqs/lqs.h"

#define ASSERT_OK(expr)                                       \
  do {                                                        \
    const ::lqs::Status _st = ::lqs::testing::AsStatus(expr); \
    ASSERT_TRUE(_st.ok()) << _st.ToString();                  \
  } while (0)
#define EXPECT_OK(expr)                                       \
  do {                                                        \
    const ::lqs::Status _st = ::lqs::testing::AsStatus(expr); \
    EXPECT_TRUE(_st.ok()) << _st.ToString();                  \
  } while (0)
#define EXPECT_CODE(expr, expected_code)                                      \
  do {                                                                        \
    const ::lqs::Status _st = ::lqs::testing::AsStatus(expr);                 \
    EXPECT_EQ(_st.code(), ::lqs::ErrorCode::expected_code) << _st.ToString(); \
  } while (0)

namespace rocksdb {
class DB;
class ColumnFamilyHandle;
}  // namespace rocksdb

namespace lqs::testing {

inline Status AsStatus(const Status& s) { return s; }
template <typename T>
Status AsStatus(const StatusOr<T>& s) {
  return s.status();
}

// A fresh directory under $TMPDIR, removed with its contents on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A temporary directory that a test shares with its death-test subprocess.
// gtest's "threadsafe" death tests re-execute the binary and run the test
// body again up to the EXPECT_EXIT; the first construction (in the test
// process) makes the directory and names it in the environment, and the one
// in the subprocess finds it there instead of making its own. One at a time.
class DeathTestDir {
 public:
  DeathTestDir();
  ~DeathTestDir();
  DeathTestDir(const DeathTestDir&) = delete;
  DeathTestDir& operator=(const DeathTestDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::unique_ptr<TempDir> own_;
  std::string path_;
};

// A test fixture: a database in a temporary directory on a ManualClock,
// background maintenance off (tests call RunMaintenance()).
class BrokerTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Options used by Open() / Reopen(); tests may change them first.
  Options MakeOptions();
  void Open();
  void Reopen();

  std::shared_ptr<Queue> MakeQueue(const std::string& name, const AttributeMap& attrs = {});
  // Sends `body` and returns the MessageId (fails the test on error).
  std::string Send(Queue& q, const std::string& body);
  // Receives up to `n` messages with all system attributes, no wait.
  std::vector<ReceivedMessage> Receive(Queue& q, int n = 10,
                                       std::optional<int> visibility_timeout = std::nullopt);
  // ApproximateNumberOf{Messages, MessagesNotVisible, MessagesDelayed}.
  std::array<int64_t, 3> Counts(Queue& q);
  void ExpectConsistent();
  // Closes the Broker, calls fn with the raw RocksDB database and its column
  // family `cf_name` (null if the database has none), and opens the Broker
  // again: for tests that inspect or damage what is on disk.
  void WithRawDb(bool read_only, const std::string& cf_name,
                 const std::function<void(rocksdb::DB*, rocksdb::ColumnFamilyHandle*)>& fn);

  TempDir dir_;
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>();
  Durability durability_ = Durability::kProcess;
  std::unique_ptr<Broker> broker_;
};

// Bytes in the write-ahead log files (*.log) of the database at `db_path`:
// they grow when a write reaches the log, so a test sees whether a deferred
// write was committed. Header-only, for test binaries without testutil.cc.
inline uintmax_t WalBytes(const std::string& db_path) {
  uintmax_t total = 0;
  for (const auto& entry : std::filesystem::directory_iterator(db_path)) {
    if (entry.path().extension() == ".log") total += entry.file_size();
  }
  return total;
}

}  // namespace lqs::testing

#endif  // LQS_TESTS_TESTUTIL_H_
