// The C API's sending and receiving (include/lqs/c.h "Sending", "Batch
// results", "Receiving"): the request builders, SendMessage(Batch) and
// ReceiveMessage, and their results.

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lib/c_internal.h"

#include "lqs/c.h"
#include "lqs/lqs.h"

struct lqs_receive_request_t {
  lqs::ReceiveMessageRequest rep;
};

struct lqs_message_t {
  lqs::ReceivedMessage rep;
  lqs_strmap_t attributes;
  lqs::c_internal::AttributeIndex attrs;
};

struct lqs_messages_t {
  std::vector<lqs_message_t> rep;
};

namespace {

// A String (or String.<label>, Number) attribute value.
lqs::MessageAttributeValue StringValue(const char* data_type, const char* value) {
  lqs::MessageAttributeValue v;
  v.data_type = Str(data_type);
  v.string_value = Str(value);
  return v;
}

}  // namespace

extern "C" {

// ---- Sending
// --------------------------------------------------------------------------------------

lqs_send_request_t* lqs_send_request_create(const char* body, size_t body_len) {
  return OrElse<lqs_send_request_t*>(nullptr, [&] {
    auto s = std::make_unique<lqs_send_request_t>();
    if (body != nullptr) s->rep.body.assign(body, body_len);
    return s.release();
  });
}
void lqs_send_request_destroy(lqs_send_request_t* send) { delete send; }
LQS_C_SETTER(lqs_send_request, delay_seconds, int)
void lqs_send_request_add_string_attribute(lqs_send_request_t* send, const char* name,
                                           const char* data_type, const char* value) {
  send->rep.message_attributes[Str(name)] = StringValue(data_type, value);
}
void lqs_send_request_add_binary_attribute(lqs_send_request_t* send, const char* name,
                                           const char* data_type, const void* value, size_t len) {
  lqs::MessageAttributeValue v;
  v.data_type = Str(data_type);
  if (value != nullptr) v.binary_value.assign(static_cast<const char*>(value), len);
  send->rep.message_attributes[Str(name)] = std::move(v);
}
void lqs_send_request_add_system_attribute(lqs_send_request_t* send, const char* name,
                                           const char* data_type, const char* value) {
  send->rep.message_system_attributes[Str(name)] = StringValue(data_type, value);
}
LQS_C_OPTIONAL_SETTER(lqs_send_request, message_group_id)
LQS_C_OPTIONAL_SETTER(lqs_send_request, message_deduplication_id)

int lqs_queue_send_message(lqs_queue_t* queue, const lqs_send_request_t* send,
                           lqs_send_result_t** result, char** errptr) {
  return Guard(errptr, [&]() -> int {
    LQS_REQUIRE(send != nullptr, "send must not be NULL");
    return SaveResult(queue->rep->SendMessage(send->rep), result, errptr,
                      [](lqs::SendMessageResult r) { return new lqs_send_result_t{std::move(r)}; });
  });
}

const char* lqs_send_result_message_id(const lqs_send_result_t* r) {
  return r->rep.message_id.c_str();
}
const char* lqs_send_result_md5_of_message_body(const lqs_send_result_t* r) {
  return r->rep.md5_of_message_body.c_str();
}
const char* lqs_send_result_md5_of_message_attributes(const lqs_send_result_t* r) {
  return OptStr(r->rep.md5_of_message_attributes);
}
const char* lqs_send_result_md5_of_message_system_attributes(const lqs_send_result_t* r) {
  return OptStr(r->rep.md5_of_message_system_attributes);
}
const char* lqs_send_result_sequence_number(const lqs_send_result_t* r) {
  return OptStr(r->rep.sequence_number);
}
void lqs_send_result_destroy(lqs_send_result_t* r) { delete r; }

lqs_send_batch_request_t* lqs_send_batch_request_create(void) {
  return NewOrNull<lqs_send_batch_request_t>();
}
void lqs_send_batch_request_add(lqs_send_batch_request_t* batch, const char* id,
                                const lqs_send_request_t* send) {
  lqs::SendMessageBatchEntry entry;
  entry.id = Str(id);
  if (send != nullptr) entry.request = send->rep;
  batch->rep.push_back(std::move(entry));
}
void lqs_send_batch_request_destroy(lqs_send_batch_request_t* batch) { delete batch; }

int lqs_queue_send_message_batch(lqs_queue_t* queue, const lqs_send_batch_request_t* batch,
                                 lqs_batch_result_t** result, char** errptr) {
  return Guard(errptr, [&]() -> int {
    auto sent = queue->rep->SendMessageBatch(RepOrDefault(batch));
    return SaveResult(std::move(sent), result, errptr, [](lqs::SendMessageBatchResult done) {
      auto out = std::make_unique<lqs_batch_result_t>();
      for (auto& entry : done.successful) {
        out->successful_ids.push_back(entry.id);
        out->successful_sends.push_back(lqs_send_result_t{std::move(entry.result)});
      }
      out->failed = std::move(done.failed);
      return out.release();
    });
  });
}

// ---- Batch results
// ----------------------------------------------------------------------------------

size_t lqs_batch_result_successful_count(const lqs_batch_result_t* r) {
  return r ? r->successful_ids.size() : 0;
}
const char* lqs_batch_result_successful_id(const lqs_batch_result_t* r, size_t i) {
  return r->successful_ids[i].c_str();
}
const lqs_send_result_t* lqs_batch_result_successful_send(const lqs_batch_result_t* r, size_t i) {
  return i < r->successful_sends.size() ? &r->successful_sends[i] : nullptr;
}
size_t lqs_batch_result_failed_count(const lqs_batch_result_t* r) {
  return r ? r->failed.size() : 0;
}
const char* lqs_batch_result_failed_id(const lqs_batch_result_t* r, size_t i) {
  return r->failed[i].id.c_str();
}
const char* lqs_batch_result_failed_code(const lqs_batch_result_t* r, size_t i) {
  return r->failed[i].code.c_str();
}
const char* lqs_batch_result_failed_message(const lqs_batch_result_t* r, size_t i) {
  return r->failed[i].message.c_str();
}
int lqs_batch_result_failed_sender_fault(const lqs_batch_result_t* r, size_t i) {
  return r->failed[i].sender_fault ? 1 : 0;
}
void lqs_batch_result_destroy(lqs_batch_result_t* r) { delete r; }

// ---- Receiving
// ----------------------------------------------------------------------------------------

lqs_receive_request_t* lqs_receive_request_create(void) {
  return NewOrNull<lqs_receive_request_t>();
}
void lqs_receive_request_destroy(lqs_receive_request_t* r) { delete r; }
LQS_C_SETTER(lqs_receive_request, max_number_of_messages, int)
LQS_C_SETTER(lqs_receive_request, visibility_timeout, int)
LQS_C_SETTER(lqs_receive_request, wait_time_seconds, int)
void lqs_receive_request_add_system_attribute_name(lqs_receive_request_t* r, const char* name) {
  r->rep.message_system_attribute_names.push_back(Str(name));
}
void lqs_receive_request_add_message_attribute_name(lqs_receive_request_t* r, const char* name) {
  r->rep.message_attribute_names.push_back(Str(name));
}
LQS_C_OPTIONAL_SETTER(lqs_receive_request, receive_request_attempt_id)

int lqs_queue_receive_message(lqs_queue_t* queue, const lqs_receive_request_t* request,
                              lqs_messages_t** messages, char** errptr) {
  return Guard(errptr, [&]() -> int {
    auto got = queue->rep->ReceiveMessage(RepOrDefault(request));
    return SaveResult(std::move(got), messages, errptr, [](lqs::ReceiveMessageResult received) {
      auto out = std::make_unique<lqs_messages_t>();
      out->rep.resize(received.messages.size());
      for (size_t i = 0; i < received.messages.size(); ++i) {
        lqs_message_t& m = out->rep[i];
        m.rep = std::move(received.messages[i]);
        m.attributes.rep.assign(m.rep.attributes.begin(), m.rep.attributes.end());
        m.attrs = lqs::c_internal::IndexAttributes(m.rep.message_attributes);
      }
      return out.release();
    });
  });
}

size_t lqs_messages_count(const lqs_messages_t* list) { return list ? list->rep.size() : 0; }
const lqs_message_t* lqs_messages_get(const lqs_messages_t* list, size_t i) {
  return &list->rep[i];
}
void lqs_messages_destroy(lqs_messages_t* list) { delete list; }

const char* lqs_message_id(const lqs_message_t* m) { return m->rep.message_id.c_str(); }
const char* lqs_message_receipt_handle(const lqs_message_t* m) {
  return m->rep.receipt_handle.c_str();
}
const char* lqs_message_body(const lqs_message_t* m, size_t* len) {
  if (len != nullptr) *len = m->rep.body.size();
  return m->rep.body.c_str();
}
const char* lqs_message_md5_of_body(const lqs_message_t* m) { return m->rep.md5_of_body.c_str(); }
const lqs_strmap_t* lqs_message_attributes(const lqs_message_t* m) { return &m->attributes; }
const char* lqs_message_md5_of_message_attributes(const lqs_message_t* m) {
  return OptStr(m->rep.md5_of_message_attributes);
}
LQS_C_ATTRIBUTE_ACCESSORS(lqs_message)

}  // extern "C"
