// bench/sqlite_queue.h — a SQLite baseline with the same queue model.
//
// Two tables, so that a lease change does not rewrite the body:
//   queue (id INTEGER PRIMARY KEY, visible_at, receive_count)  + index (visible_at, id)
//   bodies(id INTEGER PRIMARY KEY, message_id, md5, sent_at, body)
// send    : one transaction inserting n rows in both (with an MD5 and a
//           message id per message, as lqs computes them)
// receive : one transaction: SELECT up to n ids WHERE visible_at <= now
//           ORDER BY visible_at, id; UPDATE each (visible_at = now + 30 s,
//           receive_count + 1); read the bodies. Handle = "id.receive_count".
// delete  : one transaction deleting the named ids from both tables.
// txsend  : one transaction: INSERT OR REPLACE of a record (a new key, the
//           body's bytes as value) in records(key PRIMARY KEY, value), and
//           the enqueue of one message as send does; synced as a send.
// WAL mode; synchronous = OFF (none), NORMAL (process), and in fsync mode FULL
// for send transactions and NORMAL for receives and deletes (lqs fsyncs only
// sends). One connection shared by all threads behind a mutex: SQLite admits
// one writer at a time anyway, and this avoids busy-retry sleeps.

#ifndef LQS_BENCH_SQLITE_QUEUE_H_
#define LQS_BENCH_SQLITE_QUEUE_H_

#include <memory>

#include "bench/systems.h"

namespace lqs::bench {

std::unique_ptr<QueueSystem> OpenSqliteQueue(const SystemConfig& config);

}  // namespace lqs::bench

#endif  // LQS_BENCH_SQLITE_QUEUE_H_
