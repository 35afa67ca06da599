// tools/backend.h — what the lqs CLI needs from a database, in two modes.
//
// LocalBackend opens a database directory with lqs::Broker (nothing else may
// hold it); RemoteBackend talks to a running lqsd over the SQS JSON 1.0
// protocol. Every command is written against this interface, so every command
// works in both modes, except where a mode cannot offer an operation (remote:
// ScanMessages, the counters of GetStats, Verify, CompactAll), which then
// fails with UnsupportedOperation and a message saying so.
//
// Queues are addressed by name in both modes.

#ifndef LQS_TOOLS_BACKEND_H_
#define LQS_TOOLS_BACKEND_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "wire/sigv4.h"
#include "wire/sqs_codec.h"

#include "lqs/broker.h"
#include "lqs/status.h"
#include "lqs/types.h"

namespace lqs_cli {

// The SQS JSON protocol's client codec (wire/sqs_codec.h).
namespace codec = lqs::wire::codec;

using lqs::Status;
using lqs::StatusOr;

// QueueStats plus what a mode could not measure.
struct Stats {
  lqs::QueueStats stats;
  bool has_counters = true;    // sent/received/... totals (local only)
  bool has_oldest_age = true;  // oldest_message_age_seconds (local only)
};

class Backend {
 public:
  virtual ~Backend() = default;

  // "local /path/to/db" or "remote http://host:port".
  virtual std::string Describe() const = 0;
  virtual bool IsRemote() const = 0;
  // Local mode: the open Broker (borrowed; bridges run on it). Remote: null.
  virtual lqs::Broker* broker() { return nullptr; }

  // ---- Queues ------------------------------------------------------------------
  // Returns the queue URL (remote) or name (local).
  virtual StatusOr<std::string> CreateQueue(const std::string& name,
                                            const lqs::AttributeMap& attributes,
                                            const lqs::TagMap& tags) = 0;
  virtual Status DeleteQueue(const std::string& name) = 0;
  // Names (not URLs), one page.
  virtual StatusOr<lqs::ListQueuesResult> ListQueues(const lqs::ListQueuesRequest& request) = 0;
  virtual StatusOr<lqs::ListQueuesResult> ListDeadLetterSourceQueues(
      const std::string& dlq, const lqs::ListQueuesRequest& request) = 0;
  virtual StatusOr<lqs::AttributeMap> GetAttributes(const std::string& queue,
                                                    const std::vector<std::string>& names) = 0;
  virtual Status SetAttributes(const std::string& queue, const lqs::AttributeMap& attributes) = 0;
  virtual Status TagQueue(const std::string& queue, const lqs::TagMap& tags) = 0;
  virtual Status UntagQueue(const std::string& queue, const std::vector<std::string>& keys) = 0;
  virtual StatusOr<lqs::TagMap> ListQueueTags(const std::string& queue) = 0;
  virtual StatusOr<std::string> QueueArn(const std::string& queue) = 0;

  // ---- Messages ------------------------------------------------------------------
  virtual StatusOr<lqs::SendMessageResult> SendMessage(const std::string& queue,
                                                       const lqs::SendMessageRequest& request) = 0;
  virtual StatusOr<lqs::SendMessageBatchResult> SendMessageBatch(
      const std::string& queue, const std::vector<lqs::SendMessageBatchEntry>& entries) = 0;
  virtual StatusOr<lqs::ReceiveMessageResult> ReceiveMessage(
      const std::string& queue, const lqs::ReceiveMessageRequest& request) = 0;
  virtual Status DeleteMessage(const std::string& queue, const std::string& receipt_handle) = 0;
  virtual StatusOr<lqs::BatchResult> DeleteMessageBatch(
      const std::string& queue, const std::vector<lqs::DeleteMessageBatchEntry>& entries) = 0;
  virtual Status ChangeMessageVisibility(const std::string& queue,
                                         const std::string& receipt_handle, int timeout) = 0;
  virtual Status PurgeQueue(const std::string& queue) = 0;

  // ---- Operations ----------------------------------------------------------------
  virtual StatusOr<Stats> GetStats(const std::string& queue) = 0;
  // Looks at messages without leasing them (Queue::ScanMessages).
  virtual Status ScanMessages(const std::string& queue,
                              const std::function<bool(const lqs::StoredMessage&)>& fn) = 0;

  // The bridges the server runs (lqsd's GET /bridges), each in the JSON shape
  // of wire/bridge_stats_json.h. None for a local database (a bridge runs in
  // the process that started it, and `lqs forward`/`lqs pull` print their
  // own) and for an endpoint that does not serve /bridges (not lqsd).
  // Errors: kIOError when the endpoint does not answer.
  virtual StatusOr<std::vector<codec::Json>> Bridges() { return std::vector<codec::Json>(); }

  // ---- Message move tasks --------------------------------------------------------
  virtual StatusOr<std::string> StartMessageMoveTask(
      const lqs::StartMessageMoveTaskRequest& request) = 0;
  virtual StatusOr<int64_t> CancelMessageMoveTask(const std::string& task_handle) = 0;
  virtual StatusOr<std::vector<lqs::MessageMoveTask>> ListMessageMoveTasks(
      const std::string& source_arn, int max_results) = 0;

  // ---- Maintenance ---------------------------------------------------------------
  virtual StatusOr<std::vector<std::string>> Verify() = 0;
  virtual Status CompactAll() = 0;
  virtual Status Close() = 0;
};

struct LocalOptions {
  std::string path;
  bool create_if_missing = true;
  std::string durability;      // "", "none", "process", "fsync"
  std::string region;          // of the queue ARNs; empty: lqs::Options' default
  std::string account_id;      // of the queue ARNs; empty: lqs::Options' default
  int64_t max_disk_bytes = 0;  // lqs::Options::max_disk_bytes (0: no budget)
  // Move tasks advance in the Broker's background thread; a short interval
  // keeps `redrive start --wait` responsive.
  int64_t maintenance_interval_ms = 200;
};
StatusOr<std::unique_ptr<Backend>> OpenLocal(const LocalOptions& options);

struct RemoteOptions {
  std::string endpoint;      // http(s)://host[:port]
  int timeout_seconds = 60;  // per request, beyond any long-poll wait
  std::string ca_file;       // HTTPS: a CA trusted besides the system's
  // Signs every request with SigV4 when set (lqsd then serves the queues of
  // signing->region, and checks the signature when it runs with
  // --auth-file); unsigned requests get lqsd's default region.
  std::optional<lqs::wire::SigningCredentials> signing;
};
StatusOr<std::unique_ptr<Backend>> OpenRemote(const RemoteOptions& options);

// Every page of ListQueues (prefix filter), in name order.
StatusOr<std::vector<std::string>> ListAllQueues(Backend& backend, const std::string& prefix);

}  // namespace lqs_cli

#endif  // LQS_TOOLS_BACKEND_H_
