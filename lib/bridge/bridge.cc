// lib/bridge/bridge.cc — Bridge::Start: checks the options, resolves the
// credentials and the region, and runs the lanes (forward) or the loop
// (pull) on their own threads.

#include "lqs/bridge.h"

#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "lib/bridge/bridge_runtime.h"
#include "lib/bridge/http_transport.h"
#include "lib/bridge/transfer_loops.h"
#include "wire/region_name.h"
#include "wire/sqs_http_client.h"

#include "lqs/limits.h"

namespace lqs {
namespace {

constexpr int kMaxLanes = 64;

Status Invalid(const std::string& option, const std::string& value, const std::string& reason) {
  return Status(ErrorCode::kInvalidParameterValue,
                "Value " + value + " for parameter " + option + " is invalid. Reason: " + reason);
}

std::string EnvOr(const char* name, std::string fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}

bool UrlNamesFifoQueue(const std::string& url) {
  std::string path = url.substr(0, url.find_first_of("?#"));
  while (!path.empty() && path.back() == '/') path.pop_back();
  return path.ends_with(limits::kFifoQueueNameSuffix);
}

Status CheckRanges(const BridgeOptions& o) {
  if (o.max_batches_in_flight < 1 || o.max_batches_in_flight > kMaxLanes) {
    return Invalid("max_batches_in_flight", std::to_string(o.max_batches_in_flight),
                   "must be 1 to " + std::to_string(kMaxLanes) + ".");
  }
  if (o.request_timeout_seconds < 1) {
    return Invalid("request_timeout_seconds", std::to_string(o.request_timeout_seconds),
                   "must be at least 1.");
  }
  if (o.lease_seconds < 2 * o.request_timeout_seconds ||
      o.lease_seconds > limits::kMaxVisibilityTimeoutSeconds) {
    return Invalid("lease_seconds", std::to_string(o.lease_seconds),
                   "must be at least twice request_timeout_seconds and at most " +
                       std::to_string(limits::kMaxVisibilityTimeoutSeconds) + ".");
  }
  if (o.wait_time_seconds < 0 || o.wait_time_seconds > limits::kMaxWaitTimeSeconds) {
    return Invalid("wait_time_seconds", std::to_string(o.wait_time_seconds),
                   "must be 0 to " + std::to_string(limits::kMaxWaitTimeSeconds) + ".");
  }
  if (o.dedup_window_seconds < 1 || o.dedup_window_seconds > limits::kMaxInboxTtlSeconds) {
    return Invalid("dedup_window_seconds", std::to_string(o.dedup_window_seconds),
                   "must be 1 to " + std::to_string(limits::kMaxInboxTtlSeconds) + ".");
  }
  if (o.backoff_base_ms < 1 || o.backoff_max_ms < o.backoff_base_ms) {
    return Invalid("backoff_base_ms", std::to_string(o.backoff_base_ms),
                   "must be at least 1 and at most backoff_max_ms.");
  }
  if (!(o.backoff_jitter >= 0 && o.backoff_jitter <= 1)) {
    return Invalid("backoff_jitter", std::to_string(o.backoff_jitter), "must be 0 to 1.");
  }
  if (o.once_attempts < 1) {
    return Invalid("once_attempts", std::to_string(o.once_attempts), "must be at least 1.");
  }
  return Status::OK();
}

// The HTTP(S) transport of `o`: credentials and region resolved.
StatusOr<std::function<std::unique_ptr<RemoteTransport>()>> HttpTransportFor(
    const BridgeOptions& o) {
  StatusOr<wire::SqsEndpoint> endpoint = wire::ParseSqsEndpoint(o.remote_queue_url, "QueueUrl");
  if (!endpoint.ok()) return endpoint.status();
  StatusOr<RemoteCredentials> credentials =
      o.credentials ? ResolveCredentials(*o.credentials, o.profile)
                    : ResolveCredentials(RemoteCredentials{}, o.profile);
  if (!credentials.ok()) return credentials.status();
  wire::SqsHttpOptions http;
  http.ca_file = o.ca_file;
  http.timeout_seconds = o.request_timeout_seconds;
  http.user_agent = "lqs-bridge";
  if (!credentials->access_key_id.empty()) {
    wire::SigningCredentials s;
    s.access_key_id = credentials->access_key_id;
    s.secret_access_key = credentials->secret_access_key;
    s.session_token = credentials->session_token;
    s.region = !o.region.empty() ? o.region : RegionOfQueueUrl(o.remote_queue_url);
    if (s.region.empty()) s.region = EnvOr("AWS_REGION", EnvOr("AWS_DEFAULT_REGION", "us-east-1"));
    if (!wire::IsRegionName(s.region)) {
      return Invalid("region", s.region, std::string(wire::kRegionNameRule) + ".");
    }
    http.signing = std::move(s);
  }
  wire::SqsEndpoint e = std::move(*endpoint);
  return std::function<std::unique_ptr<RemoteTransport>()>(
      [e, http] { return std::unique_ptr<RemoteTransport>(new bridge::HttpTransport(e, http)); });
}

class BridgeImpl final : public Bridge {
 public:
  explicit BridgeImpl(std::unique_ptr<bridge::Runtime> rt)
      : rt_(std::move(rt)), lanes_(static_cast<size_t>(rt_->options().max_batches_in_flight)) {
    for (size_t i = 0; i < lanes_; ++i) {
      threads_.emplace_back([this] {
        if (rt_->options().direction == BridgeDirection::kForward) {
          bridge::RunForwardLane(rt_.get());
        } else {
          bridge::RunPullLoop(rt_.get());
        }
        LaneEnded();
      });
    }
  }
  ~BridgeImpl() override {
    Stop();
    Join();
  }

  void Stop() override { rt_->RequestStop(); }

  Status Wait() override {
    Join();
    return rt_->final_status();
  }

  BridgeStats Stats() const override { return rt_->Snapshot(); }

 private:
  // A `once` bridge ends when its last lane does.
  void LaneEnded() {
    std::lock_guard<std::mutex> lock(lanes_mu_);
    if (++ended_ == lanes_) rt_->RequestStop();
  }

  void Join() {
    std::lock_guard<std::mutex> lock(join_mu_);
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

  std::unique_ptr<bridge::Runtime> rt_;
  const size_t lanes_;
  std::vector<std::thread> threads_;
  std::mutex lanes_mu_;
  size_t ended_ = 0;  // guarded by lanes_mu_
  std::mutex join_mu_;
};

}  // namespace

StatusOr<std::unique_ptr<Bridge>> Bridge::Start(Broker* broker, BridgeOptions options) {
  if (Status st = CheckRanges(options); !st.ok()) return st;
  StatusOr<std::shared_ptr<Queue>> local = broker->GetQueue(options.local_queue);
  if (!local.ok()) return local.status();
  const bool remote_fifo = UrlNamesFifoQueue(options.remote_queue_url);
  if ((*local)->is_fifo() != remote_fifo) {
    return Invalid("QueueUrl", options.remote_queue_url,
                   std::string("the local queue ") + options.local_queue + " is " +
                       ((*local)->is_fifo() ? "a FIFO queue" : "a standard queue") +
                       " and the remote one " + (remote_fifo ? "is a FIFO queue" : "is not") +
                       ": a bridge joins two FIFO queues or two standard queues.");
  }
  if (!options.transport_factory) {
    auto factory = HttpTransportFor(options);
    if (!factory.ok()) return factory.status();
    options.transport_factory = std::move(*factory);
  }
  std::string name = options.direction == BridgeDirection::kForward
                         ? "forward " + options.local_queue + " -> " + options.remote_queue_url
                         : "pull " + options.remote_queue_url + " -> " + options.local_queue;
  auto rt = std::make_unique<bridge::Runtime>(std::move(options), std::move(*local),
                                              broker->options().clock, std::move(name));
  return std::unique_ptr<Bridge>(new BridgeImpl(std::move(rt)));
}

}  // namespace lqs
