// tools/commands_transfer.cc — `lqs export` and `lqs import`: queues and
// their messages to and from JSON lines (format in docs/cli.md).

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tools/commands.h"
#include "wire/base64.h"

#include "lqs/clock.h"

namespace lqs_cli {
namespace {

constexpr const char* kFormat = "lqs-export";
constexpr int kFormatVersion = 1;
// Records imported per transaction.
constexpr int64_t kRecordsPerCommit = 1000;

struct TransferFlags {
  std::vector<std::string> queues;
  std::string prefix;
  std::string file = "-";
  bool no_messages = false;
  std::string into;
  bool no_delay = false;
};

int RunExport(Env& env, Backend& b, const TransferFlags& f) {
  // A peek over --endpoint does not say when a delayed or in-flight message
  // becomes visible (visible_at_ms), which an export records.
  if (b.IsRemote()) {
    return env.out->Error(Status(lqs::ErrorCode::kUnsupportedOperation,
                                 "export is not available over --endpoint: the server's answers "
                                 "do not say when a delayed message becomes visible. Stop lqsd "
                                 "and run lqs with --data DIR on its database."),
                          "export");
  }
  std::vector<std::string> names = f.queues;
  if (names.empty()) {
    auto all = ListAllQueues(b, f.prefix);
    if (!all.ok()) return env.out->Error(all.status(), "export");
    names = std::move(*all);
  }
  std::ofstream file;
  std::ostream* os = &std::cout;
  if (f.file != "-") {
    file.open(f.file, std::ios::binary | std::ios::trunc);
    if (!file) return env.out->Error(Status(lqs::ErrorCode::kIOError, "cannot write " + f.file));
    os = &file;
  }
  // Queues first (so that import can create every queue, and set redrive
  // policies once all exist), then their messages.
  int64_t total = 0;
  std::vector<Json> queue_lines;
  for (const auto& n : names) {
    auto attrs = b.GetAttributes(n, {"All"});
    if (!attrs.ok()) return env.out->Error(attrs.status(), n);
    auto tags = b.ListQueueTags(n);
    if (!tags.ok()) return env.out->Error(tags.status(), n);
    auto stats = b.GetStats(n);
    if (stats.ok()) total += stats->stats.visible + stats->stats.in_flight + stats->stats.delayed;
    Json q{
        {"type", "queue"}, {"name", n}, {"attributes", Json::object()}, {"tags", Json::object()}};
    for (const auto& [k, v] : SettableAttributes(*attrs)) q["attributes"][k] = v;
    for (const auto& [k, v] : *tags) q["tags"][k] = v;
    if (auto arn = attrs->find("QueueArn"); arn != attrs->end()) q["arn"] = arn->second;
    queue_lines.push_back(std::move(q));
  }
  *os << Json{{"type", "header"},
              {"format", kFormat},
              {"version", kFormatVersion},
              {"exported_at", FormatTimestampMs(lqs::SystemClock::Default()->NowMillis())},
              {"source", b.Describe()}}
             .dump()
      << "\n";
  for (const auto& q : queue_lines) *os << q.dump() << "\n";

  std::map<std::string, int64_t> counts;
  int64_t done = 0;
  if (!f.no_messages) {
    Progress progress(*env.out, "exporting", total);
    for (const auto& n : names) {
      int64_t& count = counts[n];
      Status s = b.ScanMessages(n, [&](const lqs::StoredMessage& m) {
        *os << StoredMessageJson(n, m).dump() << "\n";
        ++count;
        progress.Update(++done);
        return static_cast<bool>(*os);
      });
      if (!s.ok()) return env.out->Error(s, "export " + n);
    }
    progress.Update(done, true);
  }
  // The application's table records (lqs/transaction.h) belong to the whole
  // database: exported with it, not with chosen queues or definitions only.
  int64_t records = 0;
  if (f.queues.empty() && f.prefix.empty() && !f.no_messages && b.broker() != nullptr) {
    auto tables = b.broker()->ListTables();
    if (!tables.ok()) return env.out->Error(tables.status(), "export tables");
    for (const auto& table : *tables) {
      auto entries = b.broker()->Scan(table, "");
      if (!entries.ok()) return env.out->Error(entries.status(), "export table " + table);
      for (const auto& e : *entries) {
        *os << Json{{"type", "record"},
                    {"table", table},
                    {"key", lqs::wire::Base64Encode(e.key)},
                    {"value", lqs::wire::Base64Encode(e.value)}}
                   .dump()
            << "\n";
        ++records;
      }
    }
  }
  os->flush();
  if (!*os)
    return env.out->Error(Status(lqs::ErrorCode::kIOError, "writing " + f.file + " failed"));
  if (file.is_open()) file.close();
  Json summary = Json::object();
  for (const auto& n : names) summary[n] = counts[n];
  if (env.out->json() && f.file != "-") {
    env.out->PrintJson(
        Json{{"file", f.file}, {"queues", summary}, {"messages", done}, {"records", records}});
  } else {
    env.out->Info("exported " + std::to_string(names.size()) + " queue(s), " +
                  std::to_string(done) + " message(s), " + std::to_string(records) +
                  " table record(s)");
  }
  return kExitOk;
}

// Rewrites the queue ARNs inside a RedrivePolicy / RedriveAllowPolicy so they
// name the queues of the destination (its region and account).
StatusOr<std::string> RewriteArns(Backend& b, const std::string& policy) {
  Json p = Json::parse(policy, nullptr, false);
  if (!p.is_object()) return policy;
  if (p.contains("deadLetterTargetArn") && p["deadLetterTargetArn"].is_string()) {
    auto arn = b.QueueArn(QueueNameFromArn(p["deadLetterTargetArn"].get<std::string>()));
    if (!arn.ok()) return arn.status();
    p["deadLetterTargetArn"] = *arn;
  }
  if (p.contains("sourceQueueArns") && p["sourceQueueArns"].is_array()) {
    for (auto& a : p["sourceQueueArns"]) {
      if (!a.is_string()) continue;
      auto arn = b.QueueArn(QueueNameFromArn(a.get<std::string>()));
      if (arn.ok()) a = *arn;
    }
  }
  return p.dump();
}

// Imports the export read from `in` into `b`; `total_bytes`: the size of the
// input when known (the progress then counts bytes), else 0.
int Import(Env& env, Backend& b, const TransferFlags& f, std::istream& in, int64_t total_bytes) {
  std::map<std::string, std::unique_ptr<BatchSender>> senders;
  std::vector<std::string> order;
  std::map<std::string, lqs::AttributeMap> deferred;  // redrive policies, set at the end
  auto sender_for = [&](const std::string& q) -> BatchSender& {
    auto& s = senders[q];
    if (!s) {
      s = std::make_unique<BatchSender>(b, q);
      s->set_keep_ids(false);
      order.push_back(q);
    }
    return *s;
  };

  Progress progress(*env.out, "importing", total_bytes);
  std::string line;
  int64_t line_no = 0;
  int64_t bytes = 0;
  int64_t messages = 0;
  // Table records go into the database in transactions of kRecordsPerCommit.
  std::unique_ptr<lqs::Transaction> records_tx;
  int64_t records = 0;
  auto commit_records = [&]() -> Status {
    if (!records_tx) return Status::OK();
    auto done = records_tx->Commit();
    records_tx.reset();
    return done.status();
  };
  auto fail = [&](int code) {
    progress.Finish();
    return code;
  };
  while (std::getline(in, line)) {
    ++line_no;
    bytes += static_cast<int64_t>(line.size()) + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = "line " + std::to_string(line_no);
    Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) return fail(env.out->Usage(where + ": not a JSON object"));
    const std::string type = j.value("type", "message");
    if (type == "header") {
      if (j.value("format", "") != kFormat) {
        return fail(env.out->Usage(where + ": not an lqs export (format is not lqs-export)"));
      }
      if (j.value("version", 0) > kFormatVersion) {
        return fail(env.out->Usage(where + ": export format version " +
                                   std::to_string(j.value("version", 0)) +
                                   " is newer than this lqs understands"));
      }
      continue;
    }
    if (type == "queue") {
      if (!f.into.empty()) continue;  // everything goes into one existing queue
      const std::string name = j.value("name", "");
      if (name.empty()) return fail(env.out->Usage(where + ": queue without a name"));
      lqs::AttributeMap attrs;
      lqs::TagMap tags;
      if (j.contains("attributes") && j["attributes"].is_object()) {
        for (const auto& [k, v] : j["attributes"].items()) {
          if (!v.is_string()) continue;
          if (k == "RedrivePolicy" || k == "RedriveAllowPolicy") {
            if (!v.get<std::string>().empty()) deferred[name][k] = v.get<std::string>();
          } else {
            attrs[k] = v.get<std::string>();
          }
        }
      }
      if (j.contains("tags") && j["tags"].is_object()) {
        for (const auto& [k, v] : j["tags"].items()) {
          if (v.is_string()) tags[k] = v.get<std::string>();
        }
      }
      auto created = b.CreateQueue(name, attrs, tags);
      if (!created.ok()) {
        if (created.status().code() != lqs::ErrorCode::kQueueNameExists) {
          return fail(env.out->Error(created.status(), where + ": create " + name));
        }
        std::cerr << "\nlqs: warning: queue " << name
                  << " exists with other attributes; importing into it as it is\n";
        deferred.erase(name);
      }
      sender_for(name);
      continue;
    }
    if (type == "record") {
      if (b.broker() == nullptr) {
        return fail(env.out->Usage(where + ": table records can only be imported into a database "
                                           "(--data), not over --endpoint"));
      }
      const auto key = lqs::wire::Base64Decode(j.value("key", ""));
      const auto value = lqs::wire::Base64Decode(j.value("value", ""));
      if (!key || !value) {
        return fail(env.out->Usage(where + ": a record's key and value must be base64"));
      }
      if (!records_tx) records_tx = b.broker()->BeginTransaction();
      Status s = records_tx->Put(j.value("table", ""), *key, *value);
      if (!s.ok()) return fail(env.out->Error(s, where));
      if (++records % kRecordsPerCommit == 0) {
        s = commit_records();
        if (!s.ok()) return fail(env.out->Error(s, "import table records"));
      }
      continue;
    }
    if (type != "message") return fail(env.out->Usage(where + ": unknown type \"" + type + "\""));
    std::string queue = f.into.empty() ? j.value("queue", "") : f.into;
    if (queue.empty()) {
      return fail(env.out->Usage(where + ": a message without \"queue\" (use --into QUEUE)"));
    }
    auto req = RequestFromJson(j, /*keep_delay=*/!f.no_delay);
    if (!req.ok()) return fail(env.out->Usage(where + ": " + req.status().message()));
    Status s = sender_for(queue).Add(std::move(*req), where);
    if (!s.ok()) return fail(env.out->Error(s, "import into " + queue));
    ++messages;
    progress.Update(total_bytes > 0 ? bytes : messages);
  }
  for (const auto& q : order) {
    Status s = senders[q]->Flush();
    if (!s.ok()) return fail(env.out->Error(s, "import into " + q));
  }
  if (Status s = commit_records(); !s.ok()) {
    return fail(env.out->Error(s, "import table records"));
  }
  progress.Update(total_bytes > 0 ? bytes : messages, true);
  progress.Finish();
  // Allow policies first: a RedrivePolicy is checked against its DLQ's.
  for (const char* key : {"RedriveAllowPolicy", "RedrivePolicy"}) {
    for (const auto& [queue, policies] : deferred) {
      auto it = policies.find(key);
      if (it == policies.end()) continue;
      auto rewritten = RewriteArns(b, it->second);
      if (!rewritten.ok()) return env.out->Error(rewritten.status(), queue + " " + key);
      Status s = b.SetAttributes(queue, {{key, *rewritten}});
      if (!s.ok()) return env.out->Error(s, std::string("setting the ") + key + " of " + queue);
    }
  }

  std::vector<lqs::BatchResultError> failed;
  Json per_queue = Json::object();
  Table t({"QUEUE", "IMPORTED", "FAILED"});
  for (const auto& q : order) {
    const BatchSender& s = *senders[q];
    per_queue[q] = Json{{"imported", s.sent()}, {"failed", s.failed().size()}};
    t.AddRow({q, std::to_string(s.sent()), std::to_string(s.failed().size())});
    for (auto e : s.failed()) {
      e.id = q + " " + e.id;
      failed.push_back(std::move(e));
    }
  }
  if (env.out->json()) {
    env.out->PrintJson(
        Json{{"queues", per_queue}, {"records", records}, {"failed", FailuresJson(failed)}});
  } else {
    std::cout << t.Render();
    for (const auto& e : failed) {
      std::cerr << "lqs: failed: " << e.id << ": " << e.code << ": " << e.message << "\n";
    }
  }
  return failed.empty() ? kExitOk : kExitPartial;
}

int RunImport(Env& env, const TransferFlags& f) {
  std::ifstream file;
  std::istream* in = &std::cin;
  int64_t total_bytes = 0;
  if (f.file != "-") {
    file.open(f.file, std::ios::binary);
    if (!file) return env.out->Error(Status(lqs::ErrorCode::kIOError, "cannot read " + f.file));
    in = &file;
    std::error_code ec;
    total_bytes = static_cast<int64_t>(std::filesystem::file_size(f.file, ec));
    if (ec) total_bytes = 0;
  }
  return env.WithBackend(/*create=*/true,
                         [&](Backend& b) { return Import(env, b, f, *in, total_bytes); });
}

}  // namespace

void RegisterTransferCommands(CLI::App& app, Env& env) {
  auto f = std::make_shared<TransferFlags>();
  CLI::App* c = AddCommand(app, env, "export", "Write queues and their messages as JSON lines",
                           "Backup and migration",
                           R"(Examples:
  lqs -d ./db export > backup.jsonl                  # the whole database
  lqs -d ./db export jobs jobs-dlq -o jobs.jsonl
  lqs -d ./db export --prefix jobs --no-messages      # queue definitions only
One JSON object per line: a header, one {"type":"queue"} line per queue (settable
attributes, tags), then one {"type":"message"} line per message (Body,
MessageAttributes with base64 BinaryValue, system Attributes, state). Reads a
consistent snapshot of each queue without leasing anything. The whole database's
export (no queue names, no --prefix or --no-messages) ends with one
{"type":"record"} line per table record (table, base64 key and value).
Local mode only.)",
                           Action(env, f, RunExport));
  c->add_option("queues", f->queues, "Queues (default: all)");
  c->add_option("-p,--prefix", f->prefix, "Only queues whose name starts with this");
  c->add_option("-o,--output", f->file, "Write to this file instead of stdout");
  c->add_flag("--no-messages", f->no_messages, "Only the queue definitions");

  c = AddCommand(app, env, "import", "Create queues and send messages from an export (JSON lines)",
                 "Backup and migration",
                 R"(Examples:
  lqs -d ./new import -i backup.jsonl
  lqs -d ./db export jobs | lqs --endpoint http://127.0.0.1:9324 import
  lqs -d ./db import -i jobs.jsonl --into jobs-copy
Queues are created with their attributes and tags (an existing queue with other
attributes is used as it is); redrive policies are set last, with ARNs rewritten to
the destination's. Messages are sent with SendMessageBatch: bodies, message
attributes, AWSTraceHeader and MessageGroupId are kept; they get new MessageIds and
send times, and in-flight messages become visible. A delayed message keeps the rest
of its delay unless --no-delay. Table records are written in transactions of 1000
(into a database only, not over --endpoint).)",
                 Action(env, f, RunImport));
  c->add_option("-i,--input", f->file, "Read this file instead of stdin");
  c->add_option("--into", f->into, "Send every message to this existing queue; skip queue lines");
  c->add_flag("--no-delay", f->no_delay, "Make delayed messages visible at once");
}

}  // namespace lqs_cli
