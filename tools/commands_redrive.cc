// tools/commands_redrive.cc — `lqs redrive start|list|cancel`: message move
// tasks out of a dead-letter queue.

#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "tools/commands.h"
#include "tools/stop_signal.h"
#include "wire/move_task_json.h"

#include "lqs/limits.h"

namespace lqs_cli {
namespace {

struct RedriveFlags {
  std::string dlq;
  std::string to;
  std::optional<int> rate;
  bool no_wait = false;
  int max = lqs::limits::kMaxMoveTaskResults;
  std::string handle;
};

int RunStart(Env& env, Backend& b, const RedriveFlags& f) {
  auto source = b.QueueArn(f.dlq);
  if (!source.ok()) return env.out->Error(source.status(), f.dlq);
  lqs::StartMessageMoveTaskRequest req;
  req.source_arn = *source;
  req.max_number_of_messages_per_second = f.rate;
  if (!f.to.empty()) {
    auto dest = b.QueueArn(f.to);
    if (!dest.ok()) return env.out->Error(dest.status(), f.to);
    req.destination_arn = *dest;
  }
  auto handle = b.StartMessageMoveTask(req);
  if (!handle.ok()) return env.out->Error(handle.status(), "redrive " + f.dlq);
  if (f.no_wait) {
    if (env.out->json()) {
      env.out->PrintJson(Json{{"TaskHandle", *handle}, {"Status", "RUNNING"}});
    } else {
      env.out->Line(*handle);
      if (!b.IsRemote()) {
        env.out->Info(
            "note: in local mode the task advances only while a process holds the database "
            "(lqsd, or `lqs redrive start` without --no-wait)");
      }
    }
    return kExitOk;
  }
  CatchStopSignals();
  env.out->Info("task " + *handle + " started; waiting (Ctrl-C stops waiting)");
  Progress progress(*env.out, "redrive " + f.dlq, 0);
  lqs::MessageMoveTask last;
  while (true) {
    auto tasks = b.ListMessageMoveTasks(*source, 1);
    if (!tasks.ok()) return env.out->Error(tasks.status(), "redrive " + f.dlq);
    if (!tasks->empty()) {
      last = tasks->front();
      progress.SetTotal(last.approximate_number_of_messages_to_move);
      progress.Update(last.approximate_number_of_messages_moved);
      if (last.status != "RUNNING" && last.status != "CANCELLING") break;
    }
    if (StopRequested()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  progress.Finish();
  if (StopRequested() && (last.status == "RUNNING" || last.status == "CANCELLING")) {
    std::cerr << "lqs: stopped waiting; the task is still " << last.status
              << ". Cancel it with: lqs redrive cancel '" << *handle << "'\n";
  }
  if (env.out->json()) {
    Json j = lqs::wire::MoveTaskJson(last);
    j["TaskHandle"] = *handle;
    env.out->PrintJson(j);
  } else {
    env.out->Line(last.status + ": moved " +
                  std::to_string(last.approximate_number_of_messages_moved) + " of " +
                  std::to_string(last.approximate_number_of_messages_to_move) + " message(s)" +
                  (last.failure_reason ? " (" + *last.failure_reason + ")" : ""));
  }
  if (last.status == "FAILED") {
    return env.out->Error(Status(lqs::ErrorCode::kInternal,
                                 "the move task failed: " + last.failure_reason.value_or("")));
  }
  return kExitOk;
}

int RunList(Env& env, const RedriveFlags& f) {
  if (f.max < 1 || f.max > lqs::limits::kMaxMoveTaskResults) {
    return env.out->Usage("--max must be 1.." + std::to_string(lqs::limits::kMaxMoveTaskResults));
  }
  return env.WithBackend(false, [&](Backend& b) -> int {
    auto source = b.QueueArn(f.dlq);
    if (!source.ok()) return env.out->Error(source.status(), f.dlq);
    auto tasks = b.ListMessageMoveTasks(*source, f.max);
    if (!tasks.ok()) return env.out->Error(tasks.status(), f.dlq);
    if (env.out->json()) {
      Json arr = Json::array();
      for (const auto& t : *tasks) arr.push_back(lqs::wire::MoveTaskJson(t));
      env.out->PrintJson(Json{{"queue", f.dlq}, {"tasks", arr}});
      return kExitOk;
    }
    Table t({"STATUS", "MOVED", "TO_MOVE", "RATE", "STARTED", "DESTINATION", "FAILURE", "HANDLE"});
    for (const auto& m : *tasks) {
      t.AddRow({m.status, std::to_string(m.approximate_number_of_messages_moved),
                std::to_string(m.approximate_number_of_messages_to_move),
                m.max_number_of_messages_per_second
                    ? std::to_string(*m.max_number_of_messages_per_second)
                    : "-",
                FormatTimestampMs(m.started_timestamp),
                m.destination_arn ? QueueNameFromArn(*m.destination_arn) : "(sources)",
                m.failure_reason.value_or("-"), m.task_handle.empty() ? "-" : m.task_handle});
    }
    std::cout << t.Render();
    if (tasks->empty()) env.out->Info("no move tasks");
    return kExitOk;
  });
}

int RunCancel(Env& env, Backend& b, const RedriveFlags& f) {
  auto moved = b.CancelMessageMoveTask(f.handle);
  if (!moved.ok()) return env.out->Error(moved.status(), "cancel");
  return env.out->Result(Json{{"cancelled", true}, {"ApproximateNumberOfMessagesMoved", *moved}},
                         {"cancelled; " + std::to_string(*moved) + " message(s) moved so far"});
}

}  // namespace

void RegisterRedriveCommands(CLI::App& app, Env& env) {
  auto f = std::make_shared<RedriveFlags>();
  CLI::App* r =
      AddCommand(app, env, "redrive", "Move messages out of a dead-letter queue", "Operations",
                 R"(Examples:
  lqs -d ./db redrive start jobs-dlq                 # back to each message's source queue
  lqs -d ./db redrive start jobs-dlq --to retry --rate 50
  lqs -d ./db redrive list jobs-dlq
  lqs --endpoint http://127.0.0.1:9324 redrive cancel TASK_HANDLE)");
  r->require_subcommand(1);

  CLI::App* c =
      AddCommand(*r, env, "start", "Start a message move task and show its progress", nullptr,
                 R"(Examples:
  lqs -d ./db redrive start jobs-dlq
  lqs -d ./db redrive start jobs-dlq --to jobs-retry --rate 10
  lqs --endpoint http://127.0.0.1:9324 redrive start jobs-dlq --no-wait
Moved messages are new messages (new MessageId and send time). Waits until the task
ends, with a progress bar on a terminal; one task at a time per dead-letter queue.)",
                 Action(env, f, RunStart));
  c->add_option("dlq", f->dlq, "The dead-letter queue to move messages out of")->required();
  c->add_option("--to", f->to, "Destination queue (default: each message's source queue)");
  c->add_option("--rate", f->rate, "Messages per second, 1-500 (default 100)");
  c->add_flag("--no-wait", f->no_wait, "Print the task handle and return at once");

  c = AddCommand(*r, env, "list", "Show the most recent move tasks of a dead-letter queue", nullptr,
                 "Example:\n  lqs -d ./db redrive list jobs-dlq -n 5", Action(env, f, RunList));
  c->add_option("dlq", f->dlq, "The dead-letter queue")->required();
  c->add_option(
       "-n,--max", f->max,
       "How many tasks, newest first (1-" + std::to_string(lqs::limits::kMaxMoveTaskResults) + ")")
      ->capture_default_str();

  c = AddCommand(
      *r, env, "cancel", "Cancel a running move task", nullptr,
      "Example:\n  lqs -d ./db redrive cancel \"$(lqs -d ./db --json redrive list jobs-dlq "
      "| jq -r '.tasks[0].TaskHandle')\"",
      Action(env, f, RunCancel));
  c->add_option("handle", f->handle, "TaskHandle (from `redrive start` or `redrive list`)")
      ->required();
}

}  // namespace lqs_cli
