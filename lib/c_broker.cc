// The C API's broker calls (include/lqs/c.h "Broker", "Queue catalogue",
// "Message move tasks", "Maintenance"): lqs_broker_t over lqs::Broker.

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

struct lqs_move_tasks_t {
  std::vector<lqs::MessageMoveTask> rep;
};

namespace {

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

lqs::ListQueuesRequest ListRequest(const char* prefix, int max_results, const char* next_token) {
  lqs::ListQueuesRequest request;
  request.queue_name_prefix = Str(prefix);
  if (max_results >= 0) request.max_results = max_results;
  request.next_token = Str(next_token);
  return request;
}

int ReturnQueue(const std::shared_ptr<lqs::Broker>& broker,
                lqs::StatusOr<std::shared_ptr<lqs::Queue>>& result, lqs_queue_t** queue,
                char** errptr) {
  return SaveResult(std::move(result), queue, errptr, [&](std::shared_ptr<lqs::Queue> q) {
    return new lqs_queue_t{broker, std::move(q)};
  });
}

}  // namespace

extern "C" {

// ---- Broker -------------------------------------------------------------------------------

int lqs_open(const char* path, const lqs_options_t* options, lqs_broker_t** broker, char** errptr) {
  return Guard(errptr, [&]() -> int {
    LQS_REQUIRE(path != nullptr && *path != '\0', "path must not be empty");
    LQS_REQUIRE(broker != nullptr, "broker must not be NULL");
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
    auto opened = lqs::Broker::Open(opts);
    if (!opened.ok()) return SaveError(opened.status(), errptr);
    *broker = new lqs_broker_t{std::shared_ptr<lqs::Broker>(std::move(*opened))};
    return LQS_OK;
  });
}

int lqs_close(lqs_broker_t* broker, char** errptr) {
  if (broker == nullptr) return LQS_OK;
  int rc = Guard(errptr, [&]() -> int { return SaveError(broker->rep->Close(), errptr); });
  delete broker;
  return rc;
}

char* lqs_arn_for(const lqs_broker_t* broker, const char* name) {
  return OrElse<char*>(nullptr, [&] { return CopyString(broker->rep->ArnFor(Str(name))); });
}
const char* lqs_region(const lqs_broker_t* broker) { return broker->rep->options().region.c_str(); }
const char* lqs_account_id(const lqs_broker_t* broker) {
  return broker->rep->options().account_id.c_str();
}

// ---- Queue catalogue ------------------------------------------------------------------------

int lqs_create_queue(lqs_broker_t* broker, const char* name, const char* const* attr_names,
                     const char* const* attr_values, size_t n_attrs, const char* const* tag_keys,
                     const char* const* tag_values, size_t n_tags, lqs_queue_t** queue,
                     char** errptr) {
  return Guard(errptr, [&]() -> int {
    auto result = broker->rep->CreateQueue(Str(name), MakeMap(attr_names, attr_values, n_attrs),
                                           MakeMap(tag_keys, tag_values, n_tags));
    return ReturnQueue(broker->rep, result, queue, errptr);
  });
}

int lqs_get_queue(lqs_broker_t* broker, const char* name, lqs_queue_t** queue, char** errptr) {
  return Guard(errptr, [&]() -> int {
    auto result = broker->rep->GetQueue(Str(name));
    return ReturnQueue(broker->rep, result, queue, errptr);
  });
}

int lqs_get_queue_by_arn(lqs_broker_t* broker, const char* arn, lqs_queue_t** queue,
                         char** errptr) {
  return Guard(errptr, [&]() -> int {
    auto result = broker->rep->GetQueueByArn(Str(arn));
    return ReturnQueue(broker->rep, result, queue, errptr);
  });
}

int lqs_delete_queue(lqs_broker_t* broker, const char* name, char** errptr) {
  return Guard(errptr,
               [&]() -> int { return SaveError(broker->rep->DeleteQueue(Str(name)), errptr); });
}

int lqs_list_queues(lqs_broker_t* broker, const char* prefix, int max_results,
                    const char* next_token, lqs_strlist_t** names, char** next_token_out,
                    char** errptr) {
  return Guard(errptr, [&]() -> int {
    return ListPage(broker->rep->ListQueues(ListRequest(prefix, max_results, next_token)), names,
                    next_token_out, errptr);
  });
}

int lqs_list_dead_letter_source_queues(lqs_broker_t* broker, const char* dlq_name, int max_results,
                                       const char* next_token, lqs_strlist_t** names,
                                       char** next_token_out, char** errptr) {
  return Guard(errptr, [&]() -> int {
    return ListPage(broker->rep->ListDeadLetterSourceQueues(
                        Str(dlq_name), ListRequest(nullptr, max_results, next_token)),
                    names, next_token_out, errptr);
  });
}

// ---- Move tasks ------------------------------------------------------------------------------

int lqs_start_message_move_task(lqs_broker_t* broker, const char* source_arn,
                                const char* destination_arn, int max_per_second, char** task_handle,
                                char** errptr) {
  return Guard(errptr, [&]() -> int {
    lqs::StartMessageMoveTaskRequest request;
    request.source_arn = Str(source_arn);
    if (destination_arn != nullptr) request.destination_arn = destination_arn;
    if (max_per_second >= 0) request.max_number_of_messages_per_second = max_per_second;
    return SaveResult(broker->rep->StartMessageMoveTask(request), task_handle, errptr, CopyString);
  });
}

int lqs_cancel_message_move_task(lqs_broker_t* broker, const char* task_handle, int64_t* moved,
                                 char** errptr) {
  return Guard(errptr, [&]() -> int {
    return SaveResult(broker->rep->CancelMessageMoveTask(Str(task_handle)), moved, errptr,
                      [](int64_t n) { return n; });
  });
}

int lqs_list_message_move_tasks(lqs_broker_t* broker, const char* source_arn, int max_results,
                                lqs_move_tasks_t** tasks, char** errptr) {
  return Guard(errptr, [&]() -> int {
    return SaveResult(
        broker->rep->ListMessageMoveTasks(Str(source_arn), max_results < 0 ? 1 : max_results),
        tasks, errptr,
        [](std::vector<lqs::MessageMoveTask> t) { return new lqs_move_tasks_t{std::move(t)}; });
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

int lqs_run_maintenance(lqs_broker_t* broker, char** errptr) {
  return Guard(errptr, [&]() -> int { return SaveError(broker->rep->RunMaintenance(), errptr); });
}

int lqs_compact_all(lqs_broker_t* broker, char** errptr) {
  return Guard(errptr, [&]() -> int { return SaveError(broker->rep->CompactAll(), errptr); });
}

int lqs_verify(lqs_broker_t* broker, lqs_strlist_t** problems, char** errptr) {
  return Guard(errptr, [&]() -> int {
    return SaveResult(broker->rep->Verify(), problems, errptr,
                      [](std::vector<std::string> p) { return new lqs_strlist_t{std::move(p)}; });
  });
}

}  // extern "C"
