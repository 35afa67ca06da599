// bench/sqlite_queue.cc — a SQLite baseline with the same queue model.
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

#include <chrono>
#include <cstdio>
#include <mutex>
#include <random>
#include <string>

#include <sqlite3.h>

#include "bench/systems.h"
#include "lib/api/message_rules.h"

namespace lqs::bench {
namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class SqliteQueue final : public QueueSystem {
 public:
  bool Init(const SystemConfig& config) {
    config_ = config;
    body_ = MakeBody(config.body_bytes);
    const std::string path = config.dir + "/queue.db";
    if (sqlite3_open_v2(path.c_str(), &db_,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        nullptr) != SQLITE_OK) {
      return Fail("open");
    }
    const char* sync = config.durability == Durability::kNone ? "OFF" : "NORMAL";
    const std::string setup =
        std::string(
            "PRAGMA journal_mode=WAL;"
            "PRAGMA cache_size=-32768;"  // 32 MiB, lqs's block cache
            "PRAGMA synchronous=") +
        sync +
        ";"
        "CREATE TABLE IF NOT EXISTS queue(id INTEGER PRIMARY KEY, visible_at INTEGER NOT NULL,"
        " receive_count INTEGER NOT NULL);"
        "CREATE INDEX IF NOT EXISTS queue_by_visible ON queue(visible_at, id);"
        "CREATE TABLE IF NOT EXISTS bodies(id INTEGER PRIMARY KEY, message_id TEXT NOT NULL,"
        " md5 TEXT NOT NULL, sent_at INTEGER NOT NULL, body BLOB NOT NULL);"
        "CREATE TABLE IF NOT EXISTS records(key TEXT PRIMARY KEY, value BLOB NOT NULL)"
        " WITHOUT ROWID;";
    if (sqlite3_exec(db_, setup.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
      return Fail("setup");
    }
    return Prepare(&begin_, "BEGIN IMMEDIATE") && Prepare(&commit_, "COMMIT") &&
           Prepare(&sync_full_, "PRAGMA synchronous=FULL") &&
           Prepare(&sync_normal_, "PRAGMA synchronous=NORMAL") &&
           Prepare(&insert_queue_, "INSERT INTO queue(visible_at, receive_count) VALUES(?, 0)") &&
           Prepare(
               &insert_body_,
               "INSERT INTO bodies(id, message_id, md5, sent_at, body) VALUES(?, ?, ?, ?, ?)") &&
           Prepare(&select_visible_,
                   "SELECT id, receive_count FROM queue WHERE visible_at <= ? "
                   "ORDER BY visible_at, id LIMIT ?") &&
           Prepare(&lease_, "UPDATE queue SET visible_at = ?, receive_count = ? WHERE id = ?") &&
           Prepare(&read_body_, "SELECT message_id, md5, sent_at, body FROM bodies WHERE id = ?") &&
           Prepare(&delete_queue_, "DELETE FROM queue WHERE id = ?") &&
           Prepare(&delete_body_, "DELETE FROM bodies WHERE id = ?") &&
           Prepare(&put_record_, "INSERT OR REPLACE INTO records(key, value) VALUES(?, ?)");
  }

  bool Send(int n) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (config_.durability == Durability::kFsync && !Step(sync_full_)) return false;
    if (!Step(begin_)) return false;
    if (!Enqueue(n)) return Rollback();
    const bool ok = Step(commit_);
    if (config_.durability == Durability::kFsync && !Step(sync_normal_)) return false;
    return ok;
  }

  // The application's INSERT and the enqueue in one transaction, synced as a
  // send.
  bool TxSend() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (config_.durability == Durability::kFsync && !Step(sync_full_)) return false;
    if (!Step(begin_)) return false;
    char key[24];
    std::snprintf(key, sizeof(key), "rec-%016lld", static_cast<long long>(next_record_++));
    sqlite3_bind_text(put_record_, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_blob(put_record_, 2, body_.data(), static_cast<int>(body_.size()), SQLITE_STATIC);
    if (!Step(put_record_) || !Enqueue(1)) return Rollback();
    const bool ok = Step(commit_);
    if (config_.durability == Durability::kFsync && !Step(sync_normal_)) return false;
    return ok;
  }

  int Receive(int max, std::vector<std::string>* handles) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!Step(begin_)) return -1;
    const int64_t now = NowMs();
    ids_.clear();
    counts_.clear();
    sqlite3_bind_int64(select_visible_, 1, now);
    sqlite3_bind_int(select_visible_, 2, max);
    int rc;
    while ((rc = sqlite3_step(select_visible_)) == SQLITE_ROW) {
      ids_.push_back(sqlite3_column_int64(select_visible_, 0));
      counts_.push_back(sqlite3_column_int64(select_visible_, 1) + 1);
    }
    sqlite3_reset(select_visible_);
    if (rc != SQLITE_DONE) {
      Fail("select");
      Rollback();
      return -1;
    }
    for (size_t i = 0; i < ids_.size(); ++i) {
      sqlite3_bind_int64(lease_, 1, now + 30000);
      sqlite3_bind_int64(lease_, 2, counts_[i]);
      sqlite3_bind_int64(lease_, 3, ids_[i]);
      if (!Step(lease_)) {
        Rollback();
        return -1;
      }
      // Read the message as a receive must return it.
      sqlite3_bind_int64(read_body_, 1, ids_[i]);
      if (sqlite3_step(read_body_) == SQLITE_ROW) {
        // Copied out, as lqs copies the body into its result.
        const auto* p = static_cast<const char*>(sqlite3_column_blob(read_body_, 3));
        std::string body(p, static_cast<size_t>(sqlite3_column_bytes(read_body_, 3)));
        received_bytes_ += body.size();
      }
      sqlite3_reset(read_body_);
      handles->push_back(std::to_string(ids_[i]) + "." + std::to_string(counts_[i]));
    }
    if (!Step(commit_)) return -1;
    return static_cast<int>(ids_.size());
  }

  bool Delete(const std::vector<std::string>& handles) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!Step(begin_)) return false;
    for (const std::string& h : handles) {
      const int64_t id = std::stoll(h.substr(0, h.find('.')));
      sqlite3_bind_int64(delete_queue_, 1, id);
      if (!Step(delete_queue_)) return Rollback();
      sqlite3_bind_int64(delete_body_, 1, id);
      if (!Step(delete_body_)) return Rollback();
    }
    return Step(commit_);
  }

  bool Close() override {
    if (db_ == nullptr) return true;
    for (sqlite3_stmt* s :
         {begin_, commit_, sync_full_, sync_normal_, insert_queue_, insert_body_, select_visible_,
          lease_, read_body_, delete_queue_, delete_body_, put_record_}) {
      sqlite3_finalize(s);
    }
    const int rc = sqlite3_close(db_);
    db_ = nullptr;
    return rc == SQLITE_OK;
  }

  ~SqliteQueue() override { Close(); }

 private:
  // Inserts n messages inside the open transaction (mu_ held).
  bool Enqueue(int n) {
    const int64_t now = NowMs();
    for (int i = 0; i < n; ++i) {
      const std::string md5 = api::Md5Hex(body_);
      const std::string id = NewMessageId();
      sqlite3_bind_int64(insert_queue_, 1, now);
      if (!Step(insert_queue_)) return false;
      const sqlite3_int64 rowid = sqlite3_last_insert_rowid(db_);
      sqlite3_bind_int64(insert_body_, 1, rowid);
      sqlite3_bind_text(insert_body_, 2, id.data(), static_cast<int>(id.size()), SQLITE_STATIC);
      sqlite3_bind_text(insert_body_, 3, md5.data(), static_cast<int>(md5.size()), SQLITE_STATIC);
      sqlite3_bind_int64(insert_body_, 4, now);
      sqlite3_bind_blob(insert_body_, 5, body_.data(), static_cast<int>(body_.size()),
                        SQLITE_STATIC);
      if (!Step(insert_body_)) return false;
    }
    return true;
  }

  bool Prepare(sqlite3_stmt** stmt, const char* sql) {
    if (sqlite3_prepare_v2(db_, sql, -1, stmt, nullptr) != SQLITE_OK) return Fail(sql);
    return true;
  }
  // Steps a statement that returns no rows, then resets it.
  bool Step(sqlite3_stmt* stmt) {
    const int rc = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) return Fail(sqlite3_sql(stmt));
    return true;
  }
  bool Rollback() {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    return false;
  }
  bool Fail(const char* what) {
    std::fprintf(stderr, "sqlite: %s: %s\n", what, db_ ? sqlite3_errmsg(db_) : "?");
    return false;
  }
  std::string NewMessageId() {
    static const char kHex[] = "0123456789abcdef";
    std::string s(36, '-');
    for (int i = 0; i < 36; ++i) {
      if (i == 8 || i == 13 || i == 18 || i == 23) continue;
      s[i] = kHex[rng_() & 15];
    }
    return s;
  }

  SystemConfig config_;
  std::string body_;
  sqlite3* db_ = nullptr;
  std::mutex mu_;
  std::mt19937_64 rng_{42};
  std::vector<int64_t> ids_, counts_;
  uint64_t received_bytes_ = 0;
  sqlite3_stmt *begin_ = nullptr, *commit_ = nullptr, *sync_full_ = nullptr,
               *sync_normal_ = nullptr, *insert_queue_ = nullptr, *insert_body_ = nullptr,
               *select_visible_ = nullptr, *lease_ = nullptr, *read_body_ = nullptr,
               *delete_queue_ = nullptr, *delete_body_ = nullptr, *put_record_ = nullptr;
  int64_t next_record_ = 0;
};

}  // namespace

std::unique_ptr<QueueSystem> OpenSqliteQueue(const SystemConfig& config) {
  return MakeSystem<SqliteQueue>(config);
}

}  // namespace lqs::bench
