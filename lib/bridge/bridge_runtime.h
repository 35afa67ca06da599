// lib/bridge/bridge_runtime.h — what the threads of one bridge share: its
// options, its clock, stopping, the backoff between retries, and its
// counters (BridgeStats). Also how a remote answer is classified.
//
// The forward lanes and the pull loops (transfer_loops.h) run on it;
// lib/bridge/bridge.cc owns it.
//
// Thread safety: every method is thread-safe.

#ifndef LQS_LIB_BRIDGE_BRIDGE_RUNTIME_H_
#define LQS_LIB_BRIDGE_BRIDGE_RUNTIME_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "lib/worker/clock_wait.h"

#include "lqs/bridge.h"
#include "lqs/queue.h"

namespace lqs::bridge {

// What an exchange with the remote means for the bridge.
enum class Fault {
  kNone,     // an answer to read (`body`)
  kRetry,    // no answer, a server fault, throttling, or the remote refuses
             // us (credentials, a missing queue): try again later
  kRefused,  // the remote refuses this request's content: retrying it as it
             // is cannot succeed
};

struct Outcome {
  Fault fault = Fault::kNone;
  std::string code;  // "NetworkError", an SQS error code, or "HTTP <status>"
  std::string message;
  nlohmann::ordered_json body;  // kNone: the answer, a JSON object
};

Outcome Classify(const StatusOr<RemoteReply>& reply);

class Runtime {
 public:
  // REQUIRES: options.transport_factory is set.
  Runtime(BridgeOptions options, std::shared_ptr<Queue> local, std::shared_ptr<Clock> clock,
          std::string name);

  const BridgeOptions& options() const { return options_; }
  Queue& local() { return *local_; }
  Clock& clock() { return wait_.clock(); }
  int64_t NowMillis() { return wait_.clock().NowMillis(); }

  // A new transport for one thread; registered so that Stop() aborts it.
  // The caller hands it back with Release() before destroying it.
  std::unique_ptr<RemoteTransport> NewTransport();
  void Release(RemoteTransport* transport);

  // ---- Stopping ----
  void RequestStop();
  bool stopping();
  // REQUIRES: wait().mu() held (inside a WaitUntil condition).
  bool StoppingLocked() const { return stopping_; }
  // Ends the bridge with `status` (a `once` bridge that gave up) and stops.
  void Fail(const Status& status);
  Status final_status();

  // Waits `ms` of the bridge's clock; false when the bridge is stopping.
  bool Sleep(int64_t ms);
  // The wait after `failures` failures in a row (>= 1), with jitter.
  int64_t BackoffMs(int failures);
  // Runs `done`-driven waits for a local receive (ClockWait's contract).
  worker::ClockWait& wait() { return wait_; }

  // ---- Counters ----
  // An exchange succeeded: online, the backoff ends.
  void Succeeded();
  // An exchange failed with `code`; `backoff_ms` is the wait before the
  // next try. Logs a line when the bridge goes offline.
  void Failed(const std::string& code, const std::string& message, int64_t backoff_ms);
  // A refusal of one message by the remote (or by the local queue, pulling).
  void Refused(const std::string& code, const std::string& message);
  void Transferred(int64_t n);
  void Duplicate();
  void DeadLettered();
  // A message kept locally after a refusal, for lack of a DLQ; logged once
  // per message id.
  void Stuck(const std::string& message_id, const std::string& code);
  void Md5Mismatch();

  BridgeStats Snapshot();
  void Log(const std::string& line);

 private:
  const BridgeOptions options_;
  const std::shared_ptr<Queue> local_;
  worker::ClockWait wait_;  // its mu() guards the state below

  bool stopping_ = false;
  bool offline_ = false;  // an exchange failed since the last success (logged)
  Status final_status_;
  std::set<RemoteTransport*> transports_;
  std::mt19937_64 rng_;
  BridgeStats stats_;
  std::set<std::string> stuck_ids_;
};

}  // namespace lqs::bridge

#endif  // LQS_LIB_BRIDGE_BRIDGE_RUNTIME_H_
