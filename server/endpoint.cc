#include "server/endpoint.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include "server/actions.h"
#include "server/console.h"
#include "server/http_server.h"
#include "server/io_loop.h"
#include "server/queue_history.h"
#include "server/regions.h"
#include "server/router.h"

namespace lqsd {

using WorkGuard = boost::asio::executor_work_guard<boost::asio::io_context::executor_type>;

Regions::Config RegionsConfigFor(const lqs::Broker* broker, const EndpointConfig& config) {
  Regions::Config out;
  if (!config.single_region && !broker->options().path.empty()) {
    out.root = (std::filesystem::path(broker->options().path) / "regions").string();
  }
  out.max_regions = config.max_regions;
  out.on_open = config.on_region_open;
  return out;
}

struct Endpoint::State {
  State(lqs::Broker* b, const EndpointConfig& config)
      : regions(b, RegionsConfigFor(b, config)), actions(config.account_id) {}

  Regions regions;  // regions.default_broker(): the Broker the Endpoint was given
  Actions actions;
  // One io_context per I/O thread (see http_server.h): a connection is
  // served start to end on one thread.
  std::vector<std::unique_ptr<boost::asio::io_context>> contexts;
  std::unique_ptr<HttpServer> server;
  std::unique_ptr<HttpServer> metrics_server;  // --metrics-listen; null: none
  // Built once the port is bound (port 0); no request arrives before the
  // threads run.
  std::unique_ptr<Router> router;
  // The web console and its history; null when it is off.
  std::unique_ptr<QueueHistory> history;
  std::unique_ptr<HistorySampler> sampler;
  std::unique_ptr<Console> console;
  // Parked long polls have no pending I/O: keep run() from returning while
  // they wait (Shutdown releases it).
  std::vector<WorkGuard> work;
  std::vector<std::thread> threads;
  std::string host_port;
  std::string metrics_host_port;
  // The clock GET/POST /_lqs/clock read and move; null: none.
  std::shared_ptr<lqs::ManualClock> manual_clock;
  int busy_poll_us = 0;
  std::mutex shutdown_mu;
  bool shut_down = false;
};

int DefaultIoThreads(unsigned cores) {
  const int n = static_cast<int>(std::min(cores, 1024U));  // 0: unknown
  return std::max(1, n / 2);
}

int DefaultBusyPollMicros(unsigned cores, int io_threads) {
  return cores > static_cast<unsigned>(std::max(io_threads, 0)) ? kDefaultBusyPollMicros : 0;
}

Endpoint::Endpoint(std::unique_ptr<State> state) : state_(std::move(state)) {}

Endpoint::~Endpoint() { Shutdown().IgnoreError(); }

std::unique_ptr<Endpoint> Endpoint::Start(lqs::Broker* broker, const EndpointConfig& config,
                                          std::string* error) {
  if (std::string problem = PublicUrlProblem(config.public_url, config.url_style);
      !problem.empty()) {
    *error = problem;
    return nullptr;
  }
  auto state = std::make_unique<State>(broker, config);
  State* s = state.get();
  const unsigned cores = std::thread::hardware_concurrency();
  const int threads = config.threads > 0 ? config.threads : DefaultIoThreads(cores);
  const int busy_poll_us =
      config.busy_poll_us >= 0 ? config.busy_poll_us : DefaultBusyPollMicros(cores, threads);
  s->busy_poll_us = busy_poll_us;
  std::vector<boost::asio::io_context*> context_ptrs;
  for (int i = 0; i < threads; ++i) {
    s->contexts.push_back(std::make_unique<boost::asio::io_context>(1));
    context_ptrs.push_back(s->contexts.back().get());
  }
  RouterConfig router_config;
  router_config.account_id = config.account_id;
  router_config.public_url = config.public_url;
  router_config.url_style = config.url_style;
  router_config.log_requests = config.log_requests;
  router_config.auth = config.auth;
  router_config.regions = &s->regions;
  router_config.bridge_stats = config.bridge_stats;
  s->manual_clock = config.manual_clock;
  router_config.manual_clock = s->manual_clock.get();
  if (config.console) {
    s->history = std::make_unique<QueueHistory>(config.clock);
    s->sampler = std::make_unique<HistorySampler>(
        s->history.get(), broker,
        std::chrono::milliseconds(std::max<int64_t>(config.console_sample_ms, 100)));
    ConsoleConfig console_config;
    console_config.auth = config.auth;
    console_config.clock = config.clock;
    console_config.history = s->history.get();
    s->console = std::make_unique<Console>(std::move(console_config));
    router_config.console = s->console.get();
  }

  HttpServer::Limits limits;
  limits.max_body_bytes = config.max_body_bytes;
  s->server = std::make_unique<HttpServer>(
      context_ptrs, limits,
      [s](const HttpRequest& request, Poster post, Responder respond, AbandonHook abandon) {
        s->router->Handle(request, std::move(post), std::move(respond), std::move(abandon));
      },
      [s, max_body = limits.max_body_bytes](const HttpRequest& head, int status) {
        return s->router->Reject(head, status, max_body);
      });
  // Each I/O thread defers its commits on every region it serves (below)
  // and makes the changes of a round of requests durable before their
  // responses go out.
  s->server->SetCommitter([s] {
    const lqs::Status st = s->regions.CommitThisThread();
    if (!st.ok()) std::fprintf(stderr, "lqsd: commit failed: %s\n", st.ToString().c_str());
    return st.ok();
  });
  // Only the header fields the router reads are copied out of each request.
  s->server->KeepHeaders(Router::HeadersRead(router_config));
  if (!s->server->Listen(config.host, config.port, error)) return nullptr;
  const std::string shown_host =
      config.host.find(':') != std::string::npos ? "[" + config.host + "]" : config.host;
  s->host_port = shown_host + ":" + std::to_string(s->server->port());
  if (!config.metrics_host.empty()) {
    // A GET has no body; the operational paths read no header beyond what
    // an unauthenticated router reads.
    HttpServer::Limits metrics_limits;
    metrics_limits.max_body_bytes = 64 << 10;
    s->metrics_server = std::make_unique<HttpServer>(
        std::vector<boost::asio::io_context*>{context_ptrs.front()}, metrics_limits,
        [s](const HttpRequest& request, Poster, Responder respond, AbandonHook) {
          s->router->HandleOps(request, respond);
        },
        [s, max_body = metrics_limits.max_body_bytes](const HttpRequest& head, int status) {
          return s->router->Reject(head, status, max_body);
        });
    RouterConfig unauthenticated = router_config;
    unauthenticated.auth = nullptr;
    s->metrics_server->KeepHeaders(Router::HeadersRead(unauthenticated));
    if (!s->metrics_server->Listen(config.metrics_host, config.metrics_port, error)) {
      *error = "--metrics-listen: " + *error;
      return nullptr;
    }
    const std::string metrics_host = config.metrics_host.find(':') != std::string::npos
                                         ? "[" + config.metrics_host + "]"
                                         : config.metrics_host;
    s->metrics_host_port = metrics_host + ":" + std::to_string(s->metrics_server->port());
  }
  router_config.default_host = s->host_port;
  s->router = std::make_unique<Router>(&s->actions, router_config);

  for (auto& c : s->contexts) s->work.push_back(boost::asio::make_work_guard(*c));
  for (auto& c : s->contexts) {
    boost::asio::io_context* context = c.get();
    s->threads.emplace_back([context, s, busy_poll_us] {
      s->regions.DeferCommitsOnThisThread();
      RunIoLoop(*context, std::chrono::microseconds(busy_poll_us));
      s->regions.EndDeferralOnThisThread();
    });
  }
  if (s->sampler) s->sampler->Start();
  return std::unique_ptr<Endpoint>(new Endpoint(std::move(state)));
}

const std::string& Endpoint::host_port() const { return state_->host_port; }

const std::string& Endpoint::metrics_host_port() const { return state_->metrics_host_port; }

int Endpoint::threads() const { return static_cast<int>(state_->contexts.size()); }

int Endpoint::busy_poll_us() const { return state_->busy_poll_us; }

lqs::Status Endpoint::Shutdown() {
  State* s = state_.get();
  std::lock_guard<std::mutex> lock(s->shutdown_mu);
  if (s->shut_down) return lqs::Status::OK();
  s->shut_down = true;
  s->server->Stop();
  if (s->metrics_server) s->metrics_server->Stop();
  s->router->BeginShutdown();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (s->router->active_calls() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (s->sampler) s->sampler->Stop();  // it reads the Broker
  // Wakes parked long polls (they answer with no messages) and flushes.
  lqs::Status closed = s->regions.default_broker()->Close();
  lqs::Status others = s->regions.CloseAll();
  if (closed.ok()) closed = others;
  const auto drain = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  const auto open_connections = [s] {
    return s->server->open_connections() +
           (s->metrics_server ? s->metrics_server->open_connections() : 0);
  };
  while (open_connections() > 0 && std::chrono::steady_clock::now() < drain) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (auto& w : s->work) w.reset();
  for (auto& c : s->contexts) c->stop();
  for (auto& t : s->threads) t.join();
  return closed;
}

}  // namespace lqsd
