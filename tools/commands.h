// tools/commands.h — the lqs CLI's subcommands, registered on a CLI11 app.
//
// Each Register* function adds its subcommands; a subcommand's callback
// stores the action to run in Env::action, which main() runs after parsing
// (so that parsing errors never leave a database half-opened).

#ifndef LQS_TOOLS_COMMANDS_H_
#define LQS_TOOLS_COMMANDS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tools/backend.h"
#include "tools/output.h"

namespace lqs_cli {

struct GlobalFlags {
  std::string data;
  std::string endpoint;
  std::string durability;
  std::string region;          // empty: local mode RegionOfPath(data), else the library's;
                               // remote mode see RemoteSigning
  std::string account_id;      // local mode; empty: the library's (lqsd's) default
  int64_t max_disk_bytes = 0;  // local mode: lqs::Options::max_disk_bytes
  int timeout_seconds = 60;
  std::string ca_file;  // remote mode and bridges: HTTPS trusts this CA too
  std::string profile;  // remote mode and bridges: of ~/.aws/credentials; empty: AWS_PROFILE
  bool json = false;
  bool quiet = false;
};

class Env {
 public:
  GlobalFlags flags;
  std::unique_ptr<Output> out;
  std::function<int()> action;

  // Opens the backend named by --data / --endpoint (or $LQS_DATA /
  // $LQS_ENDPOINT). `create`: a missing local database is created (otherwise
  // it is an error). On failure prints the error and returns nullptr with
  // *exit_code set.
  Backend* Open(bool create, int* exit_code);
  // Opens the backend as Open does and runs `run` on it: run's exit code, or
  // the failed open's (then `run` is not called).
  int WithBackend(bool create, const std::function<int(Backend&)>& run);
  // Closes the backend (flushes a local database); returns the first error.
  int Close(int exit_code);

 private:
  std::unique_ptr<Backend> backend_;
};

void RegisterQueueCommands(CLI::App& app, Env& env);
void RegisterMessageCommands(CLI::App& app, Env& env);
void RegisterStatsCommands(CLI::App& app, Env& env);
void RegisterRedriveCommands(CLI::App& app, Env& env);
void RegisterTransferCommands(CLI::App& app, Env& env);
void RegisterBridgeCommands(CLI::App& app, Env& env);

// ---- Helpers shared by the commands --------------------------------------------------

// Adds subcommand `name` to `parent`. The global flags may follow it
// (fallthrough); the help lists it under `group` (nullptr: CLI11's default,
// "Subcommands") and ends its own help with `footer`. When the subcommand is
// given, its callback stores `action` (if any) in env.action.
CLI::App* AddCommand(CLI::App& parent, Env& env, const std::string& name, const std::string& help,
                     const char* group, const std::string& footer,
                     std::function<int()> action = nullptr);

// The action of a subcommand: `run` on the subcommand's flags; the overload
// whose `run` takes a Backend opens it first (Env::WithBackend, not creating
// a database).
template <typename Flags>
std::function<int()> Action(Env& env, std::shared_ptr<Flags> flags,
                            int (*run)(Env&, const Flags&)) {
  return [&env, flags, run] { return run(env, *flags); };
}
template <typename Flags>
std::function<int()> Action(Env& env, std::shared_ptr<Flags> flags,
                            int (*run)(Env&, Backend&, const Flags&)) {
  return [&env, flags, run] {
    return env.WithBackend(false, [&](Backend& b) { return run(env, b, *flags); });
  };
}

// "eu-west-1" for ".../regions/eu-west-1" (where lqsd keeps the databases of
// regions other than its default one), else "".
std::string RegionOfPath(const std::string& path);

// The SigV4 signing of remote mode, as the AWS CLI finds it: credentials
// from lqs::ResolveCredentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY,
// and AWS_SESSION_TOKEN; else the shared credentials file at `profile`,
// else AWS_PROFILE, else default), else kPlaceholderAccessKey as key and
// secret when only a region is given; the region from --region, else
// AWS_REGION, else AWS_DEFAULT_REGION, else us-east-1. nullopt with an empty
// *error: neither credentials nor --region, so requests go unsigned (lqsd's
// default region). nullopt with *error set: one of a key pair without the
// other, a named profile that is not in the file, or a region lqsd would
// refuse.
inline constexpr const char* kPlaceholderAccessKey = "lqs";
std::optional<lqs::wire::SigningCredentials> RemoteSigning(const std::string& region_flag,
                                                           const std::string& profile,
                                                           std::string* error);

// Sets flags->endpoint when --endpoint was not given, as the AWS CLI finds
// one: AWS_ENDPOINT_URL_SQS, then AWS_ENDPOINT_URL, then LQS_ENDPOINT. With a
// database (--data or LQS_DATA) only LQS_ENDPOINT is read (and then refused
// with it): an explicit local database wins over the SDKs' variables.
void ResolveEndpoint(GlobalFlags* flags);

// "K=V" pairs into a map; false (with *error) when one has no '='.
bool ParsePairs(const std::vector<std::string>& pairs, std::map<std::string, std::string>* out,
                std::string* error);
// "NAME=VALUE" (String), "NAME:TYPE=VALUE" (TYPE String, Number, Binary or with a
// label, Binary values in base64).
bool ParseMessageAttributes(const std::vector<std::string>& specs, lqs::MessageAttributeMap* out,
                            std::string* error);
// The queue name in an ARN ("arn:aws:sqs:r:a:name" -> "name").
std::string QueueNameFromArn(const std::string& arn);
// The attributes CreateQueue accepts, from GetAttributes(All).
lqs::AttributeMap SettableAttributes(const lqs::AttributeMap& all);
// A JSON object of a stored message (export / peek format, see docs/cli.md).
Json StoredMessageJson(const std::string& queue, const lqs::StoredMessage& m);
// Batch failures as JSON.
Json FailuresJson(const std::vector<lqs::BatchResultError>& failed);

// Sends requests in batches of up to 10 (and under SQS's 1 MiB batch limit).
class BatchSender {
 public:
  BatchSender(Backend& backend, std::string queue) : backend_(backend), queue_(std::move(queue)) {}
  // Queues a message; flushes when a batch is full. A whole-request error
  // (the queue vanished, I/O) is returned and stops the sender.
  lqs::Status Add(lqs::SendMessageRequest request, std::string tag = "");
  lqs::Status Flush();

  int64_t sent() const { return sent_; }
  const std::vector<lqs::BatchResultError>& failed() const { return failed_; }
  // Message ids of the successful sends, with the caller's tags.
  const std::vector<std::pair<std::string, std::string>>& ids() const { return ids_; }
  void set_keep_ids(bool keep) { keep_ids_ = keep; }

 private:
  Backend& backend_;
  std::string queue_;
  std::vector<lqs::SendMessageBatchEntry> pending_;
  std::vector<std::string> tags_;
  size_t pending_bytes_ = 0;
  int64_t sent_ = 0;
  int64_t next_id_ = 0;
  bool keep_ids_ = true;
  std::vector<lqs::BatchResultError> failed_;
  std::vector<std::pair<std::string, std::string>> ids_;
};

// A SendMessageRequest from one JSON line: a JSON string (the body) or an
// object with Body (or MessageBody), MessageAttributes, DelaySeconds,
// MessageGroupId, MessageDeduplicationId, Attributes.AWSTraceHeader — the
// shape `lqs export` writes (whose "state"/"visible_at_ms" of a delayed
// message become a DelaySeconds when `keep_delay`).
lqs::StatusOr<lqs::SendMessageRequest> RequestFromJson(const Json& j, bool keep_delay);

}  // namespace lqs_cli

#endif  // LQS_TOOLS_COMMANDS_H_
