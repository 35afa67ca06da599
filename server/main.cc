// lqsd — the SQS endpoint of lqs: both SQS wire protocols over HTTP on one
// port, on one lqs database.
//
//   lqsd --data DIR --listen 127.0.0.1:9324
//
// Prints "lqsd listening on http://HOST:PORT" on stdout when ready. On
// SIGTERM or SIGINT: stops accepting connections, finishes the requests in
// progress (waiting long polls are answered with no messages), closes the
// database cleanly and exits 0. Without --data the database lives in a
// temporary directory that is removed at exit.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <sys/resource.h>

#include "server/actions.h"
#include "server/http_server.h"
#include "server/router.h"
#include "server/sigv4.h"

#include "lqs/lqs.h"

namespace {

enum class LogLevel { kError, kWarn, kInfo, kDebug };

struct Flags {
  std::string data;
  std::string listen = "127.0.0.1:9324";
  std::string account_id = "123456789012";
  std::string region = "us-east-1";
  std::string log_level = "info";
  std::string auth_file;
  std::string durability;
  std::string public_url;
  int threads = 0;
  size_t max_body_bytes = 4 << 20;
  bool no_purge_interval = false;
  bool no_queue_reuse_delay = false;
};

// "127.0.0.1:9324", "[::1]:9324", "localhost:0", ":9324" (loopback).
bool ParseListen(const std::string& text, std::string* host, uint16_t* port) {
  std::string h;
  std::string p;
  if (!text.empty() && text[0] == '[') {
    const size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return false;
    }
    h = text.substr(1, close - 1);
    p = text.substr(close + 2);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string::npos) return false;
    h = text.substr(0, colon);
    p = text.substr(colon + 1);
  }
  if (h.empty()) h = "127.0.0.1";
  if (h == "localhost") h = "127.0.0.1";
  if (p.empty() || p.size() > 5 || p.find_first_not_of("0123456789") != std::string::npos) {
    return false;
  }
  const int value = std::stoi(p);
  if (value > 65535) return false;
  *host = h;
  *port = static_cast<uint16_t>(value);
  return true;
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
  app.add_option("--data", flags.data,
                 "Database directory (created if missing). Omitted: a temporary database, "
                 "removed at exit");
  app.add_option("--listen", flags.listen, "HOST:PORT to listen on (port 0: any free port)")
      ->capture_default_str();
  app.add_option("--account-id", flags.account_id, "Account id in queue URLs and ARNs")
      ->capture_default_str();
  app.add_option("--region", flags.region, "Region in queue ARNs")->capture_default_str();
  app.add_option("--log-level", flags.log_level,
                 "error, warn, info or debug (one line per request)")
      ->check(CLI::IsMember({"error", "warn", "info", "debug"}))
      ->capture_default_str();
  app.add_option("--auth-file", flags.auth_file,
                 "Verify SigV4 signatures with the \"ACCESS_KEY_ID SECRET\" lines of this file "
                 "(default: no authentication)");
  app.add_option("--durability", flags.durability,
                 "none, process or fsync (default: process; none for a temporary database)")
      ->check(CLI::IsMember({"none", "process", "fsync"}));
  app.add_option("--public-url", flags.public_url,
                 "Base of the queue URLs handed out (default: http://<Host header>)");
  app.add_option("--threads", flags.threads, "I/O threads (default: max(4, cores))");
  app.add_option("--max-body-bytes", flags.max_body_bytes, "Largest accepted request body")
      ->capture_default_str();
  app.add_flag("--no-purge-interval", flags.no_purge_interval,
               "Allow PurgeQueue more than once per 60 s");
  app.add_flag("--no-queue-reuse-delay", flags.no_queue_reuse_delay,
               "Allow re-creating a deleted queue name at once");
  CLI11_PARSE(app, argc, argv);

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
  if (!ParseListen(flags.listen, &host, &port)) {
    std::fprintf(stderr, "lqsd: --listen must be HOST:PORT, got '%s'\n", flags.listen.c_str());
    return 2;
  }
  if (flags.account_id.empty() || flags.account_id.find('/') != std::string::npos) {
    std::fprintf(stderr, "lqsd: --account-id must be a non-empty id without '/'\n");
    return 2;
  }
  if (!flags.public_url.empty() && flags.public_url.back() == '/') flags.public_url.pop_back();

  std::optional<lqsd::SigV4Verifier> verifier;
  if (!flags.auth_file.empty()) {
    std::string error;
    verifier = lqsd::SigV4Verifier::LoadFile(flags.auth_file, &error);
    if (!verifier.has_value()) {
      std::fprintf(stderr, "lqsd: %s\n", error.c_str());
      return 2;
    }
  }

  std::signal(SIGPIPE, SIG_IGN);
  RaiseFileLimit();

  // ---- The database ----
  std::string temp_dir;
  lqs::Options options;
  if (flags.data.empty()) {
    std::string pattern = (std::filesystem::temp_directory_path() / "lqsd-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      std::perror("lqsd: mkdtemp");
      return 1;
    }
    temp_dir = pattern;
    options.path = temp_dir;
    options.durability = lqs::Durability::kNone;
  } else {
    options.path = flags.data;
  }
  if (flags.durability == "none") options.durability = lqs::Durability::kNone;
  if (flags.durability == "process") options.durability = lqs::Durability::kProcess;
  if (flags.durability == "fsync") options.durability = lqs::Durability::kFsync;
  options.region = flags.region;
  options.account_id = flags.account_id;
  options.enforce_purge_interval = !flags.no_purge_interval;
  options.enforce_queue_name_reuse_delay = !flags.no_queue_reuse_delay;

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

  // ---- HTTP ----
  // One io_context per I/O thread (see http_server.h): a connection is
  // served start to end on one thread.
  const int threads = flags.threads > 0
                          ? flags.threads
                          : std::max(4, static_cast<int>(std::thread::hardware_concurrency()));
  std::vector<std::unique_ptr<boost::asio::io_context>> contexts;
  std::vector<boost::asio::io_context*> context_ptrs;
  for (int i = 0; i < threads; ++i) {
    contexts.push_back(std::make_unique<boost::asio::io_context>(1));
    context_ptrs.push_back(contexts.back().get());
  }
  boost::asio::io_context& ioc = *contexts.front();
  lqsd::Actions actions(broker.get(), flags.account_id);
  lqsd::RouterConfig router_config;
  router_config.account_id = flags.account_id;
  router_config.public_url = flags.public_url;
  router_config.log_requests = level >= LogLevel::kDebug;
  router_config.auth = verifier.has_value() ? &*verifier : nullptr;
  router_config.broker = broker.get();  // GET /metrics and GET /health
  // Built once the port is bound (--listen ...:0); no request arrives before
  // the io_context runs.
  std::unique_ptr<lqsd::Router> router;

  lqsd::HttpServer::Limits limits;
  limits.max_body_bytes = flags.max_body_bytes;
  lqsd::HttpServer server(
      context_ptrs, limits,
      [&router](const lqsd::HttpRequest& request, lqsd::Poster post, lqsd::Responder respond,
                lqsd::AbandonHook abandon) {
        router->Handle(request, std::move(post), std::move(respond), std::move(abandon));
      },
      [&router, &limits](const lqsd::HttpRequest& head, int status) {
        return router->Reject(head, status, limits.max_body_bytes);
      });
  // Only the header fields the router reads are copied out of each request.
  server.KeepHeaders(lqsd::Router::HeadersRead(router_config));
  std::string error;
  if (!server.Listen(host, port, &error)) {
    std::fprintf(stderr, "lqsd: %s\n", error.c_str());
    broker->Close().IgnoreError();
    broker.reset();
    remove_temp();
    return 1;
  }
  const std::string shown_host = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  const std::string default_host = shown_host + ":" + std::to_string(server.port());
  router_config.default_host = default_host;
  router = std::make_unique<lqsd::Router>(&actions, router_config);

  // Parked long polls have no pending I/O: keep run() from returning while
  // they wait (the shutdown thread releases it).
  std::vector<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work;
  for (auto& c : contexts) work.push_back(boost::asio::make_work_guard(*c));

  // ---- Signals and shutdown ----
  std::atomic<bool> shutting_down{false};
  std::thread shutdown_thread;
  int exit_code = 0;
  boost::asio::signal_set signals(ioc, SIGINT, SIGTERM);
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
      server.Stop();
      router->BeginShutdown();
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (router->active_calls() > 0 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      debug("requests in progress finished; closing the database");
      // Wakes parked long polls (they answer with no messages) and flushes.
      if (lqs::Status s = broker->Close(); !s.ok()) {
        std::fprintf(stderr, "lqsd: closing the database failed: %s\n", s.ToString().c_str());
        exit_code = 1;
      }
      const auto drain = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (server.open_connections() > 0 && std::chrono::steady_clock::now() < drain) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      debug("database closed; " + std::to_string(server.open_connections()) + " connections left");
      for (auto& w : work) w.reset();
      for (auto& c : contexts) c->stop();
    });
  };
  signals.async_wait(on_signal);

  info("database " + options.path + (temp_dir.empty() ? "" : " (temporary)") +
       (verifier.has_value() ? ", SigV4 authentication on" : ", no authentication") + ", " +
       std::to_string(threads) + " threads");
  std::printf("lqsd listening on http://%s\n", default_host.c_str());
  std::fflush(stdout);

  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) {
    boost::asio::io_context* c = contexts[static_cast<size_t>(i)].get();
    pool.emplace_back([c] { c->run(); });
  }
  ioc.run();
  for (auto& t : pool) t.join();
  if (shutdown_thread.joinable()) shutdown_thread.join();

  broker.reset();
  remove_temp();
  info("stopped");
  return exit_code;
}
