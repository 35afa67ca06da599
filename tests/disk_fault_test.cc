// Full disks and failing disks: ENOSPC and EIO injected under RocksDB
// (tests/fault_fs.h) while a Broker runs. What the tests prove:
//
//   - every call on a full or failing disk fails with kIOError, and the
//     message names the operation and says what to do (the disk is full: lqs
//     resumes by itself once there is room; another error: reopen);
//   - nothing acknowledged before the fault is lost, and a call that failed
//     is not applied (with deferred commits a failed Commit leaves its calls'
//     outcome unknown, as a server error does);
//   - once the disk has room again, the same open Broker takes writes: no
//     reopen (RocksDB's DB::Resume, lib/storage/database.cc);
//   - a failed read is a kIOError too, and changes nothing;
//   - Close() after any of these returns instead of crashing, and the
//     database then reopens, verifies and holds everything acknowledged.
//
// CTest names: disk_full.* and io_error.* (cmake/LqsTests.cmake), so that
// `ctest -R 'power_loss|disk_full|io_error'` runs every fault test.
//
// Each phase that drives the faults runs in a subprocess (a gtest
// "threadsafe" death test): a RocksDB assertion or crash is then one failed
// test, not the end of the test binary. The subprocess records what it did
// in <dir>/journal ("acked|deleted|failed|unknown <body>", "note <text>")
// and the test process checks the database against it after a normal open.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tests/crash_harness.h"
#include "tests/faulty_broker.h"
#include "tests/testutil.h"

namespace lqs::testing {
namespace {

using WriteFault = FaultFileSystem::WriteFault;

// The subprocess's bookkeeping: failed checks (on stderr) and the journal.
class Phase {
 public:
  explicit Phase(const std::string& dir) : journal_(dir + "/journal") {}

  void Check(bool ok, const std::string& what) {
    if (ok) return;
    std::fprintf(stderr, "CHECK FAILED: %s\n", what.c_str());
    ++failures_;
  }
  void Record(const char* what, const std::string& text) {
    journal_ << what << ' ' << text << '\n';
    journal_.flush();
  }
  int ExitCode() const { return failures_ == 0 ? 0 : 1; }

 private:
  std::ofstream journal_;
  int failures_ = 0;
};

// Opens <dir>/db over a FaultFileSystem; exits the subprocess on failure.
FaultyBroker OpenOverFaults(const std::string& dir, bool deferred_commits) {
  Options options = TestProfileOptions();
  options.path = dir + "/db";
  options.clock = std::make_shared<ManualClock>();
  options.background_maintenance = false;
  options.deferred_commits = deferred_commits;
  auto opened = OpenFaultyBroker(options);
  if (!opened.ok()) {
    std::fprintf(stderr, "open: %s\n", opened.status().ToString().c_str());
    std::_Exit(2);
  }
  return std::move(opened).value();
}

Status Send(Queue& q, const std::string& body) {
  SendMessageRequest r;
  r.body = body;
  return q.SendMessage(r).status();
}

bool Mentions(const Status& st, const char* text) {
  return st.message().find(text) != std::string::npos;
}

// A send while the disk fails (committed, with deferred commits): it must
// fail with kIOError. Recorded as failed, or with deferred commits as
// unknown: the send was applied in memory before its commit failed.
Status SendDuringFault(Phase& phase, Queue& q, const std::string& body, bool deferred_commits,
                       const std::function<Status()>& commit, const std::string& what) {
  Status st = Send(q, body);
  if (deferred_commits && st.ok()) st = commit();
  phase.Record(deferred_commits ? "unknown" : "failed", body);
  phase.Record("note", what + ": " + st.ToString());
  phase.Check(st.code() == ErrorCode::kIOError, what + ": " + st.ToString());
  return st;
}

// The disk-full phase: sends and deletes, fills the disk, checks that every
// call fails with kIOError and says the disk is full, frees the disk, and
// checks that the same Broker writes again. With `deferred_commits` the
// calls run in a CommitScope, as lqsd's do. With `close_after` it ends with
// Broker::Close(); without, it exits as if killed.
int RunDiskFullPhase(const std::string& dir, bool deferred_commits, bool close_after) {
  Phase phase(dir);
  FaultyBroker opened = OpenOverFaults(dir, deferred_commits);
  FaultFileSystem& fs = *opened.fs;
  Broker& broker = *opened.broker;
  auto created = broker.CreateQueue("jobs", {}, {});
  if (!created.ok()) return 2;
  Queue& q = **created;
  std::optional<CommitScope> scope;
  if (deferred_commits) scope.emplace(&broker);
  auto commit = [&]() { return scope ? scope->Commit() : Status::OK(); };

  for (int i = 0; i < 20; ++i) {
    const std::string body = "before-" + std::to_string(i);
    const Status st = Send(q, body);
    phase.Check(st.ok(), "send " + body + ": " + st.ToString());
  }
  phase.Check(commit().ok(), "commit before the fault");
  for (int i = 0; i < 20; ++i) phase.Record("acked", "before-" + std::to_string(i));
  ReceiveMessageRequest rr;
  rr.max_number_of_messages = 4;
  rr.wait_time_seconds = 0;
  auto got = q.ReceiveMessage(rr);
  phase.Check(got.ok() && got->messages.size() == 4, "receive 4 before the fault");
  if (!got.ok() || got->messages.size() != 4) return 1;
  for (size_t i = 0; i < 2; ++i) {
    phase.Check(q.DeleteMessage(got->messages[i].receipt_handle).ok(), "delete before the fault");
  }
  phase.Check(commit().ok(), "commit the deletes");
  for (size_t i = 0; i < 2; ++i) phase.Record("deleted", got->messages[i].body);

  // The disk fills up.
  fs.FailWrites(WriteFault::kNoSpace);
  Status st =
      SendDuringFault(phase, q, "during-0", deferred_commits, commit, "a send on a full disk");
  phase.Check(Mentions(st, "No space"), "the error names the cause: " + st.ToString());
  phase.Check(Mentions(st, "disk is full"), "the error says the disk is full: " + st.ToString());

  // Later calls fail too, without a crash; a batch fails every entry as the
  // server's fault.
  std::vector<SendMessageBatchEntry> entries(3);
  for (size_t i = 0; i < entries.size(); ++i) {
    entries[i].id = "e" + std::to_string(i);
    entries[i].request.body = "during-batch-" + std::to_string(i);
    phase.Record("failed", entries[i].request.body);
  }
  auto batch = q.SendMessageBatch(entries);
  if (batch.ok()) {
    phase.Check(batch->successful.empty(), "no batch entry succeeds on a full disk");
    phase.Check(batch->failed.size() == entries.size(), "every batch entry fails");
    for (const auto& f : batch->failed) {
      phase.Check(!f.sender_fault, "a full disk is not the sender's fault: " + f.code);
    }
  } else {
    phase.Check(batch.status().code() == ErrorCode::kIOError,
                "batch: " + batch.status().ToString());
  }
  auto rec = q.ReceiveMessage(rr);
  phase.Check(rec.ok() || rec.status().code() == ErrorCode::kIOError,
              "receive on a full disk: " + rec.status().ToString());
  const Status del = q.DeleteMessage(got->messages[2].receipt_handle);
  phase.Check(del.code() == ErrorCode::kIOError, "delete on a full disk: " + del.ToString());
  const Status cmv = q.ChangeMessageVisibility(got->messages[3].receipt_handle, 0);
  phase.Check(cmv.code() == ErrorCode::kIOError, "visibility on a full disk: " + cmv.ToString());
  phase.Check(fs.failed_writes() > 0, "the injected fault was hit");
  // Reads work while writes are refused.
  auto attrs = q.GetAttributes({"ApproximateNumberOfMessages"});
  phase.Check(attrs.ok(), "GetQueueAttributes on a full disk: " + attrs.status().ToString());

  // Room again: the same Broker writes, without a reopen.
  fs.FailWrites(WriteFault::kNone);
  st = Send(q, "after-fault");
  if (st.ok()) st = commit();
  phase.Check(st.ok(), "a send once the disk has room: " + st.ToString());
  if (st.ok()) phase.Record("acked", "after-fault");
  const Status del_after = q.DeleteMessage(got->messages[2].receipt_handle);
  phase.Check(del_after.ok(),
              "the delete that failed, once there is room: " + del_after.ToString());
  if (del_after.ok() && commit().ok()) phase.Record("deleted", got->messages[2].body);
  phase.Record("note", "once the disk has room the open broker writes again");

  scope.reset();
  if (close_after) {
    const Status closed = broker.Close();
    phase.Check(closed.ok(), "Close after the fault: " + closed.ToString());
  }
  return phase.ExitCode();
}

// The test process's half: reopens the database normally and checks it
// against the subprocess's journal: everything acknowledged (and not
// deleted) is there, nothing deleted or failed is, the database verifies,
// and it takes sends.
void CheckDatabase(const std::string& dir) {
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
      if (what == "note") std::printf("[ disk fault ] %s\n", text.c_str());
    }
  }
  ASSERT_FALSE(acked.empty()) << "the subprocess did not get through its sends";

  auto clock = std::make_shared<ManualClock>();
  auto reopened = OpenToCheck(dir + "/db", Durability::kProcess, clock);
  ASSERT_OK(reopened);
  ExpectVerifyClean(**reopened, "the database reopened after the fault");
  auto q = (*reopened)->GetQueue("jobs");
  ASSERT_OK(q);
  clock->AdvanceSeconds(3600);  // every lease over
  std::set<std::string> present;
  for (int empty = 0; empty < 3;) {
    ReceiveMessageRequest r;
    r.max_number_of_messages = 10;
    r.visibility_timeout = 43200;
    auto got = (*q)->ReceiveMessage(r);
    ASSERT_OK(got);
    if (got->messages.empty()) ++empty;
    for (auto& m : got->messages) EXPECT_TRUE(present.insert(m.body).second) << m.body << " twice";
  }
  for (const auto& body : acked) {
    if (deleted.count(body) == 0) {
      EXPECT_TRUE(present.count(body)) << "acknowledged message " << body << " was lost";
    }
  }
  for (const auto& body : deleted) EXPECT_FALSE(present.count(body)) << body << " is back";
  for (const auto& body : failed) EXPECT_FALSE(present.count(body)) << body << " was stored";
  SendMessageRequest r;
  r.body = "after-reopen";
  EXPECT_OK((*q)->SendMessage(r));
  ExpectVerifyClean(**reopened, "the database after new sends");
  EXPECT_OK((*reopened)->Close());
}

// Runs `phase` on a shared directory in a subprocess, which must exit 0,
// then checks the database it left (CheckDatabase).
void RunPhaseAndCheck(const std::function<int(const std::string&)>& phase) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  DeathTestDir dir;
  EXPECT_EXIT(std::_Exit(phase(dir.path())), ::testing::ExitedWithCode(0), "");
  CheckDatabase(dir.path());
}

// Proves that on a full disk every call fails with kIOError saying so, and
// that once there is room the same Broker takes writes again: no reopen.
TEST(DiskFull, WritesResumeWithoutReopen) {
  RunPhaseAndCheck([](const std::string& dir) { return RunDiskFullPhase(dir, false, false); });
}

// The same with deferred commits (lqsd's I/O threads): the log write-out of
// a Commit() fails, and once there is room the next Commit() succeeds.
TEST(DiskFull, DeferredCommitsResumeWithoutReopen) {
  RunPhaseAndCheck([](const std::string& dir) { return RunDiskFullPhase(dir, true, false); });
}

// Proves that Broker::Close() after a full disk returns OK instead of
// crashing, and that the database then reopens with everything acknowledged.
// (A regression test: Close() used to sync RocksDB's log writer after its
// failed append, which this RocksDB build's assertions abort on.)
TEST(DiskFull, CloseAfterTheDiskHadRoomAgain) {
  RunPhaseAndCheck([](const std::string& dir) { return RunDiskFullPhase(dir, false, true); });
}

TEST(DiskFull, DeferredCommitsCloseAfterTheDiskHadRoomAgain) {
  RunPhaseAndCheck([](const std::string& dir) { return RunDiskFullPhase(dir, true, true); });
}

// Creates the queue "jobs" and sends "before-0" to "before-4", recording
// each acknowledged send; nullptr if the queue cannot be created.
std::shared_ptr<Queue> JobsWithFiveSends(Phase& phase, Broker& broker) {
  auto created = broker.CreateQueue("jobs", {}, {});
  if (!created.ok()) return nullptr;
  for (int i = 0; i < 5; ++i) {
    const std::string body = "before-" + std::to_string(i);
    const Status st = Send(**created, body);
    phase.Check(st.ok(), "send: " + st.ToString());
    if (st.ok()) phase.Record("acked", body);
  }
  return *created;
}

// A disk that stays full until Close(): Close() returns (an error or OK)
// and the database reopens with everything acknowledged before the fault.
int RunCloseWhileFullPhase(const std::string& dir) {
  Phase phase(dir);
  FaultyBroker opened = OpenOverFaults(dir, false);
  std::shared_ptr<Queue> jobs = JobsWithFiveSends(phase, *opened.broker);
  if (!jobs) return 2;
  opened.fs->FailWrites(WriteFault::kNoSpace);
  const Status st = Send(*jobs, "during");
  phase.Record("failed", "during");
  phase.Check(st.code() == ErrorCode::kIOError, "send on a full disk: " + st.ToString());
  const Status closed = opened.broker->Close();
  phase.Record("note", "Close on a full disk: " + (closed.ok() ? "OK" : closed.ToString()));
  phase.Check(closed.ok() || closed.code() == ErrorCode::kIOError, "Close: " + closed.ToString());
  return phase.ExitCode();
}

TEST(DiskFull, CloseWhileStillFull) { RunPhaseAndCheck(RunCloseWhileFullPhase); }

// The disk fills up right after every memtable was flushed, so that
// resuming has nothing to flush: the log that failed must still be
// replaced, and the next write go to a new one (this RocksDB build aborts on
// a write to a log writer that saw an error).
int RunFullAfterFlushPhase(const std::string& dir) {
  Phase phase(dir);
  FaultyBroker opened = OpenOverFaults(dir, false);
  std::shared_ptr<Queue> jobs = JobsWithFiveSends(phase, *opened.broker);
  if (!jobs) return 2;
  phase.Check(opened.broker->CompactAll().ok(), "CompactAll (flushes every memtable)");
  opened.fs->FailWrites(WriteFault::kNoSpace);
  Status st = Send(*jobs, "during");
  phase.Record("failed", "during");
  phase.Check(st.code() == ErrorCode::kIOError, "send on a full disk: " + st.ToString());
  opened.fs->FailWrites(WriteFault::kNone);
  for (int i = 0; i < 5; ++i) {
    const std::string body = "after-" + std::to_string(i);
    st = Send(*jobs, body);
    phase.Check(st.ok(), "send once there is room: " + st.ToString());
    if (st.ok()) phase.Record("acked", body);
  }
  const Status closed = opened.broker->Close();
  phase.Check(closed.ok(), "Close: " + closed.ToString());
  return phase.ExitCode();
}

TEST(DiskFull, FullRightAfterAFlush) { RunPhaseAndCheck(RunFullAfterFlushPhase); }

// EIO on writes: every write fails with kIOError naming the operation and
// saying what to do; reads still work; nothing failed is applied. Whether
// RocksDB can resume after a failed log write of this kind decides the
// rest: either the Broker writes again once the disk does, or every write
// keeps failing with a message that says to reopen. Both end in a database
// that reopens clean with everything acknowledged.
int RunWriteErrorPhase(const std::string& dir, bool deferred_commits) {
  Phase phase(dir);
  FaultyBroker opened = OpenOverFaults(dir, deferred_commits);
  auto created = opened.broker->CreateQueue("jobs", {}, {});
  if (!created.ok()) return 2;
  Queue& q = **created;
  std::optional<CommitScope> scope;
  if (deferred_commits) scope.emplace(opened.broker.get());
  auto commit = [&]() { return scope ? scope->Commit() : Status::OK(); };
  for (int i = 0; i < 10; ++i) phase.Check(Send(q, "before-" + std::to_string(i)).ok(), "send");
  phase.Check(commit().ok(), "commit");
  for (int i = 0; i < 10; ++i) phase.Record("acked", "before-" + std::to_string(i));

  opened.fs->FailWrites(WriteFault::kIOError);
  Status st =
      SendDuringFault(phase, q, "during", deferred_commits, commit, "a send on a failing disk");
  phase.Check(Mentions(st, "Input/output error"), "the error names the cause: " + st.ToString());
  phase.Check(Mentions(st, "writing") || Mentions(st, "syncing"),
              "the error names the operation: " + st.ToString());
  auto attrs = q.GetAttributes({"ApproximateNumberOfMessages"});
  phase.Check(attrs.ok(), "reads on a failing disk: " + attrs.status().ToString());

  opened.fs->FailWrites(WriteFault::kNone);
  st = Send(q, "after");
  if (st.ok()) st = commit();
  if (st.ok()) {
    phase.Record("acked", "after");
    phase.Record("note", "after EIO on a write, the open broker writes again once the disk does");
  } else {
    phase.Record("failed", "after");
    phase.Record("note", "after EIO on a write, writes need a reopen: " + st.ToString());
    phase.Check(st.code() == ErrorCode::kIOError, "send after the fault: " + st.ToString());
    phase.Check(Mentions(st, "reopen"), "the error says to reopen: " + st.ToString());
  }
  scope.reset();
  const Status closed = opened.broker->Close();
  phase.Check(closed.ok() || closed.code() == ErrorCode::kIOError, "Close: " + closed.ToString());
  return phase.ExitCode();
}

TEST(IoError, WriteFailsCleanly) {
  RunPhaseAndCheck([](const std::string& dir) { return RunWriteErrorPhase(dir, false); });
}

TEST(IoError, DeferredCommitWriteFailsCleanly) {
  RunPhaseAndCheck([](const std::string& dir) { return RunWriteErrorPhase(dir, true); });
}

// EIO on reads: a receive that must read a table file fails with kIOError
// naming the read, changes nothing (no lease, no receive count), and once
// the disk reads again every message is there.
int RunReadErrorPhase(const std::string& dir) {
  Phase phase(dir);
  {
    // Messages in table files, not in the memtable: written, then closed.
    FaultyBroker first = OpenOverFaults(dir, false);
    auto created = first.broker->CreateQueue("jobs", {}, {});
    if (!created.ok()) return 2;
    for (int i = 0; i < 50; ++i) {
      const std::string body = "m-" + std::to_string(i) + std::string(512, 'x');
      phase.Check(Send(**created, body).ok(), "send");
      phase.Record("acked", body);
    }
    phase.Check(first.broker->Close().ok(), "close");
  }
  FaultyBroker opened = OpenOverFaults(dir, false);
  auto q = opened.broker->GetQueue("jobs");
  if (!q.ok()) return 2;
  opened.fs->FailReads(true);
  ReceiveMessageRequest rr;
  rr.max_number_of_messages = 10;
  rr.wait_time_seconds = 0;
  rr.message_system_attribute_names = {"ApproximateReceiveCount"};
  auto got = (*q)->ReceiveMessage(rr);
  phase.Record("note", "a receive on a disk that fails reads: " + got.status().ToString());
  phase.Check(!got.ok(), "a receive that cannot read succeeds");
  phase.Check(got.status().code() == ErrorCode::kIOError, "receive: " + got.status().ToString());
  phase.Check(Mentions(got.status(), "reading"), "names the read: " + got.status().ToString());
  phase.Check(opened.fs->failed_reads() > 0, "the injected fault was hit");
  opened.fs->FailReads(false);
  auto attrs = (*q)->GetAttributes({"All"});
  phase.Check(attrs.ok(), "attributes: " + attrs.status().ToString());
  if (attrs.ok()) {
    phase.Check(
        (*attrs)["ApproximateNumberOfMessages"] == "50",
        "nothing was leased by the failed receive: " + (*attrs)["ApproximateNumberOfMessages"]);
  }
  got = (*q)->ReceiveMessage(rr);
  phase.Check(got.ok() && got->messages.size() == 10, "receive once the disk reads again");
  if (got.ok()) {
    for (const auto& m : got->messages) {
      phase.Check(m.attributes.at("ApproximateReceiveCount") == "1",
                  "the failed receive counted no delivery");
    }
  }
  phase.Check(opened.broker->Close().ok(), "close");
  return phase.ExitCode();
}

TEST(IoError, ReadFailsCleanly) { RunPhaseAndCheck(RunReadErrorPhase); }

}  // namespace
}  // namespace lqs::testing
