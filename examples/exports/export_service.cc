// lqs_exports_example — an asynchronous export service on lqs transactions
// (examples/exports/README.md; the same flow as export_service.py).
//
//   Accept(request)  one transaction: record ACCEPTED + enqueue the job
//   Handle(msg, tx)  runs the job idempotently and records its outcome in tx
//                    (SUCCEEDED + result, or FAILED + a copy in the DLQ)
//   Process(msg)     begin tx -> Handle -> DeleteMessage -> Commit
//
// Usage: lqs_exports_example [DB_DIR]
//   Accepts a few requests (one retried by its client, one failing once, one
//   invalid, one with an unknown schema version), works them off, then checks
//   the records and the queues: exit 0 when every request ended as expected.
//
// Records are plain text ("ACCEPTED csv 5 0", "SUCCEEDED <bytes> <checksum>",
// "FAILED <reason>"), and so are jobs ("export-job/1 <id> <format> <rows>
// <simulated transient failures>"): the example needs no JSON library.

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "lqs/lqs.h"

namespace {

namespace fs = std::filesystem;

constexpr int kSchemaVersion = 1;
const std::string kJobs = "export-jobs";
const std::string kDlq = "export-jobs-dlq";
const std::string kRecords = "exports";
const std::string kBilling = "export-billing";  // request id -> times billed (must be 1)
constexpr int kMaxReceiveCount = 3;

struct Request {
  std::string format;  // csv or jsonl
  long rows = 0;
  int simulate_transient_failures = 0;  // a demo knob: storage unavailable N times
};

std::vector<std::string> Split(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::string State(const std::optional<std::string>& record) {
  return record ? Split(*record).at(0) : "";
}

int Fail(const lqs::Status& st) {
  std::fprintf(stderr, "lqs_exports_example: %s\n", st.ToString().c_str());
  return 1;
}

// ---- Accepting a request -------------------------------------------------------------------

// Records ACCEPTED and enqueues the job in one commit. Accepting an id that
// exists already (a client retrying) changes nothing.
lqs::Status Accept(lqs::Broker& broker, const std::string& id, const Request& r,
                   int schema_version = kSchemaVersion) {
  for (;;) {
    auto tx = broker.BeginTransaction();
    auto existing = tx->Get(kRecords, id);
    if (!existing.ok()) return existing.status();
    if (*existing) return lqs::Status::OK();
    const std::string fields = r.format + " " + std::to_string(r.rows) + " " +
                               std::to_string(r.simulate_transient_failures);
    if (auto st = tx->Put(kRecords, id, "ACCEPTED " + fields); !st.ok()) return st;
    lqs::SendMessageRequest job;
    job.body = "export-job/" + std::to_string(schema_version) + " " + id + " " + fields;
    if (auto st = tx->SendMessage(kJobs, job); !st.ok()) return st;
    auto done = tx->Commit();
    if (done.ok()) return lqs::Status::OK();
    if (done.status().code() != lqs::ErrorCode::kTransactionConflict) return done.status();
    // The same id accepted concurrently: the next round sees its record.
  }
}

// ---- The job -------------------------------------------------------------------------------

struct PermanentError {
  std::string reason;
};
struct TransientError {
  std::string reason;
};

struct ExportResult {
  size_t bytes = 0;
  uint64_t checksum = 0;  // FNV-1a of the file
};

// Writes the export file; the same request always gives the same bytes, so
// running it again after a crash is harmless (idempotent).
ExportResult RunExport(const std::string& id, const Request& r, const fs::path& out_dir,
                       int attempt) {
  if (r.format != "csv" && r.format != "jsonl") {
    throw PermanentError{"unsupported format " + r.format};
  }
  if (r.rows < 0 || r.rows > 100000) throw PermanentError{"rows must be in 0..100000"};
  if (attempt <= r.simulate_transient_failures) {
    throw TransientError{"storage unavailable (attempt " + std::to_string(attempt) + ")"};
  }
  std::string data = r.format == "csv" ? "id,square\n" : "";
  for (long i = 0; i < r.rows; ++i) {
    data += r.format == "csv" ? std::to_string(i) + "," + std::to_string(i * i) + "\n"
                              : "{\"id\": " + std::to_string(i) +
                                    ", \"square\": " + std::to_string(i * i) + "}\n";
  }
  const fs::path path = out_dir / (id + "." + r.format);
  const fs::path tmp = path.string() + ".tmp" + std::to_string(::getpid());
  std::ofstream(tmp, std::ios::binary) << data;
  fs::rename(tmp, path);
  ExportResult res{data.size(), 14695981039346656037ULL};
  for (unsigned char c : data) res.checksum = (res.checksum ^ c) * 1099511628211ULL;
  return res;
}

// ---- The worker ------------------------------------------------------------------------------

enum class Outcome { kSucceeded, kFailed, kDuplicate, kRetried, kConflict };

class ExportService {
 public:
  ExportService(lqs::Broker& broker, std::shared_ptr<lqs::Queue> jobs, fs::path out_dir)
      : broker_(broker), jobs_(std::move(jobs)), out_dir_(std::move(out_dir)) {
    fs::create_directories(out_dir_);
  }

  std::map<Outcome, int> stats;

  // Runs one job and records its outcome in `tx`; the caller deletes the
  // message in the same transaction and commits. Throws TransientError to
  // retry later.
  lqs::StatusOr<Outcome> Handle(const lqs::ReceivedMessage& msg, lqs::Transaction& tx) {
    const std::vector<std::string> f = Split(msg.body);
    if (f.size() != 5 || f[0].rfind("export-job/", 0) != 0) {
      return DeadLetter(tx, msg, "", "malformed job");
    }
    const std::string& id = f[1];
    auto rec = tx.Get(kRecords, id);
    if (!rec.ok()) return rec.status();
    if (!*rec) return DeadLetter(tx, msg, "", "no export record for " + id);
    const std::string state = State(*rec);
    if (state == "SUCCEEDED" || state == "FAILED") return Outcome::kDuplicate;
    if (f[0] != "export-job/" + std::to_string(kSchemaVersion)) {
      return DeadLetter(tx, msg, id, "unknown schema version " + f[0].substr(11));
    }
    Request r;
    try {
      r = Request{f[2], std::stol(f[3]), std::stoi(f[4])};
    } catch (const std::exception&) {  // std::invalid_argument, std::out_of_range
      return DeadLetter(tx, msg, id, "malformed job");
    }
    const int attempt = ReceiveCount(msg);
    ExportResult res;
    try {
      res = RunExport(id, r, out_dir_, attempt);
    } catch (const PermanentError& e) {
      return DeadLetter(tx, msg, id, e.reason);
    } catch (const TransientError& e) {
      if (attempt >= kMaxReceiveCount) {
        return DeadLetter(tx, msg, id,
                          "gave up after " + std::to_string(attempt) + " attempts: " + e.reason);
      }
      throw;
    }
    char checksum[17];
    std::snprintf(checksum, sizeof checksum, "%016" PRIx64, res.checksum);
    if (auto st = tx.Put(kRecords, id, "SUCCEEDED " + std::to_string(res.bytes) + " " + checksum);
        !st.ok()) {
      return st;
    }
    auto billed = tx.Get(kBilling, id);
    if (!billed.ok()) return billed.status();
    const int times = *billed ? std::stoi(**billed) : 0;
    if (auto st = tx.Put(kBilling, id, std::to_string(times + 1)); !st.ok()) return st;
    return Outcome::kSucceeded;
  }

  // One message: begin tx -> Handle -> delete the message -> commit.
  lqs::StatusOr<Outcome> Process(const lqs::ReceivedMessage& msg) {
    auto tx = broker_.BeginTransaction();
    lqs::StatusOr<Outcome> outcome = Outcome::kConflict;
    try {
      outcome = Handle(msg, *tx);
    } catch (const TransientError& e) {
      tx.reset();  // rolls back
      return Count(RetryLater(msg, e.reason));
    }
    if (!outcome.ok()) return outcome;
    if (auto st = tx->DeleteMessage(kJobs, msg.receipt_handle); !st.ok()) return st;
    auto done = tx->Commit();
    if (!done.ok()) {
      // Another worker got the message meanwhile (its lease ended), or changed
      // the record: nothing was applied; the message comes back, or is done.
      if (done.status().code() == lqs::ErrorCode::kTransactionConflict) {
        return Count(Outcome::kConflict);
      }
      return done.status();
    }
    return Count(*outcome);
  }

  // The loop; lqs::Worker's transactional handler runs it (and Handle) for you.
  lqs::Status WorkUntilEmpty() {
    for (;;) {
      lqs::ReceiveMessageRequest receive;
      receive.max_number_of_messages = 10;
      receive.wait_time_seconds = 1;
      receive.message_system_attribute_names = {"ApproximateReceiveCount"};
      auto got = jobs_->ReceiveMessage(receive);
      if (!got.ok()) return got.status();
      for (const auto& msg : got->messages) {
        auto outcome = Process(msg);
        if (!outcome.ok()) return outcome.status();
      }
      auto s = jobs_->GetStats();
      if (!s.ok()) return s.status();
      if (got->messages.empty() && s->visible + s->in_flight + s->delayed == 0) {
        return lqs::Status::OK();
      }
    }
  }

 private:
  static int ReceiveCount(const lqs::ReceivedMessage& msg) {
    auto it = msg.attributes.find("ApproximateReceiveCount");
    return it == msg.attributes.end() ? 1 : std::stoi(it->second);
  }

  // Records FAILED and sends a copy of the message to the DLQ, in `tx`: the
  // caller's delete of the original commits with them.
  lqs::StatusOr<Outcome> DeadLetter(lqs::Transaction& tx, const lqs::ReceivedMessage& msg,
                                    const std::string& id, const std::string& reason) {
    if (!id.empty()) {
      if (auto st = tx.Put(kRecords, id, "FAILED " + reason); !st.ok()) return st;
    }
    lqs::SendMessageRequest copy;
    copy.body = msg.body;
    copy.message_attributes["ExportError"] = {"String", reason, ""};
    copy.message_attributes["SourceMessageId"] = {"String", msg.message_id, ""};
    if (auto st = tx.SendMessage(kDlq, copy); !st.ok()) return st;
    return Outcome::kFailed;
  }

  // Exponential backoff: visible again after 1 s, 2 s, 4 s, ...
  Outcome RetryLater(const lqs::ReceivedMessage& msg, const std::string& reason) {
    const int attempt = ReceiveCount(msg);
    const int delay = std::min(300, 1 << std::min(attempt - 1, 16));
    auto tx = broker_.BeginTransaction();
    if (tx->ChangeMessageVisibility(kJobs, msg.receipt_handle, delay).ok()) {
      (void)tx->Commit();  // a conflict: the lease is gone, the message is back anyway
    }
    std::printf("  retry %s in %d s: %s\n", msg.message_id.c_str(), delay, reason.c_str());
    return Outcome::kRetried;
  }

  Outcome Count(Outcome o) {
    ++stats[o];
    return o;
  }

  lqs::Broker& broker_;
  std::shared_ptr<lqs::Queue> jobs_;
  fs::path out_dir_;
};

}  // namespace

int main(int argc, char** argv) {
  const bool temporary = argc < 2;
  const fs::path dir =
      temporary ? fs::temp_directory_path() / ("lqs-exports-" + std::to_string(::getpid()))
                : fs::path(argv[1]);
  fs::create_directories(dir);
  lqs::Options options;
  options.path = (dir / "db").string();
  auto opened = lqs::Broker::Open(options);
  if (!opened.ok()) return Fail(opened.status());
  std::unique_ptr<lqs::Broker> broker = std::move(opened).value();

  auto dlq = broker->CreateQueue(kDlq, {}, {});
  if (!dlq.ok()) return Fail(dlq.status());
  auto jobs = broker->CreateQueue(kJobs,
                                  {{"VisibilityTimeout", "10"},
                                   {"RedrivePolicy", "{\"deadLetterTargetArn\":\"" + (*dlq)->arn() +
                                                         "\",\"maxReceiveCount\":\"" +
                                                         std::to_string(kMaxReceiveCount) + "\"}"}},
                                  {});
  if (!jobs.ok()) return Fail(jobs.status());

  // Requests arrive: id, request, schema version of the job, expected final state.
  struct Case {
    const char* id;
    const char* format;
    long rows;
    int simulate_transient_failures;
    int schema_version;
    const char* expected;
  };
  const Case cases[] = {
      {"exp-1", "csv", 5, 0, kSchemaVersion, "SUCCEEDED"},
      {"exp-2", "jsonl", 3, 0, kSchemaVersion, "SUCCEEDED"},
      {"exp-3", "csv", 4, 1, kSchemaVersion, "SUCCEEDED"},  // fails once, retried
      {"exp-4", "pdf", 1, 0, kSchemaVersion, "FAILED"},     // invalid: dead-lettered
      {"exp-5", "csv", 1, 0, 2, "FAILED"},                  // unknown schema version
  };
  for (const auto& c : cases) {
    const Request r{c.format, c.rows, c.simulate_transient_failures};
    if (auto st = Accept(*broker, c.id, r, c.schema_version); !st.ok()) return Fail(st);
  }
  // A client that timed out accepts exp-1 again: nothing changes.
  if (auto st = Accept(*broker, "exp-1", Request{"csv", 5, 0}); !st.ok()) return Fail(st);

  ExportService service(*broker, *jobs, dir / "exports");
  if (auto st = service.WorkUntilEmpty(); !st.ok()) return Fail(st);

  // Check the records, the billing and the queues.
  bool ok = true;
  for (const auto& c : cases) {
    auto rec = broker->Get(kRecords, c.id);
    auto billed = broker->Get(kBilling, c.id);
    if (!rec.ok() || !billed.ok()) return Fail(rec.ok() ? billed.status() : rec.status());
    const std::string want_billed = std::string(c.expected) == "SUCCEEDED" ? "1" : "";
    const bool good = State(*rec) == c.expected && billed->value_or("") == want_billed;
    ok = ok && good;
    std::printf("%s %-40s billed %s%s\n", c.id, rec->value_or("(none)").c_str(),
                billed->value_or("0").c_str(), good ? "" : "   <-- unexpected");
  }
  auto j = (*jobs)->GetStats();
  auto d = (*dlq)->GetStats();
  if (!j.ok() || !d.ok()) return Fail(j.ok() ? d.status() : j.status());
  const int64_t queued = j->visible + j->in_flight + j->delayed;
  std::printf("jobs queued %lld, dead-lettered %lld; succeeded %d, failed %d, retried %d\n",
              static_cast<long long>(queued), static_cast<long long>(d->visible),
              service.stats[Outcome::kSucceeded], service.stats[Outcome::kFailed],
              service.stats[Outcome::kRetried]);
  ok = ok && queued == 0 && d->visible == 2 && service.stats[Outcome::kRetried] == 1;

  lqs::Status closed = broker->Close();
  if (temporary) fs::remove_all(dir);
  if (!closed.ok()) return Fail(closed);
  std::printf("%s\n", ok ? "ok" : "UNEXPECTED RESULTS");
  return ok ? 0 : 1;
}
