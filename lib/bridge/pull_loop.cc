// lib/bridge/pull_loop.cc — a pull bridge's loops (see transfer_loops.h).

#include <algorithm>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "lib/api/md5.h"
#include "lib/bridge/transfer_loops.h"
#include "wire/sqs_codec.h"

#include "lqs/attributes.h"
#include "lqs/limits.h"

namespace lqs::bridge {
namespace {

// In `once` mode a short wait: long enough that an endpoint which samples
// on short polls (Amazon SQS) answers with what it has.
constexpr int kOnceWaitSeconds = 2;

// Deletes stored messages remotely on a thread and a connection of its own,
// so that a loop asks for its next messages while the last ones are being
// deleted: one HTTP round trip per ten messages on the loop's path instead
// of two. One delete at a time: Submit() waits for the previous one.
//
// Thread safety: Submit() and WaitIdle() are called by the loop's thread.
class DeleteAhead {
 public:
  explicit DeleteAhead(Runtime* rt) : rt_(rt), transport_(rt->NewTransport()) {
    thread_ = std::thread([this] { Run(); });
  }
  // Finishes the delete in progress (Stop() aborts its exchange) and drops
  // one not yet started, when the bridge is stopping: the remote delivers
  // those messages again and their records drop them.
  ~DeleteAhead() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      quit_ = true;
    }
    cv_.notify_all();
    thread_.join();
    rt_->Release(transport_.get());
  }
  DeleteAhead(const DeleteAhead&) = delete;
  DeleteAhead& operator=(const DeleteAhead&) = delete;

  // Hands `entries` (stored locally, deleted remotely next) to the thread.
  void Submit(std::vector<DeleteMessageBatchEntry> entries) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return !next_.has_value(); });
    next_ = std::move(entries);
    since_idle_ = true;
    cv_.notify_all();
  }

  // Waits until no delete is queued or in progress. True when one was
  // submitted since the last call: the remote may hold back what it would
  // deliver next (a FIFO group's next message) until that delete ended.
  bool WaitIdle() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return !next_.has_value() && !busy_; });
    return std::exchange(since_idle_, false);
  }

 private:
  void Run() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [this] { return quit_ || next_.has_value(); });
      if (!next_.has_value() || (quit_ && rt_->stopping())) return;
      std::vector<DeleteMessageBatchEntry> entries = std::move(*next_);
      next_.reset();
      busy_ = true;
      lock.unlock();
      cv_.notify_all();
      Delete(entries);
      lock.lock();
      busy_ = false;
      cv_.notify_all();
    }
  }

  void Delete(const std::vector<DeleteMessageBatchEntry>& entries) {
    const std::string payload =
        wire::codec::EncodeDeleteMessageBatch(rt_->options().remote_queue_url, entries).dump();
    Outcome o = Classify(transport_->Call("DeleteMessageBatch", payload, 0));
    if (o.fault != Fault::kNone) {
      // Stored locally; the remote delivers them again and the records
      // drop them then. A delete that Stop() cut short is no refusal.
      if (!rt_->stopping()) rt_->Refused(o.code, o.message);
      return;
    }
    for (const BatchResultError& f : wire::codec::DecodeBatchResult(o.body).failed) {
      rt_->Refused(f.code, f.message);
    }
  }

  Runtime* const rt_;
  const std::unique_ptr<RemoteTransport> transport_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<std::vector<DeleteMessageBatchEntry>> next_;  // guarded by mu_
  bool busy_ = false;                                         // guarded by mu_
  bool since_idle_ = false;  // guarded by mu_; only the loop reads it
  bool quit_ = false;        // guarded by mu_
  std::thread thread_;
};

class PullLoop {
 public:
  explicit PullLoop(Runtime* rt)
      : rt_(rt), q_(rt->local()), transport_(rt->NewTransport()), deletes_(rt) {}
  ~PullLoop() { rt_->Release(transport_.get()); }
  PullLoop(const PullLoop&) = delete;
  PullLoop& operator=(const PullLoop&) = delete;

  void Run() {
    const BridgeOptions& o = rt_->options();
    int failures = 0;
    bool window_known = false;
    while (!rt_->stopping()) {
      // A closed Broker ends the bridge even when nothing arrives to store.
      if (StatusOr<QueueStats> local = q_.GetStats();
          !local.ok() && local.status().code() == ErrorCode::kClosed) {
        return rt_->RequestStop();
      }
      if (!window_known) window_known = LearnDedupWindow();
      const int wait =
          o.once ? std::min(kOnceWaitSeconds, o.wait_time_seconds) : o.wait_time_seconds;
      ReceiveMessageRequest req;
      req.max_number_of_messages = limits::kMaxReceiveMessages;
      req.wait_time_seconds = wait;
      req.message_system_attribute_names = {"All"};
      req.message_attribute_names = {"All"};
      const std::string payload = wire::codec::EncodeReceiveMessage(o.remote_queue_url, req).dump();
      Outcome got = Classify(transport_->Call("ReceiveMessage", payload, wait));
      if (got.fault == Fault::kNone) {
        StatusOr<ReceiveMessageResult> r = wire::codec::DecodeReceiveMessage(got.body);
        if (!r.ok()) {
          got.fault = Fault::kRetry;
          got.code = "MalformedAnswer";
          got.message = r.status().message();
        } else {
          rt_->Succeeded();
          failures = 0;
          if (r->messages.empty()) {
            if (deletes_.WaitIdle()) continue;  // ask again once that delete ended
            if (o.once) return;
            // A short poll (wait 0) that found nothing waits a second
            // rather than asking again at once.
            if (wait == 0 && !rt_->Sleep(1000)) return;
            continue;
          }
          if (!Store(r->messages)) {
            // The local queue refused (its disk is full, it was deleted):
            // wait, as for the remote.
            const int64_t backoff = rt_->BackoffMs(++failures);
            if (!rt_->Sleep(backoff)) return;
          }
          continue;
        }
      }
      // A long poll that Stop() cut short is not a failure of the remote.
      if (rt_->stopping()) return;
      // No messages this time: the remote is unreachable or refuses us.
      ++failures;
      const int64_t backoff = rt_->BackoffMs(failures);
      rt_->Failed(got.code, got.message, backoff);
      if (o.once && failures >= o.once_attempts) {
        return rt_->Fail(
            Status(ErrorCode::kIOError, "the remote queue could not be reached after " +
                                            std::to_string(failures) + " attempts: " + got.code +
                                            ": " + got.message));
      }
      if (!rt_->Sleep(backoff)) return;
    }
  }

 private:
  // Reads the remote VisibilityTimeout: the records must outlive it.
  bool LearnDedupWindow() {
    const std::string payload = nlohmann::ordered_json{
        {"QueueUrl", rt_->options().remote_queue_url},
        {"AttributeNames",
         {"VisibilityTimeout"}}}.dump();
    Outcome o = Classify(transport_->Call("GetQueueAttributes", payload, 0));
    if (o.fault != Fault::kNone) return false;
    const std::map<std::string, std::string> a = wire::codec::DecodeStringMap(o.body, "Attributes");
    if (auto it = a.find("VisibilityTimeout"); it != a.end()) {
      const int64_t vt = std::strtoll(it->second.c_str(), nullptr, 10);
      ttl_seconds_ = std::max(ttl_seconds_, vt + 60);
    }
    return true;
  }

  SendMessageRequest LocalSend(const ReceivedMessage& m) {
    SendMessageRequest req;
    req.body = m.body;
    req.message_attributes = m.message_attributes;
    if (auto trace = m.attributes.find(std::string(attr::kAWSTraceHeader));
        trace != m.attributes.end()) {
      req.message_system_attributes[std::string(attr::kAWSTraceHeader)] =
          MessageAttributeValue{"String", trace->second, ""};
    }
    if (q_.is_fifo()) {
      auto g = m.attributes.find("MessageGroupId");
      req.message_group_id = g != m.attributes.end() ? g->second : std::string("default");
      req.message_deduplication_id = m.message_id;
    }
    return req;
  }

  // Sends the messages locally, in one write with their records, and
  // deletes remotely those now stored (or stored before). False when the
  // local queue failed for a reason that is not the messages' (nothing was
  // stored; they are left for later).
  bool Store(const std::vector<ReceivedMessage>& messages) {
    std::vector<const ReceivedMessage*> intact;
    std::vector<SendMessageRequest> sends;
    std::vector<std::string> keys;
    for (const ReceivedMessage& m : messages) {
      if (api::Md5Hex(m.body) != m.md5_of_body) {
        rt_->Md5Mismatch();  // not ours to delete: it comes again
        continue;
      }
      intact.push_back(&m);
      sends.push_back(LocalSend(m));
      keys.push_back("pull:" + m.message_id);
    }
    if (intact.empty()) return true;
    StatusOr<std::vector<RecordedSend>> stored =
        q_.SendMessagesAndRecord(sends, keys, ttl_seconds_);
    if (!stored.ok()) {
      const ErrorCode code = stored.status().code();
      if (code == ErrorCode::kClosed) {
        rt_->RequestStop();  // the Broker closed under the bridge
        return false;
      }
      rt_->Refused("Local" + std::string(ErrorCodeName(code)), stored.status().message());
      return false;
    }
    std::vector<DeleteMessageBatchEntry> done;
    for (size_t i = 0; i < intact.size(); ++i) {
      const RecordedSend& r = (*stored)[i];
      if (!r.status.ok()) {
        // This message cannot be stored here: the remote keeps it.
        rt_->Refused("Local" + std::string(ErrorCodeName(r.status.code())), r.status.message());
        continue;
      }
      if (r.sent.has_value()) {
        rt_->Transferred(1);
      } else {
        rt_->Duplicate();
      }
      done.push_back({std::to_string(done.size()), intact[i]->receipt_handle});
    }
    if (!done.empty()) deletes_.Submit(std::move(done));
    return true;
  }

  Runtime* rt_;
  Queue& q_;
  std::unique_ptr<RemoteTransport> transport_;
  DeleteAhead deletes_;  // after transport_: destroyed (joined) first
  int64_t ttl_seconds_ =
      std::clamp<int64_t>(rt_->options().dedup_window_seconds, 1, limits::kMaxInboxTtlSeconds);
};

}  // namespace

void RunPullLoop(Runtime* runtime) {
  PullLoop loop(runtime);
  loop.Run();
}

}  // namespace lqs::bridge
