// tests/testutil.h — the helpers every C++ test shares: Status matchers, a
// temporary directory, and (tests/testutil.cc) a Broker on a ManualClock.
//
// The matchers and TempDir are header-only, so a test binary that does not
// link tests/testutil.cc (lqs_api_test, lqsd_unit_test, lqs_cli_unit_test)
// uses them too; BrokerTest and DeathTestDir need tests/testutil.cc.
//
// Status matchers. `expr` is a Status or a StatusOr<T>; `code` is the name of
// an ErrorCode enumerator (`kInvalidParameterValue`); `message` is the exact
// error text. All may be followed by `<<` to add to the failure message.
//   EXPECT_OK(expr) / ASSERT_OK(expr)        expr is ok
//   EXPECT_CODE(expr, code) / ASSERT_CODE     expr failed with that code
//   EXPECT_STATUS(expr, code, message)        ... and exactly that message
//   EXPECT_TRUE(MessageStartsWith(status, prefix))  the message starts so

#ifndef LQS_TESTS_TESTUTIL_H_
#define LQS_TESTS_TESTUTIL_H_

#include <array>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <stdlib.h>  // mkdtemp

#include "tests/test_profile.h"

#include "lqs/lqs.h"

#define EXPECT_OK(expr) EXPECT_TRUE(::lqs::testing::IsOk(expr))
#define ASSERT_OK(expr) ASSERT_TRUE(::lqs::testing::IsOk(expr))
#define EXPECT_CODE(expr, code) EXPECT_TRUE(::lqs::testing::HasCode((expr), ::lqs::ErrorCode::code))
#define ASSERT_CODE(expr, code) ASSERT_TRUE(::lqs::testing::HasCode((expr), ::lqs::ErrorCode::code))
#define EXPECT_STATUS(expr, code, message) \
  EXPECT_TRUE(::lqs::testing::HasStatus((expr), ::lqs::ErrorCode::code, (message)))

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

// The matchers behind EXPECT_OK, EXPECT_CODE and EXPECT_STATUS: success, or a
// failure that shows the status (and what was expected).
template <typename S>
::testing::AssertionResult IsOk(const S& result) {
  const Status status = AsStatus(result);
  if (status.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << status.ToString();
}

template <typename S>
::testing::AssertionResult HasCode(const S& result, ErrorCode code) {
  const Status status = AsStatus(result);
  if (status.code() == code) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "expected " << ErrorCodeName(code) << ", got " << status.ToString();
}

template <typename S>
::testing::AssertionResult HasStatus(const S& result, ErrorCode code, const std::string& message) {
  const Status status = AsStatus(result);
  if (status.code() == code && status.message() == message) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "expected " << ErrorCodeName(code) << ": " << message
                                       << "\n     got " << status.ToString();
}

// `status`'s message starts with `prefix` (for messages that go on with a
// parser's own words).
inline ::testing::AssertionResult MessageStartsWith(const Status& status,
                                                    const std::string& prefix) {
  if (status.message().rfind(prefix, 0) == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "expected a message starting with: " << prefix << "\n     got " << status.ToString();
}

// A fresh directory under std::filesystem::temp_directory_path() ($TMPDIR,
// else /tmp), removed with its contents on destruction. The test fails (and
// path() is empty) when it cannot be made. Not copyable.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "lqs-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      ADD_FAILURE() << "mkdtemp " << pattern << ": " << std::strerror(errno);
      return;
    }
    path_ = std::move(pattern);
  }
  ~TempDir() {
    if (path_.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
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
// background maintenance off (tests call RunMaintenance()), with the
// Options of TestProfileOptions().
class BrokerTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Options used by Open() / Reopen(); tests may change them first.
  Options MakeOptions();
  void Open();
  void Reopen();

  std::shared_ptr<Queue> MakeQueue(const std::string& name, const AttributeMap& attrs = {});
  // A RedrivePolicy value: dead letters go to the queue named `dlq` after
  // `max_receive_count` receives.
  std::string Redrive(const std::string& dlq, int max_receive_count);
  // Sends `body` and returns the MessageId (fails the test on error).
  std::string Send(Queue& q, const std::string& body);
  // Sends `body` with DelaySeconds `delay_seconds`; returns SendMessage's result.
  static StatusOr<SendMessageResult> SendDelayed(Queue& q, const std::string& body,
                                                 int delay_seconds);
  // Sends `body` with message attributes `attributes`; returns SendMessage's result.
  static StatusOr<SendMessageResult> SendWithAttributes(Queue& q, const std::string& body,
                                                        const MessageAttributeMap& attributes);
  // Receives up to `n` messages with all system attributes, no wait.
  std::vector<ReceivedMessage> Receive(Queue& q, int n = 10,
                                       std::optional<int> visibility_timeout = std::nullopt);
  // ApproximateNumberOf{Messages, MessagesNotVisible, MessagesDelayed}.
  std::array<int64_t, 3> Counts(Queue& q);
  // Starts a move task of dead-letter queue `dlq` back to its messages'
  // sources at `per_second` messages a second, then advances the clock one
  // second and runs maintenance (fails the test on error).
  void RedriveForOneSecond(const Queue& dlq, int per_second);
  void ExpectConsistent();
  // Closes the Broker, calls fn with the raw RocksDB database and its column
  // family `cf_name` (null if the database has none), and opens the Broker
  // again: for tests that inspect or damage what is on disk.
  void WithRawDb(bool read_only, const std::string& cf_name,
                 const std::function<void(rocksdb::DB*, rocksdb::ColumnFamilyHandle*)>& fn);
  // Through WithRawDb: drops the column family `cf_name` (which must
  // exist), making the database look like one from before that family was
  // added; the Broker, opened again, creates it.
  void DropRawColumnFamily(const std::string& cf_name);

  TempDir dir_;
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>();
  Durability durability_ = Durability::kProcess;
  int64_t max_disk_bytes_ = 0;  // Options::max_disk_bytes of Open()
  // Options::max_inflight_per_queue of Open().
  int64_t max_inflight_per_queue_ = limits::kMaxInflightMessages;
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

// Polls `pred` until it holds or `limit` (real time) passes. For waiting on
// other threads (a worker's, a consumer's) only, never for a timeout: tests
// move time with their ManualClock.
template <typename Pred>
bool WaitFor(Pred pred, std::chrono::milliseconds limit = std::chrono::seconds(20)) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// Walks `clock` 120 s in 5-second steps past a worker that holds a 30-second
// lease: its keeper renews 20 s into each lease (a third left), so at each
// 20th second this waits for `renewals()` to reach t / 20. `each_step(t)`
// runs after every step. False, with a failure, when a renewal did not come.
inline bool WalkLeaseRenewals(ManualClock* clock, const std::function<int64_t()>& renewals,
                              const std::function<void(int)>& each_step = {}) {
  for (int t = 5; t <= 120; t += 5) {
    clock->AdvanceSeconds(5);
    if (t % 20 == 0 && !WaitFor([&] { return renewals() >= t / 20; })) {
      ADD_FAILURE() << "no lease renewal by t=" << t;
      return false;
    }
    if (each_step) each_step(t);
  }
  return true;
}

// A latch that handlers wait on; every wait is bounded, so a failing test
// ends. Thread-safe.
class Gate {
 public:
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  bool Wait(std::chrono::milliseconds limit = std::chrono::seconds(20)) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, limit, [this] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

// The visible_at_ms of the one message `q` holds, or -1 when it holds none
// or several (a failed scan fails the test).
inline int64_t LoneMessageVisibleAt(Queue& q) {
  int64_t at = -1;
  int n = 0;
  EXPECT_OK(q.ScanMessages([&](const StoredMessage& m) {
    at = m.visible_at_ms;
    ++n;
    return true;
  }));
  return n == 1 ? at : -1;
}

}  // namespace lqs::testing

#endif  // LQS_TESTS_TESTUTIL_H_
