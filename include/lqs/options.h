// lqs/options.h — how a database is opened.
//
// Options is a plain struct with in-class defaults; fill in `path` and go.

#ifndef LQS_OPTIONS_H_
#define LQS_OPTIONS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "lqs/clock.h"
#include "lqs/limits.h"

namespace lqs {

// What survives a failure once a call has returned success.
enum class Durability {
  // Nothing beyond a clean Close(): no write-ahead log. For tests and
  // throw-away queues. A crash loses every change since the last flush.
  kNone = 0,
  // Default. Survives kill -9 of the process: every change is in the
  // write-ahead log (written with write(2), not fsync'ed) before the call
  // returns. A power loss may lose the most recent calls.
  kProcess = 1,
  // Survives power loss for everything that matters: a send (and every queue
  // catalogue change) is fsync'ed before it returns, with group commit across
  // threads. Receives, deletes and visibility changes are not fsync'ed on
  // their own: losing one in a power cut only causes a redelivery, which
  // at-least-once delivery allows (they become durable with the next sync).
  kFsync = 2,
};

// The name of a durability mode as lqsd's and the CLI's --durability flags
// write it: "none", "process" or "fsync" ("?" for a value outside the enum).
// Returns a static string.
const char* DurabilityName(Durability durability);

// The mode DurabilityName calls `name`; nullopt for any other text.
std::optional<Durability> ParseDurability(std::string_view name);

struct Options {
  // ---- Behaviour ------------------------------------------------------------

  // Directory of the database. Created if missing (see create_if_missing).
  std::string path;

  // Create the database if `path` holds none. If false, opening a missing
  // database fails with kIOError.
  bool create_if_missing = true;

  Durability durability = Durability::kProcess;

  // Close() writes the memtables to table files: with kNone that is all it
  // keeps, and with a log it keeps the next open from replaying it. False:
  // Close() writes no table files (with kNone, what was not flushed yet is
  // lost), for a database removed right after closing, such as lqsd's
  // temporary one. Its flush can take seconds after many purges or queue
  // deletions (their range deletions are sorted into the tables).
  bool flush_on_close = true;

  // Group commit for event loops (lqs/commit_scope.h): a thread inside a
  // CommitScope may make many calls and then make them all durable with one
  // log write (kFsync: one fsync). lqsd turns it on. Without it a
  // CommitScope does nothing; calls from threads outside one are durable
  // when they return either way. No effect with kNone (no log).
  bool deferred_commits = false;

  // Source of time. Default: the system clock.
  std::shared_ptr<Clock> clock = SystemClock::Default();

  // Used to build queue ARNs (arn:aws:sqs:<region>:<account_id>:<name>),
  // which appear in QueueArn, RedrivePolicy and DeadLetterQueueSourceArn.
  std::string region = "us-east-1";
  std::string account_id = "123456789012";

  // The SenderId reported on received messages.
  std::string sender_id = "AIDAIT2UOQQY3AUEKVGXU";

  // SQS refuses to re-create a queue name for 60 s after DeleteQueue
  // (QueueDeletedRecently). Set false to allow immediate re-use.
  bool enforce_queue_name_reuse_delay = true;

  // SQS allows one PurgeQueue per queue per 60 s (PurgeQueueInProgress).
  bool enforce_purge_interval = true;

  // The most messages a queue may have in flight. A short-poll receive past
  // it fails with OverLimit; a long poll returns nothing (as SQS does).
  // This also bounds the library's memory: in-flight leases live in RAM.
  int64_t max_inflight_per_queue = limits::kMaxInflightMessages;

  // ---- Performance ----------------------------------------------------------

  // Run a background thread that expires messages past their retention
  // period on idle queues, progresses message-move tasks and reclaims space.
  // Correctness never depends on it (calls expire what they touch); tests
  // that want determinism turn it off and call Broker::RunMaintenance().
  bool background_maintenance = true;

  // Real-time interval of the background thread, in milliseconds.
  int64_t maintenance_interval_ms = 1000;

  // RocksDB block cache size in bytes.
  int64_t block_cache_bytes = 32 << 20;

  // RocksDB write buffer (memtable) size per column family, in bytes.
  int64_t write_buffer_bytes = 16 << 20;

  // Memtables each column family may hold at once (the one being written and
  // those waiting to be flushed). At least 2.
  int max_write_buffers = 3;

  // The most bytes all memtables together may hold (RocksDB's
  // WriteBufferManager): past it the largest is flushed early. 0: no total
  // bound (each column family is bounded by write_buffer_bytes *
  // max_write_buffers alone).
  int64_t memtable_budget_bytes = 0;

  // RocksDB background threads (flushes and compactions together). At least 1.
  int max_background_jobs = 2;

  // ---- Storage budget -------------------------------------------------------

  // The most bytes the database's files may take on disk: its table files
  // (SST) and its write-ahead log. 0 (the default): no budget.
  //
  // Once the files reach it, calls that add messages fail with
  // kOverStorageBudget, whose message names the budget and the bytes in use:
  // SendMessage and SendMessageBatch (the whole batch). Everything else goes
  // on, so that consumers can drain the queues: receives, deletes,
  // visibility changes, purges, queue creation and deletion, dead-letter
  // moves and move tasks (they move messages, they do not add them).
  //
  // The use is measured from RocksDB's own accounting (the table files of
  // every live version, the log files), again after every flush and
  // compaction and after every step of bytes written (a 64th of the budget,
  // at least 64 KiB); between two measurements the bytes written are added
  // to the last one. So it is an estimate that errs high. The files can
  // still exceed the budget: by the writes that drain it (receives and
  // deletes write too), and for a moment by the files a flush or compaction
  // is writing, which count once it is done.
  //
  // Deleting messages frees nothing at once (RocksDB writes tombstones).
  // While the files take half the budget or more and messages have been
  // deleted since the last time, each maintenance pass
  // (Broker::RunMaintenance, the background thread) flushes the memtables
  // and compacts the database, at most once per four times the previous
  // such compaction took (so it takes at most a fifth of the time);
  // Broker::CompactAll does the same at once. Sends are accepted again as
  // soon as a measurement finds the files under the budget, without a
  // reopen.
  // A budget also caps the write-ahead log at a quarter of it (RocksDB's
  // max_total_wal_size), so that the log alone cannot fill it.
  int64_t max_disk_bytes = 0;

  // ---- Presets --------------------------------------------------------------

  // The defaults with RocksDB's memory cut for small devices (a few hundred
  // MiB of RAM, one or two cores): a 2 MiB block cache, 1 MiB memtables (two
  // per column family, 6 MiB for all together) and one background thread.
  // lqsd --profile small uses it (docs/performance.md, "Small devices", has
  // its memory and throughput against the defaults').
  static Options SmallDevice();
};

}  // namespace lqs

#endif  // LQS_OPTIONS_H_
