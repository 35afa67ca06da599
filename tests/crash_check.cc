#include "tests/crash_check.h"

#include <array>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "tests/crash_child_support.h"
#include "tests/crash_harness.h"

namespace lqs::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kLongVisibility = 43200;

struct Oracle {
  std::set<std::string> pending;       // a send was attempted
  std::set<std::string> acked;         // the send returned OK
  std::set<std::string> deleting;      // a delete was attempted (any queue)
  std::set<std::string> deleted;       // DeleteMessage on "work" returned OK
  std::set<std::string> dlq_deleted;   // ... on "work-dlq"
  std::set<std::string> fifo_deleted;  // ... on "work.fifo"
};

Oracle ReadOracle(const std::string& dir) {
  Oracle o;
  std::map<std::string, std::set<std::string>*> sets = {
      {"pending", &o.pending},         {"acked", &o.acked},
      {"deleting", &o.deleting},       {"deleted", &o.deleted},
      {"dlq-deleted", &o.dlq_deleted}, {"fifo-deleted", &o.fifo_deleted}};
  ReadOracleEvents(dir,
                   [&sets](const std::string&, const std::string& event, const std::string& id) {
                     auto it = sets.find(event);
                     if (it != sets.end()) it->second->insert(id);
                   });
  return o;
}

// ApproximateNumberOfMessages + ...NotVisible + ...Delayed, or an error.
StatusOr<std::array<int64_t, 3>> CountsOf(Queue& q) {
  auto a = q.GetAttributes({"All"});
  if (!a.ok()) return a.status();
  return std::array<int64_t, 3>{std::stoll((*a)["ApproximateNumberOfMessages"]),
                                std::stoll((*a)["ApproximateNumberOfMessagesNotVisible"]),
                                std::stoll((*a)["ApproximateNumberOfMessagesDelayed"])};
}

class Checker {
 public:
  explicit Checker(CrashCheck* out) : out_(out) {}

  void Problem(std::string what) { out_->problems.push_back(std::move(what)); }
  bool Ok(const Status& st, const std::string& what) {
    if (!st.ok()) Problem(what + ": " + st.ToString());
    return st.ok();
  }

  // Receives every visible message of `q`; with `delete_each` deletes each
  // (a FIFO group unlocks only then). A receive may return nothing while
  // messages remain (it moved a whole scan's worth to the DLQ), so the loop
  // ends only when the queue also counts nothing visible.
  std::vector<std::string> Drain(Queue& q, bool delete_each) {
    std::vector<std::string> bodies;
    for (int empty = 0; empty < 1000;) {
      ReceiveMessageRequest r;
      r.max_number_of_messages = 10;
      r.visibility_timeout = kLongVisibility;
      r.wait_time_seconds = 0;
      auto got = q.ReceiveMessage(r);
      if (!Ok(got.status(), "draining " + q.name())) break;
      for (auto& m : got->messages) {
        if (delete_each) Ok(q.DeleteMessage(m.receipt_handle), "deleting while draining");
        bodies.push_back(std::move(m.body));
      }
      if (!got->messages.empty()) continue;
      auto counts = CountsOf(q);
      if (!counts.ok() || (*counts)[0] == 0) break;
      ++empty;
    }
    return bodies;
  }

 private:
  CrashCheck* out_;
};

// Each FIFO group's ids ("s<seed>g<group>-<n>") in drain order must count up.
void CheckFifoOrder(const std::vector<std::string>& drained, Checker& check) {
  std::map<std::string, int64_t> last;
  for (const auto& id : drained) {
    const size_t dash = id.rfind('-');
    if (dash == std::string::npos) {
      check.Problem("unexpected FIFO body " + id);
      continue;
    }
    const std::string group = id.substr(0, dash);
    const int64_t n = std::stoll(id.substr(dash + 1));
    auto it = last.find(group);
    if (it != last.end() && n <= it->second) {
      check.Problem("FIFO group " + group + " drained " + id + " after number " +
                    std::to_string(it->second));
    }
    last[group] = n;
  }
}

}  // namespace

CrashCheck CheckCrashedDatabase(const std::string& db, const std::string& oracle_dir,
                                const std::string& scratch, Durability durability,
                                bool deletes_durable) {
  CrashCheck out;
  Checker check(&out);
  {
    auto broker = OpenToCheck(db, durability);
    if (!check.Ok(broker.status(), "opening the database after the crash")) return out;
    auto problems = (*broker)->Verify();
    if (check.Ok(problems.status(), "Verify")) {
      for (const auto& p : *problems) check.Problem("Verify: " + p);
    }
    check.Ok((*broker)->Close(), "closing the database after the check");
    if (!out.problems.empty()) return out;
  }

  // Drain a copy on a clock an hour ahead: every lease has ended (the
  // VisibilityTimeout is 2 s), nothing has reached retention (4 days).
  const std::string copy = scratch + "/copy";
  std::error_code ec;
  fs::remove_all(copy, ec);
  fs::copy(db, copy, fs::copy_options::recursive);
  std::vector<std::string> work, dlq, fifo;
  int64_t counted = 0;
  {
    auto clock = std::make_shared<ManualClock>(SystemClock().NowMillis());
    auto broker = OpenToCheck(copy, durability, clock);
    if (!check.Ok(broker.status(), "opening the copy")) return out;
    clock->AdvanceSeconds(3600);
    std::vector<std::shared_ptr<Queue>> queues;
    for (const char* name : {kCrashWorkQueue, kCrashDeadLetterQueue, kCrashFifoQueue}) {
      auto q = (*broker)->GetQueue(name);
      if (!check.Ok(q.status(), std::string("the queue ") + name)) return out;
      queues.push_back(*q);
      auto c = CountsOf(**q);
      if (!check.Ok(c.status(), "counting")) return out;
      // With every lease over, nothing is in flight; nothing was delayed.
      if ((*c)[1] != 0 || (*c)[2] != 0)
        check.Problem(std::string(name) +
                      " counts in-flight "
                      "or delayed messages an hour later");
      counted += (*c)[0] + (*c)[1] + (*c)[2];
    }
    // The source first: it may move messages (receive count >= 3) to the DLQ.
    work = check.Drain(*queues[0], false);
    dlq = check.Drain(*queues[1], false);
    fifo = check.Drain(*queues[2], true);
    auto problems = (*broker)->Verify();
    if (check.Ok(problems.status(), "Verify of the drained copy")) {
      for (const auto& p : *problems) check.Problem("Verify of the drained copy: " + p);
    }
    check.Ok((*broker)->Close(), "closing the copy");
  }
  fs::remove_all(copy, ec);

  const Oracle oracle = ReadOracle(oracle_dir);
  std::set<std::string> present, in_work(work.begin(), work.end());
  for (const auto* list : {&work, &dlq, &fifo}) {
    for (const auto& id : *list) {
      if (!present.insert(id).second) check.Problem("message " + id + " is stored twice");
    }
  }
  if (counted != static_cast<int64_t>(present.size())) {
    check.Problem("the counters say " + std::to_string(counted) + " messages, a drain finds " +
                  std::to_string(present.size()));
  }
  CheckFifoOrder(fifo, check);

  out.acked = oracle.acked.size();
  out.deleted = oracle.deleted.size() + oracle.dlq_deleted.size() + oracle.fifo_deleted.size();
  out.present = present.size();
  out.in_dlq = dlq.size();
  out.in_fifo = fifo.size();
  for (const auto& id : present) {
    if (oracle.pending.count(id) == 0) check.Problem("message " + id + " was never sent");
    if (oracle.acked.count(id) == 0) ++out.pending_only_present;
  }
  if (durability == Durability::kNone) return out;

  if (deletes_durable) {
    for (const auto& id : present) {
      if (oracle.dlq_deleted.count(id) || oracle.fifo_deleted.count(id)) {
        check.Problem("message " + id + " was deleted but is back");
      }
    }
    // DeleteMessage on "work" with any handle of the message removes it from
    // "work"; it may have been moved to the DLQ before (that delete succeeds
    // and leaves the DLQ copy), so only "work" is checked.
    for (const auto& id : in_work) {
      if (oracle.deleted.count(id)) check.Problem("message " + id + " was deleted but is back");
    }
  }
  for (const auto& id : oracle.acked) {
    // A delete attempted when the child died may or may not have happened.
    if (present.count(id) || oracle.deleting.count(id)) continue;
    out.lost.push_back(id);
  }
  return out;
}

}  // namespace lqs::testing
