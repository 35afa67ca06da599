// The durability proof of the core library: kill -9 recovery against an
// external oracle (in the manner of RocksDB's db_stress), the cross-process
// database lock, and write failures injected under RocksDB.
//
// The crash tests drive tests/crash_child.cc (path: LQS_CRASH_CHILD), which
// sends, receives, deletes and changes visibility from several threads and
// logs "pending/acked/deleted/dlq-deleted <id>" to per-thread oracle files.
// After each SIGKILL the test opens the database and checks it against the
// oracle.

#include <unistd.h>

#include <rocksdb/env.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "lib/engine/open.h"
#include "tests/crash_child_support.h"
#include "tests/crash_harness.h"
#include "tests/testutil.h"

namespace lqs::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kWorkQueue = "work";
constexpr const char* kDeadLetterQueue = "work-dlq";
constexpr int kLongVisibility = 43200;

const char* DurabilityName(Durability d) {
  switch (d) {
    case Durability::kNone:
      return "none";
    case Durability::kProcess:
      return "process";
    case Durability::kFsync:
      return "fsync";
  }
  return "?";
}

int RoundsFromEnv(int default_rounds) {
  return CrashRoundsFromEnv("LQS_CRASH_ROUNDS", default_rounds);
}

// ---- The oracle -------------------------------------------------------------------

struct Oracle {
  std::set<std::string> pending;      // a send was attempted
  std::set<std::string> acked;        // the send returned OK
  std::set<std::string> deleting;     // a delete was attempted (either queue)
  std::set<std::string> deleted;      // DeleteMessage on "work" returned OK
  std::set<std::string> dlq_deleted;  // DeleteMessage on "work-dlq" returned OK
};

// Reads every thread's log in `dir` (a torn last line is ignored).
Oracle ReadOracle(const std::string& dir) {
  Oracle o;
  ReadOracleEvents(dir, [&o](const std::string&, const std::string& event, const std::string& id) {
    if (event == "pending") {
      o.pending.insert(id);
    } else if (event == "acked") {
      o.acked.insert(id);
    } else if (event == "deleting") {
      o.deleting.insert(id);
    } else if (event == "deleted") {
      o.deleted.insert(id);
    } else if (event == "dlq-deleted") {
      o.dlq_deleted.insert(id);
    }
  });
  return o;
}

// ---- Reading a database back ------------------------------------------------------

// ApproximateNumberOfMessages + ...NotVisible + ...Delayed.
std::array<int64_t, 3> CountsOf(Queue& q) {
  auto a = q.GetAttributes({"All"});
  EXPECT_OK(a);
  if (!a.ok()) return {-1, -1, -1};
  return {std::stoll((*a)[std::string(attr::kApproximateNumberOfMessages)]),
          std::stoll((*a)[std::string(attr::kApproximateNumberOfMessagesNotVisible)]),
          std::stoll((*a)[std::string(attr::kApproximateNumberOfMessagesDelayed)])};
}

// Receives every visible message of `q` with a long lease; returns the
// bodies in the order received. A receive may return nothing while messages
// remain (it moved a whole scan's worth to the DLQ), so the loop ends only
// when the queue also counts no visible message.
std::vector<std::string> Drain(Queue& q) {
  std::vector<std::string> bodies;
  for (int empty = 0; empty < 1000;) {
    ReceiveMessageRequest r;
    r.max_number_of_messages = 10;
    r.visibility_timeout = kLongVisibility;
    r.wait_time_seconds = 0;
    auto got = q.ReceiveMessage(r);
    EXPECT_OK(got);
    if (!got.ok()) break;
    for (auto& m : got->messages) bodies.push_back(std::move(m.body));
    if (!got->messages.empty()) continue;
    if (CountsOf(q)[0] == 0) break;
    ++empty;
  }
  return bodies;
}

// What a full drain of a database copy found.
struct DrainedState {
  std::vector<std::string> work;  // bodies received from "work"
  std::vector<std::string> dlq;   // bodies received from "work-dlq" (incl. moved by the drain)
  int64_t counted = 0;            // sum of both queues' counters before the drain
};

// Copies the database at `db` to `copy` and drains the copy on a ManualClock
// moved an hour past now: every lease has ended (VisibilityTimeout is 2 s),
// nothing has reached retention (4 days).
void DrainCopy(const std::string& db, const std::string& copy, Durability durability,
               DrainedState* out) {
  std::error_code ec;
  fs::remove_all(copy, ec);
  fs::copy(db, copy, fs::copy_options::recursive);
  auto clock = std::make_shared<ManualClock>(SystemClock().NowMillis());
  auto broker = OpenToCheck(copy, durability, clock);
  ASSERT_OK(broker);
  clock->AdvanceSeconds(3600);
  auto work = (*broker)->GetQueue(kWorkQueue);
  auto dlq = (*broker)->GetQueue(kDeadLetterQueue);
  ASSERT_OK(work);
  ASSERT_OK(dlq);
  for (Queue* q : {work->get(), dlq->get()}) {
    const auto c = CountsOf(*q);
    // With every lease over, nothing is in flight; nothing was delayed.
    EXPECT_EQ(c[1], 0) << q->name();
    EXPECT_EQ(c[2], 0) << q->name();
    out->counted += c[0] + c[1] + c[2];
  }
  // The source first: it may move messages (receive count >= 3) to the DLQ.
  out->work = Drain(**work);
  out->dlq = Drain(**dlq);
  for (Queue* q : {work->get(), dlq->get()}) {
    const auto c = CountsOf(*q);
    EXPECT_EQ(c[0], 0) << q->name() << " still counts visible messages after the drain";
    EXPECT_EQ(c[2], 0) << q->name();
  }
  ExpectVerifyClean(**broker, "the drained copy");
  EXPECT_OK((*broker)->Close());
  broker->reset();
  fs::remove_all(copy, ec);
}

struct RoundStats {
  size_t acked = 0, deleted = 0, present = 0, in_dlq = 0, pending_only_present = 0;
};

// The checks after one SIGKILL: the database opens, verifies clean, holds
// no message twice and nothing never sent, and its counters equal what a
// drain finds. In the durable modes it also holds every acknowledged and not
// deleted message, and nothing whose delete was acknowledged. (kNone
// promises no durability, only consistency.)
void CheckAfterCrash(const std::string& db, const std::string& oracle_dir,
                     const std::string& scratch, Durability durability, RoundStats* stats) {
  {
    auto broker = OpenToCheck(db, durability);
    ASSERT_OK(broker);
    ExpectVerifyClean(**broker, "the database after SIGKILL");
    ASSERT_OK((*broker)->Close());
    if (::testing::Test::HasFailure()) return;
  }
  DrainedState drained;
  DrainCopy(db, scratch + "/copy", durability, &drained);
  if (::testing::Test::HasFatalFailure()) return;

  const Oracle oracle = ReadOracle(oracle_dir);
  std::set<std::string> in_work, present;
  for (const auto& b : drained.work) {
    EXPECT_TRUE(present.insert(b).second) << "message " << b << " is stored twice";
    in_work.insert(b);
  }
  for (const auto& b : drained.dlq) {
    EXPECT_TRUE(present.insert(b).second) << "message " << b << " is stored twice";
  }
  EXPECT_EQ(drained.counted, static_cast<int64_t>(drained.work.size() + drained.dlq.size()))
      << "the queue counters disagree with the messages a drain finds";

  stats->acked = oracle.acked.size();
  stats->deleted = oracle.deleted.size() + oracle.dlq_deleted.size();
  stats->present = present.size();
  stats->in_dlq = drained.dlq.size();
  for (const auto& id : present) {
    EXPECT_TRUE(oracle.pending.count(id)) << "message " << id << " was never sent";
    if (oracle.acked.count(id) == 0) ++stats->pending_only_present;
  }
  if (durability == Durability::kNone) return;

  for (const auto& id : present) {
    EXPECT_FALSE(oracle.dlq_deleted.count(id))
        << "message " << id << " was deleted from the DLQ but is back";
  }
  // DeleteMessage on "work" with any handle of the message removes it from
  // "work"; it may have been moved to the DLQ before (that delete succeeds
  // and leaves the DLQ copy), so only "work" is checked.
  for (const auto& id : in_work) {
    EXPECT_FALSE(oracle.deleted.count(id)) << "message " << id << " was deleted but is back";
  }
  size_t lost = 0;
  for (const auto& id : oracle.acked) {
    // A delete attempted when the child died may or may not have happened.
    if (present.count(id) || oracle.deleting.count(id)) continue;
    if (++lost <= 10) ADD_FAILURE() << "acknowledged message " << id << " was lost";
  }
  EXPECT_EQ(lost, 0u) << "acknowledged sends lost in the crash";
}

// Runs `rounds` of: start the child on the same database with a new seed,
// let it work 100..600 ms after "ready", SIGKILL it, check the database.
// `child_env` ("NAME=value") is added to the child's environment.
void RunKillNineRounds(Durability durability, int rounds,
                       const std::vector<std::string>& child_env = {}) {
  TempDir dir;
  const std::string db = dir.path() + "/db", oracle = dir.path() + "/oracle";
  fs::create_directories(oracle);
  if (durability == Durability::kNone) {
    // kNone keeps only what a clean Close() flushed: create the queues (as
    // the child would) and close, so that a crash cannot take them too.
    auto broker = OpenToCheck(db, durability);
    ASSERT_OK(broker);
    ASSERT_OK(CreateQueueWithDlq(**broker, kWorkQueue, kDeadLetterQueue, 2, 3));
    ASSERT_OK((*broker)->Close());
  }
  std::mt19937 rng(std::random_device{}());
  for (int round = 0; round < rounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round) + " (" + DurabilityName(durability) + ")");
    const int run_ms = 100 + static_cast<int>(rng() % 501);
    ASSERT_NO_FATAL_FAILURE(RunChildAndKill(
        LQS_CRASH_CHILD, {db, oracle, std::to_string(round + 1), DurabilityName(durability)},
        std::chrono::milliseconds(run_ms), child_env));
    RoundStats stats;
    CheckAfterCrash(db, oracle, dir.path(), durability, &stats);
    if (::testing::Test::HasFailure()) return;
    std::printf("[ round %2d ] %s: killed after %3d ms; in all %zu sends acked, %zu deletes; "
                "now %zu stored (%zu in or bound for the DLQ, %zu sent but not acked)\n",
                round, DurabilityName(durability), run_ms, stats.acked, stats.deleted,
                stats.present, stats.in_dlq, stats.pending_only_present);
  }
}

// Proves, in mode `process`: after kill -9 at a random moment, while sends,
// receives, deletes, visibility changes, lease expiries, DLQ moves and
// background maintenance run concurrently, the database opens, Verify() is
// clean, no acknowledged send is lost, no message is stored twice, no
// deleted message comes back, nothing unsent appears, and the counters equal
// the data. The child continues on the same database each round, so later
// rounds recover databases that were themselves recovered.
TEST(DurabilityTest, KillNineRecovery) {
  RunKillNineRounds(Durability::kProcess, RoundsFromEnv(20));
}

// The same in mode `fsync` (group-committed synced sends).
TEST(DurabilityTest, KillNineRecoveryFsync) {
  RunKillNineRounds(Durability::kFsync, std::max(1, RoundsFromEnv(20) / 4));
}

// The same with deferred commits (lqs/commit_scope.h), as lqsd runs: every
// thread works in a CommitScope and counts a call as acknowledged only after
// the Commit() that follows it, one to three calls later. Proves that a
// Commit() makes every earlier change of the thread durable, and that
// changes still waiting for one are lost whole or kept whole, never in part.
TEST(DurabilityTest, KillNineRecoveryDeferredCommits) {
  RunKillNineRounds(Durability::kProcess, std::max(1, RoundsFromEnv(20) / 2),
                    {"LQS_CRASH_DEFERRED_COMMITS=1"});
}

TEST(DurabilityTest, KillNineRecoveryDeferredCommitsFsync) {
  RunKillNineRounds(Durability::kFsync, std::max(1, RoundsFromEnv(20) / 4),
                    {"LQS_CRASH_DEFERRED_COMMITS=1"});
}

// Proves that in mode `none`, where a crash may lose everything since the
// last flush, what remains after kill -9 is still consistent: every message
// in exactly one state, counters equal to the data, no message twice. Small
// memtables (64 KiB) make RocksDB flush column families while the child
// runs, so the state on disk is whatever those flushes left.
//
// FAILS at the time of writing (bug): with the WAL disabled, RocksDB
// flushes each column family on its own (DBOptions::atomic_flush is off in
// lib/storage/database.cc), so after a kill the column families are from
// different moments: Verify() reports messages in no state, leases without
// messages and counters that disagree; without the pre-created queues, even
// "orphan data" of queues whose catalogue entry was never flushed.
TEST(DurabilityTest, KillNineNoneModeStaysConsistent) {
  RunKillNineRounds(Durability::kNone, std::max(1, RoundsFromEnv(20) / 4),
                    {"LQS_CRASH_WRITE_BUFFER_BYTES=65536"});
}

// Proves that a second process cannot open a database in use: Broker::Open
// fails with kDatabaseLocked and says why, instead of corrupting it.
TEST(DurabilityTest, DatabaseLockedByAnotherProcess) {
  TempDir dir;
  const std::string db = dir.path() + "/db";
  ChildProcess child(LQS_CRASH_CHILD);
  std::string error;
  ASSERT_TRUE(child.Start({db, dir.path() + "/oracle", "1", "process"}, &error)) << error;
  ASSERT_TRUE(child.WaitReady(std::chrono::seconds(20), &error)) << error;

  Options o;
  o.path = db;
  o.background_maintenance = false;
  auto broker = Broker::Open(o);
  ASSERT_FALSE(broker.ok());
  EXPECT_EQ(broker.status().code(), ErrorCode::kDatabaseLocked) << broker.status().ToString();
  EXPECT_NE(broker.status().message().find("in use by another process"), std::string::npos)
      << broker.status().ToString();

  EXPECT_EQ(child.Kill(), "killed by signal 9");
  // Once the holder is gone the lock is released with it.
  auto reopened = Broker::Open(o);
  ASSERT_OK(reopened);
  ExpectVerifyClean(**reopened, "the database after its holder was killed");
  EXPECT_OK((*reopened)->Close());
}

// ---- Fault injection --------------------------------------------------------------

// An Env whose writable files (WAL, SST, MANIFEST) fail Append and Sync with
// "No space left on device" while fail() is set, like a full disk.
class NoSpaceEnv : public rocksdb::EnvWrapper {
 public:
  NoSpaceEnv() : rocksdb::EnvWrapper(rocksdb::Env::Default()) {}
  const char* Name() const override { return "NoSpaceEnv"; }

  void set_fail(bool fail) { fail_.store(fail); }
  int failed_calls() const { return failed_calls_.load(); }

  rocksdb::Status NewWritableFile(const std::string& f, std::unique_ptr<rocksdb::WritableFile>* r,
                                  const rocksdb::EnvOptions& options) override {
    return Wrap(target()->NewWritableFile(f, r, options), r);
  }
  rocksdb::Status ReopenWritableFile(const std::string& f,
                                     std::unique_ptr<rocksdb::WritableFile>* r,
                                     const rocksdb::EnvOptions& options) override {
    return Wrap(target()->ReopenWritableFile(f, r, options), r);
  }
  rocksdb::Status ReuseWritableFile(const std::string& f, const std::string& old,
                                    std::unique_ptr<rocksdb::WritableFile>* r,
                                    const rocksdb::EnvOptions& options) override {
    return Wrap(target()->ReuseWritableFile(f, old, r, options), r);
  }

 private:
  class File : public rocksdb::WritableFileWrapper {
   public:
    File(std::unique_ptr<rocksdb::WritableFile> base, NoSpaceEnv* env)
        : rocksdb::WritableFileWrapper(base.get()), base_(std::move(base)), env_(env) {}
    rocksdb::Status Append(const rocksdb::Slice& data) override {
      if (env_->ShouldFail()) return NoSpace();
      return rocksdb::WritableFileWrapper::Append(data);
    }
    rocksdb::Status Append(const rocksdb::Slice& data,
                           const rocksdb::DataVerificationInfo& info) override {
      if (env_->ShouldFail()) return NoSpace();
      return rocksdb::WritableFileWrapper::Append(data, info);
    }
    rocksdb::Status PositionedAppend(const rocksdb::Slice& data, uint64_t offset) override {
      if (env_->ShouldFail()) return NoSpace();
      return rocksdb::WritableFileWrapper::PositionedAppend(data, offset);
    }
    rocksdb::Status Sync() override {
      if (env_->ShouldFail()) return NoSpace();
      return rocksdb::WritableFileWrapper::Sync();
    }
    rocksdb::Status Fsync() override {
      if (env_->ShouldFail()) return NoSpace();
      return rocksdb::WritableFileWrapper::Fsync();
    }

   private:
    static rocksdb::Status NoSpace() {
      return rocksdb::Status::NoSpace("injected: No space left on device");
    }
    std::unique_ptr<rocksdb::WritableFile> base_;
    NoSpaceEnv* env_;
  };

  bool ShouldFail() {
    if (!fail_.load()) return false;
    failed_calls_.fetch_add(1);
    return true;
  }

  rocksdb::Status Wrap(rocksdb::Status s, std::unique_ptr<rocksdb::WritableFile>* r) {
    if (s.ok()) *r = std::make_unique<File>(std::move(*r), this);
    return s;
  }

  std::atomic<bool> fail_{false};
  std::atomic<int> failed_calls_{0};
};

// A directory shared by a test and its death-test subprocess. gtest's
// "threadsafe" death tests re-execute the binary and run the test body again
// up to the EXPECT_EXIT; the subprocess finds the parent's directory in the
// environment instead of making its own.
class SharedDir {
 public:
  static constexpr const char* kEnv = "LQS_DURABILITY_TEST_DIR";
  SharedDir() {
    if (const char* inherited = std::getenv(kEnv)) {
      path_ = inherited;
      return;
    }
    own_ = std::make_unique<TempDir>();
    path_ = own_->path();
    ::setenv(kEnv, path_.c_str(), 1);
  }
  ~SharedDir() {
    if (own_) ::unsetenv(kEnv);
  }
  const std::string& path() const { return path_; }

 private:
  std::unique_ptr<TempDir> own_;
  std::string path_;
};

// The part of a disk-full test that runs in a subprocess, so that a crash is
// one failed test rather than the end of the test binary. Opens the
// database over a NoSpaceEnv, sends and deletes, fills the disk, checks that
// every call fails with kIOError and a clear message, frees the disk, and
// records what it did in <dir>/journal ("acked|deleted|failed <body>",
// "note <text>") for the parent. With `close_after`, ends with
// Broker::Close() (and the Broker's destruction); without, exits as if
// killed. Returns the exit code: 0 iff every check held (failures are
// described on stderr).
int RunDiskFullPhase(const std::string& dir, bool close_after) {
  int failures = 0;
  auto check = [&failures](bool ok, const std::string& what) {
    if (!ok) {
      std::fprintf(stderr, "CHECK FAILED: %s\n", what.c_str());
      ++failures;
    }
  };
  std::ofstream journal(dir + "/journal");
  auto record = [&journal](const char* what, const std::string& text) {
    journal << what << ' ' << text << '\n';
    journal.flush();
  };

  NoSpaceEnv env;
  Options o;
  o.path = dir + "/db";
  o.clock = std::make_shared<ManualClock>();
  o.background_maintenance = false;
  auto opened = engine::OpenBroker(o, &env);
  if (!opened.ok()) {
    std::fprintf(stderr, "open: %s\n", opened.status().ToString().c_str());
    return 2;
  }
  std::unique_ptr<Broker> broker = std::move(opened).value();
  auto created = broker->CreateQueue("jobs", {}, {});
  if (!created.ok()) {
    std::fprintf(stderr, "create: %s\n", created.status().ToString().c_str());
    return 2;
  }
  Queue& q = **created;
  auto send = [&q](const std::string& body) {
    SendMessageRequest r;
    r.body = body;
    return q.SendMessage(r).status();
  };

  for (int i = 0; i < 20; ++i) {
    const std::string body = "before-" + std::to_string(i);
    const Status st = send(body);
    check(st.ok(), "send " + body + ": " + st.ToString());
    if (st.ok()) record("acked", body);
  }
  // Some messages in flight and some deleted before the fault.
  ReceiveMessageRequest rr;
  rr.max_number_of_messages = 4;
  rr.wait_time_seconds = 0;
  auto got = q.ReceiveMessage(rr);
  check(got.ok() && got->messages.size() == 4, "receive 4 before the fault");
  if (!got.ok() || got->messages.size() != 4) return 1;
  for (size_t i = 0; i < 2; ++i) {
    const Status st = q.DeleteMessage(got->messages[i].receipt_handle);
    check(st.ok(), "delete before the fault: " + st.ToString());
    if (st.ok()) record("deleted", got->messages[i].body);
  }

  // The disk fills up. A send fails with kIOError and says why.
  env.set_fail(true);
  Status st = send("during-0");
  record("failed", "during-0");
  record("note", "a send on a full disk: " + st.ToString());
  check(st.code() == ErrorCode::kIOError, "send on a full disk: " + st.ToString());
  check(st.message().find("No space") != std::string::npos,
        "the error names the cause: " + st.ToString());

  // A batch reports every entry as failed by the server, none as sent.
  std::vector<SendMessageBatchEntry> entries(3);
  for (size_t i = 0; i < entries.size(); ++i) {
    entries[i].id = "e" + std::to_string(i);
    entries[i].request.body = "during-batch-" + std::to_string(i);
    record("failed", entries[i].request.body);
  }
  auto batch = q.SendMessageBatch(entries);
  if (batch.ok()) {
    check(batch->successful.empty(), "no batch entry succeeds on a full disk");
    check(batch->failed.size() == entries.size(), "every batch entry fails");
    for (const auto& f : batch->failed) {
      check(!f.sender_fault, "a full disk is not the sender's fault: " + f.code);
    }
  } else {
    check(batch.status().code() == ErrorCode::kIOError, "batch: " + batch.status().ToString());
  }

  // Receives, deletes and visibility changes fail with kIOError too (a
  // receive may also succeed with nothing to write).
  auto rec = q.ReceiveMessage(rr);
  check(rec.ok() || rec.status().code() == ErrorCode::kIOError,
        "receive on a full disk: " + rec.status().ToString());
  const Status del = q.DeleteMessage(got->messages[2].receipt_handle);
  check(del.ok() || del.code() == ErrorCode::kIOError, "delete on a full disk: " + del.ToString());
  if (del.ok()) record("deleted", got->messages[2].body);
  if (!del.ok()) {
    // The failed delete gave its claim on the lease back: the message is
    // still in flight (so this fails writing, not for want of a lease).
    const Status again = q.ChangeMessageVisibility(got->messages[2].receipt_handle, 30);
    check(again.code() == ErrorCode::kIOError,
          "a failed delete keeps the lease: " + again.ToString());
  }
  const Status cmv = q.ChangeMessageVisibility(got->messages[3].receipt_handle, 0);
  check(cmv.ok() || cmv.code() == ErrorCode::kIOError,
        "change visibility on a full disk: " + cmv.ToString());
  check(env.failed_calls() > 0, "the injected fault was hit");

  // Room again: does the open database take writes?
  env.set_fail(false);
  st = send("after-fault");
  if (st.ok()) {
    record("acked", "after-fault");
    record("note", "once the disk has room the open broker sends again");
  } else {
    record("failed", "after-fault");
    record("note", "once the disk has room the open broker still refuses sends "
                   "(RocksDB background error; read-only until reopened): " + st.ToString());
    check(st.code() == ErrorCode::kIOError, "send after the fault: " + st.ToString());
  }

  if (close_after) {
    const Status closed = broker->Close();
    record("note", "Close after the fault: " + (closed.ok() ? std::string("OK") : closed.ToString()));
    broker.reset();
  }
  journal.close();
  return failures == 0 ? 0 : 1;
}

// The parent's half: reads the journal, reopens the database normally, and
// checks that everything acknowledged (and not deleted) is there, nothing
// deleted or failed is, the database is consistent, and sends work again.
void CheckAfterDiskFull(const std::string& dir) {
  std::set<std::string> acked, deleted, failed;
  {
    std::ifstream in(dir + "/journal");
    std::string line;
    while (std::getline(in, line)) {
      const size_t space = line.find(' ');
      if (space == std::string::npos) continue;
      const std::string what = line.substr(0, space), text = line.substr(space + 1);
      if (what == "acked") acked.insert(text);
      if (what == "deleted") deleted.insert(text);
      if (what == "failed") failed.insert(text);
      if (what == "note") std::printf("[ disk full ] %s\n", text.c_str());
    }
  }
  ASSERT_GE(acked.size(), 20u) << "the subprocess did not get through its sends";

  auto clock = std::make_shared<ManualClock>();
  Options o;
  o.path = dir + "/db";
  o.clock = clock;
  o.background_maintenance = false;
  auto reopened = Broker::Open(o);
  ASSERT_OK(reopened);
  ExpectVerifyClean(**reopened, "the database reopened after the disk was full");
  auto q = (*reopened)->GetQueue("jobs");
  ASSERT_OK(q);
  clock->AdvanceSeconds(3600);  // every lease over
  const auto counts = CountsOf(**q);
  std::set<std::string> present;
  for (auto& b : Drain(**q)) EXPECT_TRUE(present.insert(b).second) << b << " is stored twice";
  EXPECT_EQ(counts[0] + counts[1] + counts[2], static_cast<int64_t>(present.size()));
  for (const auto& body : acked) {
    if (deleted.count(body)) continue;
    EXPECT_TRUE(present.count(body)) << "acknowledged message " << body << " was lost";
  }
  for (const auto& body : deleted) {
    EXPECT_FALSE(present.count(body)) << "deleted message " << body << " is back";
  }
  // A call that failed changed nothing.
  for (const auto& body : failed) {
    EXPECT_FALSE(present.count(body)) << "the failed send of " << body << " was stored";
  }
  SendMessageRequest r;
  r.body = "after-reopen";
  EXPECT_OK((*q)->SendMessage(r));
  EXPECT_EQ(Drain(**q), std::vector<std::string>{"after-reopen"});
  ExpectVerifyClean(**reopened, "the database after new sends");
  EXPECT_OK((*reopened)->Close());
}

// Proves that a disk that refuses writes (ENOSPC) makes sends, batches,
// receives, deletes and visibility changes fail with kIOError and a clear
// message, never a crash, and that nothing acknowledged before the fault is
// lost and nothing that failed is stored.
//
// What RocksDB 7.8 does after a failed WAL write: it records a background
// error (a hard error: paranoid_checks is on) and stops writes; a WAL write
// failure is not auto-recovered (only flush/compaction NoSpace errors are
// retried), so sends keep failing after the disk has room again until the
// database is reopened. The subprocess observes and notes which happens and
// asserts only that any failure is kIOError. The process then ends without
// Close() (see CloseAfterDiskFull for why), like a process that gives up;
// a normal reopen must then recover everything acknowledged.
TEST(DurabilityTest, FaultInjection) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  SharedDir dir;
  EXPECT_EXIT(std::_Exit(RunDiskFullPhase(dir.path(), /*close_after=*/false)),
              ::testing::ExitedWithCode(0), "");
  CheckAfterDiskFull(dir.path());
}

// Proves that Broker::Close() after a disk-full write error returns (an
// error or OK) instead of crashing, and that the closed database then
// reopens with everything acknowledged.
//
// A regression test: Database::Close() used to call
// db->FlushWAL(/*sync=*/true) first; after the failed WAL append RocksDB's
// WAL writer has seen_error_ set, and SyncWithoutFlush() hits
// assert(sync_without_flush_called_) (writable_file_writer.h:312), aborting
// the process in mode `process` (this RocksDB build keeps assertions). The
// Broker destructor calls Close() too, so any Broker that had seen a
// disk-full write aborted its process when destroyed. Close() must not sync
// the WAL once RocksDB holds a background error.
TEST(DurabilityTest, CloseAfterDiskFull) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  SharedDir dir;
  EXPECT_EXIT(std::_Exit(RunDiskFullPhase(dir.path(), /*close_after=*/true)),
              ::testing::ExitedWithCode(0), "");
  CheckAfterDiskFull(dir.path());
}

}  // namespace
}  // namespace lqs::testing
