// lib/bridge/forward_lane.cc — a forward bridge's lanes (see transfer_loops.h).

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lib/api/message_rules.h"
#include "lib/bridge/local_batches.h"
#include "lib/bridge/transfer_loops.h"
#include "wire/sqs_codec.h"

#include "lqs/attributes.h"
#include "lqs/limits.h"

namespace lqs::bridge {
namespace {

constexpr size_t kMaxErrorAttributeBytes = 1024;

// A leased local message and the remote send it becomes.
struct Item {
  ReceivedMessage message;
  SendMessageRequest request;
  int64_t size = 0;
  std::string group;          // FIFO: MessageGroupId
  std::string md5_of_system;  // expected MD5OfMessageSystemAttributes ("" none)
  bool alone = false;         // after a request refusal: sent in a batch of one
};

std::vector<std::string> Handles(const std::vector<Item*>& items) {
  std::vector<std::string> out;
  out.reserve(items.size());
  for (const Item* it : items) out.push_back(it->message.receipt_handle);
  return out;
}

enum class Result { kAcked, kRetry, kRefused, kSplit };

struct EntryResult {
  Result result = Result::kRetry;
  std::string code;
  std::string message;
};

class Lane {
 public:
  explicit Lane(Runtime* rt)
      : rt_(rt),
        q_(rt->local()),
        transport_(rt->NewTransport()),
        lease_ms_(int64_t{rt->options().lease_seconds} * 1000) {}
  ~Lane() { rt_->Release(transport_.get()); }
  Lane(const Lane&) = delete;
  Lane& operator=(const Lane&) = delete;

  void Run() {
    int local_failures = 0;
    while (!rt_->stopping()) {
      StatusOr<ReceiveMessageResult> got = Lease();
      if (!got.ok()) {
        if (got.status().code() == ErrorCode::kClosed) return rt_->RequestStop();
        if (rt_->options().once) {
          return rt_->Fail(Status(got.status().code(),
                                  "leasing from the local queue: " + got.status().message()));
        }
        const std::string code = "Local" + std::string(ErrorCodeName(got.status().code()));
        const int64_t backoff = rt_->BackoffMs(++local_failures);
        rt_->Refused(code, got.status().message());
        if (!rt_->Sleep(backoff)) return;
        continue;
      }
      local_failures = 0;
      if (got->messages.empty()) {
        if (rt_->options().once) return;
        continue;
      }
      Forward(std::move(got->messages));
    }
  }

 private:
  // Leases up to ten messages: a short poll in `once` mode, else a long
  // poll that Stop() cuts short (an empty result).
  StatusOr<ReceiveMessageResult> Lease() {
    ReceiveMessageRequest req;
    req.max_number_of_messages = limits::kMaxReceiveMessages;
    req.visibility_timeout = rt_->options().lease_seconds;
    // Only what the remote send carries (MakeItem): fewer strings per message.
    req.message_system_attribute_names = {std::string(attr::kAWSTraceHeader), "MessageGroupId"};
    req.message_attribute_names = {"All"};
    if (rt_->options().once) {
      req.wait_time_seconds = 0;
      return q_.ReceiveMessage(req);
    }
    req.wait_time_seconds = limits::kMaxWaitTimeSeconds;
    struct Box {
      std::optional<StatusOr<ReceiveMessageResult>> result;  // guarded by wait().mu()
    };
    auto box = std::make_shared<Box>();
    Runtime* rt = rt_;
    // The callback notifies with the lock held: once the lane sees the
    // result (and may end, and the bridge be destroyed), the callback has
    // let go of the runtime.
    const uint64_t id = q_.ReceiveMessageAsync(req, [box, rt](StatusOr<ReceiveMessageResult> r) {
      std::lock_guard<std::mutex> lock(rt->wait().mu());
      box->result = std::move(r);
      rt->wait().Notify();
    });
    std::unique_lock<std::mutex> lock(rt_->wait().mu());
    rt_->wait().WaitUntil(lock, worker::ClockWait::kNever,
                          [&] { return box->result.has_value() || rt_->StoppingLocked(); });
    if (!box->result) {
      lock.unlock();
      if (q_.CancelReceive(id)) return ReceiveMessageResult{};
      lock.lock();
      // Completing now: take what it leased, and give it back.
      rt_->wait().WaitRealUntil(lock, std::chrono::steady_clock::now() + std::chrono::seconds(10),
                                [&] { return box->result.has_value(); });
      if (!box->result || !box->result->ok()) return ReceiveMessageResult{};
      std::vector<std::string> leased;
      for (const ReceivedMessage& m : (*box->result)->messages) leased.push_back(m.receipt_handle);
      lock.unlock();
      SetVisibility(q_, leased, 0);
      return ReceiveMessageResult{};
    }
    return std::move(*box->result);
  }

  Item MakeItem(ReceivedMessage m) {
    Item it;
    // The body and attributes move to the request; `message` keeps the
    // handle, the id and the digests the acknowledgement is checked against.
    it.request.body = std::move(m.body);
    it.request.message_attributes = std::move(m.message_attributes);
    if (auto trace = m.attributes.find(std::string(attr::kAWSTraceHeader));
        trace != m.attributes.end()) {
      MessageAttributeValue v;
      v.data_type = "String";
      v.string_value = trace->second;
      it.request.message_system_attributes[std::string(attr::kAWSTraceHeader)] = v;
      it.md5_of_system = api::Md5OfMessageAttributes(it.request.message_system_attributes);
    }
    if (q_.is_fifo()) {
      if (auto g = m.attributes.find("MessageGroupId"); g != m.attributes.end())
        it.group = g->second;
      it.request.message_group_id = it.group;
      it.request.message_deduplication_id = m.message_id;
    }
    it.size = api::MessageSize(it.request);
    it.message = std::move(m);
    return it;
  }

  void Forward(std::vector<ReceivedMessage> messages) {
    std::vector<Item> items;
    items.reserve(messages.size());
    for (ReceivedMessage& m : messages) items.push_back(MakeItem(std::move(m)));
    std::vector<Item*> pending;
    for (Item& it : items) pending.push_back(&it);
    int64_t lease_end = rt_->NowMillis() + lease_ms_;
    int failures = 0;
    while (!pending.empty()) {
      std::vector<Item*> retry;
      std::string retry_code;
      std::string retry_message;
      std::vector<Item*> acked;
      // A FIFO group with a message to retry sends nothing more this round.
      std::set<std::string> held_groups;
      std::vector<Item*> unsent = pending;
      while (!unsent.empty()) {
        std::vector<Item*> batch;
        std::vector<Item*> later;
        // FIFO: once a group's message waits for a later batch, so do the
        // group's next ones (a smaller one must not pass it).
        std::set<std::string> deferred_groups;
        int64_t bytes = 0;
        for (Item* it : unsent) {
          const bool full = batch.size() == static_cast<size_t>(limits::kMaxBatchEntries) ||
                            (!batch.empty() && (it->alone || batch.front()->alone)) ||
                            (!batch.empty() && bytes + it->size > limits::kMaxBatchBytes);
          if (held_groups.count(it->group) > 0 && q_.is_fifo()) {
            retry.push_back(it);
          } else if (full || (q_.is_fifo() && deferred_groups.count(it->group) > 0)) {
            later.push_back(it);
            deferred_groups.insert(it->group);
          } else {
            batch.push_back(it);
            bytes += it->size;
          }
        }
        unsent = std::move(later);
        if (batch.empty()) continue;
        std::vector<EntryResult> results = Send(batch);
        for (size_t i = 0; i < batch.size(); ++i) {
          Item* it = batch[i];
          EntryResult& r = results[i];
          switch (r.result) {
            case Result::kAcked:
              acked.push_back(it);
              break;
            case Result::kRefused:
              DeadLetter(*it, r.code, r.message);
              break;
            case Result::kSplit:
              it->alone = true;
              retry.push_back(it);
              held_groups.insert(it->group);
              break;
            case Result::kRetry:
              if (retry_code.empty()) {
                retry_code = r.code;
                retry_message = r.message;
              }
              retry.push_back(it);
              held_groups.insert(it->group);
              break;
          }
        }
      }
      rt_->Transferred(DeleteHandles(q_, Handles(acked)));
      pending = std::move(retry);
      if (pending.empty()) return;
      if (retry_code.empty()) continue;  // only splits: resend at once
      if (rt_->stopping()) {             // a send that Stop() cut short is not the remote's failure
        SetVisibility(q_, Handles(pending), 0);
        return;
      }
      ++failures;
      const int64_t backoff = rt_->BackoffMs(failures);
      rt_->Failed(retry_code, retry_message, backoff);
      if (rt_->options().once && failures >= rt_->options().once_attempts) {
        rt_->Fail(Status(ErrorCode::kIOError,
                         "the remote queue could not be reached after " + std::to_string(failures) +
                             " attempts: " + retry_code + ": " + retry_message));
      }
      if (!WaitKeepingLeases(backoff, pending, &lease_end)) {
        SetVisibility(q_, Handles(pending), 0);
        return;
      }
    }
  }

  // One SendMessageBatch of `batch`: a result per message.
  std::vector<EntryResult> Send(const std::vector<Item*>& batch) {
    std::vector<SendMessageBatchEntry> entries;
    entries.reserve(batch.size());
    for (size_t i = 0; i < batch.size(); ++i) {
      entries.push_back({std::to_string(i), batch[i]->request});
    }
    const std::string payload =
        wire::codec::EncodeSendMessageBatch(rt_->options().remote_queue_url, entries).dump();
    Outcome o = Classify(transport_->Call("SendMessageBatch", payload, 0));
    std::vector<EntryResult> out(batch.size(), EntryResult{Result::kRetry, o.code, o.message});
    if (o.fault == Fault::kRefused) {
      for (EntryResult& r : out) r.result = batch.size() > 1 ? Result::kSplit : Result::kRefused;
      return out;
    }
    if (o.fault == Fault::kRetry) return out;
    rt_->Succeeded();
    for (EntryResult& r : out) r = {Result::kRetry, "MissingEntry", "the answer has no result"};
    const SendMessageBatchResult answer = wire::codec::DecodeSendMessageBatch(o.body);
    auto index_of = [&](const std::string& id) -> std::optional<size_t> {
      for (size_t i = 0; i < entries.size(); ++i) {
        if (entries[i].id == id) return i;
      }
      return std::nullopt;
    };
    for (const SendMessageBatchResultEntry& s : answer.successful) {
      std::optional<size_t> i = index_of(s.id);
      if (!i) continue;
      const Item& it = *batch[*i];
      const bool same = s.result.md5_of_message_body == it.message.md5_of_body &&
                        s.result.md5_of_message_attributes.value_or("") ==
                            it.message.md5_of_message_attributes.value_or("") &&
                        s.result.md5_of_message_system_attributes.value_or("") == it.md5_of_system;
      if (same) {
        out[*i] = {Result::kAcked, "", ""};
      } else {
        rt_->Md5Mismatch();
        out[*i] = {Result::kRetry, "MD5Mismatch",
                   "the remote acknowledged message " + it.message.message_id +
                       " with digests that are not the local ones"};
      }
    }
    for (const BatchResultError& f : answer.failed) {
      std::optional<size_t> i = index_of(f.id);
      if (!i) continue;
      out[*i] = {f.sender_fault ? Result::kRefused : Result::kRetry, f.code, f.message};
    }
    return out;
  }

  // A message the remote refuses for good: to the local DLQ, else stuck.
  void DeadLetter(const Item& it, const std::string& code, const std::string& message) {
    rt_->Refused(code, message);
    MessageAttributeMap extra;
    extra["LqsBridgeErrorCode"] = MessageAttributeValue{"String", code.empty() ? "-" : code, ""};
    extra["LqsBridgeErrorMessage"] = MessageAttributeValue{
        "String", message.empty() ? "-" : message.substr(0, kMaxErrorAttributeBytes), ""};
    if (HasDeadLetterQueue()) {
      Status st = q_.MoveToDeadLetterQueue(it.message.receipt_handle, extra);
      if (st.ok()) {
        rt_->DeadLettered();
        return;
      }
      rt_->Refused("Local" + std::string(ErrorCodeName(st.code())), st.message());
      return;  // its lease ends and it is tried again
    }
    const int64_t hold_s = std::min<int64_t>(rt_->options().backoff_max_ms / 1000,
                                             limits::kMaxVisibilityTimeoutSeconds);
    q_.ChangeMessageVisibility(it.message.receipt_handle, static_cast<int>(hold_s)).IgnoreError();
    rt_->Stuck(it.message.message_id, code);
  }

  bool HasDeadLetterQueue() {
    StatusOr<AttributeMap> a = q_.GetAttributes({"RedrivePolicy"});
    return a.ok() && a->count("RedrivePolicy") > 0 && !a->at("RedrivePolicy").empty();
  }

  // Waits `ms`, renewing the leases of `pending` before they end.
  bool WaitKeepingLeases(int64_t ms, const std::vector<Item*>& pending, int64_t* lease_end) {
    const int64_t until = rt_->NowMillis() + ms;
    while (true) {
      const int64_t now = rt_->NowMillis();
      if (now + lease_ms_ / 2 >= *lease_end) {
        SetVisibility(q_, Handles(pending), rt_->options().lease_seconds);
        *lease_end = now + lease_ms_;
      }
      if (now >= until) return !rt_->stopping();
      if (!rt_->Sleep(std::min(until - now, lease_ms_ / 4))) return false;
    }
  }

  Runtime* rt_;
  Queue& q_;
  std::unique_ptr<RemoteTransport> transport_;
  const int64_t lease_ms_;
};

}  // namespace

void RunForwardLane(Runtime* runtime) {
  Lane lane(runtime);
  lane.Run();
}

}  // namespace lqs::bridge
