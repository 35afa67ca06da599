// fuzz/fuzz_engine.cc — the engine driven by random operation sequences and
// compared with an in-memory model (in the manner of RocksDB's
// fuzz/db_fuzzer.cc, with an oracle like db_stress's expected state).
//
// The Broker (durability none, a ManualClock, RocksDB on an in-memory Env)
// is shared by consecutive inputs, as opening one costs more than most
// inputs (it is replaced by a fresh one every 256 inputs). Each input
// creates its own standard queue and FIFO queue (ContentBasedDeduplication),
// deletes them at the end, and reads the input as a sequence of
// operations: send, send batch (with an invalid entry at times), receive
// with visibility timeouts, delete and change visibility (single and batch,
// with current, stale, foreign and garbage handles), clock advances, purge,
// and a close/reopen. After every operation the model predicts the result.
//
// Checked against the model:
//   * no message is lost or duplicated: ScanMessages lists exactly the
//     model's live messages, each once, in the model's state;
//   * a receive returns only receivable messages, each at most once, with
//     the right body, MD5 and ApproximateReceiveCount (which increases by
//     one per delivery); a standard queue returns min(max, receivable);
//   * FIFO: per group, strict order; a group delivers only the prefix of
//     its messages before its first one in flight (sqs-api.md 8.4: with
//     m1 m2 leased together and m2 extended, m1 comes back when its own
//     lease ends); messages of a group in one receive are consecutive;
//     a duplicate within the 5-minute window is not stored again;
//   * deletes and visibility changes succeed or fail exactly as queue.h
//     documents (standard: any handle ever issued; FIFO: only the current,
//     unexpired lease; the 12-hour lease budget);
//   * GetStats gauges (visible, in flight, delayed) and totals (sent,
//     received, deleted, purged) equal the model's, also after a reopen;
//   * Broker::Verify finds no inconsistency.
// Any mismatch prints the operation log and aborts.

#include <rocksdb/env.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fuzz/fuzz_input.h"
#include "lib/api/message_rules.h"
#include "lib/engine/open.h"
#include "lqs/lqs.h"

namespace {

using lqs::fuzz::FuzzInput;

constexpr int64_t kMaxLeaseMs = 43200 * 1000;
constexpr int64_t kDedupWindowMs = 5 * 60 * 1000;

struct ModelMessage {
  std::string id;
  std::string body;
  std::string group;       // FIFO
  int64_t visible_at = 0;  // delay end, or lease end once received
  int64_t lease_start = 0;
  uint32_t receives = 0;   // ApproximateReceiveCount
  bool deleted = false;
};

struct Handle {
  int queue;         // 0 standard, 1 FIFO
  size_t msg;        // index into ModelQueue::messages
  uint32_t receive;  // the delivery it names
  std::string text;
};

struct DedupRecord {
  int64_t first_ms;
  std::string message_id;
};

struct ModelQueue {
  bool fifo = false;
  std::vector<ModelMessage> messages;  // in send order
  std::map<std::string, size_t> by_id;
  std::map<std::string, DedupRecord> dedup;
  int64_t sent = 0, received = 0, deleted = 0, purged = 0;
};

// What consecutive inputs share.
struct Shared {
  std::unique_ptr<rocksdb::Env> env;
  std::shared_ptr<lqs::ManualClock> clock = std::make_shared<lqs::ManualClock>();
  std::unique_ptr<lqs::Broker> broker;
  uint64_t inputs = 0;
};

class Runner {
 public:
  Runner(FuzzInput* in, Shared* shared)
      : in_(in), env_(shared->env), clock_(shared->clock), broker_(shared->broker) {
    const std::string n = std::to_string(shared->inputs);
    names_[0] = "fuzz-" + n;
    names_[1] = "fuzz-" + n + ".fifo";
  }

  // Opens a fresh database when `shared` has none.
  static void Prepare(Shared* shared) {
    if (shared->broker) return;
    shared->env.reset(rocksdb::NewMemEnv(rocksdb::Env::Default()));
    FuzzInput none(nullptr, 0);
    Runner r(&none, shared);
    r.Open();
  }

  void Run() {
    auto std_q = broker_->CreateQueue(names_[0], {{"VisibilityTimeout", "5"}}, {});
    auto fifo_q = broker_->CreateQueue(
        names_[1],
        {{"FifoQueue", "true"}, {"ContentBasedDeduplication", "true"}, {"VisibilityTimeout", "5"}},
        {});
    Require(std_q.ok() && fifo_q.ok(), "create queues");
    queues_[0] = *std_q;
    queues_[1] = *fifo_q;
    model_[1].fifo = true;

    for (int step = 0; step < 256 && !in_->empty(); ++step) {
      const int q = in_->Bool() ? 1 : 0;
      switch (in_->Range<int>(0, 15)) {
        case 0: case 1: case 2: Send(q); break;
        case 3: SendBatch(q); break;
        case 4: case 5: case 6: Receive(q); break;
        case 7: case 8: Delete(q); break;
        case 9: DeleteBatch(q); break;
        case 10: ChangeVisibility(q); break;
        case 11: ChangeVisibilityBatch(q); break;
        case 12: case 13: Advance(); break;
        case 14: if (in_->Range<int>(0, 3) == 0) Purge(q); else CheckAll(); break;
        default: if (in_->Range<int>(0, 3) == 0) Reopen(); else CheckAll(); break;
      }
    }
    CheckAll();
    queues_[0].reset();
    queues_[1].reset();
    RequireOk(broker_->DeleteQueue(names_[0]), "delete queue");
    RequireOk(broker_->DeleteQueue(names_[1]), "delete queue");
  }

 private:
  // ---- Plumbing -------------------------------------------------------------

  void Log(std::string line) { log_.push_back(std::move(line)); }

  [[noreturn]] void Fail(const std::string& what) {
    std::fprintf(stderr, "fuzz_engine: MODEL MISMATCH: %s\noperations:\n", what.c_str());
    for (const auto& l : log_) std::fprintf(stderr, "  %s\n", l.c_str());
    std::abort();
  }
  void Require(bool ok, const std::string& what) {
    if (!ok) Fail(what);
  }
  void RequireOk(const lqs::Status& s, const std::string& what) {
    if (!s.ok()) Fail(what + ": " + s.ToString());
  }

  void Open() {
    lqs::Options o;
    o.path = "/lqs-fuzz-db";
    o.clock = clock_;
    o.durability = lqs::Durability::kNone;
    o.background_maintenance = false;
    o.enforce_purge_interval = false;
    o.enforce_queue_name_reuse_delay = false;
    o.block_cache_bytes = 1 << 20;
    o.write_buffer_bytes = 1 << 20;
    auto b = lqs::engine::OpenBroker(o, env_.get());
    if (!b.ok()) Fail("open: " + b.status().ToString());
    broker_ = std::move(b).value();
  }

  void Reopen() {
    Log("reopen");
    queues_[0].reset();
    queues_[1].reset();
    RequireOk(broker_->Close(), "close");
    broker_.reset();
    Open();
    auto a = broker_->GetQueue(names_[0]);
    auto b = broker_->GetQueue(names_[1]);
    Require(a.ok() && b.ok(), "queues after reopen");
    queues_[0] = *a;
    queues_[1] = *b;
    CheckAll();
  }

  int64_t Now() { return clock_->NowMillis(); }

  // ---- Model predicates ----------------------------------------------------

  static bool Live(const ModelMessage& m) { return !m.deleted; }
  bool InFlight(const ModelMessage& m) { return Live(m) && m.receives > 0 && m.visible_at > Now(); }
  bool Delayed(const ModelMessage& m) { return Live(m) && m.receives == 0 && m.visible_at > Now(); }
  bool Receivable(const ModelMessage& m) { return Live(m) && m.visible_at <= Now(); }

  // FIFO group locking (sqs-api.md 8.4): a receive may return, from a
  // group, only the prefix of its messages up to (not including) the first
  // one still in flight. A message is blocked when an earlier live message
  // of its group is in flight; a later one in flight does not block it
  // (m1 m2 received together, m2's lease extended: m1 is receivable again
  // once its own lease ends). Returns blocked[i] for mq.messages[i].
  std::vector<bool> BlockedInGroups(const ModelQueue& mq) {
    std::vector<bool> blocked(mq.messages.size(), false);
    std::set<std::string> in_flight_seen;  // groups with an in-flight message so far
    for (size_t i = 0; i < mq.messages.size(); ++i) {
      const ModelMessage& m = mq.messages[i];
      blocked[i] = in_flight_seen.count(m.group) > 0;
      if (InFlight(m)) in_flight_seen.insert(m.group);
    }
    return blocked;
  }

  // ---- Operations ----------------------------------------------------------

  lqs::SendMessageRequest MakeRequest(int q, bool* expect_dedup, std::string* dedup_key,
                                      std::string* original_id) {
    ModelQueue& mq = model_[q];
    lqs::SendMessageRequest r;
    // Usually a new body; at times one sent before (content dedup on FIFO).
    if (!mq.messages.empty() && in_->Range<int>(0, 5) == 0) {
      r.body = mq.messages[in_->Range<size_t>(0, mq.messages.size() - 1)].body;
    } else {
      r.body = "body-" + std::to_string(next_body_++) + std::string(in_->Range<int>(0, 3), '~');
    }
    *expect_dedup = false;
    if (mq.fifo) {
      r.message_group_id = "g" + std::to_string(in_->Range<int>(0, 3));
      if (in_->Range<int>(0, 3) == 0) {
        r.message_deduplication_id = "d" + std::to_string(in_->Range<int>(0, 7));
      }
      *dedup_key = r.message_deduplication_id ? "id:" + *r.message_deduplication_id
                                              : "sha:" + lqs::api::Sha256Hex(r.body);
      auto it = mq.dedup.find(*dedup_key);
      if (it != mq.dedup.end()) {
        const int64_t age = Now() - it->second.first_ms;
        if (age < kDedupWindowMs) {
          *expect_dedup = true;
          *original_id = it->second.message_id;
        } else {
          mq.dedup.erase(it);
        }
      }
    } else if (in_->Bool()) {
      r.delay_seconds = in_->Range<int>(0, 4);
    }
    return r;
  }

  // Records a send the engine accepted; checks dedup.
  void Accepted(int q, const lqs::SendMessageRequest& r, const lqs::SendMessageResult& res,
                bool expect_dedup, const std::string& dedup_key, const std::string& original_id) {
    ModelQueue& mq = model_[q];
    Require(res.md5_of_message_body == lqs::api::Md5Hex(r.body), "MD5 of sent body");
    if (expect_dedup) {
      Require(res.message_id == original_id,
              "deduplicated send returned " + res.message_id + ", expected " + original_id);
      return;
    }
    Require(mq.by_id.count(res.message_id) == 0, "send reused a MessageId: " + res.message_id);
    ModelMessage m;
    m.id = res.message_id;
    m.body = r.body;
    m.group = r.message_group_id.value_or("");
    m.visible_at = Now() + int64_t{r.delay_seconds.value_or(0)} * 1000;
    mq.by_id[m.id] = mq.messages.size();
    mq.messages.push_back(std::move(m));
    mq.sent++;
    if (mq.fifo) mq.dedup[dedup_key] = {Now(), res.message_id};
  }

  void Send(int q) {
    bool dedup;
    std::string key, original;
    const lqs::SendMessageRequest r = MakeRequest(q, &dedup, &key, &original);
    Log("send q" + std::to_string(q) + " body=" + r.body +
        (r.message_group_id ? " group=" + *r.message_group_id : "") +
        (r.message_deduplication_id ? " dedup=" + *r.message_deduplication_id : "") +
        (r.delay_seconds ? " delay=" + std::to_string(*r.delay_seconds) : "") +
        (dedup ? " (duplicate)" : ""));
    auto res = queues_[q]->SendMessage(r);
    RequireOk(res.status(), "send");
    Accepted(q, r, *res, dedup, key, original);
  }

  void SendBatch(int q) {
    const int n = in_->Range<int>(1, 10);
    const int bad = in_->Bool() ? in_->Range<int>(0, n - 1) : -1;
    std::vector<lqs::SendMessageBatchEntry> entries;
    struct Expect { bool dedup; std::string key, original; };
    std::vector<Expect> expects;
    // Dedup within one batch: a later entry repeating an earlier key is a
    // duplicate of it. Track keys added by this batch.
    std::map<std::string, size_t> batch_keys;
    for (int i = 0; i < n; ++i) {
      lqs::SendMessageBatchEntry e;
      e.id = "e" + std::to_string(i);
      Expect x{};
      e.request = MakeRequest(q, &x.dedup, &x.key, &x.original);
      if (i == bad) e.request.body.clear();  // MissingParameter for this entry
      if (model_[q].fifo && i != bad && !x.dedup) {
        if (batch_keys.count(x.key)) x.dedup = true;  // original id filled below
        else batch_keys[x.key] = entries.size();
      }
      entries.push_back(std::move(e));
      expects.push_back(std::move(x));
    }
    Log("send_batch q" + std::to_string(q) + " n=" + std::to_string(n) +
        " bad=" + std::to_string(bad));
    auto res = queues_[q]->SendMessageBatch(entries);
    RequireOk(res.status(), "send batch");
    Require(res->successful.size() + res->failed.size() == entries.size(), "batch result count");
    for (const auto& f : res->failed) {
      Require(f.id == "e" + std::to_string(bad), "batch entry failed: " + f.id + " " + f.code +
                                                      " " + f.message);
    }
    Require(bad < 0 || res->failed.size() == 1, "invalid batch entry accepted");
    // Results in request order.
    std::map<std::string, const lqs::SendMessageResult*> by_entry;
    for (const auto& s : res->successful) by_entry[s.id] = &s.result;
    for (int i = 0; i < n; ++i) {
      if (i == bad) continue;
      auto it = by_entry.find(entries[i].id);
      Require(it != by_entry.end(), "batch entry missing from result");
      Expect& x = expects[i];
      if (x.dedup && x.original.empty()) {
        x.original = model_[q].dedup.at(x.key).message_id;
      }
      Accepted(q, entries[i].request, *it->second, x.dedup, x.key, x.original);
    }
  }

  void Receive(int q) {
    ModelQueue& mq = model_[q];
    lqs::ReceiveMessageRequest r;
    r.max_number_of_messages = in_->Range<int>(1, 10);
    const int vt_kind = in_->Range<int>(0, 7);
    if (vt_kind < 5) r.visibility_timeout = vt_kind;           // 0..4 s
    else if (vt_kind == 5) r.visibility_timeout = 43200;       // the maximum
    // else: the queue's default (5 s)
    r.wait_time_seconds = 0;
    r.message_system_attribute_names = {"All"};
    const int64_t lease_ms = int64_t{r.visibility_timeout.value_or(5)} * 1000;
    Log("receive q" + std::to_string(q) + " max=" + std::to_string(r.max_number_of_messages) +
        " vt=" + std::to_string(lease_ms / 1000));

    size_t receivable = 0;
    for (const auto& m : mq.messages) receivable += Receivable(m) ? 1 : 0;
    // FIFO: the messages blocked behind an in-flight message of their
    // group, judged on the state before this receive (the model is updated
    // only after every check below).
    const std::vector<bool> blocked = mq.fifo ? BlockedInGroups(mq)
                                              : std::vector<bool>(mq.messages.size(), false);

    auto res = queues_[q]->ReceiveMessage(r);
    RequireOk(res.status(), "receive");
    const auto& got = res->messages;
    Require(got.size() <= static_cast<size_t>(r.max_number_of_messages), "too many received");
    std::set<size_t> seen;
    std::map<std::string, size_t> last_in_group;  // group -> index of the last delivered
    for (const auto& rm : got) {
      auto it = mq.by_id.find(rm.message_id);
      Require(it != mq.by_id.end(), "received an unknown message " + rm.message_id);
      const size_t idx = it->second;
      ModelMessage& m = mq.messages[idx];
      Require(seen.insert(idx).second, "message delivered twice in one receive: " + m.body);
      Require(Live(m), "received a deleted message: " + m.body);
      Require(m.visible_at <= Now(), "received a message that is not visible: " + m.body +
                                         " visible_at=" + std::to_string(m.visible_at) +
                                         " now=" + std::to_string(Now()));
      Require(rm.body == m.body, "body differs: " + rm.body + " vs " + m.body);
      Require(rm.md5_of_body == lqs::api::Md5Hex(m.body), "MD5 of received body");
      auto rc = rm.attributes.find("ApproximateReceiveCount");
      Require(rc != rm.attributes.end() && rc->second == std::to_string(m.receives + 1),
              "ApproximateReceiveCount of " + m.body + " is " +
                  (rc == rm.attributes.end() ? "absent" : rc->second) + ", expected " +
                  std::to_string(m.receives + 1));
      if (mq.fifo) {
        Require(!blocked[idx], "received from a locked group: " + m.body +
                                   " (behind an in-flight message of group " + m.group + ")");
        Require(rm.attributes.count("MessageGroupId") && rm.attributes.at("MessageGroupId") == m.group,
                "MessageGroupId attribute");
        // Every earlier live message of the group was delivered in this
        // receive, before this one.
        for (size_t j = 0; j < idx; ++j) {
          const ModelMessage& e = mq.messages[j];
          if (e.group == m.group && Live(e)) {
            Require(seen.count(j) == 1, "FIFO order broken in group " + m.group + ": " + m.body +
                                            " delivered before " + e.body);
          }
        }
        auto lg = last_in_group.find(m.group);
        Require(lg == last_in_group.end() || lg->second < idx, "FIFO order within a receive");
        last_in_group[m.group] = idx;
      }
    }
    if (!mq.fifo) {
      Require(got.size() == std::min<size_t>(receivable, r.max_number_of_messages),
              "standard receive returned " + std::to_string(got.size()) + " of " +
                  std::to_string(receivable) + " receivable (max " +
                  std::to_string(r.max_number_of_messages) + ")");
    } else {
      bool available = false;
      for (size_t i = 0; i < mq.messages.size(); ++i) {
        if (Receivable(mq.messages[i]) && !blocked[i]) available = true;
      }
      Require(!available || !got.empty(), "FIFO receive returned nothing from an unlocked group");
    }
    for (const auto& rm : got) {
      ModelMessage& m = mq.messages[mq.by_id[rm.message_id]];
      m.receives++;
      m.visible_at = Now() + lease_ms;
      m.lease_start = Now();
      mq.received++;
      handles_.push_back({q, mq.by_id[rm.message_id], m.receives, rm.receipt_handle});
    }
  }

  // A handle to use: one ever issued (any queue), or garbage.
  std::optional<Handle> PickHandle() {
    if (handles_.empty() || in_->Range<int>(0, 15) == 0) return std::nullopt;
    // Prefer recent handles.
    const size_t n = handles_.size();
    const size_t back = in_->Bool() ? in_->Range<size_t>(0, std::min<size_t>(n - 1, 3))
                                    : in_->Range<size_t>(0, n - 1);
    return handles_[n - 1 - back];
  }

  // What the engine must answer for a delete with `h` on queue q.
  enum class Outcome { kOk, kInvalidHandle, kExpired };
  Outcome PredictDelete(int q, const std::optional<Handle>& h) {
    if (!h || h->queue != q) return Outcome::kInvalidHandle;
    const ModelMessage& m = model_[q].messages[h->msg];
    if (model_[q].fifo && Live(m) && (m.receives != h->receive || m.visible_at <= Now())) {
      return Outcome::kExpired;
    }
    return Outcome::kOk;
  }

  void ApplyDelete(int q, const Handle& h) {
    ModelMessage& m = model_[q].messages[h.msg];
    if (Live(m)) {
      m.deleted = true;
      model_[q].deleted++;
    }
  }

  static std::string Text(const std::optional<Handle>& h) {
    return h ? h->text : std::string("AAAAgarbage");
  }

  void CheckOutcome(Outcome want, const lqs::Status& s, const std::string& what) {
    switch (want) {
      case Outcome::kOk: RequireOk(s, what); break;
      case Outcome::kInvalidHandle:
        Require(s.code() == lqs::ErrorCode::kReceiptHandleIsInvalid,
                what + ": expected ReceiptHandleIsInvalid, got " + s.ToString());
        break;
      case Outcome::kExpired:
        Require(s.code() == lqs::ErrorCode::kInvalidParameterValue,
                what + ": expected InvalidParameterValue (expired), got " + s.ToString());
        break;
    }
  }

  std::string Describe(int q, const std::optional<Handle>& h) {
    if (!h) return "garbage";
    const ModelMessage& m = model_[h->queue].messages[h->msg];
    return "q" + std::to_string(h->queue) + ":" + m.body + "#" + std::to_string(h->receive) +
           (h->queue != q ? " (foreign)" : "");
  }

  void Delete(int q) {
    const std::optional<Handle> h = PickHandle();
    const Outcome want = PredictDelete(q, h);
    Log("delete q" + std::to_string(q) + " " + Describe(q, h));
    CheckOutcome(want, queues_[q]->DeleteMessage(Text(h)), "delete");
    if (want == Outcome::kOk) ApplyDelete(q, *h);
  }

  void DeleteBatch(int q) {
    const int n = in_->Range<int>(1, 4);
    std::vector<lqs::DeleteMessageBatchEntry> entries;
    std::vector<std::optional<Handle>> hs;
    std::vector<Outcome> want;
    std::string desc;
    for (int i = 0; i < n; ++i) {
      hs.push_back(PickHandle());
      // Entries are judged against the state before the batch.
      want.push_back(PredictDelete(q, hs.back()));
      entries.push_back({"d" + std::to_string(i), Text(hs.back())});
      desc += " " + Describe(q, hs.back());
    }
    Log("delete_batch q" + std::to_string(q) + desc);
    auto res = queues_[q]->DeleteMessageBatch(entries);
    RequireOk(res.status(), "delete batch");
    std::set<std::string> ok(res->successful.begin(), res->successful.end());
    for (int i = 0; i < n; ++i) {
      Require(ok.count(entries[i].id) == (want[i] == Outcome::kOk ? 1u : 0u),
              "delete batch entry " + entries[i].id + " outcome");
    }
    for (int i = 0; i < n; ++i) {
      if (want[i] == Outcome::kOk) ApplyDelete(q, *hs[i]);
    }
  }

  // Change visibility: predicts, and applies to the model when it succeeds.
  // Returns the expected outcome; `budget` is set when the 12-hour budget
  // rejects it.
  Outcome PredictChange(int q, const std::optional<Handle>& h, int timeout, bool* missing,
                        bool* budget) {
    *missing = false;
    *budget = false;
    if (!h || h->queue != q) return Outcome::kInvalidHandle;
    const ModelMessage& m = model_[q].messages[h->msg];
    if (!Live(m)) {
      *missing = true;
      return Outcome::kExpired;  // InvalidParameterValue: no longer exists
    }
    if (model_[q].fifo && (m.receives != h->receive || m.visible_at <= Now())) {
      return Outcome::kExpired;
    }
    const int64_t start = m.visible_at <= Now() ? Now() : m.lease_start;
    if (Now() + int64_t{timeout} * 1000 - start > kMaxLeaseMs) {
      *budget = true;
      return Outcome::kExpired;
    }
    return Outcome::kOk;
  }

  void ApplyChange(int q, const Handle& h, int timeout) {
    ModelMessage& m = model_[q].messages[h.msg];
    if (m.visible_at <= Now()) m.lease_start = Now();
    m.visible_at = Now() + int64_t{timeout} * 1000;
  }

  int PickTimeout() {
    switch (in_->Range<int>(0, 5)) {
      case 0: return 0;
      case 1: return 43200;
      case 2: return in_->Range<int>(43000, 43200);
      default: return in_->Range<int>(1, 10);
    }
  }

  void ChangeVisibility(int q) {
    const std::optional<Handle> h = PickHandle();
    const int timeout = PickTimeout();
    bool missing, budget;
    const Outcome want = PredictChange(q, h, timeout, &missing, &budget);
    Log("change_visibility q" + std::to_string(q) + " " + Describe(q, h) + " t=" +
        std::to_string(timeout));
    CheckOutcome(want, queues_[q]->ChangeMessageVisibility(Text(h), timeout), "change visibility");
    if (want == Outcome::kOk) ApplyChange(q, *h, timeout);
  }

  void ChangeVisibilityBatch(int q) {
    // Distinct messages per batch: a second entry for the same message is
    // judged against the first one's change (engine behaviour we model
    // only for single entries).
    const int n = in_->Range<int>(1, 3);
    std::vector<lqs::ChangeMessageVisibilityBatchEntry> entries;
    std::vector<std::optional<Handle>> hs;
    std::vector<Outcome> want;
    std::vector<int> timeouts;
    std::set<std::pair<int, size_t>> used;
    std::string desc;
    for (int i = 0; i < n; ++i) {
      std::optional<Handle> h = PickHandle();
      if (h && !used.insert({h->queue, h->msg}).second) continue;
      const int t = PickTimeout();
      bool missing, budget;
      want.push_back(PredictChange(q, h, t, &missing, &budget));
      hs.push_back(h);
      timeouts.push_back(t);
      entries.push_back({"c" + std::to_string(i), Text(h), t});
      desc += " " + Describe(q, h) + " t=" + std::to_string(t);
    }
    Log("change_visibility_batch q" + std::to_string(q) + desc);
    auto res = queues_[q]->ChangeMessageVisibilityBatch(entries);
    RequireOk(res.status(), "change visibility batch");
    std::set<std::string> ok(res->successful.begin(), res->successful.end());
    for (size_t i = 0; i < entries.size(); ++i) {
      Require(ok.count(entries[i].id) == (want[i] == Outcome::kOk ? 1u : 0u),
              "change visibility batch entry " + entries[i].id + " outcome");
      if (want[i] == Outcome::kOk) ApplyChange(q, *hs[i], timeouts[i]);
    }
  }

  void Advance() {
    int64_t s;
    switch (in_->Range<int>(0, 7)) {
      case 0: s = 0; break;
      case 1: s = 299; break;    // towards the dedup window edge
      case 2: s = 60; break;
      default: s = in_->Range<int>(1, 6); break;
    }
    Log("advance " + std::to_string(s) + "s");
    clock_->AdvanceSeconds(s);
  }

  void Purge(int q) {
    Log("purge q" + std::to_string(q));
    RequireOk(queues_[q]->PurgeQueue(), "purge");
    ModelQueue& mq = model_[q];
    for (auto& m : mq.messages) {
      if (Live(m)) {
        m.deleted = true;
        mq.purged++;
      }
    }
    mq.dedup.clear();
  }

  // ---- Whole-state checks ----------------------------------------------------

  void CheckQueue(int q) {
    ModelQueue& mq = model_[q];
    int64_t visible = 0, in_flight = 0, delayed = 0;
    for (const auto& m : mq.messages) {
      if (!Live(m)) continue;
      if (InFlight(m)) in_flight++;
      else if (Delayed(m)) delayed++;
      else visible++;
    }
    auto st = queues_[q]->GetStats();
    RequireOk(st.status(), "stats");
    auto num = [](int64_t v) { return std::to_string(v); };
    const std::string tag = "q" + num(q) + " ";
    Require(st->visible == visible, tag + "visible " + num(st->visible) + " != model " + num(visible));
    Require(st->in_flight == in_flight, tag + "in flight " + num(st->in_flight) + " != model " + num(in_flight));
    Require(st->delayed == delayed, tag + "delayed " + num(st->delayed) + " != model " + num(delayed));
    Require(st->sent_total == mq.sent, tag + "sent_total " + num(st->sent_total) + " != " + num(mq.sent));
    Require(st->received_total == mq.received,
            tag + "received_total " + num(st->received_total) + " != " + num(mq.received));
    Require(st->deleted_total == mq.deleted,
            tag + "deleted_total " + num(st->deleted_total) + " != " + num(mq.deleted));
    Require(st->purged_total == mq.purged,
            tag + "purged_total " + num(st->purged_total) + " != " + num(mq.purged));

    // Every live message exactly once, in the model's state.
    std::set<std::string> scanned;
    lqs::Status scan = queues_[q]->ScanMessages([&](const lqs::StoredMessage& sm) {
      auto it = mq.by_id.find(sm.message_id);
      Require(it != mq.by_id.end(), tag + "scan found an unknown message " + sm.message_id);
      const ModelMessage& m = mq.messages[it->second];
      Require(Live(m), tag + "scan found deleted message " + m.body);
      Require(scanned.insert(sm.message_id).second, tag + "scan lists twice " + m.body);
      Require(sm.body == m.body, tag + "scan body");
      const std::string want = InFlight(m) ? "in_flight" : Delayed(m) ? "delayed" : "visible";
      Require(sm.state == want, tag + "state of " + m.body + " is " + sm.state + ", model " + want);
      auto rc = sm.attributes.find("ApproximateReceiveCount");
      Require(rc != sm.attributes.end() && rc->second == num(m.receives),
              tag + "scan receive count of " + m.body);
      return true;
    });
    RequireOk(scan, "scan");
    Require(static_cast<int64_t>(scanned.size()) == visible + in_flight + delayed,
            tag + "scan lists " + num(static_cast<int64_t>(scanned.size())) + " messages, model " +
                num(visible + in_flight + delayed) + " (lost messages)");
  }

  void CheckAll() {
    Log("check");
    CheckQueue(0);
    CheckQueue(1);
    auto problems = broker_->Verify();
    RequireOk(problems.status(), "verify");
    if (!problems->empty()) Fail("Verify: " + problems->front());
  }

  FuzzInput* in_;
  std::unique_ptr<rocksdb::Env>& env_;
  std::shared_ptr<lqs::ManualClock> clock_;
  std::unique_ptr<lqs::Broker>& broker_;
  std::string names_[2];
  std::shared_ptr<lqs::Queue> queues_[2];
  ModelQueue model_[2];
  std::vector<Handle> handles_;
  std::vector<std::string> log_;
  int next_body_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Shared* shared = new Shared();  // never destroyed: no exit-time order issues
  Runner::Prepare(shared);
  FuzzInput in(data, size);
  {
    Runner runner(&in, shared);
    runner.Run();
  }
  if (++shared->inputs % 256 == 0) {
    // A fresh database now and then keeps the in-memory Env small.
    if (!shared->broker->Close().ok()) std::abort();
    shared->broker.reset();
    shared->env.reset();
  }
  return 0;
}
