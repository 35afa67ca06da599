// lib/bridge/bridge_runtime.cc — see bridge_runtime.h.

#include "lib/bridge/bridge_runtime.h"

#include <algorithm>
#include <iostream>
#include <string_view>
#include <utility>

#include "wire/sqs_codec.h"

namespace lqs::bridge {
namespace {

// Codes that say "not now" rather than "not this": throttling, server
// faults, and refusals of the caller rather than of the content (its
// credentials, its clock, a queue that is not there yet). A bridge retries
// them for as long as it runs; it never dead-letters a message for them.
bool IsRetryableCode(std::string_view code) {
  static constexpr std::string_view kCodes[] = {"ThrottlingException",
                                                "Throttling",
                                                "RequestThrottled",
                                                "ServiceUnavailable",
                                                "InternalError",
                                                "InternalFailure",
                                                "RequestTimeout",
                                                "RequestTimeoutException",
                                                "RequestLimitExceeded",
                                                "TooManyRequestsException",
                                                "KmsThrottled",
                                                "AccessDenied",
                                                "AccessDeniedException",
                                                "InvalidClientTokenId",
                                                "SignatureDoesNotMatch",
                                                "MissingAuthenticationToken",
                                                "IncompleteSignature",
                                                "ExpiredToken",
                                                "UnrecognizedClientException",
                                                "InvalidSecurity",
                                                "RequestExpired",
                                                "OptInRequired",
                                                "QueueDoesNotExist",
                                                "AWS.SimpleQueueService.NonExistentQueue",
                                                "AWS.SimpleQueueService.QueueDeletedRecently",
                                                "QueueDeletedRecently"};
  return std::find(std::begin(kCodes), std::end(kCodes), code) != std::end(kCodes);
}

}  // namespace

Outcome Classify(const StatusOr<RemoteReply>& reply) {
  Outcome out;
  if (!reply.ok()) {
    out.fault = Fault::kRetry;
    out.code = "NetworkError";
    out.message = reply.status().message();
    return out;
  }
  if (reply->http_status == 200) {
    out.body = nlohmann::ordered_json::parse(reply->body, nullptr, /*allow_exceptions=*/false);
    if (out.body.is_object()) return out;
    out.fault = Fault::kRetry;
    out.code = "MalformedAnswer";
    out.message = "the answer is not a JSON object: " + reply->body.substr(0, 200);
    return out;
  }
  const wire::codec::ErrorParts e =
      wire::codec::DecodeErrorParts(reply->http_status, reply->query_error, reply->body);
  out.code = e.code;
  out.message = e.message;
  const bool retry = reply->http_status >= 500 || reply->http_status == 429 ||
                     IsRetryableCode(e.query_code) || IsRetryableCode(e.type) ||
                     reply->http_status < 400;
  out.fault = retry ? Fault::kRetry : Fault::kRefused;
  return out;
}

Runtime::Runtime(BridgeOptions options, std::shared_ptr<Queue> local, std::shared_ptr<Clock> clock,
                 std::string name)
    : options_(std::move(options)),
      local_(std::move(local)),
      wait_(std::move(clock)),
      rng_(std::random_device{}()) {
  stats_.name = std::move(name);
  stats_.direction = options_.direction;
  stats_.running = true;
}

std::unique_ptr<RemoteTransport> Runtime::NewTransport() {
  std::unique_ptr<RemoteTransport> t = options_.transport_factory();
  std::lock_guard<std::mutex> lock(wait_.mu());
  transports_.insert(t.get());
  if (stopping_) t->Abort();
  return t;
}

void Runtime::Release(RemoteTransport* transport) {
  std::lock_guard<std::mutex> lock(wait_.mu());
  transports_.erase(transport);
}

void Runtime::RequestStop() {
  {
    std::lock_guard<std::mutex> lock(wait_.mu());
    stopping_ = true;
    for (RemoteTransport* t : transports_) t->Abort();
  }
  wait_.Notify();
}

bool Runtime::stopping() {
  std::lock_guard<std::mutex> lock(wait_.mu());
  return stopping_;
}

void Runtime::Fail(const Status& status) {
  {
    std::lock_guard<std::mutex> lock(wait_.mu());
    if (final_status_.ok()) final_status_ = status;
  }
  RequestStop();
}

Status Runtime::final_status() {
  std::lock_guard<std::mutex> lock(wait_.mu());
  return final_status_;
}

bool Runtime::Sleep(int64_t ms) {
  std::unique_lock<std::mutex> lock(wait_.mu());
  const int64_t deadline = wait_.clock().NowMillis() + ms;
  wait_.WaitUntil(lock, deadline, [this] { return stopping_; });
  return !stopping_;
}

int64_t Runtime::BackoffMs(int failures) {
  int64_t ms = options_.backoff_base_ms;
  for (int i = 1; i < failures && ms < options_.backoff_max_ms; ++i) ms *= 2;
  ms = std::min(ms, options_.backoff_max_ms);
  std::lock_guard<std::mutex> lock(wait_.mu());
  std::uniform_real_distribution<double> jitter(0.0, options_.backoff_jitter);
  return ms - static_cast<int64_t>(static_cast<double>(ms) * jitter(rng_));
}

void Runtime::Succeeded() {
  bool back = false;
  {
    std::lock_guard<std::mutex> lock(wait_.mu());
    back = offline_;
    offline_ = false;
    stats_.online = true;
    stats_.backoff_ms = 0;
    stats_.last_success_ms = wait_.clock().NowMillis();
  }
  if (back) Log(stats_.name + ": online");
}

void Runtime::Failed(const std::string& code, const std::string& message, int64_t backoff_ms) {
  bool went_offline = false;
  {
    std::lock_guard<std::mutex> lock(wait_.mu());
    went_offline = !offline_;
    offline_ = true;
    stats_.online = false;
    stats_.failures[code]++;
    stats_.backoff_ms = backoff_ms;
    stats_.last_error_ms = wait_.clock().NowMillis();
    stats_.last_error = code + (message.empty() ? "" : ": " + message);
  }
  if (went_offline)
    Log(stats_.name + ": offline (" + code + (message.empty() ? "" : ": " + message) +
        "); retrying with backoff");
}

void Runtime::Refused(const std::string& code, const std::string& message) {
  std::lock_guard<std::mutex> lock(wait_.mu());
  stats_.failures[code]++;
  stats_.last_error_ms = wait_.clock().NowMillis();
  stats_.last_error = code + (message.empty() ? "" : ": " + message);
}

void Runtime::Transferred(int64_t n) {
  std::lock_guard<std::mutex> lock(wait_.mu());
  stats_.transferred += n;
}

void Runtime::Duplicate() {
  std::lock_guard<std::mutex> lock(wait_.mu());
  stats_.duplicates++;
}

void Runtime::DeadLettered() {
  std::lock_guard<std::mutex> lock(wait_.mu());
  stats_.dead_lettered++;
}

void Runtime::Md5Mismatch() {
  std::lock_guard<std::mutex> lock(wait_.mu());
  stats_.md5_mismatches++;
  stats_.failures["MD5Mismatch"]++;
}

void Runtime::Stuck(const std::string& message_id, const std::string& code) {
  bool first = false;
  {
    std::lock_guard<std::mutex> lock(wait_.mu());
    first = stuck_ids_.insert(message_id).second;
    stats_.stuck = static_cast<int64_t>(stuck_ids_.size());
  }
  if (first) {
    Log(stats_.name + ": message " + message_id + " is stuck: the remote refuses it (" + code +
        ") and the local queue has no dead-letter queue; it stays, retried every " +
        std::to_string(options_.backoff_max_ms / 1000) + " s");
  }
}

BridgeStats Runtime::Snapshot() {
  BridgeStats out;
  {
    std::lock_guard<std::mutex> lock(wait_.mu());
    out = stats_;
    out.running = !stopping_;
  }
  StatusOr<QueueStats> q = local_->GetStats();
  if (q.ok()) {
    out.backlog = q->visible + q->delayed + q->in_flight;
    out.oldest_age_seconds = q->oldest_message_age_seconds;
  }
  return out;
}

void Runtime::Log(const std::string& line) {
  if (options_.log) {
    options_.log(line);
  } else {
    std::cerr << "lqs bridge: " << line << '\n';
  }
}

}  // namespace lqs::bridge
