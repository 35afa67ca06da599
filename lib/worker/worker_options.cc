#include "lib/worker/worker_options.h"

#include <cmath>
#include <sstream>
#include <string>

#include "lib/worker/worker_message.h"

#include "lqs/limits.h"

namespace lqs::worker {

namespace {

template <typename T>
Status Invalid(const char* option, T value, const std::string& rule) {
  std::ostringstream text;
  text << "Value " << value << " for parameter WorkerOptions." << option
       << " is invalid. Reason: " << rule;
  return Status(ErrorCode::kInvalidParameterValue, text.str());
}

template <typename T>
Status Range(const char* option, T value, T lo, T hi) {
  if (value >= lo && value <= hi) return Status::OK();
  std::ostringstream rule;
  rule << "Must be between " << lo << " and " << hi << ".";
  return Invalid(option, value, rule.str());
}

Status Rate(const char* option, double value) {
  if (std::isfinite(value) && value >= 0 && value <= 1e9) return Status::OK();
  return Invalid(option, value,
                 "Must be 0 (no limit) or a positive number of messages per second.");
}

}  // namespace

int EffectiveMaxInProgress(const WorkerOptions& o) {
  return o.max_in_progress > 0 ? o.max_in_progress : o.concurrency + o.max_messages_per_receive;
}

Status ValidateOptions(const WorkerOptions& o) {
  for (Status st : {
           Range("max_messages_per_receive", o.max_messages_per_receive, 1,
                 limits::kMaxReceiveMessages),
           Range("wait_time_seconds", o.wait_time_seconds, 0, limits::kMaxWaitTimeSeconds),
           Range("visibility_timeout_seconds", o.visibility_timeout_seconds, 1,
                 limits::kMaxVisibilityTimeoutSeconds),
           Range("concurrency", o.concurrency, 1, 4096),
           Range("max_in_progress", o.max_in_progress, 0, 1000000),
           Rate("rate_limit_per_second", o.rate_limit_per_second),
           Rate("rate_limit_per_group_per_second", o.rate_limit_per_group_per_second),
           Range("backoff_base_seconds", o.backoff_base_seconds, 0,
                 limits::kMaxVisibilityTimeoutSeconds),
           Range("backoff_max_seconds", o.backoff_max_seconds, 0,
                 limits::kMaxVisibilityTimeoutSeconds),
           Range("inbox_ttl_seconds", o.inbox_ttl_seconds, int64_t{1}, limits::kMaxInboxTtlSeconds),
       }) {
    if (!st.ok()) return st;
  }
  if (o.backoff_max_seconds < o.backoff_base_seconds) {
    return Invalid(
        "backoff_max_seconds", o.backoff_max_seconds,
        "Must be at least backoff_base_seconds (" + std::to_string(o.backoff_base_seconds) + ").");
  }
  if (!(o.backoff_jitter >= 0 && o.backoff_jitter <= 1)) {
    return Invalid("backoff_jitter", o.backoff_jitter, "Must be between 0 and 1.");
  }
  if (std::string why = CheckAttributeName(o.error_attribute); !why.empty()) {
    return Invalid("error_attribute", "'" + o.error_attribute + "'", "The name " + why + ".");
  }
  if (std::string why = CheckAttributeName(o.idempotency_attribute); !why.empty()) {
    return Invalid("idempotency_attribute", "'" + o.idempotency_attribute + "'",
                   "The name " + why + ".");
  }
  if (o.clock == nullptr) {
    return Status(ErrorCode::kInvalidParameterValue,
                  "WorkerOptions.clock is invalid. Reason: Must not be null (pass the Broker's "
                  "clock).");
  }
  return Status::OK();
}

}  // namespace lqs::worker
