// fuzz/fuzz_engine.cc — the engine driven by random operation sequences and
// compared with an in-memory model (in the manner of RocksDB's
// fuzz/db_fuzzer.cc, with an oracle like db_stress's expected state).
//
// The Broker (durability none, a ManualClock, RocksDB on an in-memory Env)
// is shared by consecutive inputs, as opening one costs more than most
// inputs (it is replaced by a fresh one every 256 inputs). Each input
// creates its own standard queue and FIFO queue (ContentBasedDeduplication),
// each with a dead-letter queue of its kind (RedrivePolicy, maxReceiveCount
// 1000: never reached by receives), deletes them at the end, and reads the
// input as a sequence of operations on any of the four: send (at times
// with a user attribute), send batch (with an invalid entry at times),
// receive with visibility timeouts, delete and change visibility (single
// and batch, with current, stale, foreign and garbage handles), clock
// advances, purge, the consumer-support calls (DeleteMessageAndRecord with
// keys from a small pool and TTLs from a small set, valid or not;
// InboxContains; MoveToDeadLetterQueue with extra attributes, valid or
// not, also on the dead-letter queues, which have no RedrivePolicy),
// RunMaintenance, at most one close/reopen, and transactions (two open at
// once; see "Transactions" below). After every operation the model predicts
// the result.
//
// Checked against the model:
//   * no message is lost or duplicated: ScanMessages lists exactly the
//     model's live messages, each once, in the model's state;
//   * a receive returns only receivable messages, each at most once, with
//     the right body, MD5 and ApproximateReceiveCount (which increases by
//     one per delivery); a standard queue returns min(max, receivable);
//   * FIFO: per group, strict order; a group delivers only the prefix of
//     its messages before its first one in flight (docs/sqs-reference.md §9.2: with
//     m1 m2 leased together and m2 extended, m1 comes back when its own
//     lease ends); messages of a group in one receive are consecutive;
//     a duplicate within the 5-minute window is not stored again;
//   * deletes and visibility changes succeed or fail exactly as queue.h
//     documents (standard: any handle ever issued; FIFO: only the current,
//     unexpired lease; the 12-hour lease budget);
//   * GetStats gauges (visible, in flight, delayed) and totals (sent,
//     received, deleted, purged, moved to the DLQ) equal the model's, also
//     after a reopen;
//   * user attributes and MD5OfMessageAttributes on send, receive and scan;
//   * the inbox: DeleteMessageAndRecord succeeds or fails as DeleteMessage
//     does (bad key or TTL: InvalidParameterValue), records only when it
//     succeeds, renews a recorded key; InboxContains of every pool key
//     equals the model (key -> expiry, against the ManualClock) after every
//     check, every RunMaintenance (its sweep) and a reopen;
//   * MoveToDeadLetterQueue moves only with the current, unexpired lease on
//     a queue with a RedrivePolicy (else ReceiptHandleIsInvalid or
//     InvalidParameterValue, changing nothing); the message then is in the
//     DLQ, visible, same id, body and group, receive count kept, extra
//     attributes merged (more than 10 allowed), DeadLetterQueueSourceArn
//     set; its FIFO group is unlocked at once; moved_to_dlq_total counts it;
//   * transactions: reads see the transaction's own writes; a commit
//     applies all or nothing and fails with TransactionConflict exactly when
//     a read key or scanned range changed, or a lease it needs was lost;
//     Broker::Get and Broker::Scan equal the committed records;
//   * Broker::Verify finds no inconsistency.
//
// LQS_FUZZ_TRACE=1 prints the operations of each input, with results.
// Any mismatch prints the operation log and aborts.

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

#include <rocksdb/env.h>

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
  uint32_t receives = 0;                // ApproximateReceiveCount
  bool deleted = false;                 // deleted, purged or moved to the dead-letter queue
  lqs::MessageAttributeMap attributes;  // user attributes
  std::string dead_letter_source_arn;   // set when moved into a dead-letter queue
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
  std::map<std::string, int64_t> inbox;  // idempotency key -> expiry (ms)
  int64_t sent = 0, received = 0, deleted = 0, purged = 0, moved = 0;
};

// Queues of one input: two sources, each with its own dead-letter queue.
constexpr int kStandard = 0, kFifo = 1, kStandardDlq = 2, kFifoDlq = 3, kQueues = 4;
constexpr bool IsDlq(int q) { return q >= kStandardDlq; }
constexpr int DlqOf(int q) { return q + 2; }  // of a source queue
// A RedrivePolicy no receive of an input reaches (at most 256 operations),
// so a message reaches its dead-letter queue only through
// MoveToDeadLetterQueue, which the model predicts exactly.
constexpr int kMaxReceiveCount = 1000;

// Idempotency keys: a small pool, so records are renewed and looked up
// again; the longest valid key; and invalid ones.
const std::string& InboxKey(size_t i) {
  static const auto* keys = new std::vector<std::string>{
      "k0", "k1", "k2", "k3", "k4", std::string(512, 'K'), "", std::string(513, 'K')};
  return (*keys)[i];
}
constexpr size_t kValidInboxKeys = 6;

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
    names_[kStandard] = "fuzz-" + n;
    names_[kFifo] = "fuzz-" + n + ".fifo";
    names_[kStandardDlq] = "fuzz-" + n + "-dlq";
    names_[kFifoDlq] = "fuzz-" + n + "-dlq.fifo";
    tables_[0] = "fuzz-" + n + "-a";
    tables_[1] = "fuzz-" + n + "-b";
    for (int q = 0; q < kQueues; ++q) model_[q].fifo = (q == kFifo || q == kFifoDlq);
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
    // The dead-letter queues first: a RedrivePolicy names an existing queue.
    for (int q : {kStandardDlq, kFifoDlq, kStandard, kFifo}) {
      lqs::AttributeMap attrs{{"VisibilityTimeout", "5"}};
      if (model_[q].fifo) {
        attrs["FifoQueue"] = "true";
        attrs["ContentBasedDeduplication"] = "true";
      }
      if (!IsDlq(q)) {
        attrs["RedrivePolicy"] = "{\"deadLetterTargetArn\":\"" + queues_[DlqOf(q)]->arn() +
                                 "\",\"maxReceiveCount\":" + std::to_string(kMaxReceiveCount) + "}";
      }
      auto created = broker_->CreateQueue(names_[q], attrs, {});
      RequireOk(created.status(), "create queue " + names_[q]);
      queues_[q] = *created;
    }

    for (int step = 0; step < 256 && !in_->empty(); ++step) {
      const int q = PickQueue();
      // One byte: 0..231 the queue operations below (their value modulo
      // 24), 232..255 a transaction operation (Transact).
      const uint8_t op = in_->Byte();
      if (op >= 232) {
        Transact(op - 232);
        continue;
      }
      switch (op % 24) {
        case 0:
        case 1:
        case 2:
        case 22:
          Send(q);
          break;
        case 3:
          SendBatch(q);
          break;
        case 4:
        case 5:
        case 6:
        case 23:
          Receive(q);
          break;
        case 7:
        case 8:
          Delete(q);
          break;
        case 9:
          DeleteBatch(q);
          break;
        case 10:
          ChangeVisibility(q);
          break;
        case 11:
          ChangeVisibilityBatch(q);
          break;
        case 12:
        case 13:
          Advance();
          break;
        case 14:
          if (in_->Range<int>(0, 3) == 0)
            Purge(q);
          else
            CheckAll();
          break;
        case 15:
          // At most one close + reopen per input: an open costs more than
          // a whole input (most of it RocksDB writing and re-parsing its
          // OPTIONS file), and every later input runs on the reopened
          // database anyway.
          if (in_->Range<int>(0, 3) == 0 && !reopened_)
            Reopen();
          else
            CheckAll();
          break;
        case 16:
        case 17:
          DeleteAndRecord(q);
          break;
        case 18:
          InboxContains(q);
          break;
        case 19:
        case 20:
          MoveToDeadLetter(q);
          break;
        default:
          Maintenance();
          break;
      }
    }
    CheckAll();
    if (std::getenv("LQS_FUZZ_TRACE") != nullptr) {  // the operations of each input
      for (const auto& l : log_) std::fprintf(stderr, "  %s\n", l.c_str());
    }
    ClearTables();
    for (auto& queue : queues_) queue.reset();
    // Sources first: a dead-letter queue is deleted after what names it.
    for (int q : {kStandard, kFifo, kStandardDlq, kFifoDlq}) {
      RequireOk(broker_->DeleteQueue(names_[q]), "delete queue " + names_[q]);
    }
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
    reopened_ = true;
    for (auto& mt : txs_) mt = ModelTx{};  // a Close() ends them (kClosed)
    for (auto& queue : queues_) queue.reset();
    RequireOk(broker_->Close(), "close");
    broker_.reset();
    Open();
    for (int q = 0; q < kQueues; ++q) {
      auto got = broker_->GetQueue(names_[q]);
      RequireOk(got.status(), "queue " + names_[q] + " after reopen");
      queues_[q] = *got;
    }
    CheckAll();
  }

  int64_t Now() { return clock_->NowMillis(); }

  // Mostly the two sources; their dead-letter queues take every operation
  // too (sends, receives, deletes, ... and a refused dead-letter move).
  int PickQueue() {
    const int v = in_->Range<int>(0, 7);
    return v < 3 ? kStandard : v < 6 ? kFifo : v == 6 ? kStandardDlq : kFifoDlq;
  }

  // The MD5 of `attrs` as SendMessage and ReceiveMessage return it: absent
  // (or empty) for no attributes.
  void RequireAttributesMd5(const lqs::MessageAttributeMap& attrs,
                            const std::optional<std::string>& md5, const std::string& what) {
    if (attrs.empty()) {
      Require(!md5 || md5->empty(), what + ": MD5OfMessageAttributes without attributes");
    } else {
      Require(md5 && *md5 == lqs::api::Md5OfMessageAttributes(attrs),
              what + ": MD5OfMessageAttributes");
    }
  }

  // DeadLetterQueueSourceArn: present exactly on messages moved into a
  // dead-letter queue, naming their source.
  void RequireSourceArn(const std::map<std::string, std::string>& system_attrs,
                        const ModelMessage& m, const std::string& what) {
    auto it = system_attrs.find("DeadLetterQueueSourceArn");
    if (m.dead_letter_source_arn.empty()) {
      Require(it == system_attrs.end(), what + ": DeadLetterQueueSourceArn on " + m.body);
    } else {
      Require(it != system_attrs.end() && it->second == m.dead_letter_source_arn,
              what + ": DeadLetterQueueSourceArn of " + m.body + " is " +
                  (it == system_attrs.end() ? "absent" : it->second) + ", expected " +
                  m.dead_letter_source_arn);
    }
  }

  // ---- Model predicates ----------------------------------------------------

  static bool Live(const ModelMessage& m) { return !m.deleted; }
  bool InFlight(const ModelMessage& m) { return Live(m) && m.receives > 0 && m.visible_at > Now(); }
  bool Delayed(const ModelMessage& m) { return Live(m) && m.receives == 0 && m.visible_at > Now(); }
  bool Receivable(const ModelMessage& m) { return Live(m) && m.visible_at <= Now(); }

  // FIFO group locking (docs/sqs-reference.md §9.2): a receive may return, from a
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
    // At times a user attribute, which a dead-letter move's extra
    // attributes may overwrite.
    if (in_->Range<int>(0, 3) == 0) {
      r.message_attributes["a"] = {"String", "sent-" + std::to_string(next_body_), ""};
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
    if (!expect_dedup)
      RequireAttributesMd5(r.message_attributes, res.md5_of_message_attributes, "send");
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
    m.attributes = r.message_attributes;
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
    struct Expect {
      bool dedup;
      std::string key, original;
    };
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
        if (batch_keys.count(x.key))
          x.dedup = true;  // original id filled below
        else
          batch_keys[x.key] = entries.size();
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
      Require(f.id == "e" + std::to_string(bad),
              "batch entry failed: " + f.id + " " + f.code + " " + f.message);
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
    if (vt_kind < 5)
      r.visibility_timeout = vt_kind;  // 0..4 s
    else if (vt_kind == 5)
      r.visibility_timeout = 43200;  // the maximum
    // else: the queue's default (5 s)
    r.wait_time_seconds = 0;
    r.message_system_attribute_names = {"All"};
    r.message_attribute_names = {"All"};
    const int64_t lease_ms = int64_t{r.visibility_timeout.value_or(5)} * 1000;
    Log("receive q" + std::to_string(q) + " max=" + std::to_string(r.max_number_of_messages) +
        " vt=" + std::to_string(lease_ms / 1000));

    size_t receivable = 0;
    for (const auto& m : mq.messages) receivable += Receivable(m) ? 1 : 0;
    // FIFO: the messages blocked behind an in-flight message of their
    // group, judged on the state before this receive (the model is updated
    // only after every check below).
    const std::vector<bool> blocked =
        mq.fifo ? BlockedInGroups(mq) : std::vector<bool>(mq.messages.size(), false);

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
      Require(rm.message_attributes == m.attributes, "message attributes of " + m.body);
      RequireAttributesMd5(m.attributes, rm.md5_of_message_attributes, "receive of " + m.body);
      RequireSourceArn(rm.attributes, m, "receive");
      if (mq.fifo) {
        Require(!blocked[idx], "received from a locked group: " + m.body +
                                   " (behind an in-flight message of group " + m.group + ")");
        Require(
            rm.attributes.count("MessageGroupId") && rm.attributes.at("MessageGroupId") == m.group,
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
    log_.back() += " -> " + std::to_string(got.size());
    for (const auto& rm : got) {
      ModelMessage& m = mq.messages[mq.by_id[rm.message_id]];
      log_.back() += " " + m.body;
      m.receives++;
      m.visible_at = Now() + lease_ms;
      m.lease_start = Now();
      mq.received++;
      handles_.push_back({q, mq.by_id[rm.message_id], m.receives, rm.receipt_handle});
    }
  }

  // A handle to use on queue q: garbage, one ever issued (any queue), or
  // one of the last few issued by q (so that most operations meet a message
  // still leased).
  std::optional<Handle> PickHandle(int q) {
    const int kind = handles_.empty() ? 0 : in_->Range<int>(0, 15);
    if (kind == 0) return std::nullopt;
    if (kind >= 8) {
      std::vector<size_t> own;  // the newest first
      for (size_t i = handles_.size(); i-- > 0 && own.size() < 4;) {
        if (handles_[i].queue == q) own.push_back(i);
      }
      if (!own.empty()) return handles_[own[in_->Range<size_t>(0, own.size() - 1)]];
    }
    // Prefer recent handles.
    const size_t n = handles_.size();
    const size_t back = in_->Bool() ? in_->Range<size_t>(0, std::min<size_t>(n - 1, 3))
                                    : in_->Range<size_t>(0, n - 1);
    return handles_[n - 1 - back];
  }

  // What the engine must answer for a delete with `h` on queue q.
  // kExpired and kInvalidValue are both InvalidParameterValue (an expired
  // or stale lease; a bad argument, a message gone, no RedrivePolicy).
  enum class Outcome { kOk, kInvalidHandle, kExpired, kInvalidValue };
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
    if (!log_.empty()) log_.back() += s.ok() ? " -> ok" : " -> " + s.ToString().substr(0, 60);
    switch (want) {
      case Outcome::kOk:
        RequireOk(s, what);
        break;
      case Outcome::kInvalidHandle:
        Require(s.code() == lqs::ErrorCode::kReceiptHandleIsInvalid,
                what + ": expected ReceiptHandleIsInvalid, got " + s.ToString());
        break;
      case Outcome::kExpired:
        Require(s.code() == lqs::ErrorCode::kInvalidParameterValue,
                what + ": expected InvalidParameterValue (expired), got " + s.ToString());
        break;
      case Outcome::kInvalidValue:
        Require(s.code() == lqs::ErrorCode::kInvalidParameterValue,
                what + ": expected InvalidParameterValue, got " + s.ToString());
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
    const std::optional<Handle> h = PickHandle(q);
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
      hs.push_back(PickHandle(q));
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
      case 0:
        return 0;
      case 1:
        return 43200;
      case 2:
        return in_->Range<int>(43000, 43200);
      default:
        return in_->Range<int>(1, 10);
    }
  }

  void ChangeVisibility(int q) {
    const std::optional<Handle> h = PickHandle(q);
    const int timeout = PickTimeout();
    bool missing, budget;
    const Outcome want = PredictChange(q, h, timeout, &missing, &budget);
    Log("change_visibility q" + std::to_string(q) + " " + Describe(q, h) +
        " t=" + std::to_string(timeout));
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
      std::optional<Handle> h = PickHandle(q);
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
      case 0:
        s = 0;
        break;
      case 1:
        s = 299;
        break;  // towards the dedup window edge
      case 2:
        s = 60;
        break;
      default:
        s = in_->Range<int>(1, 6);
        break;
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

  // ---- Consumer support: idempotency inbox, immediate dead-letter move ------

  bool ModelInboxContains(int q, const std::string& key) {
    auto it = model_[q].inbox.find(key);
    return it != model_[q].inbox.end() && it->second > Now();
  }

  static std::string KeyText(size_t k) {
    return k == 5 ? "K*512" : k == 6 ? "(empty)" : k == 7 ? "K*513" : InboxKey(k);
  }

  // DeleteMessageAndRecord: the delete of DeleteMessage and, in the same
  // write, the record; a call that fails records nothing (queue.h).
  void DeleteAndRecord(int q) {
    static constexpr int64_t kTtls[] = {1, 2, 5, 60, 300, 1209600, 0, 1209601};
    const std::optional<Handle> h = PickHandle(q);
    const size_t k = in_->Range<size_t>(0, 7);
    const int64_t ttl = in_->Pick(kTtls);
    const bool bad = k >= kValidInboxKeys || ttl < 1 || ttl > 1209600;
    // Arguments are validated before the handle.
    const Outcome want = bad ? Outcome::kInvalidValue : PredictDelete(q, h);
    Log("delete_and_record q" + std::to_string(q) + " " + Describe(q, h) + " key=" + KeyText(k) +
        " ttl=" + std::to_string(ttl));
    CheckOutcome(want, queues_[q]->DeleteMessageAndRecord(Text(h), InboxKey(k), ttl),
                 "delete and record");
    if (want == Outcome::kOk) {
      ApplyDelete(q, *h);
      model_[q].inbox[InboxKey(k)] = Now() + ttl * 1000;  // recorded or renewed
    }
  }

  void InboxContains(int q) {
    const size_t k = in_->Range<size_t>(0, 7);
    Log("inbox_contains q" + std::to_string(q) + " key=" + KeyText(k));
    auto got = queues_[q]->InboxContains(InboxKey(k));
    if (k >= kValidInboxKeys) {
      CheckOutcome(Outcome::kInvalidValue, got.status(), "inbox contains");
      return;
    }
    RequireOk(got.status(), "inbox contains");
    const bool want = ModelInboxContains(q, InboxKey(k));
    log_.back() += *got ? " -> true" : " -> false";
    Require(*got == want, "InboxContains(" + KeyText(k) + ") is " + (*got ? "true" : "false") +
                              ", model " + (want ? "true" : "false"));
  }

  // MoveToDeadLetterQueue: only the current, unexpired lease moves the
  // message, on a queue with a RedrivePolicy; it then is a message of the
  // dead-letter queue (same MessageId, body and group, receive count kept,
  // visible at once, at the end of its group on a FIFO queue) with the
  // extra attributes merged and DeadLetterQueueSourceArn set; the source
  // counts it in moved_to_dlq_total, and a FIFO group is unlocked at once.
  // A refused move changes nothing.
  void MoveToDeadLetter(int q) {
    const std::optional<Handle> h = PickHandle(q);
    lqs::MessageAttributeMap extra;
    bool bad = false;
    switch (in_->Range<int>(0, 7)) {
      case 0:
        break;
      case 1:
        extra["a"] = {"String", "moved", ""};
        break;  // overwrites the send's "a"
      case 2:
        extra["reason"] = {"String", "poison", ""};
        extra["n"] = {"Number", "42", ""};
        break;
      case 3:
        extra["bin"] = {"Binary", "", std::string("\x01\x00\x02", 3)};
        break;
      case 4:  // more than SendMessage's 10 attributes: allowed here
        for (int i = 0; i < 11; ++i) extra["x" + std::to_string(i)] = {"String", "v", ""};
        break;
      case 5:
        extra["a"] = {"String", "", ""};
        bad = true;
        break;  // empty value
      case 6:
        extra["AWS.x"] = {"String", "v", ""};
        bad = true;
        break;  // reserved name
      default:
        extra["n"] = {"Number", "forty", ""};
        bad = true;
        break;  // not a number
    }
    Outcome want = Outcome::kOk;
    // Extra attributes are validated first, then the handle, then the
    // queue's RedrivePolicy, then the lease.
    if (bad) {
      want = Outcome::kInvalidValue;
    } else if (!h || h->queue != q) {
      want = Outcome::kInvalidHandle;
    } else if (IsDlq(q)) {
      want = Outcome::kInvalidValue;  // no RedrivePolicy
    } else {
      const ModelMessage& m = model_[q].messages[h->msg];
      if (!Live(m) || m.receives != h->receive || m.visible_at <= Now()) {
        want = Outcome::kInvalidValue;  // gone, a stale handle, or the lease ended
      }
    }
    std::string names;
    for (const auto& [name, value] : extra) names += (names.empty() ? "" : ",") + name;
    Log("move_to_dlq q" + std::to_string(q) + " " + Describe(q, h) + " extra=[" + names + "]");
    CheckOutcome(want, queues_[q]->MoveToDeadLetterQueue(Text(h), extra),
                 "move to dead-letter queue");
    if (want != Outcome::kOk) return;
    ModelQueue& src = model_[q];
    ModelQueue& dlq = model_[DlqOf(q)];
    ModelMessage& m = src.messages[h->msg];
    ModelMessage moved = m;
    m.deleted = true;
    src.moved++;
    moved.visible_at = Now();
    moved.lease_start = 0;
    for (const auto& [name, value] : extra) moved.attributes[name] = value;
    moved.dead_letter_source_arn = queues_[q]->arn();
    Require(dlq.by_id.count(moved.id) == 0, "moved MessageId already in the dead-letter queue");
    dlq.by_id[moved.id] = dlq.messages.size();
    dlq.messages.push_back(std::move(moved));
  }

  // One maintenance pass (retention, dedup history, the inbox sweep): it
  // must not change an answer of InboxContains.
  void Maintenance() {
    Log("maintenance");
    RequireOk(broker_->RunMaintenance(), "maintenance");
    for (int q = 0; q < kQueues; ++q) CheckInbox(q);
  }

  // ---- Whole-state checks ----------------------------------------------------

  void CheckQueue(int q) {
    ModelQueue& mq = model_[q];
    int64_t visible = 0, in_flight = 0, delayed = 0;
    for (const auto& m : mq.messages) {
      if (!Live(m)) continue;
      if (InFlight(m))
        in_flight++;
      else if (Delayed(m))
        delayed++;
      else
        visible++;
    }
    auto st = queues_[q]->GetStats();
    RequireOk(st.status(), "stats");
    auto num = [](int64_t v) { return std::to_string(v); };
    const std::string tag = "q" + num(q) + " ";
    Require(st->visible == visible,
            tag + "visible " + num(st->visible) + " != model " + num(visible));
    Require(st->in_flight == in_flight,
            tag + "in flight " + num(st->in_flight) + " != model " + num(in_flight));
    Require(st->delayed == delayed,
            tag + "delayed " + num(st->delayed) + " != model " + num(delayed));
    Require(st->sent_total == mq.sent,
            tag + "sent_total " + num(st->sent_total) + " != " + num(mq.sent));
    Require(st->received_total == mq.received,
            tag + "received_total " + num(st->received_total) + " != " + num(mq.received));
    Require(st->deleted_total == mq.deleted,
            tag + "deleted_total " + num(st->deleted_total) + " != " + num(mq.deleted));
    Require(st->purged_total == mq.purged,
            tag + "purged_total " + num(st->purged_total) + " != " + num(mq.purged));
    Require(st->moved_to_dlq_total == mq.moved,
            tag + "moved_to_dlq_total " + num(st->moved_to_dlq_total) + " != " + num(mq.moved));

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
      Require(sm.message_attributes == m.attributes, tag + "scan message attributes of " + m.body);
      RequireSourceArn(sm.attributes, m, tag + "scan");
      return true;
    });
    RequireOk(scan, "scan");
    Require(static_cast<int64_t>(scanned.size()) == visible + in_flight + delayed,
            tag + "scan lists " + num(static_cast<int64_t>(scanned.size())) + " messages, model " +
                num(visible + in_flight + delayed) + " (lost messages)");
  }

  // Every valid key of the pool answers as the model says: recorded and
  // not expired by the ManualClock.
  void CheckInbox(int q) {
    for (size_t k = 0; k < kValidInboxKeys; ++k) {
      auto got = queues_[q]->InboxContains(InboxKey(k));
      RequireOk(got.status(), "inbox contains");
      const bool want = ModelInboxContains(q, InboxKey(k));
      Require(*got == want, "q" + std::to_string(q) + " InboxContains(" + InboxKey(k).substr(0, 8) +
                                ") is " + (*got ? "true" : "false") + ", model " +
                                (want ? "true" : "false"));
    }
  }

  // ---- Transactions (lqs/transaction.h) ------------------------------------
  //
  // Two transaction slots, each open, finished (committed: every further
  // call fails) or empty; two tables of this input, a small key pool (so
  // that prefix scans and the two slots meet on the same keys). The model
  // keeps the committed records, and per slot its writes, the keys it read
  // (with what it saw), its scans (with what they saw) and its queue
  // operations; Commit() is predicted from the state at commit: a read or
  // scan whose records changed since is a conflict, as is a delete or
  // visibility change whose lease is no longer the current, unexpired one;
  // a visibility change beyond the 12-hour budget is InvalidParameterValue.
  // Sends go to the standard queues (FIFO deduplication at commit time is
  // left to the non-transactional model).

  using TableKey = std::pair<int, std::string>;  // table index, key
  struct TxScan {
    int table;
    std::string prefix;
    std::map<std::string, std::string> seen;
  };
  struct TxHandleOp {
    int q;
    Handle h;
    std::optional<int> timeout;  // nullopt: delete
  };
  struct ModelTx {
    std::unique_ptr<lqs::Transaction> tx;
    bool finished = false;
    std::map<TableKey, std::optional<std::string>> writes, reads;
    std::vector<TxScan> scans;
    std::vector<std::pair<int, lqs::SendMessageRequest>> sends;
    std::vector<TxHandleOp> ops;
  };

  static constexpr int kTables = 2;
  const std::string& TableName(int t) { return tables_[t]; }
  std::string PickTxKey() {
    static const char* const kKeys[] = {"a", "ab", "b", "ba", "c"};
    return in_->Pick(kKeys);
  }
  std::map<std::string, std::string> CommittedWithPrefix(int t, const std::string& prefix) {
    std::map<std::string, std::string> out;
    for (auto it = committed_[t].lower_bound(prefix);
         it != committed_[t].end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
      out.insert(*it);
    }
    return out;
  }
  std::optional<std::string> Committed(int t, const std::string& key) {
    auto it = committed_[t].find(key);
    if (it == committed_[t].end()) return std::nullopt;
    return it->second;
  }

  void Transact(int v) {
    const int slot = v / 12;
    ModelTx& mt = txs_[slot];
    const int op = v % 12;
    const std::string who = "tx" + std::to_string(slot) + " ";
    if (mt.finished && (op == 1 || op == 2)) {
      // Every call on a finished transaction fails and changes nothing.
      Log(who + "call after commit");
      const lqs::Status s = op == 1 ? mt.tx->Put(TableName(0), "a", "x") : mt.tx->Commit().status();
      CheckOutcome(Outcome::kInvalidValue, s, "a call on a finished transaction");
      return;
    }
    // Begin: a new transaction replaces (and rolls back) the slot's, and
    // follows a finished one.
    if (op == 0 || !mt.tx || mt.finished) {
      Log(who + "begin");
      mt = ModelTx{};
      mt.tx = broker_->BeginTransaction();
      Require(mt.tx != nullptr, "BeginTransaction returned nothing");
      if (op == 0) return;
    }
    switch (op) {
      case 1:
      case 2:
        TxPut(who, mt);
        break;
      case 3:
        TxGet(who, mt);
        break;
      case 4:
        TxDelete(who, mt);
        break;
      case 5:
        TxScanOp(who, mt);
        break;
      case 6:
        TxSend(who, mt);
        break;
      case 7:
      case 8:
        TxHandle(who, mt);
        break;
      case 9:
      case 10:
        TxCommit(who, mt);
        break;
      default:
        Log(who + "rollback");
        mt = ModelTx{};  // destroyed uncommitted: nothing written
        break;
    }
  }

  // A table index, or -1 for an invalid table name (at times).
  int PickTable() { return in_->Range<int>(0, 9) == 0 ? -1 : in_->Range<int>(0, kTables - 1); }

  void TxPut(const std::string& who, ModelTx& mt) {
    const int t = PickTable();
    const std::string key = in_->Range<int>(0, 15) == 0 ? std::string() : PickTxKey();
    const std::string value = "v" + std::to_string(next_body_++);
    Log(who + "put t" + std::to_string(t) + " " + key + "=" + value);
    const lqs::Status s = mt.tx->Put(t < 0 ? "bad table" : TableName(t), key, value);
    if (t < 0 || key.empty()) {
      CheckOutcome(Outcome::kInvalidValue, s, "put with a bad table or key");
      return;
    }
    CheckOutcome(Outcome::kOk, s, "put");
    mt.writes[{t, key}] = value;
  }

  void TxDelete(const std::string& who, ModelTx& mt) {
    const int t = in_->Range<int>(0, kTables - 1);
    const std::string key = PickTxKey();
    Log(who + "delete t" + std::to_string(t) + " " + key);
    CheckOutcome(Outcome::kOk, mt.tx->Delete(TableName(t), key), "table delete");
    mt.writes[{t, key}] = std::nullopt;
  }

  void TxGet(const std::string& who, ModelTx& mt) {
    const int t = in_->Range<int>(0, kTables - 1);
    const std::string key = PickTxKey();
    Log(who + "get t" + std::to_string(t) + " " + key);
    std::optional<std::string> want;
    if (auto w = mt.writes.find({t, key}); w != mt.writes.end()) {
      want = w->second;
    } else if (auto r = mt.reads.find({t, key}); r != mt.reads.end()) {
      want = r->second;
    } else {
      want = Committed(t, key);
      mt.reads[{t, key}] = want;
    }
    auto got = mt.tx->Get(TableName(t), key);
    RequireOk(got.status(), "get");
    log_.back() += " -> " + got->value_or("(absent)");
    Require(*got == want, "get " + key + ": got " + got->value_or("(absent)") + ", expected " +
                              want.value_or("(absent)"));
  }

  void TxScanOp(const std::string& who, ModelTx& mt) {
    static const char* const kPrefixes[] = {"", "a", "b", "ab", "z"};
    const int t = in_->Range<int>(0, kTables - 1);
    const std::string prefix = in_->Pick(kPrefixes);
    Log(who + "scan t" + std::to_string(t) + " '" + prefix + "'");
    TxScan scan{t, prefix, CommittedWithPrefix(t, prefix)};
    std::map<std::string, std::string> want = scan.seen;
    for (const auto& [k, v] : mt.writes) {
      if (k.first != t || k.second.compare(0, prefix.size(), prefix) != 0) continue;
      if (v) {
        want[k.second] = *v;
      } else {
        want.erase(k.second);
      }
    }
    auto got = mt.tx->Scan(TableName(t), prefix);
    RequireOk(got.status(), "scan");
    std::map<std::string, std::string> have;
    std::string last;
    for (const auto& e : *got) {
      Require(have.empty() || last < e.key, "scan out of key order at " + e.key);
      last = e.key;
      have[e.key] = e.value;
    }
    log_.back() += " -> " + std::to_string(have.size());
    Require(have == want, "scan of prefix '" + prefix + "' differs from the model");
    mt.scans.push_back(std::move(scan));
  }

  void TxSend(const std::string& who, ModelTx& mt) {
    const int q = in_->Bool() ? kStandard : kStandardDlq;
    bool dedup;
    std::string key, original;
    lqs::SendMessageRequest r = MakeRequest(q, &dedup, &key, &original);
    const bool bad = in_->Range<int>(0, 7) == 0;
    if (bad) r.body.clear();  // MissingParameter: nothing recorded
    Log(who + "send q" + std::to_string(q) + " body=" + r.body);
    const lqs::Status s = mt.tx->SendMessage(names_[q], r);
    log_.back() += s.ok() ? " -> ok" : " -> " + s.ToString().substr(0, 60);
    if (bad) {
      Require(!s.ok(), "a transaction accepted a send without a body");
      return;
    }
    RequireOk(s, "tx send");
    mt.sends.emplace_back(q, std::move(r));
  }

  void TxHandle(const std::string& who, ModelTx& mt) {
    const int q = PickQueue();
    const std::optional<Handle> h = PickHandle(q);
    std::optional<int> timeout;
    if (in_->Bool()) timeout = in_->Range<int>(0, 15) == 0 ? 43201 : PickTimeout();
    Log(who + (timeout ? "change q" : "delete_message q") + std::to_string(q) + " " +
        Describe(q, h) + (timeout ? " vt=" + std::to_string(*timeout) : ""));
    const lqs::Status s = timeout ? mt.tx->ChangeMessageVisibility(names_[q], Text(h), *timeout)
                                  : mt.tx->DeleteMessage(names_[q], Text(h));
    Outcome want = Outcome::kOk;
    if (timeout && (*timeout < 0 || *timeout > 43200)) {
      want = Outcome::kInvalidValue;
    } else if (!h || h->queue != q) {
      want = Outcome::kInvalidHandle;
    } else {
      // A message this transaction already deletes takes no further call.
      for (const auto& o : mt.ops) {
        if (o.q == q && o.h.msg == h->msg && !o.timeout) want = Outcome::kInvalidValue;
      }
    }
    CheckOutcome(want, s, "transaction handle call");
    if (want == Outcome::kOk) mt.ops.push_back({q, *h, timeout});
  }

  void TxCommit(const std::string& who, ModelTx& mt) {
    Log(who + "commit");
    // The outcome: the codes that may fail it (the first failing step
    // decides, in queue id order: either is accepted when both apply).
    std::set<lqs::ErrorCode> failures;
    bool read_conflict = false;
    for (const auto& [k, seen] : mt.reads) read_conflict |= Committed(k.first, k.second) != seen;
    for (const auto& sc : mt.scans)
      read_conflict |= CommittedWithPrefix(sc.table, sc.prefix) != sc.seen;
    if (read_conflict) failures.insert(lqs::ErrorCode::kTransactionConflict);
    // The leases as the commit finds them, and the visibility each change
    // leaves (an earlier change of this transaction is a later one's base).
    std::map<std::pair<int, size_t>, int64_t> visible_after;
    for (const auto& o : mt.ops) {
      const ModelMessage& m = model_[o.q].messages[o.h.msg];
      if (!Live(m) || m.receives != o.h.receive || m.visible_at <= Now()) {
        failures.insert(lqs::ErrorCode::kTransactionConflict);
        continue;
      }
      if (!o.timeout) continue;
      const int64_t elapsed = (Now() - m.lease_start) / 1000 * 1000;
      if (elapsed + int64_t{*o.timeout} * 1000 > kMaxLeaseMs) {
        failures.insert(lqs::ErrorCode::kInvalidParameterValue);
        continue;
      }
      visible_after[{o.q, o.h.msg}] = Now() + int64_t{*o.timeout} * 1000;
    }
    auto done = mt.tx->Commit();
    mt.finished = true;
    log_.back() += done.ok() ? " -> ok" : " -> " + done.status().ToString().substr(0, 60);
    if (read_conflict) {
      // Reads are validated first.
      Require(done.status().code() == lqs::ErrorCode::kTransactionConflict,
              "commit after a changed read: " + done.status().ToString());
      return;
    }
    if (!failures.empty()) {
      Require(
          !done.ok() && failures.count(done.status().code()) == 1,
          "commit: expected a conflict or InvalidParameterValue, got " + done.status().ToString());
      return;
    }
    RequireOk(done.status(), "commit");
    Require(done->sent.size() == mt.sends.size(), "commit returned the wrong number of sends");
    for (size_t i = 0; i < mt.sends.size(); ++i) {
      Accepted(mt.sends[i].first, mt.sends[i].second, done->sent[i], false, "", "");
    }
    std::set<std::pair<int, size_t>> deleted;
    for (const auto& o : mt.ops) {
      if (!o.timeout) deleted.insert({o.q, o.h.msg});
    }
    for (const auto& [msg, visible_at] : visible_after) {
      if (!deleted.count(msg)) model_[msg.first].messages[msg.second].visible_at = visible_at;
    }
    for (const auto& [q, msg] : deleted) {
      ModelMessage& m = model_[q].messages[msg];
      m.deleted = true;
      model_[q].deleted++;
    }
    for (const auto& [k, v] : mt.writes) {
      if (v) {
        committed_[k.first][k.second] = *v;
      } else {
        committed_[k.first].erase(k.second);
      }
    }
  }

  // Broker::Get and Broker::Scan see exactly the committed records.
  void CheckTables() {
    for (int t = 0; t < kTables; ++t) {
      auto got = broker_->Scan(TableName(t), "");
      RequireOk(got.status(), "Broker::Scan");
      std::map<std::string, std::string> have;
      for (const auto& e : *got) have[e.key] = e.value;
      Require(have == committed_[t], "table " + TableName(t) + " differs from the model");
      for (const std::string key : {"a", "c"}) {
        auto v = broker_->Get(TableName(t), key);
        RequireOk(v.status(), "Broker::Get");
        Require(*v == Committed(t, key), "Broker::Get of " + key);
      }
    }
  }

  // The end of an input: the open transactions roll back, and one
  // transaction deletes this input's records.
  void ClearTables() {
    for (auto& mt : txs_) mt = ModelTx{};
    auto tx = broker_->BeginTransaction();
    for (int t = 0; t < kTables; ++t) {
      for (const auto& [k, v] : committed_[t]) RequireOk(tx->Delete(TableName(t), k), "clear");
    }
    RequireOk(tx->Commit().status(), "commit of the clearing transaction");
    for (auto& c : committed_) c.clear();
    CheckTables();
  }

  void CheckAll() {
    Log("check");
    for (int q = 0; q < kQueues; ++q) {
      CheckQueue(q);
      CheckInbox(q);
    }
    CheckTables();
    auto problems = broker_->Verify();
    RequireOk(problems.status(), "verify");
    if (!problems->empty()) Fail("Verify: " + problems->front());
  }

  FuzzInput* in_;
  std::unique_ptr<rocksdb::Env>& env_;
  std::shared_ptr<lqs::ManualClock> clock_;
  std::unique_ptr<lqs::Broker>& broker_;
  std::string names_[kQueues];
  std::shared_ptr<lqs::Queue> queues_[kQueues];
  ModelQueue model_[kQueues];
  std::vector<Handle> handles_;
  std::vector<std::string> log_;
  int next_body_ = 0;
  bool reopened_ = false;
  std::string tables_[kTables];
  std::map<std::string, std::string> committed_[kTables];
  ModelTx txs_[2];
};

}  // namespace

// Present when linked with libFuzzer (not with fuzz/replay_main.cc).
extern "C" __attribute__((weak)) int LLVMFuzzerRunDriver(int* argc, char*** argv,
                                                         int (*callback)(const uint8_t* data,
                                                                         size_t size));

// Under libFuzzer, turns off its leak check after each input (unless the
// command line sets -detect_leaks): the Broker shared by consecutive inputs
// keeps allocating (memtables, caches), so libFuzzer saw more mallocs than
// frees after almost every input and ran it a second time followed by a
// LeakSanitizer pass over the whole heap — two thirds of the fuzzer's time.
// LeakSanitizer still checks the process at exit (ASAN_OPTIONS
// detect_leaks=1, as scripts/fuzz.sh sets): a block the engine leaks stays
// unreachable until then, and the shared state is reachable from `shared`.
// To find the input that leaks, rerun with -detect_leaks=1.
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  if (LLVMFuzzerRunDriver == nullptr) return 0;  // the replay main: no flags
  for (int i = 1; i < *argc; ++i) {
    if (std::string((*argv)[i]).rfind("-detect_leaks=", 0) == 0) return 0;
  }
  static std::vector<char*> args;  // outlives the fuzzer
  args.assign(*argv, *argv + *argc);
  args.push_back(const_cast<char*>("-detect_leaks=0"));
  args.push_back(nullptr);
  *argc = static_cast<int>(args.size()) - 1;
  *argv = args.data();
  return 0;
}

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
