// tools/commands_message.cc — send, receive, peek, delete, purge.

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "tools/commands.h"
#include "wire/message_json.h"

#include "lqs/limits.h"

namespace lqs_cli {
namespace {

// Receipt handles go to DeleteMessageBatch this many at a time.
constexpr size_t kBatchEntries = lqs::limits::kMaxBatchEntries;

struct MessageFlags {
  std::string queue;
  std::string body;
  std::string file;
  std::string jsonl;
  std::vector<std::string> attrs;
  std::optional<int> delay;
  std::string group;
  std::string dedup;
  std::string trace;
  int max = 1;
  int peek_max = 10;
  std::optional<int> wait;
  std::optional<int> visibility;
  bool delete_after = false;
  bool body_only = false;
  std::string state;
  std::vector<std::string> handles;
  bool from_stdin = false;
};

bool ReadFile(const std::string& path, std::string* out) {
  if (path == "-") {
    out->assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return true;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

int ReportBatch(Env& env, int64_t done, const std::vector<lqs::BatchResultError>& failed,
                const char* verb, const std::string& queue, Json extra = Json::object()) {
  if (env.out->json()) {
    Json j = Json::object();
    j["queue"] = queue;
    j[verb] = done;
    for (auto& [k, v] : extra.items()) j[k] = v;
    j["failed"] = FailuresJson(failed);
    env.out->PrintJson(j);
  } else {
    for (const auto& f : failed) {
      std::cerr << "lqs: failed: " << f.id << ": " << f.code << ": " << f.message << "\n";
    }
  }
  return failed.empty() ? kExitOk : kExitPartial;
}

int SendLines(Env& env, Backend& b, const MessageFlags& f, const lqs::SendMessageRequest& base) {
  std::ifstream file;
  std::istream* in = &std::cin;
  int64_t total_bytes = 0;
  if (!f.jsonl.empty() && f.jsonl != "-") {
    file.open(f.jsonl, std::ios::binary);
    if (!file) {
      return env.out->Error(Status(lqs::ErrorCode::kIOError, "cannot read " + f.jsonl));
    }
    in = &file;
    std::error_code ec;
    total_bytes = static_cast<int64_t>(std::filesystem::file_size(f.jsonl, ec));
    if (ec) total_bytes = 0;
  }
  BatchSender sender(b, f.queue);
  Progress progress(*env.out, "sending", total_bytes);
  std::string line;
  int64_t line_no = 0;
  int64_t bytes = 0;
  while (std::getline(*in, line)) {
    ++line_no;
    bytes += static_cast<int64_t>(line.size()) + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    auto req = j.is_discarded() ? StatusOr<lqs::SendMessageRequest>(Status(
                                      lqs::ErrorCode::kInvalidParameterValue, "not valid JSON"))
                                : RequestFromJson(j, /*keep_delay=*/false);
    if (j.is_object() && (j.value("type", "") == "header" || j.value("type", "") == "queue" ||
                          j.value("type", "") == "record")) {
      continue;  // `lqs export` lines that are not messages
    }
    if (!req.ok()) {
      Status s = sender.Flush();
      progress.Finish();
      if (!s.ok()) return env.out->Error(s, f.queue);
      std::cerr << "lqs: sent " << sender.sent() << " message(s) before the bad line\n";
      return env.out->Usage("line " + std::to_string(line_no) + ": " + req.status().message());
    }
    // Flags apply to every line that does not set them itself.
    for (const auto& [k, v] : base.message_attributes) req->message_attributes.emplace(k, v);
    if (!req->delay_seconds) req->delay_seconds = base.delay_seconds;
    if (!req->message_group_id) req->message_group_id = base.message_group_id;
    Status s = sender.Add(std::move(*req), "line " + std::to_string(line_no));
    if (!s.ok()) {
      progress.Finish();
      return env.out->Error(s, f.queue);
    }
    progress.Update(total_bytes > 0 ? bytes : sender.sent());
  }
  Status s = sender.Flush();
  progress.Update(total_bytes > 0 ? bytes : sender.sent(), true);
  progress.Finish();
  if (!s.ok()) return env.out->Error(s, f.queue);
  Json ids = Json::array();
  for (const auto& [tag, id] : sender.ids()) ids.push_back(id);
  if (!env.out->json()) {
    env.out->Info("sent " + std::to_string(sender.sent()) + " message(s) to " + f.queue);
  }
  return ReportBatch(env, sender.sent(), sender.failed(), "sent", f.queue,
                     Json{{"message_ids", ids}});
}

int RunSend(Env& env, const MessageFlags& f) {
  lqs::SendMessageRequest base;
  std::string error;
  if (!ParseMessageAttributes(f.attrs, &base.message_attributes, &error)) {
    return env.out->Usage(error);
  }
  base.delay_seconds = f.delay;
  if (!f.group.empty()) base.message_group_id = f.group;
  if (!f.dedup.empty()) base.message_deduplication_id = f.dedup;
  if (!f.trace.empty()) {
    base.message_system_attributes["AWSTraceHeader"] = {"String", f.trace, ""};
  }
  const int sources = (!f.body.empty()) + (!f.file.empty()) + (!f.jsonl.empty());
  if (sources > 1) return env.out->Usage("give one of BODY, --file or --jsonl");
  const bool lines = !f.jsonl.empty() || sources == 0;
  if (lines && f.jsonl.empty() && isatty(0)) {
    return env.out->Usage(
        "nothing to send: give a BODY, --file PATH, or JSON lines on stdin (see lqs send --help)");
  }
  std::string body = f.body;
  if (!f.file.empty() && !ReadFile(f.file, &body)) {
    return env.out->Error(Status(lqs::ErrorCode::kIOError, "cannot read " + f.file));
  }
  return env.WithBackend(false, [&](Backend& b) -> int {
    if (lines) return SendLines(env, b, f, base);

    base.body = std::move(body);
    auto r = b.SendMessage(f.queue, base);
    if (!r.ok()) return env.out->Error(r.status(), f.queue);
    if (env.out->json()) {
      Json j{{"queue", f.queue},
             {"MessageId", r->message_id},
             {"MD5OfMessageBody", r->md5_of_message_body}};
      if (r->md5_of_message_attributes) j["MD5OfMessageAttributes"] = *r->md5_of_message_attributes;
      if (r->sequence_number) j["SequenceNumber"] = *r->sequence_number;
      env.out->PrintJson(j);
    } else {
      env.out->Line(r->message_id);
    }
    return kExitOk;
  });
}

int RunReceive(Env& env, const MessageFlags& f) {
  if (f.max < 1) return env.out->Usage("--max must be at least 1");
  return env.WithBackend(false, [&](Backend& b) -> int {
    std::vector<lqs::ReceivedMessage> got;
    std::set<std::string> seen;
    while (static_cast<int>(got.size()) < f.max) {
      lqs::ReceiveMessageRequest req;
      req.max_number_of_messages =
          std::min(lqs::limits::kMaxReceiveMessages, f.max - static_cast<int>(got.size()));
      req.wait_time_seconds = f.wait;
      req.visibility_timeout = f.visibility;
      req.message_system_attribute_names = {"All"};
      req.message_attribute_names = {"All"};
      auto r = b.ReceiveMessage(f.queue, req);
      if (!r.ok()) return env.out->Error(r.status(), f.queue);
      // With a short visibility timeout the same messages come back: stop then.
      bool any_new = false;
      for (auto& m : r->messages) {
        if (!seen.insert(m.message_id).second) continue;
        any_new = true;
        got.push_back(std::move(m));
      }
      if (!any_new) break;
    }
    std::vector<lqs::BatchResultError> failed;
    if (f.delete_after) {
      for (size_t i = 0; i < got.size(); i += kBatchEntries) {
        std::vector<lqs::DeleteMessageBatchEntry> entries;
        for (size_t k = i; k < got.size() && k < i + kBatchEntries; ++k) {
          entries.push_back({"m" + std::to_string(k), got[k].receipt_handle});
        }
        auto r = b.DeleteMessageBatch(f.queue, entries);
        if (!r.ok()) return env.out->Error(r.status(), f.queue);
        for (const auto& e : r->failed) failed.push_back(e);
      }
    }
    if (env.out->json()) {
      Json arr = Json::array();
      for (const auto& m : got) arr.push_back(lqs::wire::ReceivedMessageJson(m));
      Json j{{"queue", f.queue}, {"messages", arr}};
      if (f.delete_after) j["deleted"] = got.size() - failed.size();
      if (!failed.empty()) j["failed"] = FailuresJson(failed);
      env.out->PrintJson(j);
    } else if (f.body_only) {
      for (const auto& m : got) env.out->Line(m.body);
    } else {
      for (size_t i = 0; i < got.size(); ++i) {
        const auto& m = got[i];
        if (i > 0) std::cout << "\n";
        std::cout << "MessageId:     " << m.message_id << "\n";
        std::cout << "ReceiptHandle: " << m.receipt_handle << "\n";
        auto rc_it = m.attributes.find("ApproximateReceiveCount");
        if (rc_it != m.attributes.end()) std::cout << "ReceiveCount:  " << rc_it->second << "\n";
        for (const auto& [k, v] : m.message_attributes) {
          std::cout << "Attribute:     " << k << " (" << v.data_type << ") = "
                    << (v.IsBinary() ? "<" + std::to_string(v.binary_value.size()) + " bytes>"
                                     : v.string_value)
                    << "\n";
        }
        std::cout << "Body:          " << m.body << "\n";
      }
      if (got.empty()) env.out->Info("no messages");
    }
    for (const auto& e : failed) {
      std::cerr << "lqs: delete failed: " << e.code << ": " << e.message << "\n";
    }
    return failed.empty() ? kExitOk : kExitPartial;
  });
}

std::string Shorten(const std::string& s, size_t n) {
  std::string out;
  for (char c : s) out += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  if (out.size() > n) out = out.substr(0, n - 3) + "...";
  return out;
}

int RunPeek(Env& env, const MessageFlags& f) {
  if (!f.state.empty() && f.state != "visible" && f.state != "in_flight" && f.state != "delayed") {
    return env.out->Usage("--state must be visible, in_flight or delayed");
  }
  return env.WithBackend(false, [&](Backend& b) -> int {
    std::vector<lqs::StoredMessage> msgs;
    Status s = b.ScanMessages(f.queue, [&](const lqs::StoredMessage& m) {
      if (!f.state.empty() && m.state != f.state) return true;
      msgs.push_back(m);
      return f.peek_max <= 0 || static_cast<int>(msgs.size()) < f.peek_max;
    });
    if (!s.ok()) return env.out->Error(s, f.queue);
    if (env.out->json()) {
      Json arr = Json::array();
      for (const auto& m : msgs) arr.push_back(StoredMessageJson(f.queue, m));
      env.out->PrintJson(Json{{"queue", f.queue}, {"messages", arr}});
      return kExitOk;
    }
    if (f.body_only) {
      for (const auto& m : msgs) env.out->Line(m.body);
      return kExitOk;
    }
    Table t({"MESSAGE_ID", "STATE", "RECEIVES", "SENT", "BODY"});
    for (const auto& m : msgs) {
      auto get = [&](const char* k) {
        auto it = m.attributes.find(k);
        return it == m.attributes.end() ? std::string("-") : it->second;
      };
      std::string sent = get("SentTimestamp");
      if (sent != "-") sent = FormatTimestampMs(std::stoll(sent));
      t.AddRow({m.message_id, m.state, get("ApproximateReceiveCount"), sent, Shorten(m.body, 60)});
    }
    std::cout << t.Render();
    if (msgs.empty()) env.out->Info("no messages");
    return kExitOk;
  });
}

int RunDeleteMessage(Env& env, const MessageFlags& f) {
  std::vector<std::string> handles = f.handles;
  if (f.from_stdin || handles.empty()) {
    if (handles.empty() && !f.from_stdin && isatty(0)) {
      return env.out->Usage("give receipt handles as arguments or on stdin (--stdin)");
    }
    std::string line;
    while (std::getline(std::cin, line)) {
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
      if (!line.empty()) handles.push_back(line);
    }
  }
  if (handles.empty()) return env.out->Usage("no receipt handles");
  return env.WithBackend(false, [&](Backend& b) -> int {
    int64_t deleted = 0;
    std::vector<lqs::BatchResultError> failed;
    for (size_t i = 0; i < handles.size(); i += kBatchEntries) {
      std::vector<lqs::DeleteMessageBatchEntry> entries;
      for (size_t k = i; k < handles.size() && k < i + kBatchEntries; ++k) {
        entries.push_back({"h" + std::to_string(k), handles[k]});
      }
      auto r = b.DeleteMessageBatch(f.queue, entries);
      if (!r.ok()) return env.out->Error(r.status(), f.queue);
      deleted += static_cast<int64_t>(r->successful.size());
      for (auto e : r->failed) {
        const size_t k = std::stoul(e.id.substr(1));
        e.id = handles[k];
        failed.push_back(std::move(e));
      }
    }
    if (!env.out->json()) env.out->Info("deleted " + std::to_string(deleted) + " message(s)");
    return ReportBatch(env, deleted, failed, "deleted", f.queue);
  });
}

int RunPurge(Env& env, Backend& b, const MessageFlags& f) {
  Status s = b.PurgeQueue(f.queue);
  if (!s.ok()) return env.out->Error(s, f.queue);
  return env.out->Done(Json{{"purged", f.queue}}, "purged " + f.queue);
}

}  // namespace

void RegisterMessageCommands(CLI::App& app, Env& env) {
  auto f = std::make_shared<MessageFlags>();
  auto add = [&](const char* name, const char* help, const char* footer, auto run) {
    CLI::App* c = AddCommand(app, env, name, help, "Messages", footer, Action(env, f, run));
    c->add_option("queue", f->queue, "Queue name")->required();
    return c;
  };

  CLI::App* c = add(
      "send", "Send a message (BODY), a file's contents (--file), or JSON lines (stdin, batched)",
      R"(Examples:
  lqs -d ./db send jobs 'resize photo 42'
  lqs -d ./db send jobs 'hello' -a priority:Number=3 -a source=cli --delay 10
  lqs -d ./db send jobs --file payload.json
  printf '%s\n' '"one"' '{"Body":"two","MessageAttributes":{"k":{"DataType":"String","StringValue":"v"}}}' | lqs -d ./db send jobs
  lqs -d ./db export old | lqs -d ./db send new     # copy bodies and attributes
JSON lines: a JSON string (the body) or an object with Body, MessageAttributes,
DelaySeconds, MessageGroupId, MessageDeduplicationId (the `lqs export` format works).
Lines are sent 10 per SendMessageBatch; failed entries are listed and exit with 5.)",
      RunSend);
  c->add_option("body", f->body, "Message body");
  c->add_option("-f,--file", f->file, "Send this file's contents as one message ('-': stdin)");
  c->add_option("--jsonl", f->jsonl,
                "Read JSON lines from this file ('-': stdin, the default "
                "when no BODY or --file is given)");
  c->add_option("-a,--attr", f->attrs,
                "Message attribute NAME=VALUE (String) or NAME:TYPE=VALUE (TYPE Number, Binary "
                "with a base64 value, String.label ...); repeatable");
  c->add_option("--delay", f->delay,
                "DelaySeconds (0-" + std::to_string(lqs::limits::kMaxDelaySeconds) +
                    "; default: the queue's)");
  c->add_option("--group", f->group, "MessageGroupId");
  c->add_option("--dedup-id", f->dedup, "MessageDeduplicationId (FIFO)");
  c->add_option("--trace-header", f->trace, "AWSTraceHeader system attribute");

  c = add("receive", "Receive (lease) messages, optionally deleting them",
          R"(Examples:
  lqs -d ./db receive jobs                   # one message, leased for the queue's VisibilityTimeout
  lqs -d ./db receive jobs -n 25 --wait 5 --delete
  lqs -d ./db receive jobs --visibility 0 --body-only
  lqs -d ./db --json receive jobs | jq -r '.messages[].ReceiptHandle'
Receiving counts towards the RedrivePolicy's maxReceiveCount, as in SQS; to look
without leasing, use `lqs peek`.)",
          RunReceive);
  c->add_option("-n,--max", f->max, "How many messages at most (more than 10: several receives)")
      ->capture_default_str();
  c->add_option("-w,--wait", f->wait,
                "WaitTimeSeconds, 0-" + std::to_string(lqs::limits::kMaxWaitTimeSeconds) +
                    " (default: the queue's)");
  c->add_option("--visibility", f->visibility, "VisibilityTimeout for these messages, seconds");
  c->add_flag("--delete", f->delete_after, "Delete the messages after printing them");
  c->add_flag("--body-only", f->body_only, "Print only the bodies, one per line");

  c = add("peek", "Look at messages without leasing them (local mode only)",
          R"(Examples:
  lqs -d ./db peek jobs
  lqs -d ./db peek jobs -n 0 --state in_flight
  lqs -d ./db --json peek jobs-dlq -n 100
Order: received messages first, then queued ones in delivery order. Changes nothing:
no receive count, no lease. Over --endpoint this is not available (SQS has no peek).)",
          RunPeek);
  c->add_option("-n,--max", f->peek_max, "How many messages at most (0: all)")
      ->capture_default_str();
  c->add_option("--state", f->state, "Only messages in this state: visible, in_flight, delayed");
  c->add_flag("--body-only", f->body_only, "Print only the bodies, one per line");

  c = add("delete", "Delete messages by receipt handle",
          R"(Examples:
  lqs -d ./db delete jobs 'AQEB...'
  lqs -d ./db --json receive jobs -n 10 | jq -r '.messages[].ReceiptHandle' | lqs -d ./db delete jobs --stdin)",
          RunDeleteMessage);
  c->add_option("handles", f->handles, "Receipt handles");
  c->add_flag("--stdin", f->from_stdin, "Read receipt handles from stdin, one per line");

  c = add("purge", "Delete every message of a queue",
          R"(Example:
  lqs -d ./db purge jobs
SQS allows one purge per queue every 60 seconds (PurgeQueueInProgress).)",
          RunPurge);
}

}  // namespace lqs_cli
