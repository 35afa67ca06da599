// tools/commands_bridge.cc — forward and pull: a bridge (lqs/bridge.h)
// between a queue of the local database and a remote SQS queue, run until
// SIGTERM or SIGINT, or with --once until what is there is moved.

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "tools/commands.h"
#include "tools/stop_signal.h"
#include "wire/bridge_stats_json.h"

#include "lqs/bridge.h"

namespace lqs_cli {
namespace {

struct BridgeFlags {
  lqs::BridgeDirection direction = lqs::BridgeDirection::kForward;
  std::string local_queue;
  std::string remote_url;
  bool once = false;
  int batches = 4;
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
  std::string profile;
  std::string remote_region;
  int64_t backoff_max_seconds = 300;
  int64_t dedup_window_seconds = 3600;
  int wait_seconds = 20;
  int once_attempts = 4;
};

int Run(Env& env, Backend& backend, const BridgeFlags& f) {
  if (backend.broker() == nullptr) {
    return env.out->Usage(
        "a bridge runs on a database directory (--data DIR); to bridge the queues of a running "
        "lqsd, give it --forward / --pull");
  }
  lqs::BridgeOptions o;
  o.direction = f.direction;
  o.local_queue = f.local_queue;
  o.remote_queue_url = f.remote_url;
  o.region = f.remote_region;
  if (!f.access_key_id.empty() || !f.secret_access_key.empty()) {
    o.credentials = lqs::RemoteCredentials{f.access_key_id, f.secret_access_key, f.session_token,
                                           "--access-key-id"};
  }
  o.profile = f.profile.empty() ? env.flags.profile : f.profile;  // lqs --profile P forward ...
  o.ca_file = env.flags.ca_file;
  o.request_timeout_seconds = env.flags.timeout_seconds;
  o.lease_seconds = std::max(o.lease_seconds, 2 * o.request_timeout_seconds);
  o.backoff_max_ms = f.backoff_max_seconds * 1000;
  o.max_batches_in_flight = f.batches;
  o.dedup_window_seconds = f.dedup_window_seconds;
  o.wait_time_seconds = f.wait_seconds;
  o.once = f.once;
  o.once_attempts = f.once_attempts;
  if (env.out->json() || env.flags.quiet) o.log = [](std::string_view) {};
  auto bridge = lqs::Bridge::Start(backend.broker(), o);
  if (!bridge.ok()) {
    if (bridge.status().code() == lqs::ErrorCode::kInvalidParameterValue) {
      return env.out->Usage(bridge.status().message());
    }
    return env.out->Error(bridge.status(), f.local_queue);
  }
  CatchStopSignals();
  // The bridge runs on its own threads; this one waits for a signal (or
  // the end of a --once drain) and then stops it.
  std::thread stopper([&] {
    while (!StopRequested() && (*bridge)->Stats().running) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    (*bridge)->Stop();
  });
  lqs::Status st = (*bridge)->Wait();
  RequestStop();
  stopper.join();
  const lqs::BridgeStats stats = (*bridge)->Stats();
  if (env.out->json()) {
    env.out->PrintJson(lqs::wire::BridgeStatsJson(stats));
  } else {
    const bool forward = f.direction == lqs::BridgeDirection::kForward;
    std::string line =
        (forward ? "forwarded " : "pulled ") + std::to_string(stats.transferred) + " message(s)";
    if (stats.duplicates > 0)
      line += ", " + std::to_string(stats.duplicates) + " duplicate(s) dropped";
    if (stats.dead_lettered > 0) {
      line +=
          ", " + std::to_string(stats.dead_lettered) + " refused (moved to the dead-letter queue)";
    }
    if (stats.stuck > 0) line += ", " + std::to_string(stats.stuck) + " stuck";
    env.out->Line(line);
  }
  if (!st.ok()) return env.out->Error(st, stats.name);
  return kExitOk;
}

void AddCommon(CLI::App* cmd, BridgeFlags& f) {
  cmd->add_flag("--once", f.once,
                "Move what is there and exit: 0 when done, 3 when the remote could not be "
                "reached");
  cmd->add_option("--access-key-id", f.access_key_id,
                  "Sign with this key (default: AWS_ACCESS_KEY_ID, then the shared credentials "
                  "file)");
  cmd->add_option("--secret-access-key", f.secret_access_key, "The key's secret");
  cmd->add_option("--session-token", f.session_token, "A session token for the key");
  cmd->add_option("--profile", f.profile,
                  "The profile of ~/.aws/credentials (default: AWS_PROFILE, else default)");
  cmd->add_option("--remote-region", f.remote_region,
                  "The region to sign for (default: the queue URL's, else AWS_REGION, "
                  "AWS_DEFAULT_REGION, us-east-1)");
  cmd->add_option("--backoff-max", f.backoff_max_seconds,
                  "The longest wait between retries, in seconds")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{86400}));
  cmd->add_option("--once-attempts", f.once_attempts,
                  "With --once: give up after this many failures in a row")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
}

}  // namespace

void RegisterBridgeCommands(CLI::App& app, Env& env) {
  auto forward = std::make_shared<BridgeFlags>();
  CLI::App* c = AddCommand(
      app, env, "forward",
      "Drain a local queue into a remote SQS queue (each message deleted locally once the "
      "remote acknowledged it)",
      "Bridges",
      R"(Examples:
  lqs -d ./db forward outbox https://sqs.eu-west-1.amazonaws.com/123456789012/inbox
  lqs -d ./db forward outbox http://127.0.0.1:9324/000000000000/inbox --once
Runs until SIGTERM or Ctrl-C (messages in flight go back to the queue). Semantics,
failures and metrics: docs/bridge.md. Local mode only.)",
      Action(env, forward, Run));
  c->add_option("local_queue", forward->local_queue, "The local queue")->required();
  c->add_option("remote_queue_url", forward->remote_url,
                "The remote queue's URL (http:// or https://)")
      ->required();
  c->add_option("--batches", forward->batches, "SendMessageBatch requests in flight at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  AddCommon(c, *forward);

  auto pull = std::make_shared<BridgeFlags>();
  pull->direction = lqs::BridgeDirection::kPull;
  c = AddCommand(
      app, env, "pull",
      "Drain a remote SQS queue into a local queue (each message deleted remotely once it is "
      "stored locally)",
      "Bridges",
      R"(Examples:
  lqs -d ./db pull https://sqs.eu-west-1.amazonaws.com/123456789012/commands commands
  lqs -d ./db pull http://127.0.0.1:9324/000000000000/commands commands --once
Runs until SIGTERM or Ctrl-C. Semantics, failures and metrics: docs/bridge.md. Local
mode only.)",
      Action(env, pull, Run));
  c->add_option("remote_queue_url", pull->remote_url, "The remote queue's URL")->required();
  c->add_option("local_queue", pull->local_queue, "The local queue")->required();
  c->add_option("--dedup-window", pull->dedup_window_seconds,
                "Seconds a pulled MessageId is remembered, to drop a redelivery (at least the "
                "remote VisibilityTimeout plus a minute is used)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{1209600}));
  c->add_option("--batches", pull->batches, "ReceiveMessage loops at once, each its own connection")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  c->add_option("--wait", pull->wait_seconds, "The remote long poll, in seconds")
      ->capture_default_str()
      ->check(CLI::Range(0, 20));
  AddCommon(c, *pull);
}

}  // namespace lqs_cli
