// lib/engine/queue_receive.cc — ReceiveMessage and ReceiveMessageAsync:
// one receive attempt (AttemptReceiveLocked) that both run, the blocking
// call waiting on the queue's WaitList between attempts and the parked call
// on the Broker's AsyncReceiver (lib/notify); and the shaping of the result.
// Members of QueueImpl (queue_impl.h); the attempt's scan is in
// queue_receive_scan.cc (standard) and fifo_queue.cc (FIFO).
//
// An attempt runs under mu_; the bodies are read and the result shaped
// after mu_ is released, and so is the wake-up of a DLQ that got messages.

#include <algorithm>

#include "lib/api/message_rules.h"
#include "lib/engine/queue_common.h"
#include "lib/engine/queue_impl.h"
#include "lib/storage/keys.h"
#include "lib/storage/message_reader.h"
#include "lib/storage/range_iterator.h"

#include "lqs/attributes.h"

namespace lqs::engine {

int64_t QueueImpl::ReceiveDeadlineLocked(const ReceiveMessageRequest& request) {
  const int wait_s = request.wait_time_seconds.value_or(config_.receive_message_wait_time_seconds);
  return core_->NowMillis() + int64_t{wait_s} * 1000;
}

bool QueueImpl::IsLongPollLocked(const ReceiveMessageRequest& request) {
  return request.wait_time_seconds.value_or(config_.receive_message_wait_time_seconds) > 0;
}

std::optional<Status> QueueImpl::AttemptReceiveLocked(const ReceiveMessageRequest& request,
                                                      int64_t deadline, bool long_poll,
                                                      std::vector<Taken>* taken,
                                                      int64_t* next_check_ms,
                                                      std::shared_ptr<QueueImpl>* wake_dlq) {
  Status st = CheckLive();
  // Deleted after the receive was accepted (or during its wait): no messages.
  if (st.code() == ErrorCode::kQueueDoesNotExist) return Status::OK();
  if (!st.ok()) return st;
  const int64_t now = core_->NowMillis();
  st = TryReceiveLocked(request, now, long_poll, taken);
  if (dlq_wake_) *wake_dlq = std::move(dlq_wake_);
  if (!st.ok()) return st;
  if (!taken->empty() || now >= deadline) return Status::OK();
  *next_check_ms = NextWakeLocked(now, deadline);
  return std::nullopt;
}

StatusOr<ReceiveMessageResult> QueueImpl::ReceiveMessage(const ReceiveMessageRequest& request) {
  Status live = CheckLive();
  if (!live.ok()) return live;
  Status valid = api::ValidateReceiveMessage(request);
  if (!valid.ok()) return valid;

  std::vector<Taken> taken;
  taken.reserve(static_cast<size_t>(std::clamp(request.max_number_of_messages, 1, 10)));
  std::shared_ptr<QueueImpl> wake_dlq;
  {
    notify::MutexLock lock(&mu_);
    const bool long_poll = IsLongPollLocked(request);
    const int64_t deadline = ReceiveDeadlineLocked(request);
    waiters_.Enter();
    struct Leave {
      notify::WaitList* w;
      ~Leave() { w->Leave(); }
    } leave{&waiters_};
    while (true) {
      int64_t next_check = 0;
      std::optional<Status> done =
          AttemptReceiveLocked(request, deadline, long_poll, &taken, &next_check, &wake_dlq);
      if (done) {
        if (!done->ok()) return *done;
        break;
      }
      waiters_.Wait(&mu_, core_->options().clock->RealTimeUntil(next_check));
    }
  }
  if (wake_dlq) wake_dlq->Notify();
  return BuildResult(taken, request);
}

std::optional<StatusOr<ReceiveMessageResult>> QueueImpl::ReceiveOnce(
    const ReceiveMessageRequest& request, int64_t deadline, bool long_poll,
    int64_t* next_check_ms) {
  std::vector<Taken> taken;
  taken.reserve(static_cast<size_t>(std::clamp(request.max_number_of_messages, 1, 10)));
  std::shared_ptr<QueueImpl> wake_dlq;
  {
    notify::MutexLock lock(&mu_);
    std::optional<Status> done =
        AttemptReceiveLocked(request, deadline, long_poll, &taken, next_check_ms, &wake_dlq);
    if (!done) return std::nullopt;
    if (!done->ok()) return StatusOr<ReceiveMessageResult>(*done);
  }
  if (wake_dlq) wake_dlq->Notify();
  return BuildResult(taken, request);
}

uint64_t QueueImpl::ReceiveMessageAsync(const ReceiveMessageRequest& request,
                                        ReceiveCallback done) {
  Status live = CheckLive();
  if (!live.ok()) return done(live), 0;
  Status valid = api::ValidateReceiveMessage(request);
  if (!valid.ok()) return done(valid), 0;
  int64_t deadline = 0;
  bool long_poll = false;
  {
    notify::MutexLock lock(&mu_);
    deadline = ReceiveDeadlineLocked(request);
    long_poll = IsLongPollLocked(request);
  }
  // Read before our own attempt: a change after it makes Park try again at
  // once (no lost wake-up), and without one Park waits for a Wake or
  // next_check instead of trying again right away.
  const uint64_t epoch = core_->async_receiver().WakeEpoch();
  int64_t next_check = 0;
  std::optional<StatusOr<ReceiveMessageResult>> now =
      ReceiveOnce(request, deadline, long_poll, &next_check);
  if (now) return done(std::move(*now)), 0;
  std::shared_ptr<QueueImpl> self = shared_from_this();
  auto shared_done = std::make_shared<ReceiveCallback>(std::move(done));
  return core_->async_receiver().Park(
      id_, epoch, next_check,
      [self, request, deadline, long_poll, shared_done](bool closing, int64_t* next) -> bool {
        if (closing) {
          (*shared_done)(ClosedError());
          return true;
        }
        std::optional<StatusOr<ReceiveMessageResult>> r =
            self->ReceiveOnce(request, deadline, long_poll, next);
        if (!r) return false;
        (*shared_done)(std::move(*r));
        return true;
      });
}

int64_t QueueImpl::NextWakeLocked(int64_t now, int64_t deadline) {
  int64_t wake = deadline;
  int64_t lease_end = leases_.NextExpiryAfter(now);
  if (lease_end > 0) wake = std::min(wake, lease_end);
  // The next delayed message to become visible: for standard queues the
  // first future key of the visible index; for FIFO queues (whose delay is
  // the queue's, from the send time) the oldest send still inside it.
  const int64_t delay_ms = fifo_ ? int64_t{config_.delay_seconds} * 1000 : 0;
  if (fifo_ && delay_ms == 0) return wake;
  storage::RangeIterator it(core_->db(), fifo_ ? Cf::kExpiry : Cf::kVisible,
                            storage::TimeKey(id_, fifo_ ? now - delay_ms + 1 : now + 1, 0),
                            storage::TimeKey(id_, fifo_ ? now + 1 : deadline + 1, 0));
  storage::DecodedTimeKey k;
  if (it.Valid() && storage::DecodeTimeKey(it.key(), &k))
    wake = std::min(wake, k.time_ms + delay_ms);
  return wake;
}

bool QueueImpl::CancelReceive(uint64_t receive_id) {
  if (receive_id == 0) return false;
  return core_->async_receiver().Cancel(id_, receive_id);
}

StatusOr<ReceiveMessageResult> QueueImpl::BuildResult(std::vector<Taken>& taken,
                                                      const ReceiveMessageRequest& request) {
  ReceiveMessageResult result;
  if (taken.empty()) return result;
  // Messages queued by seq were read by the receive itself; the others'
  // records are read here.
  std::vector<uint64_t> seqs;
  seqs.reserve(taken.size());
  for (const Taken& t : taken) {
    if (!t.message) seqs.push_back(t.seq);
  }
  std::vector<std::optional<storage::Message>> read_messages;
  if (!seqs.empty()) {
    Status read = storage::ReadMessages(core_->db(), id_, seqs, name_, &read_messages);
    if (!read.ok()) return read;
  }
  const auto& sys = request.message_system_attribute_names;
  size_t next_read = 0;
  for (size_t i = 0; i < taken.size(); ++i) {
    std::optional<storage::Message>& slot =
        taken[i].message ? taken[i].message : read_messages[next_read++];
    if (!slot) continue;  // deleted (e.g. purged) meanwhile
    storage::Message& m = *slot;
    const LeaseEntry& lease = taken[i].lease;
    ReceivedMessage out;
    out.message_id = m.message_id;
    out.receipt_handle = core_->handles().Encode({id_, taken[i].seq, lease.receive_count});
    out.body = std::move(m.body);
    out.md5_of_body = m.md5_of_body;
    auto put_sys = [&](std::string_view name, std::string value) {
      if (api::SystemAttributeSelected(name, sys))
        out.attributes[std::string(name)] = std::move(value);
    };
    put_sys(attr::kSenderId, m.sender_id);
    put_sys(attr::kSentTimestamp, std::to_string(m.sent_timestamp_ms));
    put_sys(attr::kApproximateReceiveCount, std::to_string(lease.receive_count));
    put_sys(attr::kApproximateFirstReceiveTimestamp, std::to_string(lease.first_receive_ms));
    if (!m.aws_trace_header.empty()) put_sys(attr::kAWSTraceHeader, m.aws_trace_header);
    if (!m.message_group_id.empty()) put_sys(attr::kMessageGroupId, m.message_group_id);
    if (fifo_) {
      put_sys(attr::kSequenceNumber, m.sequence_number);
      put_sys(attr::kMessageDeduplicationId, m.message_deduplication_id);
    }
    if (!m.dead_letter_source_arn.empty()) {
      put_sys(attr::kDeadLetterQueueSourceArn, m.dead_letter_source_arn);
    }
    for (auto& [name, value] : m.attributes) {
      if (api::MessageAttributeSelected(name, request.message_attribute_names)) {
        out.message_attributes.emplace(name, value);
      }
    }
    if (!out.message_attributes.empty()) {
      out.md5_of_message_attributes = out.message_attributes.size() == m.attributes.size()
                                          ? m.md5_of_attributes
                                          : api::Md5OfMessageAttributes(out.message_attributes);
    }
    result.messages.push_back(std::move(out));
  }
  return result;
}

}  // namespace lqs::engine
