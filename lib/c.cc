// The C API (include/lqs/c.h): a thin shim over the C++ API. Every handle is
// a struct holding the C++ value; every fallible call funnels its Status
// through SaveError, and every entry point catches all exceptions. The
// worker's calls are in lib/c_worker.cc; what both use is in lib/c_internal.h.

#include "lqs/c.h"

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

#include "lqs/lqs.h"

using lqs::ErrorCode;
using lqs::Status;
using lqs::c_internal::Guard;
using lqs::c_internal::OptStr;
using lqs::c_internal::SaveError;
using lqs::c_internal::Str;

struct lqs_clock_t {
  std::shared_ptr<lqs::ManualClock> rep;
};

struct lqs_options_t {
  lqs::Options rep;
  int durability = 1;
};

struct lqs_t {
  std::shared_ptr<lqs::Broker> rep;
};

struct lqs_strlist_t {
  std::vector<std::string> rep;
};

struct lqs_send_t {
  lqs::SendMessageRequest rep;
};

struct lqs_send_result_t {
  lqs::SendMessageResult rep;
};

struct lqs_send_batch_t {
  std::vector<lqs::SendMessageBatchEntry> rep;
};

struct lqs_batch_result_t {
  std::vector<std::string> successful_ids;
  std::vector<lqs_send_result_t> successful_sends;  // send batches only
  std::vector<lqs::BatchResultError> failed;
};

struct lqs_receive_t {
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

struct lqs_move_tasks_t {
  std::vector<lqs::MessageMoveTask> rep;
};

namespace lqs::c_internal {

void SetError(char** errptr, const std::string& message) {
  if (errptr == nullptr) return;
  char* copy = static_cast<char*>(std::malloc(message.size() + 1));
  if (copy != nullptr) {
    std::memcpy(copy, message.data(), message.size());
    copy[message.size()] = '\0';
  }
  std::free(*errptr);
  *errptr = copy;
}

int SaveError(const Status& status, char** errptr) {
  if (status.ok()) return LQS_OK;
  SetError(errptr,
           status.message().empty() ? std::string(ErrorCodeName(status.code())) : status.message());
  return static_cast<int>(status.code());
}

int Fail(int code, const char* message, char** errptr) {
  SetError(errptr, message);
  return code;
}

AttributeIndex IndexAttributes(const MessageAttributeMap& attributes) {
  AttributeIndex out;
  out.reserve(attributes.size());
  for (const auto& entry : attributes) out.push_back(&entry);
  return out;
}

}  // namespace lqs::c_internal

namespace {

char* CopyString(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out == nullptr) throw std::bad_alloc();
  std::memcpy(out, s.data(), s.size());
  out[s.size()] = '\0';
  return out;
}

std::map<std::string, std::string> MakeMap(const char* const* keys,
                                           const char* const* values, size_t n) {
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < n; ++i) out[Str(keys[i])] = Str(values[i]);
  return out;
}

std::vector<std::string> MakeList(const char* const* items, size_t n) {
  std::vector<std::string> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(Str(items[i]));
  return out;
}

lqs_strmap_t* NewMap(const std::map<std::string, std::string>& m) {
  auto* out = new lqs_strmap_t;
  out->rep.assign(m.begin(), m.end());
  return out;
}

const lqs::ErrorInfo& Info(int code) {
  return lqs::ErrorInfoFor(static_cast<ErrorCode>(code));
}

// The static NUL-terminated copies of the error table's string_views.
struct ErrorStrings {
  std::string name, query_code, shape;
};
const ErrorStrings& StringsFor(int code) {
  static const auto* table = [] {
    auto* t = new std::map<int, ErrorStrings>;
    for (int c : {0,  1,  2,  3,  4,  5,  6,  7,  8,   9,   10,  11,  12, 13,
                  14, 15, 16, 17, 18, 19, 100, 101, 102, 103, 104}) {
      auto ec = static_cast<ErrorCode>(c);
      (*t)[c] = ErrorStrings{std::string(lqs::ErrorCodeName(ec)),
                             std::string(lqs::ErrorInfoFor(ec).query_code),
                             std::string(lqs::ErrorInfoFor(ec).shape)};
    }
    return t;
  }();
  auto it = table->find(code);
  if (it == table->end()) it = table->find(LQS_INTERNAL);
  return it->second;
}

int ListPage(const lqs::StatusOr<lqs::ListQueuesResult>& result, lqs_strlist_t** names,
             char** next_token_out, char** errptr) {
  if (!result.ok()) return SaveError(result.status(), errptr);
  auto list = std::make_unique<lqs_strlist_t>();
  list->rep = result->queue_names;
  char* token = result->next_token.empty() ? nullptr : CopyString(result->next_token);
  if (next_token_out != nullptr) {
    *next_token_out = token;
  } else {
    std::free(token);
  }
  if (names != nullptr) *names = list.release();
  return LQS_OK;
}

lqs::ListQueuesRequest ListRequest(const char* prefix, int max_results,
                                   const char* next_token) {
  lqs::ListQueuesRequest request;
  request.queue_name_prefix = Str(prefix);
  if (max_results >= 0) request.max_results = max_results;
  request.next_token = Str(next_token);
  return request;
}

lqs_batch_result_t* NewBatchResult(const lqs::BatchResult& r) {
  auto* out = new lqs_batch_result_t;
  out->successful_ids = r.successful;
  out->failed = r.failed;
  return out;
}

}  // namespace

extern "C" {

// ---- Errors, memory, version ---------------------------------------------------

const char* lqs_error_name(int code) { return StringsFor(code).name.c_str(); }
const char* lqs_error_query_code(int code) { return StringsFor(code).query_code.c_str(); }
const char* lqs_error_shape(int code) { return StringsFor(code).shape.c_str(); }
int lqs_error_http_status(int code) { return Info(code).http_status; }
int lqs_error_is_sender_fault(int code) { return Info(code).sender_fault ? 1 : 0; }

void lqs_free(void* ptr) { std::free(ptr); }

const char* lqs_version(void) { return lqs::Version(); }
int lqs_version_major(void) { return LQS_VERSION_MAJOR; }
int lqs_version_minor(void) { return LQS_VERSION_MINOR; }
int lqs_version_patch(void) { return LQS_VERSION_PATCH; }
int lqs_c_api_version(void) { return LQS_C_API_VERSION; }

// ---- Maps and lists ---------------------------------------------------------------

size_t lqs_strmap_count(const lqs_strmap_t* map) { return map ? map->rep.size() : 0; }
const char* lqs_strmap_key(const lqs_strmap_t* map, size_t i) {
  return map->rep[i].first.c_str();
}
const char* lqs_strmap_value(const lqs_strmap_t* map, size_t i) {
  return map->rep[i].second.c_str();
}
const char* lqs_strmap_get(const lqs_strmap_t* map, const char* key) {
  if (map == nullptr || key == nullptr) return nullptr;
  for (const auto& [k, v] : map->rep) {
    if (k == key) return v.c_str();
  }
  return nullptr;
}
void lqs_strmap_destroy(lqs_strmap_t* map) { delete map; }

size_t lqs_strlist_count(const lqs_strlist_t* list) { return list ? list->rep.size() : 0; }
const char* lqs_strlist_get(const lqs_strlist_t* list, size_t i) {
  return list->rep[i].c_str();
}
void lqs_strlist_destroy(lqs_strlist_t* list) { delete list; }

// ---- Clock ---------------------------------------------------------------------------

lqs_clock_t* lqs_manual_clock_create(int64_t start_ms) {
  try {
    return new lqs_clock_t{std::make_shared<lqs::ManualClock>(start_ms)};
  } catch (...) {
    return nullptr;
  }
}
int64_t lqs_clock_now_millis(lqs_clock_t* clock) { return clock->rep->NowMillis(); }
void lqs_clock_advance_millis(lqs_clock_t* clock, int64_t ms) {
  clock->rep->AdvanceMillis(ms);
}
void lqs_clock_advance_seconds(lqs_clock_t* clock, int64_t s) {
  clock->rep->AdvanceSeconds(s);
}
void lqs_clock_set_millis(lqs_clock_t* clock, int64_t ms) { clock->rep->SetMillis(ms); }
void lqs_clock_destroy(lqs_clock_t* clock) { delete clock; }

// ---- Options ---------------------------------------------------------------------------

lqs_options_t* lqs_options_create(void) {
  try {
    return new lqs_options_t;
  } catch (...) {
    return nullptr;
  }
}
void lqs_options_destroy(lqs_options_t* o) { delete o; }
void lqs_options_set_create_if_missing(lqs_options_t* o, int v) {
  o->rep.create_if_missing = v != 0;
}
void lqs_options_set_durability(lqs_options_t* o, int durability) {
  o->durability = durability;
}
void lqs_options_set_clock(lqs_options_t* o, lqs_clock_t* clock) {
  if (clock == nullptr) {
    o->rep.clock = lqs::SystemClock::Default();
  } else {
    o->rep.clock = clock->rep;
  }
}
void lqs_options_set_region(lqs_options_t* o, const char* region) {
  o->rep.region = Str(region);
}
void lqs_options_set_account_id(lqs_options_t* o, const char* id) {
  o->rep.account_id = Str(id);
}
void lqs_options_set_sender_id(lqs_options_t* o, const char* id) {
  o->rep.sender_id = Str(id);
}
void lqs_options_set_enforce_queue_name_reuse_delay(lqs_options_t* o, int v) {
  o->rep.enforce_queue_name_reuse_delay = v != 0;
}
void lqs_options_set_enforce_purge_interval(lqs_options_t* o, int v) {
  o->rep.enforce_purge_interval = v != 0;
}
void lqs_options_set_max_inflight_per_queue(lqs_options_t* o, int64_t n) {
  o->rep.max_inflight_per_queue = n;
}
void lqs_options_set_background_maintenance(lqs_options_t* o, int v) {
  o->rep.background_maintenance = v != 0;
}
void lqs_options_set_maintenance_interval_ms(lqs_options_t* o, int64_t ms) {
  o->rep.maintenance_interval_ms = ms;
}
void lqs_options_set_block_cache_bytes(lqs_options_t* o, int64_t n) {
  o->rep.block_cache_bytes = n;
}
void lqs_options_set_write_buffer_bytes(lqs_options_t* o, int64_t n) {
  o->rep.write_buffer_bytes = n;
}

// ---- Database -----------------------------------------------------------------------------

int lqs_open(const char* path, const lqs_options_t* options, lqs_t** db, char** errptr) {
  return Guard(errptr, [&]() -> int {
    LQS_REQUIRE(path != nullptr && *path != '\0', "path must not be empty");
    LQS_REQUIRE(db != nullptr, "db must not be NULL");
    lqs::Options opts;
    int durability = 1;
    if (options != nullptr) {
      opts = options->rep;
      durability = options->durability;
    }
    LQS_REQUIRE(durability >= 0 && durability <= 2,
                "durability must be LQS_DURABILITY_NONE, _PROCESS or _FSYNC");
    opts.durability = static_cast<lqs::Durability>(durability);
    opts.path = path;
    auto broker = lqs::Broker::Open(opts);
    if (!broker.ok()) return SaveError(broker.status(), errptr);
    *db = new lqs_t{std::shared_ptr<lqs::Broker>(std::move(*broker))};
    return LQS_OK;
  });
}

int lqs_close(lqs_t* db, char** errptr) {
  if (db == nullptr) return LQS_OK;
  int rc = Guard(errptr, [&]() -> int { return SaveError(db->rep->Close(), errptr); });
  delete db;
  return rc;
}

char* lqs_arn_for(const lqs_t* db, const char* name) {
  try {
    return CopyString(db->rep->ArnFor(Str(name)));
  } catch (...) {
    return nullptr;
  }
}
const char* lqs_region(const lqs_t* db) { return db->rep->options().region.c_str(); }
const char* lqs_account_id(const lqs_t* db) {
  return db->rep->options().account_id.c_str();
}

// ---- Queue catalogue ------------------------------------------------------------------------

namespace {
int ReturnQueue(const std::shared_ptr<lqs::Broker>& broker,
                lqs::StatusOr<std::shared_ptr<lqs::Queue>>& result, lqs_queue_t** queue,
                char** errptr) {
  if (!result.ok()) return SaveError(result.status(), errptr);
  if (queue != nullptr) *queue = new lqs_queue_t{broker, std::move(*result)};
  return LQS_OK;
}
}  // namespace

int lqs_create_queue(lqs_t* db, const char* name, const char* const* attr_names,
                     const char* const* attr_values, size_t n_attrs,
                     const char* const* tag_keys, const char* const* tag_values,
                     size_t n_tags, lqs_queue_t** queue, char** errptr) {
  return Guard(errptr, [&]() -> int {
    auto result = db->rep->CreateQueue(Str(name), MakeMap(attr_names, attr_values, n_attrs),
                                       MakeMap(tag_keys, tag_values, n_tags));
    return ReturnQueue(db->rep, result, queue, errptr);
  });
}

int lqs_get_queue(lqs_t* db, const char* name, lqs_queue_t** queue, char** errptr) {
  return Guard(errptr, [&]() -> int {
    auto result = db->rep->GetQueue(Str(name));
    return ReturnQueue(db->rep, result, queue, errptr);
  });
}

int lqs_get_queue_by_arn(lqs_t* db, const char* arn, lqs_queue_t** queue, char** errptr) {
  return Guard(errptr, [&]() -> int {
    auto result = db->rep->GetQueueByArn(Str(arn));
    return ReturnQueue(db->rep, result, queue, errptr);
  });
}

int lqs_delete_queue(lqs_t* db, const char* name, char** errptr) {
  return Guard(errptr, [&]() -> int { return SaveError(db->rep->DeleteQueue(Str(name)), errptr); });
}

int lqs_list_queues(lqs_t* db, const char* prefix, int max_results, const char* next_token,
                    lqs_strlist_t** names, char** next_token_out, char** errptr) {
  return Guard(errptr, [&]() -> int {
    return ListPage(db->rep->ListQueues(ListRequest(prefix, max_results, next_token)), names,
                    next_token_out, errptr);
  });
}

int lqs_list_dead_letter_source_queues(lqs_t* db, const char* dlq_name, int max_results,
                                       const char* next_token, lqs_strlist_t** names,
                                       char** next_token_out, char** errptr) {
  return Guard(errptr, [&]() -> int {
    return ListPage(db->rep->ListDeadLetterSourceQueues(
                        Str(dlq_name), ListRequest(nullptr, max_results, next_token)),
                    names, next_token_out, errptr);
  });
}

// ---- Move tasks ------------------------------------------------------------------------------

int lqs_start_message_move_task(lqs_t* db, const char* source_arn,
                                const char* destination_arn, int max_per_second,
                                char** task_handle, char** errptr) {
  return Guard(errptr, [&]() -> int {
    lqs::StartMessageMoveTaskRequest request;
    request.source_arn = Str(source_arn);
    if (destination_arn != nullptr) request.destination_arn = destination_arn;
    if (max_per_second >= 0) request.max_number_of_messages_per_second = max_per_second;
    auto result = db->rep->StartMessageMoveTask(request);
    if (!result.ok()) return SaveError(result.status(), errptr);
    if (task_handle != nullptr) *task_handle = CopyString(*result);
    return LQS_OK;
  });
}

int lqs_cancel_message_move_task(lqs_t* db, const char* task_handle, int64_t* moved,
                                 char** errptr) {
  return Guard(errptr, [&]() -> int {
    auto result = db->rep->CancelMessageMoveTask(Str(task_handle));
    if (!result.ok()) return SaveError(result.status(), errptr);
    if (moved != nullptr) *moved = *result;
    return LQS_OK;
  });
}

int lqs_list_message_move_tasks(lqs_t* db, const char* source_arn, int max_results,
                                lqs_move_tasks_t** tasks, char** errptr) {
  return Guard(errptr, [&]() -> int {
    auto result = db->rep->ListMessageMoveTasks(Str(source_arn),
                                                max_results < 0 ? 1 : max_results);
    if (!result.ok()) return SaveError(result.status(), errptr);
    if (tasks != nullptr) *tasks = new lqs_move_tasks_t{std::move(*result)};
    return LQS_OK;
  });
}

size_t lqs_move_tasks_count(const lqs_move_tasks_t* t) { return t ? t->rep.size() : 0; }
const char* lqs_move_task_handle(const lqs_move_tasks_t* t, size_t i) {
  return t->rep[i].task_handle.c_str();
}
const char* lqs_move_task_status(const lqs_move_tasks_t* t, size_t i) {
  return t->rep[i].status.c_str();
}
const char* lqs_move_task_source_arn(const lqs_move_tasks_t* t, size_t i) {
  return t->rep[i].source_arn.c_str();
}
const char* lqs_move_task_destination_arn(const lqs_move_tasks_t* t, size_t i) {
  return OptStr(t->rep[i].destination_arn);
}
int lqs_move_task_max_per_second(const lqs_move_tasks_t* t, size_t i) {
  return t->rep[i].max_number_of_messages_per_second.value_or(-1);
}
int64_t lqs_move_task_moved(const lqs_move_tasks_t* t, size_t i) {
  return t->rep[i].approximate_number_of_messages_moved;
}
int64_t lqs_move_task_to_move(const lqs_move_tasks_t* t, size_t i) {
  return t->rep[i].approximate_number_of_messages_to_move;
}
const char* lqs_move_task_failure_reason(const lqs_move_tasks_t* t, size_t i) {
  return OptStr(t->rep[i].failure_reason);
}
int64_t lqs_move_task_started_timestamp(const lqs_move_tasks_t* t, size_t i) {
  return t->rep[i].started_timestamp;
}
void lqs_move_tasks_destroy(lqs_move_tasks_t* t) { delete t; }

// ---- Maintenance -------------------------------------------------------------------------------

int lqs_run_maintenance(lqs_t* db, char** errptr) {
  return Guard(errptr, [&]() -> int { return SaveError(db->rep->RunMaintenance(), errptr); });
}

int lqs_compact_all(lqs_t* db, char** errptr) {
  return Guard(errptr, [&]() -> int { return SaveError(db->rep->CompactAll(), errptr); });
}

int lqs_verify(lqs_t* db, lqs_strlist_t** problems, char** errptr) {
  return Guard(errptr, [&]() -> int {
    auto result = db->rep->Verify();
    if (!result.ok()) return SaveError(result.status(), errptr);
    if (problems != nullptr) *problems = new lqs_strlist_t{std::move(*result)};
    return LQS_OK;
  });
}

// ---- Queue handles -----------------------------------------------------------------------------

void lqs_queue_destroy(lqs_queue_t* queue) { delete queue; }
const char* lqs_queue_name(const lqs_queue_t* queue) { return queue->rep->name().c_str(); }
const char* lqs_queue_arn(const lqs_queue_t* queue) { return queue->rep->arn().c_str(); }
int lqs_queue_is_fifo(const lqs_queue_t* queue) { return queue->rep->is_fifo() ? 1 : 0; }

// ---- Sending --------------------------------------------------------------------------------------

lqs_send_t* lqs_send_create(const char* body, size_t body_len) {
  try {
    auto* s = new lqs_send_t;
    if (body != nullptr) s->rep.body.assign(body, body_len);
    return s;
  } catch (...) {
    return nullptr;
  }
}
void lqs_send_destroy(lqs_send_t* send) { delete send; }
void lqs_send_set_delay_seconds(lqs_send_t* send, int seconds) {
  send->rep.delay_seconds = seconds;
}
void lqs_send_add_string_attribute(lqs_send_t* send, const char* name, const char* data_type,
                                   const char* value) {
  lqs::MessageAttributeValue v;
  v.data_type = Str(data_type);
  v.string_value = Str(value);
  send->rep.message_attributes[Str(name)] = std::move(v);
}
void lqs_send_add_binary_attribute(lqs_send_t* send, const char* name, const char* data_type,
                                   const void* value, size_t len) {
  lqs::MessageAttributeValue v;
  v.data_type = Str(data_type);
  if (value != nullptr) v.binary_value.assign(static_cast<const char*>(value), len);
  send->rep.message_attributes[Str(name)] = std::move(v);
}
void lqs_send_add_system_attribute(lqs_send_t* send, const char* name, const char* data_type,
                                   const char* value) {
  lqs::MessageAttributeValue v;
  v.data_type = Str(data_type);
  v.string_value = Str(value);
  send->rep.message_system_attributes[Str(name)] = std::move(v);
}
void lqs_send_set_message_group_id(lqs_send_t* send, const char* id) {
  if (id == nullptr) {
    send->rep.message_group_id.reset();
  } else {
    send->rep.message_group_id = id;
  }
}
void lqs_send_set_message_deduplication_id(lqs_send_t* send, const char* id) {
  if (id == nullptr) {
    send->rep.message_deduplication_id.reset();
  } else {
    send->rep.message_deduplication_id = id;
  }
}

int lqs_queue_send_message(lqs_queue_t* queue, const lqs_send_t* send,
                           lqs_send_result_t** result, char** errptr) {
  return Guard(errptr, [&]() -> int {
    LQS_REQUIRE(send != nullptr, "send must not be NULL");
    auto sent = queue->rep->SendMessage(send->rep);
    if (!sent.ok()) return SaveError(sent.status(), errptr);
    if (result != nullptr) *result = new lqs_send_result_t{std::move(*sent)};
    return LQS_OK;
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

lqs_send_batch_t* lqs_send_batch_create(void) {
  try {
    return new lqs_send_batch_t;
  } catch (...) {
    return nullptr;
  }
}
void lqs_send_batch_add(lqs_send_batch_t* batch, const char* id, const lqs_send_t* send) {
  lqs::SendMessageBatchEntry entry;
  entry.id = Str(id);
  if (send != nullptr) entry.request = send->rep;
  batch->rep.push_back(std::move(entry));
}
void lqs_send_batch_destroy(lqs_send_batch_t* batch) { delete batch; }

int lqs_queue_send_message_batch(lqs_queue_t* queue, const lqs_send_batch_t* batch,
                                 lqs_batch_result_t** result, char** errptr) {
  return Guard(errptr, [&]() -> int {
    static const lqs_send_batch_t kEmpty;
    auto sent = queue->rep->SendMessageBatch(batch != nullptr ? batch->rep : kEmpty.rep);
    if (!sent.ok()) return SaveError(sent.status(), errptr);
    if (result != nullptr) {
      auto out = std::make_unique<lqs_batch_result_t>();
      for (auto& entry : sent->successful) {
        out->successful_ids.push_back(entry.id);
        out->successful_sends.push_back(lqs_send_result_t{std::move(entry.result)});
      }
      out->failed = std::move(sent->failed);
      *result = out.release();
    }
    return LQS_OK;
  });
}

// ---- Batch results ----------------------------------------------------------------------------------

size_t lqs_batch_result_successful_count(const lqs_batch_result_t* r) {
  return r ? r->successful_ids.size() : 0;
}
const char* lqs_batch_result_successful_id(const lqs_batch_result_t* r, size_t i) {
  return r->successful_ids[i].c_str();
}
const lqs_send_result_t* lqs_batch_result_successful_send(const lqs_batch_result_t* r,
                                                          size_t i) {
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

// ---- Receiving ----------------------------------------------------------------------------------------

lqs_receive_t* lqs_receive_create(void) {
  try {
    return new lqs_receive_t;
  } catch (...) {
    return nullptr;
  }
}
void lqs_receive_destroy(lqs_receive_t* r) { delete r; }
void lqs_receive_set_max_number_of_messages(lqs_receive_t* r, int n) {
  r->rep.max_number_of_messages = n;
}
void lqs_receive_set_visibility_timeout(lqs_receive_t* r, int seconds) {
  r->rep.visibility_timeout = seconds;
}
void lqs_receive_set_wait_time_seconds(lqs_receive_t* r, int seconds) {
  r->rep.wait_time_seconds = seconds;
}
void lqs_receive_add_system_attribute_name(lqs_receive_t* r, const char* name) {
  r->rep.message_system_attribute_names.push_back(Str(name));
}
void lqs_receive_add_message_attribute_name(lqs_receive_t* r, const char* name) {
  r->rep.message_attribute_names.push_back(Str(name));
}
void lqs_receive_set_receive_request_attempt_id(lqs_receive_t* r, const char* id) {
  if (id == nullptr) {
    r->rep.receive_request_attempt_id.reset();
  } else {
    r->rep.receive_request_attempt_id = id;
  }
}

int lqs_queue_receive_message(lqs_queue_t* queue, const lqs_receive_t* request,
                              lqs_messages_t** messages, char** errptr) {
  return Guard(errptr, [&]() -> int {
    static const lqs_receive_t kDefault;
    auto got = queue->rep->ReceiveMessage(request != nullptr ? request->rep : kDefault.rep);
    if (!got.ok()) return SaveError(got.status(), errptr);
    if (messages != nullptr) {
      auto out = std::make_unique<lqs_messages_t>();
      out->rep.resize(got->messages.size());
      for (size_t i = 0; i < got->messages.size(); ++i) {
        lqs_message_t& m = out->rep[i];
        m.rep = std::move(got->messages[i]);
        m.attributes.rep.assign(m.rep.attributes.begin(), m.rep.attributes.end());
        m.attrs = lqs::c_internal::IndexAttributes(m.rep.message_attributes);
      }
      *messages = out.release();
    }
    return LQS_OK;
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
const char* lqs_message_md5_of_body(const lqs_message_t* m) {
  return m->rep.md5_of_body.c_str();
}
const lqs_strmap_t* lqs_message_attributes(const lqs_message_t* m) { return &m->attributes; }
const char* lqs_message_md5_of_message_attributes(const lqs_message_t* m) {
  return OptStr(m->rep.md5_of_message_attributes);
}
size_t lqs_message_attribute_count(const lqs_message_t* m) { return m->attrs.size(); }
const char* lqs_message_attribute_name(const lqs_message_t* m, size_t i) {
  return m->attrs[i]->first.c_str();
}
const char* lqs_message_attribute_data_type(const lqs_message_t* m, size_t i) {
  return m->attrs[i]->second.data_type.c_str();
}
int lqs_message_attribute_is_binary(const lqs_message_t* m, size_t i) {
  return m->attrs[i]->second.IsBinary() ? 1 : 0;
}
const char* lqs_message_attribute_string_value(const lqs_message_t* m, size_t i) {
  return m->attrs[i]->second.string_value.c_str();
}
const void* lqs_message_attribute_binary_value(const lqs_message_t* m, size_t i,
                                               size_t* len) {
  const std::string& v = m->attrs[i]->second.binary_value;
  if (len != nullptr) *len = v.size();
  return v.data();
}

// ---- Deleting and changing visibility --------------------------------------------------------------------

int lqs_queue_delete_message(lqs_queue_t* queue, const char* receipt_handle, char** errptr) {
  return Guard(errptr, [&]() -> int {
    return SaveError(queue->rep->DeleteMessage(Str(receipt_handle)), errptr);
  });
}

int lqs_queue_delete_message_batch(lqs_queue_t* queue, const char* const* ids,
                                   const char* const* receipt_handles, size_t n,
                                   lqs_batch_result_t** result, char** errptr) {
  return Guard(errptr, [&]() -> int {
    std::vector<lqs::DeleteMessageBatchEntry> entries(n);
    for (size_t i = 0; i < n; ++i) {
      entries[i].id = Str(ids[i]);
      entries[i].receipt_handle = Str(receipt_handles[i]);
    }
    auto done = queue->rep->DeleteMessageBatch(entries);
    if (!done.ok()) return SaveError(done.status(), errptr);
    if (result != nullptr) *result = NewBatchResult(*done);
    return LQS_OK;
  });
}

int lqs_queue_delete_message_and_record(lqs_queue_t* queue, const char* receipt_handle,
                                        const void* key, size_t key_len, int64_t ttl_seconds,
                                        char** errptr) {
  return Guard(errptr, [&]() -> int {
    LQS_REQUIRE(key != nullptr || key_len == 0, "key must not be NULL");
    const std::string k(static_cast<const char*>(key), key == nullptr ? 0 : key_len);
    return SaveError(queue->rep->DeleteMessageAndRecord(Str(receipt_handle), k, ttl_seconds),
                     errptr);
  });
}

int lqs_queue_inbox_contains(lqs_queue_t* queue, const void* key, size_t key_len, int* contains,
                             char** errptr) {
  return Guard(errptr, [&]() -> int {
    LQS_REQUIRE(key != nullptr || key_len == 0, "key must not be NULL");
    LQS_REQUIRE(contains != nullptr, "contains must not be NULL");
    const std::string k(static_cast<const char*>(key), key == nullptr ? 0 : key_len);
    lqs::StatusOr<bool> found = queue->rep->InboxContains(k);
    if (!found.ok()) return SaveError(found.status(), errptr);
    *contains = *found ? 1 : 0;
    return LQS_OK;
  });
}

int lqs_queue_move_to_dead_letter_queue(lqs_queue_t* queue, const char* receipt_handle,
                                        const char* const* names, const char* const* values,
                                        size_t n, char** errptr) {
  return Guard(errptr, [&]() -> int {
    LQS_REQUIRE(n == 0 || (names != nullptr && values != nullptr),
                "names and values must not be NULL when n > 0");
    lqs::MessageAttributeMap extra;
    for (size_t i = 0; i < n; ++i) {
      lqs::MessageAttributeValue v;
      v.data_type = "String";
      v.string_value = Str(values[i]);
      extra[Str(names[i])] = std::move(v);
    }
    return SaveError(queue->rep->MoveToDeadLetterQueue(Str(receipt_handle), extra), errptr);
  });
}

int lqs_queue_change_message_visibility(lqs_queue_t* queue, const char* receipt_handle,
                                        int visibility_timeout, char** errptr) {
  return Guard(errptr, [&]() -> int {
    return SaveError(
        queue->rep->ChangeMessageVisibility(Str(receipt_handle), visibility_timeout), errptr);
  });
}

int lqs_queue_change_message_visibility_batch(lqs_queue_t* queue, const char* const* ids,
                                              const char* const* receipt_handles,
                                              const int* visibility_timeouts, size_t n,
                                              lqs_batch_result_t** result, char** errptr) {
  return Guard(errptr, [&]() -> int {
    std::vector<lqs::ChangeMessageVisibilityBatchEntry> entries(n);
    for (size_t i = 0; i < n; ++i) {
      entries[i].id = Str(ids[i]);
      entries[i].receipt_handle = Str(receipt_handles[i]);
      if (visibility_timeouts != nullptr && visibility_timeouts[i] >= 0) {
        entries[i].visibility_timeout = visibility_timeouts[i];
      }
    }
    auto done = queue->rep->ChangeMessageVisibilityBatch(entries);
    if (!done.ok()) return SaveError(done.status(), errptr);
    if (result != nullptr) *result = NewBatchResult(*done);
    return LQS_OK;
  });
}

int lqs_queue_purge(lqs_queue_t* queue, char** errptr) {
  return Guard(errptr, [&]() -> int { return SaveError(queue->rep->PurgeQueue(), errptr); });
}

// ---- Attributes, tags, permissions -------------------------------------------------------------------------

int lqs_queue_get_attributes(lqs_queue_t* queue, const char* const* names, size_t n,
                             lqs_strmap_t** attributes, char** errptr) {
  return Guard(errptr, [&]() -> int {
    auto got = queue->rep->GetAttributes(MakeList(names, n));
    if (!got.ok()) return SaveError(got.status(), errptr);
    if (attributes != nullptr) *attributes = NewMap(*got);
    return LQS_OK;
  });
}

int lqs_queue_set_attributes(lqs_queue_t* queue, const char* const* names,
                             const char* const* values, size_t n, char** errptr) {
  return Guard(errptr, [&]() -> int {
    return SaveError(queue->rep->SetAttributes(MakeMap(names, values, n)), errptr);
  });
}

int lqs_queue_tag(lqs_queue_t* queue, const char* const* keys, const char* const* values,
                  size_t n, char** errptr) {
  return Guard(errptr, [&]() -> int {
    return SaveError(queue->rep->TagQueue(MakeMap(keys, values, n)), errptr);
  });
}

int lqs_queue_untag(lqs_queue_t* queue, const char* const* keys, size_t n, char** errptr) {
  return Guard(errptr, [&]() -> int {
    return SaveError(queue->rep->UntagQueue(MakeList(keys, n)), errptr);
  });
}

int lqs_queue_list_tags(lqs_queue_t* queue, lqs_strmap_t** tags, char** errptr) {
  return Guard(errptr, [&]() -> int {
    auto got = queue->rep->ListQueueTags();
    if (!got.ok()) return SaveError(got.status(), errptr);
    if (tags != nullptr) *tags = NewMap(*got);
    return LQS_OK;
  });
}

int lqs_queue_add_permission(lqs_queue_t* queue, const char* label,
                             const char* const* account_ids, size_t n_accounts,
                             const char* const* actions, size_t n_actions, char** errptr) {
  return Guard(errptr, [&]() -> int {
    return SaveError(queue->rep->AddPermission(Str(label), MakeList(account_ids, n_accounts),
                                               MakeList(actions, n_actions)),
                     errptr);
  });
}

int lqs_queue_remove_permission(lqs_queue_t* queue, const char* label, char** errptr) {
  return Guard(errptr, [&]() -> int {
    return SaveError(queue->rep->RemovePermission(Str(label)), errptr);
  });
}

}  // extern "C"
