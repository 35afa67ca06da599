// server/endpoint.h — lqsd's SQS endpoint over an open Broker, assembled and
// running: the I/O threads, the HTTP server, the router and the actions.
//
// lqsd's main() runs one (with its flags, signals and temporary database);
// the Python package runs one in-process for lqs.Server. It serves the
// library through the Broker; it never touches RocksDB itself.
//
// Ownership: the Broker is borrowed and must outlive the Endpoint;
// Shutdown() closes it (that answers the parked long polls), and the other
// regions' databases, which the Endpoint owns.
// Thread safety: Shutdown() may be called from any thread but one of the
// endpoint's own (a request handler); host_port() from any thread.

#ifndef LQS_SERVER_ENDPOINT_H_
#define LQS_SERVER_ENDPOINT_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "server/url_style.h"

#include "lqs/bridge.h"
#include "lqs/broker.h"
#include "lqs/clock.h"
#include "lqs/options.h"
#include "lqs/status.h"

namespace lqsd {

class SigV4Verifier;

struct EndpointConfig {
  std::string host = "127.0.0.1";
  uint16_t port = 9324;  // 0: any free port
  int threads = 0;       // I/O threads; 0: DefaultIoThreads(cores)
  // Each I/O thread polls for up to this long after its work runs out
  // before it sleeps, adapting to the gaps between requests (io_loop.h);
  // 0: never polls; negative: DefaultBusyPollMicros(cores, threads).
  int busy_poll_us = -1;
  std::string account_id = "123456789012";
  // Base of the queue URLs handed out; empty: "http://" + the Host header.
  std::string public_url;
  // The form of the queue URLs handed out (url_style.h, router.h); with
  // kHost a public_url must pass PublicUrlProblem (router.h), else Start()
  // fails.
  UrlStyle url_style = UrlStyle::kPath;
  bool log_requests = false;            // one line per request on stderr
  const SigV4Verifier* auth = nullptr;  // borrowed; nullptr: no authentication
  // A second listener that serves only GET /metrics, /health and /bridges, without
  // authentication (Router::HandleOps), for scrapers and health checks that
  // cannot sign; it runs on the first I/O thread. Empty metrics_host: none.
  std::string metrics_host;
  uint16_t metrics_port = 0;  // 0: any free port
  size_t max_body_bytes = 4 << 20;
  // Regions (regions.h): the Broker serves its own region (Options::region);
  // every other region a request names is served by a database of its own
  // under <the Broker's path>/regions/<region>, opened on first use. true:
  // the Broker serves every region.
  bool single_region = false;
  size_t max_regions = 32;
  // Called when another region's database was opened (its region and path).
  std::function<void(const std::string& region, const std::string& path)> on_region_open;
  // The bridges' counters for /metrics (bridges.h); unset: none.
  std::function<std::vector<lqs::BridgeStats>()> bridge_stats;
  // lqsd --manual-clock: the clock the Broker (and so every region's) runs
  // on, read and moved through GET /_lqs/clock and POST /_lqs/clock/advance
  // (clock_endpoint.h). nullptr: those paths answer 404.
  std::shared_ptr<lqs::ManualClock> manual_clock;
  // The web console on /console (console.h, docs/console.md), protected by
  // `auth` when set. Its history (queue_history.h) samples the default
  // region's queues every console_sample_ms on a thread of its own, stamped
  // by `clock`.
  bool console = true;
  int64_t console_sample_ms = 10000;
  std::shared_ptr<lqs::Clock> clock = lqs::SystemClock::Default();
};

// The number of I/O threads when none is given: max(1, cores / 2). A
// request's work is short and CPU-bound, and the server usually shares the
// machine with its clients (a test suite, the application). Threads beyond
// the cores the clients leave free only contend: each write that meets
// another in RocksDB's write group parks and is woken through the kernel (on
// a 2-core machine with its client, 1 thread gave 1.4-1.5x the throughput of
// 4 at half the CPU per request; docs/performance.md, "Where the cost
// goes"). That holds with --durability fsync too: each thread commits its
// round of requests with one fsync (lqs/commit_scope.h), and one thread's
// rounds share an fsync better than several threads'.
int DefaultIoThreads(unsigned cores);

// The busy-polling limit when none is given: kDefaultBusyPollMicros when the
// machine has a core for each I/O thread and at least one more, so that a
// polling thread never takes the only core its clients could run on; else
// 0. On the 2-core development VM (a KVM guest whose own halt polling is
// off), polling up to 100 us raised one connection's lifecycle 1.37x and the
// producer+consumer 1.5x at the same CPU per request (docs/performance.md,
// "lqsd over HTTP"); 50 us was too short for a one-connection client's
// turnaround there.
inline constexpr int kDefaultBusyPollMicros = 100;
// The longest limit lqsd's front ends (--busy-poll-us, lqs.Server) accept.
inline constexpr int kMaxBusyPollMicros = 10000;
int DefaultBusyPollMicros(unsigned cores, int io_threads);

class Endpoint {
 public:
  // Binds host:port (and metrics_host:metrics_port, if given) and starts
  // serving on the endpoint's own threads. nullptr with *error set when an
  // address cannot be bound.
  static std::unique_ptr<Endpoint> Start(lqs::Broker* broker, const EndpointConfig& config,
                                         std::string* error);
  // Shuts down first if Shutdown() has not run.
  ~Endpoint();
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;

  // "127.0.0.1:9324" (an IPv6 host in brackets), the port as bound; the
  // number of I/O threads.
  const std::string& host_port() const;
  // The metrics listener's "HOST:PORT" as bound; empty when there is none.
  const std::string& metrics_host_port() const;
  int threads() const;
  // The busy-polling limit in use (io_loop.h); 0: off.
  int busy_poll_us() const;

  // Stops accepting connections (on both listeners), lets the requests in
  // progress finish (up to 30 s), closes the broker and the other regions'
  // databases (parked long polls are answered with no messages), lets the
  // connections drain (up to 10 s) and stops the threads. Returns the first
  // error of closing the databases. Later calls return OK.
  lqs::Status Shutdown();

 private:
  struct State;
  explicit Endpoint(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace lqsd

#endif  // LQS_SERVER_ENDPOINT_H_
