// The C API's bridges (include/lqs/c_bridge.h): lqs::Bridge behind opaque
// handles. The options hold an lqs::BridgeOptions and the C direction (an
// int, checked at start); the log callback is wrapped in a std::function
// that copies the line to NUL-terminate it. Every entry point catches all
// exceptions.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "lib/c_internal.h"
#include "wire/bridge_stats_json.h"

#include "lqs/bridge.h"
#include "lqs/c.h"

struct lqs_bridge_options_t {
  lqs::BridgeOptions rep;
  int direction = LQS_BRIDGE_FORWARD;
};

struct lqs_bridge_t {
  std::shared_ptr<lqs::Broker> broker;  // keeps the broker's memory alive
  std::unique_ptr<lqs::Bridge> rep;     // destroyed first: stops and joins
  std::string name;                     // lqs_bridge_name's, fixed at start
};

namespace {

// The C++ options of `o` (NULL: the defaults) with the C direction applied.
lqs::StatusOr<lqs::BridgeOptions> ToBridgeOptions(const lqs_bridge_options_t* o) {
  if (o == nullptr) return lqs::BridgeOptions();
  lqs::BridgeOptions out = o->rep;
  switch (o->direction) {
    case LQS_BRIDGE_FORWARD:
      out.direction = lqs::BridgeDirection::kForward;
      break;
    case LQS_BRIDGE_PULL:
      out.direction = lqs::BridgeDirection::kPull;
      break;
    default:
      return lqs::Status(lqs::ErrorCode::kInvalidParameterValue,
                         "Value " + std::to_string(o->direction) +
                             " for parameter direction is invalid. Reason: must be "
                             "LQS_BRIDGE_FORWARD (0) or LQS_BRIDGE_PULL (1).");
  }
  return out;
}

// A snapshot, or the defaults (zeros) when taking one throws.
lqs::BridgeStats Snapshot(const lqs_bridge_t* b) {
  lqs::BridgeStats s;
  IgnoreErrors([&] { s = b->rep->Stats(); });
  return s;
}

}  // namespace

extern "C" {

// ---- Options ------------------------------------------------------------------------

lqs_bridge_options_t* lqs_bridge_options_create(void) { return NewOrNull<lqs_bridge_options_t>(); }
void lqs_bridge_options_destroy(lqs_bridge_options_t* o) { delete o; }
void lqs_bridge_options_set_direction(lqs_bridge_options_t* o, int direction) {
  o->direction = direction;
}
// The string setters have no errptr: out of memory stores "", which start
// then rejects (or, for the optional ones, treats as unset).
LQS_C_STRING_SETTER(lqs_bridge_options, local_queue)
LQS_C_STRING_SETTER(lqs_bridge_options, remote_queue_url)
LQS_C_STRING_SETTER(lqs_bridge_options, region)
void lqs_bridge_options_set_credentials(lqs_bridge_options_t* o, const char* access_key_id,
                                        const char* secret_access_key, const char* session_token) {
  if (access_key_id == nullptr) {
    o->rep.credentials.reset();
    return;
  }
  IgnoreErrors([&] {
    o->rep.credentials =
        lqs::RemoteCredentials{Str(access_key_id), Str(secret_access_key), Str(session_token),
                               "lqs_bridge_options_set_credentials"};
  });
}
LQS_C_STRING_SETTER(lqs_bridge_options, profile)
LQS_C_STRING_SETTER(lqs_bridge_options, ca_file)
LQS_C_SETTER(lqs_bridge_options, request_timeout_seconds, int)
LQS_C_SETTER(lqs_bridge_options, backoff_base_ms, int64_t)
LQS_C_SETTER(lqs_bridge_options, backoff_max_ms, int64_t)
LQS_C_SETTER(lqs_bridge_options, backoff_jitter, double)
LQS_C_SETTER(lqs_bridge_options, max_batches_in_flight, int)
LQS_C_SETTER(lqs_bridge_options, lease_seconds, int)
LQS_C_SETTER(lqs_bridge_options, wait_time_seconds, int)
LQS_C_SETTER(lqs_bridge_options, dedup_window_seconds, int64_t)
LQS_C_FLAG_SETTER(lqs_bridge_options, once)
LQS_C_SETTER(lqs_bridge_options, once_attempts, int)
void lqs_bridge_options_set_logger(lqs_bridge_options_t* o, lqs_bridge_logger_t logger,
                                   void* user) {
  if (logger == nullptr) {
    o->rep.log = nullptr;
    return;
  }
  // A line that cannot be copied (out of memory) is dropped.
  o->rep.log = [logger, user](std::string_view line) {
    IgnoreErrors([&] {
      const std::string copy(line);
      logger(copy.c_str(), user);
    });
  };
}

// ---- The bridge -----------------------------------------------------------------------

int lqs_bridge_start(lqs_broker_t* broker, const lqs_bridge_options_t* options,
                     lqs_bridge_t** bridge, char** errptr) {
  return Guard(errptr, [&]() -> int {
    LQS_REQUIRE(broker != nullptr && broker->rep != nullptr, "broker must not be NULL");
    LQS_REQUIRE(bridge != nullptr, "bridge must not be NULL");
    lqs::StatusOr<lqs::BridgeOptions> o = ToBridgeOptions(options);
    if (!o.ok()) return SaveError(o.status(), errptr);
    auto started = lqs::Bridge::Start(broker->rep.get(), std::move(*o));
    if (!started.ok()) return SaveError(started.status(), errptr);
    auto out = std::make_unique<lqs_bridge_t>();
    out->broker = broker->rep;
    out->rep = std::move(*started);
    out->name = out->rep->Stats().name;
    *bridge = out.release();
    return LQS_OK;
  });
}

void lqs_bridge_stop(lqs_bridge_t* bridge) {
  if (bridge == nullptr) return;
  IgnoreErrors([&] { bridge->rep->Stop(); });
}

int lqs_bridge_wait(lqs_bridge_t* bridge, char** errptr) {
  return Guard(errptr, [&]() -> int {
    LQS_REQUIRE(bridge != nullptr, "bridge must not be NULL");
    return SaveError(bridge->rep->Wait(), errptr);
  });
}

void lqs_bridge_get_stats(const lqs_bridge_t* bridge, lqs_bridge_stats_t* stats) {
  if (bridge == nullptr || stats == nullptr) return;
  const lqs::BridgeStats s = Snapshot(bridge);
  int64_t failures = 0;
  for (const auto& entry : s.failures) failures += entry.second;
  *stats = lqs_bridge_stats_t{
      s.direction == lqs::BridgeDirection::kPull ? LQS_BRIDGE_PULL : LQS_BRIDGE_FORWARD,
      s.running ? 1 : 0,
      s.online ? 1 : 0,
      s.transferred,
      s.duplicates,
      s.dead_lettered,
      s.stuck,
      s.md5_mismatches,
      failures,
      s.backoff_ms,
      s.last_success_ms,
      s.last_error_ms,
      s.backlog,
      s.oldest_age_seconds};
}

const char* lqs_bridge_name(const lqs_bridge_t* bridge) {
  return bridge == nullptr ? "" : bridge->name.c_str();
}

char* lqs_bridge_last_error(const lqs_bridge_t* bridge) {
  if (bridge == nullptr) return nullptr;
  return OrElse<char*>(nullptr, [&] { return CopyString(Snapshot(bridge).last_error); });
}

lqs_strmap_t* lqs_bridge_failures(const lqs_bridge_t* bridge) {
  if (bridge == nullptr) return nullptr;
  return OrElse<lqs_strmap_t*>(nullptr, [&] {
    std::map<std::string, std::string> counts;
    for (const auto& [code, n] : Snapshot(bridge).failures) counts[code] = std::to_string(n);
    return lqs::c_internal::NewMap(counts);
  });
}

char* lqs_bridge_stats_json(const lqs_bridge_t* bridge) {
  if (bridge == nullptr) return nullptr;
  return OrElse<char*>(
      nullptr, [&] { return CopyString(lqs::wire::BridgeStatsJson(Snapshot(bridge)).dump()); });
}

void lqs_bridge_destroy(lqs_bridge_t* bridge) { delete bridge; }

}  // extern "C"
