// tools/commands_stats.cc — stats (with --watch), verify, compact.

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tools/commands.h"
#include "tools/stop_signal.h"

#include "lqs/clock.h"

namespace lqs_cli {
namespace {

struct StatsFlags {
  std::vector<std::string> queues;
  std::string prefix;
  bool watch = false;
  double interval = 2;
  int count = 0;
};

struct Row {
  std::string queue;
  Stats stats;
  std::string dlq;  // empty: no RedrivePolicy
  std::optional<int64_t> dlq_depth;
};

std::string DlqOf(Backend& b, const std::string& queue) {
  auto a = b.GetAttributes(queue, {"RedrivePolicy"});
  if (!a.ok()) return "";
  auto it = a->find("RedrivePolicy");
  if (it == a->end() || it->second.empty()) return "";
  Json p = Json::parse(it->second, nullptr, false);
  if (!p.is_object() || !p.contains("deadLetterTargetArn") ||
      !p["deadLetterTargetArn"].is_string()) {
    return "";
  }
  return QueueNameFromArn(p["deadLetterTargetArn"].get<std::string>());
}

StatusOr<std::vector<Row>> Collect(Backend& b, const StatsFlags& f) {
  std::vector<std::string> names = f.queues;
  if (names.empty()) {
    auto all = ListAllQueues(b, f.prefix);
    if (!all.ok()) return all.status();
    names = std::move(*all);
  }
  std::vector<Row> rows;
  std::map<std::string, int64_t> depth;  // per refresh
  for (const auto& n : names) {
    auto s = b.GetStats(n);
    if (!s.ok()) {
      // A queue deleted between the listing and now disappears from the table.
      if (f.queues.empty() && s.status().code() == lqs::ErrorCode::kQueueDoesNotExist) continue;
      return Status(s.status().code(), n + ": " + s.status().message());
    }
    Row r;
    r.queue = n;
    r.stats = *s;
    r.dlq = DlqOf(b, n);
    rows.push_back(std::move(r));
  }
  for (auto& r : rows) {
    if (r.dlq.empty()) continue;
    auto it = depth.find(r.dlq);
    if (it == depth.end()) {
      auto s = b.GetStats(r.dlq);
      const int64_t d =
          s.ok() ? s->stats.visible + s->stats.in_flight + s->stats.delayed : int64_t{-1};
      it = depth.emplace(r.dlq, d).first;
    }
    if (it->second >= 0) r.dlq_depth = it->second;
  }
  return rows;
}

Json RowsJson(const std::vector<Row>& rows) {
  Json arr = Json::array();
  for (const auto& r : rows) {
    const auto& s = r.stats.stats;
    Json j = Json::object();
    j["queue"] = r.queue;
    j["visible"] = s.visible;
    j["in_flight"] = s.in_flight;
    j["delayed"] = s.delayed;
    j["oldest_message_age_seconds"] =
        r.stats.has_oldest_age ? Json(s.oldest_message_age_seconds) : Json(nullptr);
    j["dlq"] = r.dlq.empty() ? Json(nullptr) : Json(r.dlq);
    j["dlq_depth"] = r.dlq_depth ? Json(*r.dlq_depth) : Json(nullptr);
    if (r.stats.has_counters) {
      j["sent_total"] = s.sent_total;
      j["received_total"] = s.received_total;
      j["deleted_total"] = s.deleted_total;
      j["moved_to_dlq_total"] = s.moved_to_dlq_total;
      j["expired_total"] = s.expired_total;
      j["purged_total"] = s.purged_total;
      j["redriven_total"] = s.redriven_total;
    }
    arr.push_back(std::move(j));
  }
  return arr;
}

std::string RowsTable(const std::vector<Row>& rows) {
  Table t({"QUEUE", "VISIBLE", "IN_FLIGHT", "DELAYED", "OLDEST", "DLQ", "DLQ_DEPTH", "SENT",
           "RECEIVED", "DELETED", "TO_DLQ", "EXPIRED"});
  for (const auto& r : rows) {
    const auto& s = r.stats.stats;
    auto c = [&](int64_t v) { return r.stats.has_counters ? std::to_string(v) : std::string("-"); };
    t.AddRow(
        {r.queue, std::to_string(s.visible), std::to_string(s.in_flight), std::to_string(s.delayed),
         r.stats.has_oldest_age
             ? (s.visible + s.in_flight + s.delayed > 0 ? FormatAge(s.oldest_message_age_seconds)
                                                        : "-")
             : "-",
         r.dlq.empty() ? "-" : r.dlq, r.dlq_depth ? std::to_string(*r.dlq_depth) : "-",
         c(s.sent_total), c(s.received_total), c(s.deleted_total), c(s.moved_to_dlq_total),
         c(s.expired_total)});
  }
  return t.Render();
}

// "online", "offline" or "stopped", from a bridge's JSON (Backend::Bridges).
std::string BridgeState(const Json& b) {
  if (!b.value("Running", false)) return "stopped";
  return b.value("Online", false) ? "online" : "offline";
}

// How long ago clock time `ms` was ("-" for never), e.g. "12s ago".
std::string AgoMs(int64_t ms, int64_t now_ms) {
  if (ms <= 0) return "-";
  return FormatAge(std::max<int64_t>(0, (now_ms - ms) / 1000)) + " ago";
}

// "NetworkError=3 Throttling=1", or "-".
std::string FailuresText(const Json& failures) {
  std::string text;
  if (failures.is_object()) {
    for (const auto& [code, n] : failures.items()) {
      if (!text.empty()) text += " ";
      text += code + "=" + std::to_string(n.is_number_integer() ? n.get<int64_t>() : 0);
    }
  }
  return text.empty() ? "-" : text;
}

// The bridges' table, and each one's last error under it.
std::string BridgesTable(const std::vector<Json>& bridges, int64_t now_ms) {
  Table t({"BRIDGE", "STATE", "MOVED", "DUPLICATES", "TO_DLQ", "STUCK", "FAILURES", "BACKOFF",
           "LAST_OK", "BACKLOG", "OLDEST"});
  std::string errors;
  for (const auto& b : bridges) {
    auto n = [&](const char* key) { return std::to_string(b.value(key, int64_t{0})); };
    const int64_t backlog = b.value("Backlog", int64_t{0});
    const int64_t backoff_ms = b.value("BackoffMs", int64_t{0});
    t.AddRow({b.value("Bridge", std::string("?")), BridgeState(b), n("Transferred"),
              n("Duplicates"), n("DeadLettered"), n("Stuck"),
              FailuresText(b.contains("Failures") ? b["Failures"] : Json()),
              backoff_ms > 0 ? FormatAge((backoff_ms + 999) / 1000) : "-",
              AgoMs(b.value("LastSuccessMs", int64_t{0}), now_ms), std::to_string(backlog),
              backlog > 0 ? FormatAge(b.value("OldestAgeSeconds", int64_t{0})) : "-"});
    const std::string last_error = b.value("LastError", std::string());
    if (!last_error.empty()) {
      errors += "  " + b.value("Bridge", std::string("?")) + ": last error " +
                AgoMs(b.value("LastErrorMs", int64_t{0}), now_ms) + ": " + last_error + "\n";
    }
  }
  return t.Render() + errors;
}

int RunStats(Env& env, const StatsFlags& f) {
  if (f.interval <= 0) return env.out->Usage("--interval must be positive");
  if (f.watch) {
    CatchStopSignals();
  }
  return env.WithBackend(false, [&](Backend& b) -> int {
    for (int iteration = 1;; ++iteration) {
      auto rows = Collect(b, f);
      if (!rows.ok()) return env.out->Error(rows.status());
      auto bridges = b.Bridges();
      if (!bridges.ok()) return env.out->Error(bridges.status());
      const int64_t now = lqs::SystemClock::Default()->NowMillis();
      if (env.out->json()) {
        Json j{{"time", FormatTimestampMs(now)},
               {"queues", RowsJson(*rows)},
               {"bridges", Json(*bridges)}};
        if (f.watch) {
          env.out->PrintJsonLine(j);
        } else {
          env.out->PrintJson(j);
        }
      } else {
        if (f.watch && env.out->stdout_tty()) std::cout << "\x1b[H\x1b[2J";
        if (f.watch) {
          std::cout << "lqs stats — " << b.Describe() << " — " << FormatTimestampMs(now)
                    << " (every " << f.interval << "s, Ctrl-C stops)\n\n";
        }
        std::cout << RowsTable(*rows);
        if (rows->empty()) std::cout << "(no queues)\n";
        if (!bridges->empty()) std::cout << "\n" << BridgesTable(*bridges, now);
        if (f.watch && !env.out->stdout_tty()) std::cout << "\n";
        std::cout << std::flush;
      }
      if (!f.watch || (f.count > 0 && iteration >= f.count)) break;
      const auto until = std::chrono::steady_clock::now() +
                         std::chrono::milliseconds(static_cast<int64_t>(f.interval * 1000));
      while (!StopRequested() && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      if (StopRequested()) break;
    }
    return kExitOk;
  });
}

// Runs `call`, sets *seconds to how long it took (wall clock) and returns its result.
template <typename Call>
auto Timed(Call&& call, double* seconds) {
  const auto start = std::chrono::steady_clock::now();
  auto result = call();
  *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

int RunVerify(Env& env, Backend& b) {
  double secs = 0;
  auto problems = Timed([&b] { return b.Verify(); }, &secs);
  if (!problems.ok()) return env.out->Error(problems.status(), "verify");
  if (env.out->json()) {
    env.out->PrintJson(
        Json{{"consistent", problems->empty()}, {"problems", *problems}, {"seconds", secs}});
  } else if (problems->empty()) {
    env.out->Line("ok: the database is consistent");
  } else {
    for (const auto& p : *problems) env.out->Line(p);
    std::cerr << "lqs: verify found " << problems->size() << " problem(s)\n";
  }
  return problems->empty() ? kExitOk : kExitVerifyFailed;
}

int RunCompact(Env& env, Backend& b) {
  double secs = 0;
  Status s = Timed([&b] { return b.CompactAll(); }, &secs);
  if (!s.ok()) return env.out->Error(s, "compact");
  return env.out->Done(Json{{"compacted", true}, {"seconds", secs}},
                       "compacted in " + std::to_string(secs) + " s");
}

}  // namespace

void RegisterStatsCommands(CLI::App& app, Env& env) {
  auto f = std::make_shared<StatsFlags>();
  CLI::App* c =
      AddCommand(app, env, "stats", "A table of each queue's counts and counters", "Operations",
                 R"(Examples:
  lqs -d ./db stats
  lqs -d ./db stats jobs jobs-dlq
  lqs --endpoint http://127.0.0.1:9324 stats --watch --interval 1
  lqs -d ./db --json stats | jq '.queues[] | select(.visible > 1000)'
Columns: VISIBLE, IN_FLIGHT (leased), DELAYED; OLDEST (age of the oldest message);
DLQ and DLQ_DEPTH (the dead-letter queue of the RedrivePolicy and its message count);
SENT, RECEIVED, DELETED, TO_DLQ (moved to the DLQ), EXPIRED: totals since the queue
was created. Over --endpoint, SQS offers only the three counts: the rest shows '-'.
Over --endpoint to an lqsd that runs bridges (--forward, --pull), a second table shows
each bridge: STATE (online/offline), MOVED (forwarded or pulled), DUPLICATES (dropped),
TO_DLQ and STUCK (refused by the remote), FAILURES by error code, BACKOFF (current
wait), LAST_OK, and the local BACKLOG with its OLDEST message; then each last error.)",
                 Action(env, f, RunStats));
  c->add_option("queues", f->queues, "Queues (default: all)");
  c->add_option("-p,--prefix", f->prefix, "Only queues whose name starts with this");
  c->add_flag("-w,--watch", f->watch, "Refresh until Ctrl-C");
  c->add_option("--interval", f->interval, "Seconds between refreshes")->capture_default_str();
  c->add_option("--count", f->count, "With --watch: stop after this many refreshes");

  c = AddCommand(
      app, env, "verify", "Check the database's invariants (local mode)", "Operations",
      R"(Example:
  lqs -d ./db verify
Reads everything: every message in exactly one state, counters agree with the data,
every record verifies. Exit 0 when consistent, 4 with the list of problems.)",
      [&env] { return env.WithBackend(false, [&env](Backend& b) { return RunVerify(env, b); }); });

  c = AddCommand(
      app, env, "compact", "Compact the whole database, dropping deleted data (local mode)",
      "Operations",
      R"(Example:
  lqs -d ./db compact
Slow on big databases; run it while nothing else needs the database.)",
      [&env] { return env.WithBackend(false, [&env](Backend& b) { return RunCompact(env, b); }); });
}

}  // namespace lqs_cli
