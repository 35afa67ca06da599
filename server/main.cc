// lqsd — the SQS endpoint of lqs: both SQS wire protocols over HTTP on one
// port, on an lqs database per region (server/regions.h: DIR holds the
// default region, DIR/regions/<region> the others).
//
//   lqsd --data DIR --listen 127.0.0.1:9324
//
// Prints "lqsd listening on http://HOST:PORT" on stdout when ready (then,
// with --metrics-listen, "lqsd metrics on http://HOST:PORT/metrics"). On
// SIGTERM or SIGINT: stops accepting connections, finishes the requests in
// progress (waiting long polls are answered with no messages), closes the
// databases cleanly and exits 0. Without --data the databases live in a
// temporary directory that is removed at exit.

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <sys/resource.h>
#include <unistd.h>

#include "server/bridges.h"
#include "server/endpoint.h"
#include "server/init_file.h"
#include "server/listen_address.h"
#include "server/router.h"
#include "server/sigv4.h"
#include "server/url_style.h"
#include "wire/region_name.h"

#include "lqs/lqs.h"
#include "lqs/version.h"

namespace {

enum class LogLevel { kError, kWarn, kInfo, kDebug };

#ifdef LQS_WITH_JEMALLOC
// jemalloc's settings for --profile small (applied after allocator_config.cc's).
constexpr const char* kSmallDeviceMallocConf = "narenas:1,dirty_decay_ms:1000,muzzy_decay_ms:0";
#endif

struct Flags {
  std::string data;
  std::string listen = "127.0.0.1:9324";
  std::string metrics_listen;  // empty: /metrics, /health, /bridges on --listen only
  std::string account_id = "123456789012";
  std::string region = "us-east-1";
  std::string log_level = "info";
  std::string auth_file;
  std::string init_file;
  std::string durability;
  std::string public_url;
  std::string url_style = "path";
  int threads = 0;
  int busy_poll_us = -1;  // -1: lqsd::DefaultBusyPollMicros
  size_t max_body_bytes = 4 << 20;
  bool single_region = false;
  int max_regions = 32;
  bool no_purge_interval = false;
  bool no_queue_reuse_delay = false;
  std::string manual_clock;  // "", "frozen" or "running"
  // Bridges (bridges.h, docs/bridge.md).
  std::vector<std::string> forward;
  std::vector<std::string> pull;
  std::string bridges_file;
  std::string bridge_ca_file;
  std::string bridge_profile;
  int64_t bridge_backoff_max = 300;
  int bridge_timeout = 30;
  std::string profile = "default";
  int64_t max_disk_bytes = 0;
  std::string console = "on";
  int console_sample_seconds = 10;
};

// 127.0.0.0/8, ::1 or localhost: only this machine reaches the listener.
bool IsLoopbackHost(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

void RaiseFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  CLI::App app{
      "lqsd: an Amazon SQS-compatible HTTP endpoint (JSON 1.0 and query protocols) "
      "over an lqs database"};
  app.set_version_flag("--version", "lqsd " LQS_VERSION_STRING);
  app.add_option("--data", flags.data,
                 "Database directory (created if missing). Omitted: a temporary database, "
                 "removed at exit");
  app.add_option("--listen", flags.listen, "HOST:PORT to listen on (port 0: any free port)")
      ->capture_default_str();
  app.add_option(
      "--metrics-listen", flags.metrics_listen,
      "HOST:PORT of a second listener that serves only GET /metrics, /health and /bridges, "
      "without authentication (for scrapers and health checks that cannot sign; "
      "with --auth-file, the --listen port answers them only when signed)");
  app.add_option("--account-id", flags.account_id, "Account id in queue URLs and ARNs")
      ->capture_default_str();
  app.add_option("--region", flags.region,
                 "The default region: the one --data holds, and the one unsigned requests "
                 "use. Requests signed for another region use that region's queues, kept "
                 "under DIR/regions/<region>")
      ->capture_default_str();
  app.add_flag("--single-region", flags.single_region,
               "Serve every region from --data (queues shared by all regions)");
  app.add_option("--max-regions", flags.max_regions,
                 "Regions served at most, the default one included (each is a database with "
                 "its own memory and threads); more get OverLimit")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  app.add_option("--log-level", flags.log_level,
                 "error, warn, info or debug (one line per request)")
      ->check(CLI::IsMember({"error", "warn", "info", "debug"}))
      ->capture_default_str();
  app.add_option("--auth-file", flags.auth_file,
                 "Verify SigV4 signatures with the \"ACCESS_KEY_ID SECRET\" lines of this file "
                 "(default: no authentication)");
  app.add_option("--console", flags.console,
                 "on: serve the web console on /console (docs/console.md; with --auth-file it "
                 "asks for a key id and secret); off: do not")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  app.add_option("--console-sample-seconds", flags.console_sample_seconds,
                 "How often the web console's history samples every queue's depth and "
                 "oldest age (360 samples are kept per queue)")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  app.add_option("--durability", flags.durability,
                 "none, process or fsync (default: process; none for a temporary database)")
      ->check(CLI::IsMember({"none", "process", "fsync"}));
  app.add_option("--public-url", flags.public_url,
                 "Base of the queue URLs handed out (default: http://<Host header>)");
  app.add_option("--url-style", flags.url_style,
                 "Queue URLs handed out: path (http://<Host header>/<account>/<name>, "
                 "/queue/<region>/<account>/<name> outside the default region) or host "
                 "(http://sqs.<region>.localhost:<port>/<account>/<name> in every region; "
                 "with --public-url SCHEME://HOST, SCHEME://sqs.<region>.HOST/...). Requests "
                 "may use either form")
      ->check(CLI::IsMember({"path", "host"}))
      ->capture_default_str();
  app.add_option("--threads", flags.threads, "I/O threads (default: cores / 2, at least 1)");
  app.add_option("--busy-poll-us", flags.busy_poll_us,
                 "Each I/O thread polls for up to this long after its work runs out before it "
                 "sleeps, adapting to the gaps between requests; 0: never (default: " +
                     std::to_string(lqsd::kDefaultBusyPollMicros) +
                     " when the cores outnumber the I/O threads, else 0)")
      ->check(CLI::Range(0, lqsd::kMaxBusyPollMicros));
  app.add_option("--max-body-bytes", flags.max_body_bytes, "Largest accepted request body")
      ->capture_default_str();
  app.add_flag("--no-purge-interval", flags.no_purge_interval,
               "Allow PurgeQueue more than once per 60 s");
  app.add_flag("--no-queue-reuse-delay", flags.no_queue_reuse_delay,
               "Allow re-creating a deleted queue name at once");
  app.add_flag("--manual-clock{frozen}", flags.manual_clock,
               "Run on a manual clock for tests, starting at the current time: POST "
               "/_lqs/clock/advance {\"seconds\": N} moves it forward (GET /_lqs/clock reads "
               "it), expiring visibility timeouts, delays and retention and ending long polls "
               "without waiting. --manual-clock (frozen): time moves only then; "
               "--manual-clock=running: time also runs as usual (docs/cli.md)")
      ->check(CLI::IsMember({"frozen", "running"}));
  app.add_option("--init", flags.init_file,
                 "A JSON file of queues to create at startup, with their attributes, "
                 "dead-letter queues and tags, in the default region (docs/cli.md). Idempotent; "
                 "an existing queue gets the file's attribute values. A bad file stops lqsd "
                 "before anything is created")
      ->check(CLI::ExistingFile);
  // The bridges' options, under their own heading in --help.
  app.option_defaults()->group("Bridges");
  app.add_option("--forward", flags.forward,
                 "LOCAL_QUEUE=REMOTE_QUEUE_URL: drain a local queue into a remote SQS queue "
                 "(repeatable; docs/bridge.md)");
  app.add_option("--pull", flags.pull,
                 "REMOTE_QUEUE_URL=LOCAL_QUEUE: drain a remote SQS queue into a local queue "
                 "(repeatable)");
  app.add_option("--bridges", flags.bridges_file,
                 "A file of bridges, one a line: 'forward LOCAL_QUEUE URL' or 'pull URL "
                 "LOCAL_QUEUE'")
      ->check(CLI::ExistingFile);
  app.add_option("--bridge-ca-file", flags.bridge_ca_file,
                 "HTTPS: a PEM file of CAs the bridges trust besides the system's")
      ->check(CLI::ExistingFile);
  app.add_option("--bridge-profile", flags.bridge_profile,
                 "The bridges' profile of ~/.aws/credentials (default: AWS_ACCESS_KEY_ID, then "
                 "AWS_PROFILE, then default)");
  app.add_option("--bridge-timeout", flags.bridge_timeout,
                 "Seconds the bridges give one request to the remote (beyond a long poll)")
      ->capture_default_str()
      ->check(CLI::Range(1, 600));
  app.add_option("--bridge-backoff-max", flags.bridge_backoff_max,
                 "The bridges' longest wait between retries, in seconds")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{86400}));
  app.option_defaults()->group("Options");
  app.add_option("--profile", flags.profile,
                 "default, or small: RocksDB's memory cut for small devices "
                 "(lqs::Options::SmallDevice(): 2 MiB block cache, 1 MiB memtables, one "
                 "background thread), one allocator arena, and one I/O thread unless "
                 "--threads says otherwise")
      ->check(CLI::IsMember({"default", "small"}))
      ->capture_default_str();
  app.add_option("--max-disk-bytes", flags.max_disk_bytes,
                 "Storage budget of each database (table files and log), in bytes or with a "
                 "suffix (64M, 1G; powers of 1024). At the budget sends fail with "
                 "ServiceUnavailable (HTTP 503) until consumers drain the queues; 0: none")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; a bad command line exits 2, as the
    // checks below do.
    return app.exit(e) == 0 ? 0 : 2;
  }

  const LogLevel level = flags.log_level == "debug"  ? LogLevel::kDebug
                         : flags.log_level == "info" ? LogLevel::kInfo
                         : flags.log_level == "warn" ? LogLevel::kWarn
                                                     : LogLevel::kError;
  auto info = [&](const std::string& line) {
    if (level >= LogLevel::kInfo) std::fprintf(stderr, "lqsd: %s\n", line.c_str());
  };

  auto debug = [&](const std::string& line) {
    if (level >= LogLevel::kDebug) std::fprintf(stderr, "lqsd: %s\n", line.c_str());
  };

  std::string host;
  uint16_t port = 0;
  if (!lqsd::ParseListenAddress(flags.listen, &host, &port)) {
    std::fprintf(stderr, "lqsd: --listen must be HOST:PORT, got '%s'\n", flags.listen.c_str());
    return 2;
  }
  std::string metrics_host;
  uint16_t metrics_port = 0;
  if (!flags.metrics_listen.empty() &&
      !lqsd::ParseListenAddress(flags.metrics_listen, &metrics_host, &metrics_port)) {
    std::fprintf(stderr, "lqsd: --metrics-listen must be HOST:PORT, got '%s'\n",
                 flags.metrics_listen.c_str());
    return 2;
  }
  if (!lqs::wire::IsRegionName(flags.region)) {
    std::fprintf(stderr, "lqsd: --region must be %s, got '%s'\n",
                 std::string(lqs::wire::kRegionNameRule).c_str(), flags.region.c_str());
    return 2;
  }
  if (flags.account_id.empty() || flags.account_id.find('/') != std::string::npos) {
    std::fprintf(stderr, "lqsd: --account-id must be a non-empty id without '/'\n");
    return 2;
  }
  if (!flags.public_url.empty() && flags.public_url.back() == '/') flags.public_url.pop_back();
  const lqsd::UrlStyle url_style = *lqsd::ParseUrlStyle(flags.url_style);
  if (std::string problem = lqsd::PublicUrlProblem(flags.public_url, url_style); !problem.empty()) {
    std::fprintf(stderr, "lqsd: --public-url: %s\n", problem.c_str());
    return 2;
  }

  std::optional<lqsd::SigV4Verifier> verifier;
  if (!flags.auth_file.empty()) {
    std::string error;
    verifier = lqsd::SigV4Verifier::LoadFile(flags.auth_file, &error);
    if (!verifier.has_value()) {
      std::fprintf(stderr, "lqsd: %s\n", error.c_str());
      return 2;
    }
  }

  std::vector<lqsd::BridgeSpec> bridge_specs;
  for (const auto& [values, direction] : {std::pair{&flags.forward, lqs::BridgeDirection::kForward},
                                          std::pair{&flags.pull, lqs::BridgeDirection::kPull}}) {
    for (const std::string& v : *values) {
      auto spec = lqsd::ParseBridgeFlag(direction, v);
      if (!spec.ok()) {
        std::fprintf(stderr, "lqsd: %s\n", spec.status().message().c_str());
        return 2;
      }
      bridge_specs.push_back(std::move(*spec));
    }
  }
  if (!flags.bridges_file.empty()) {
    auto specs = lqsd::ReadBridgesFile(flags.bridges_file);
    if (!specs.ok()) {
      std::fprintf(stderr, "lqsd: %s\n", specs.status().message().c_str());
      return 2;
    }
    bridge_specs.insert(bridge_specs.end(), specs->begin(), specs->end());
  }

  std::optional<lqsd::InitPlan> init_plan;
  if (!flags.init_file.empty()) {
    auto plan = lqsd::ReadInitFile(flags.init_file, flags.region, flags.account_id);
    if (!plan.ok()) {
      std::fprintf(stderr, "lqsd: --init %s\n", plan.status().message().c_str());
      return 2;
    }
    init_plan = std::move(*plan);
  }

  std::signal(SIGPIPE, SIG_IGN);
  RaiseFileLimit();

  // ---- The database ----
  std::string temp_dir;
  const bool small = flags.profile == "small";
#ifdef LQS_WITH_JEMALLOC
  // jemalloc fixes its arenas at its first allocation, before main() runs:
  // the small profile starts lqsd again (same pid, same arguments) with one
  // arena and dirty pages returned after a second, unless the operator set
  // MALLOC_CONF. One arena per CPU kept a loaded lqsd's peak about 6 MiB
  // higher (docs/performance.md, "Small devices").
  if (small && std::getenv("MALLOC_CONF") == nullptr) {
    ::setenv("MALLOC_CONF", kSmallDeviceMallocConf, 1);  // NOLINT(concurrency-mt-unsafe)
    ::execv("/proc/self/exe", argv);
    ::unsetenv("MALLOC_CONF");  // NOLINT(concurrency-mt-unsafe): exec failed, go on as is
  }
#endif
  lqs::Options options = small ? lqs::Options::SmallDevice() : lqs::Options();
  options.max_disk_bytes = flags.max_disk_bytes;
  if (small && flags.threads == 0) flags.threads = 1;
  if (flags.data.empty()) {
    std::string pattern = (std::filesystem::temp_directory_path() / "lqsd-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      std::perror("lqsd: mkdtemp");
      return 1;
    }
    temp_dir = pattern;
    options.path = temp_dir;
    options.durability = lqs::Durability::kNone;
    options.flush_on_close = false;  // removed right after closing
  } else {
    options.path = flags.data;
  }
  options.durability = lqs::ParseDurability(flags.durability).value_or(options.durability);
  options.region = flags.region;
  options.account_id = flags.account_id;
  // The I/O threads commit a round of requests with one log write.
  options.deferred_commits = true;
  options.enforce_purge_interval = !flags.no_purge_interval;
  options.enforce_queue_name_reuse_delay = !flags.no_queue_reuse_delay;
  std::shared_ptr<lqs::ManualClock> manual_clock;
  if (!flags.manual_clock.empty()) {
    const int64_t now = lqs::SystemClock::Default()->NowMillis();
    manual_clock = flags.manual_clock == "running" ? lqs::ManualClock::Running(now)
                                                   : std::make_shared<lqs::ManualClock>(now);
    options.clock = manual_clock;  // the other regions' Brokers copy these options
  }

  auto remove_temp = [&] {
    if (temp_dir.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(temp_dir, ec);
  };

  auto opened = lqs::Broker::Open(options);
  if (!opened.ok()) {
    std::fprintf(stderr, "lqsd: cannot open database %s: %s\n", options.path.c_str(),
                 opened.status().ToString().c_str());
    remove_temp();
    return 1;
  }
  std::unique_ptr<lqs::Broker> broker = std::move(opened).value();

  // ---- Queues of --init ----
  // Checked against the database before the first is created; before the
  // bridges, which may move messages of these queues.
  if (init_plan.has_value()) {
    lqs::Status st = init_plan->Check(broker.get());
    const bool bad_file = !st.ok();
    if (st.ok()) st = init_plan->Apply(broker.get(), info);
    if (!st.ok()) {
      std::fprintf(stderr, "lqsd: --init %s\n", st.message().c_str());
      broker->Close().IgnoreError();
      broker.reset();
      remove_temp();
      return bad_file ? 2 : 1;
    }
  }

  // ---- Bridges ----
  lqsd::Bridges bridges;
  if (!bridge_specs.empty()) {
    lqs::BridgeOptions common;
    common.ca_file = flags.bridge_ca_file;
    common.profile = flags.bridge_profile;
    common.backoff_max_ms = flags.bridge_backoff_max * 1000;
    common.request_timeout_seconds = flags.bridge_timeout;
    common.lease_seconds = std::max(common.lease_seconds, 2 * flags.bridge_timeout);
    if (lqs::Status st = bridges.Start(broker.get(), bridge_specs, common, info); !st.ok()) {
      std::fprintf(stderr, "lqsd: %s\n", st.ToString().c_str());
      broker->Close().IgnoreError();
      broker.reset();
      remove_temp();
      return st.code() == lqs::ErrorCode::kInvalidParameterValue ? 2 : 1;
    }
  }

  // ---- HTTP ----
  lqsd::EndpointConfig endpoint_config;
  endpoint_config.host = host;
  endpoint_config.port = port;
  endpoint_config.threads = flags.threads;
  endpoint_config.busy_poll_us = flags.busy_poll_us;
  endpoint_config.account_id = flags.account_id;
  endpoint_config.public_url = flags.public_url;
  endpoint_config.url_style = url_style;
  endpoint_config.log_requests = level >= LogLevel::kDebug;
  endpoint_config.auth = verifier.has_value() ? &*verifier : nullptr;
  endpoint_config.metrics_host = metrics_host;
  endpoint_config.metrics_port = metrics_port;
  endpoint_config.max_body_bytes = flags.max_body_bytes;
  endpoint_config.single_region = flags.single_region;
  endpoint_config.max_regions = static_cast<size_t>(flags.max_regions);
  endpoint_config.manual_clock = manual_clock;
  endpoint_config.console = flags.console == "on";
  endpoint_config.console_sample_ms = int64_t{flags.console_sample_seconds} * 1000;
  endpoint_config.clock = options.clock;
  if (!bridges.empty()) endpoint_config.bridge_stats = [&bridges] { return bridges.Stats(); };
  // Clients signed for another region than --region used to share --data's
  // queues: say where theirs are now, and how to share them again.
  endpoint_config.on_region_open = [&info, default_region = flags.region](const std::string& region,
                                                                          const std::string& path) {
    info("region " + region + ": database " + path + " (its queues are apart from region " +
         default_region + "'s in --data; --single-region serves every region from --data)");
  };
  std::string error;
  std::unique_ptr<lqsd::Endpoint> endpoint =
      lqsd::Endpoint::Start(broker.get(), endpoint_config, &error);
  if (endpoint == nullptr) {
    std::fprintf(stderr, "lqsd: %s\n", error.c_str());
    bridges.Stop();
    broker->Close().IgnoreError();
    broker.reset();
    remove_temp();
    return 1;
  }

  // ---- Signals and shutdown ----
  // The main thread waits for a signal; the endpoint serves on its own.
  boost::asio::io_context signal_context(1);
  std::atomic<bool> shutting_down{false};
  std::thread shutdown_thread;
  int exit_code = 0;
  boost::asio::signal_set signals(signal_context, SIGINT, SIGTERM);
  std::function<void(const boost::system::error_code&, int)> on_signal;
  on_signal = [&](const boost::system::error_code& ec, int signal_number) {
    if (ec) return;
    if (shutting_down.exchange(true)) {
      // A second signal: stop waiting for the clean shutdown.
      std::fprintf(stderr, "lqsd: signal %d again, exiting without a clean shutdown\n",
                   signal_number);
      std::_Exit(1);
    }
    signals.async_wait(on_signal);
    info(std::string("signal ") + std::to_string(signal_number) + ", shutting down");
    shutdown_thread = std::thread([&] {
      // The bridges first: they release what they hold while the database
      // is open.
      bridges.Stop();
      if (lqs::Status s = endpoint->Shutdown(); !s.ok()) {
        std::fprintf(stderr, "lqsd: closing the database failed: %s\n", s.ToString().c_str());
        exit_code = 1;
      }
      debug("requests finished, database closed");
      signal_context.stop();
    });
  };
  signals.async_wait(on_signal);

  // Where an operator's scraper finds /metrics and /health.
  std::string metrics_where = "metrics and health on the API port";
  if (!endpoint->metrics_host_port().empty()) {
    metrics_where =
        "metrics and health on http://" + endpoint->metrics_host_port() + " (no authentication)";
    if (verifier.has_value()) metrics_where += ", on the API port only when signed";
  } else if (verifier.has_value()) {
    metrics_where += ", signed requests only";
  }
  info("database " + options.path + (temp_dir.empty() ? "" : " (temporary)") +
       (verifier.has_value() ? ", SigV4 authentication on" : ", no authentication") + ", " +
       std::to_string(endpoint->threads()) +
       (endpoint->threads() == 1 ? " I/O thread" : " I/O threads") +
       (endpoint->busy_poll_us() > 0
            ? " (busy polling up to " + std::to_string(endpoint->busy_poll_us()) + " us)"
            : "") +
       ", default region " + flags.region + (flags.single_region ? " (serves every region)" : "") +
       ", profile " + flags.profile +
       (manual_clock != nullptr
            ? ", " + flags.manual_clock + " manual clock (POST /_lqs/clock/advance moves it)"
            : "") +
       (flags.max_disk_bytes > 0
            ? ", storage budget " + std::to_string(flags.max_disk_bytes) + " bytes per database"
            : "") +
       ", " + metrics_where +
       (endpoint_config.console
            ? std::string(", web console on /console") +
                  (verifier.has_value() ? " (login with a key of --auth-file)" : "")
            : std::string(", web console off")));
  if (level >= LogLevel::kWarn && endpoint_config.console && !verifier.has_value() &&
      !IsLoopbackHost(host)) {
    std::fprintf(stderr,
                 "lqsd: warning: listening on %s without --auth-file: anyone who reaches it can "
                 "use the SQS API and the web console (http://%s/console: message bodies, "
                 "purge, redrive); give --auth-file, or --console off\n",
                 endpoint->host_port().c_str(), endpoint->host_port().c_str());
  }
  std::printf("lqsd listening on http://%s\n", endpoint->host_port().c_str());
  if (!endpoint->metrics_host_port().empty()) {
    std::printf("lqsd metrics on http://%s/metrics\n", endpoint->metrics_host_port().c_str());
  }
  std::fflush(stdout);

  signal_context.run();
  if (shutdown_thread.joinable()) shutdown_thread.join();
  endpoint.reset();
  broker.reset();
  remove_temp();
  info("stopped");
  return exit_code;
}
