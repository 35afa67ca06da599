// lqs/bridge.h — bridges between a local queue and a remote SQS queue.
//
// A forward bridge drains a local queue into a remote queue: it leases
// messages locally, sends them with SendMessageBatch, and deletes a local
// message only after the remote acknowledged that entry with the same
// MD5OfMessageBody (and MD5OfMessageAttributes, MD5OfMessageSystemAttributes).
// A pull bridge drains a remote queue into a local one: it long-polls the
// remote, sends each receive's messages to the local queue durably,
// recording their remote MessageIds in the same write
// (Queue::SendMessagesAndRecord), and only then deletes them remotely. The remote is any endpoint
// that speaks SQS's JSON 1.0 protocol: Amazon SQS (HTTPS, SigV4) or another lqsd.
//
// Delivery is at least once. What can be duplicated, what is never lost and
// how failures are handled: docs/bridge.md.
//
// Ownership: a Bridge borrows its Broker, which must outlive it.
// Thread safety: a Bridge runs its own threads; Stop(), Wait() and Stats()
// may be called from any thread, concurrently.
// Errors: Start() fails with QueueDoesNotExist (the local queue),
// InvalidParameterValue naming the option (a malformed URL, a FIFO/standard
// mismatch between the two queues, an out-of-range setting) and kIOError
// (an unreadable credentials or CA file). Failures while running are
// retried, counted in Stats() and never end the bridge, except in `once`
// mode, where Wait() reports why the remote could not be reached.

#ifndef LQS_BRIDGE_H_
#define LQS_BRIDGE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "lqs/broker.h"
#include "lqs/status.h"

namespace lqs {

// An access key, as the AWS SDKs use it.
struct RemoteCredentials {
  std::string access_key_id;  // empty: requests are not signed
  std::string secret_access_key;
  std::string session_token;  // empty: none
  std::string source;         // where they came from, for messages ("environment", ...)
};

// Finds credentials where the AWS SDKs look, in this order: `explicit_key`
// when it has an access key id (a flag); the AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN environment variables; the
// shared credentials file (AWS_SHARED_CREDENTIALS_FILE, else
// ~/.aws/credentials) at `profile`, else AWS_PROFILE, else "default".
// Nothing found: empty credentials (unsigned requests, as an lqsd without
// --auth-file accepts). Errors: InvalidParameterValue when a source has an
// access key id without a secret, or the named profile is missing.
StatusOr<RemoteCredentials> ResolveCredentials(const RemoteCredentials& explicit_key,
                                               const std::string& profile = "");

// The region of an SQS queue URL's host: "eu-west-1" for
// https://sqs.eu-west-1.amazonaws.com/..., else empty.
std::string RegionOfQueueUrl(std::string_view url);

// One answer of a remote endpoint to one request.
struct RemoteReply {
  int http_status = 0;
  std::string query_error;  // the x-amzn-query-error header, if any
  std::string body;         // JSON
};

// How a bridge reaches the remote. The default speaks HTTP(S) with SigV4;
// tests and embedders may give their own. Each bridge thread has its own.
class RemoteTransport {
 public:
  virtual ~RemoteTransport() = default;
  // Sends SQS action `action` with JSON 1.0 input `payload`. A request that
  // got no answer (network, timeout) is a non-OK Status (kIOError).
  // `extra_seconds` lengthens the timeout (a long poll).
  virtual StatusOr<RemoteReply> Call(std::string_view action, const std::string& payload,
                                     int extra_seconds) = 0;
  // Called from another thread when the bridge stops: ends a Call in
  // progress (a long poll) and fails later ones. Default: nothing (the Call
  // ends when it ends).
  virtual void Abort() {}
};

enum class BridgeDirection { kForward, kPull };

struct BridgeOptions {
  BridgeDirection direction = BridgeDirection::kForward;
  std::string local_queue;       // a queue of the Broker; must exist
  std::string remote_queue_url;  // http(s)://HOST[:PORT]/ACCOUNT/NAME

  // ---- Reaching the remote ----
  // Empty: RegionOfQueueUrl, else AWS_REGION, AWS_DEFAULT_REGION, us-east-1.
  std::string region;
  // Unset: ResolveCredentials({}, profile).
  std::optional<RemoteCredentials> credentials;
  std::string profile;
  std::string ca_file;  // HTTPS: a CA trusted besides the system's
  int request_timeout_seconds = 30;
  // Unset: HTTP(S) to the queue URL's endpoint.
  std::function<std::unique_ptr<RemoteTransport>()> transport_factory;

  // ---- Retries: after the n-th failure in a row, wait
  // min(backoff_max, backoff_base * 2^(n-1)), less up to `backoff_jitter` of it.
  int64_t backoff_base_ms = 250;
  int64_t backoff_max_ms = 300'000;
  double backoff_jitter = 0.5;  // 0..1

  // Batches in flight at once, 1..64: forward lanes, or pull loops (each its
  // own thread and connection). FIFO queues keep each group's order at any
  // value: forward, a group's next message is not leased locally before the
  // previous one is deleted or released; pull, the remote FIFO queue does
  // not deliver it before the previous one is deleted remotely.
  int max_batches_in_flight = 4;

  // ---- Forward ----
  // The local lease of a message being forwarded; renewed while a batch is
  // retried. At least 2 * request_timeout_seconds.
  int lease_seconds = 120;

  // ---- Pull ----
  int wait_time_seconds = 20;  // the remote long poll, 0..20
  // How long a pulled MessageId is remembered locally to drop a
  // redelivery. The bridge uses at least the remote queue's
  // VisibilityTimeout plus a minute, when it can read it.
  int64_t dedup_window_seconds = 3600;

  // ---- Once ----
  // Drain what is there and end (Wait() returns): forward, until the local
  // queue has no visible message; pull, until a receive comes back empty.
  // After `once_attempts` failures in a row the bridge ends with the error.
  bool once = false;
  int once_attempts = 4;

  // One line on each online/offline transition, and on a stuck message.
  // Unset: standard error.
  std::function<void(std::string_view line)> log;
};

struct BridgeStats {
  std::string name;  // "forward jobs -> URL" / "pull URL -> jobs"
  BridgeDirection direction = BridgeDirection::kForward;
  bool running = false;
  bool online = false;         // the last exchange with the remote succeeded
  int64_t transferred = 0;     // forwarded (deleted locally) or pulled (sent locally)
  int64_t duplicates = 0;      // pull: redeliveries dropped by the local record
  int64_t dead_lettered = 0;   // forward: refused for good, moved to the local DLQ
  int64_t stuck = 0;           // forward: refused for good, no DLQ: kept, retried slowly
  int64_t md5_mismatches = 0;  // an acknowledgement whose digest was not ours
  std::map<std::string, int64_t> failures;  // by error code (network: "NetworkError")
  int64_t backoff_ms = 0;                   // the current wait, 0 when none
  int64_t last_success_ms = 0;              // clock time; 0: never
  int64_t last_error_ms = 0;
  std::string last_error;
  int64_t backlog = 0;  // the local queue: visible + delayed + in flight
  int64_t oldest_age_seconds = 0;
};

class Bridge {
 public:
  static StatusOr<std::unique_ptr<Bridge>> Start(Broker* broker, BridgeOptions options);
  virtual ~Bridge() = default;

  // Ends the bridge: in-flight requests finish or time out, messages leased
  // locally and not forwarded are released (visible again). Idempotent.
  virtual void Stop() = 0;
  // Blocks until the bridge ends (a `once` drain, or Stop()); OK when it
  // ended normally, else why the remote could not be reached.
  virtual Status Wait() = 0;
  virtual BridgeStats Stats() const = 0;
};

}  // namespace lqs

#endif  // LQS_BRIDGE_H_
