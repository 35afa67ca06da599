// lqs — the command-line tool of lqs: queues, messages, stats, redrive,
// export/import, verify and compact, on a database directory (--data) or
// against a running lqsd (--endpoint). See docs/cli.md.

#include <iostream>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "tools/commands.h"

#include "lqs/version.h"

namespace {

constexpr const char* kFooter =
    R"(Where the queues are:
  --data DIR       a database directory, opened directly (nothing else may hold it;
                   a running lqsd does: then use --endpoint)
  --endpoint URL   a running lqsd or SQS endpoint, e.g. http://127.0.0.1:9324 or
                   https://... (SQS JSON protocol; --ca-file trusts one more CA);
                   requests are signed (SigV4) with AWS_ACCESS_KEY_ID /
                   AWS_SECRET_ACCESS_KEY, else ~/.aws/credentials at --profile or
                   AWS_PROFILE, as lqsd --auth-file requires
  or the environment variables LQS_DATA, or AWS_ENDPOINT_URL_SQS, AWS_ENDPOINT_URL,
  LQS_ENDPOINT (in this order; LQS_DATA wins over the AWS_ ones).

Quick start:
  lqs -d ./db queue create jobs
  lqs -d ./db send jobs 'resize photo 42'
  lqs -d ./db peek jobs                     # look without leasing
  lqs -d ./db receive jobs --delete         # take one and delete it
  lqs -d ./db stats --watch
  lqs -d ./db export > backup.jsonl && lqs -d ./copy import -i backup.jsonl

Every command takes --json (machine-readable output on stdout) and has examples in
`lqs COMMAND --help`.

Exit codes:
  0  success
  1  usage: bad command line, malformed input line or file
  2  SQS error from the library or server; its code is printed (QueueDoesNotExist, ...)
  3  I/O error, database locked by another process, corruption, server unreachable
  4  verify found problems
)"
    "  5  some entries of a batch (send, delete, import) failed; the others succeeded";

}  // namespace

int main(int argc, char** argv) {
  lqs_cli::Env env;
  CLI::App app{"lqs " LQS_VERSION_STRING
               " — manage lqs message queues (Amazon SQS semantics on RocksDB)"};
  app.name("lqs");
  app.footer(kFooter);
  app.require_subcommand(1);
  app.fallthrough();
  app.set_version_flag("--version", "lqs " LQS_VERSION_STRING);
  auto& g = env.flags;
  // The global options, under two headings in --help; the commands' own
  // options (registered below, inheriting these defaults) under "Options".
  app.option_defaults()->group("Where");
  app.add_option("-d,--data", g.data, "Database directory (local mode)")->envname("LQS_DATA");
  app.add_option("-e,--endpoint", g.endpoint,
                 "URL of a running lqsd or SQS endpoint (remote mode; default: "
                 "AWS_ENDPOINT_URL_SQS, AWS_ENDPOINT_URL, then LQS_ENDPOINT; --data or "
                 "LQS_DATA wins over the AWS_ variables)");
  app.add_option("--durability", g.durability, "Local mode: none, process (default) or fsync")
      ->check(CLI::IsMember({"none", "process", "fsync"}));
  app.add_option("--region", g.region,
                 "Local mode: the database's region, in queue ARNs (default: <name> for a "
                 "database in .../regions/<name>, where lqsd keeps other regions; else "
                 "us-east-1). Remote mode: sign requests for this region, whose queues lqsd "
                 "then serves (default: AWS_REGION, AWS_DEFAULT_REGION, us-east-1 when "
                 "credentials are found; else unsigned: lqsd's default region)");
  app.add_option("--profile", g.profile,
                 "Remote mode, forward, pull: the profile of the shared credentials file "
                 "(~/.aws/credentials, or AWS_SHARED_CREDENTIALS_FILE) when the environment "
                 "has no AWS_ACCESS_KEY_ID (default: AWS_PROFILE, else default)");
  app.add_option("--account-id", g.account_id,
                 "Local mode: the account in queue ARNs (default 123456789012, as lqsd's)");
  app.add_option("--max-disk-bytes", g.max_disk_bytes,
                 "Local mode: the database's storage budget (bytes, or 64M, 1G: powers of "
                 "1024); at it, sends fail with OverStorageBudget until messages are deleted "
                 "(default 0: none)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::NonNegativeNumber);
  app.add_option("--timeout", g.timeout_seconds,
                 "Remote mode: seconds per request (beyond a long poll's wait)")
      ->capture_default_str();
  app.add_option("--ca-file", g.ca_file,
                 "HTTPS (remote mode, forward, pull): a PEM file of CAs trusted besides the "
                 "system's")
      ->check(CLI::ExistingFile);
  app.option_defaults()->group("Output");
  app.add_flag("--json", g.json, "Machine-readable JSON on stdout");
  app.add_flag("-q,--quiet", g.quiet, "No progress bars or informational lines");
  app.option_defaults()->group("Options");

  lqs_cli::RegisterQueueCommands(app, env);
  lqs_cli::RegisterMessageCommands(app, env);
  lqs_cli::RegisterStatsCommands(app, env);
  lqs_cli::RegisterRedriveCommands(app, env);
  lqs_cli::RegisterTransferCommands(app, env);
  lqs_cli::RegisterBridgeCommands(app, env);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? lqs_cli::kExitOk : lqs_cli::kExitUsage;
  }
  env.out = std::make_unique<lqs_cli::Output>(lqs_cli::OutputOptions{g.json, g.quiet});
  if (!env.action) {
    std::cerr << app.help();
    return lqs_cli::kExitUsage;
  }
  const int rc = env.action();
  return env.Close(rc);
}
