// The C API's queue calls other than sending and receiving (include/lqs/c.h
// "Queue handles", "Deleting and changing visibility", "Consumer support",
// "Attributes, tags, permissions").

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

namespace {

lqs_batch_result_t* NewBatchResult(const lqs::BatchResult& r) {
  auto* out = new lqs_batch_result_t;
  out->successful_ids = r.successful;
  out->failed = r.failed;
  return out;
}

// n batch entries with the given ids and receipt handles (NULL entries are "").
template <typename Entry>
std::vector<Entry> ReceiptEntries(const char* const* ids, const char* const* receipt_handles,
                                  size_t n) {
  std::vector<Entry> entries(n);
  for (size_t i = 0; i < n; ++i) {
    entries[i].id = Str(ids[i]);
    entries[i].receipt_handle = Str(receipt_handles[i]);
  }
  return entries;
}

// The end of a batch call: the error of a failed `done`, or LQS_OK with
// *result (when result is not NULL) set to a new batch result.
int SaveBatchResult(const lqs::StatusOr<lqs::BatchResult>& done, lqs_batch_result_t** result,
                    char** errptr) {
  return SaveResult(done, result, errptr, NewBatchResult);
}

}  // namespace

extern "C" {

// ---- Queue handles -----------------------------------------------------------------------------

void lqs_queue_destroy(lqs_queue_t* queue) { delete queue; }
const char* lqs_queue_name(const lqs_queue_t* queue) { return queue->rep->name().c_str(); }
const char* lqs_queue_arn(const lqs_queue_t* queue) { return queue->rep->arn().c_str(); }
int lqs_queue_is_fifo(const lqs_queue_t* queue) { return queue->rep->is_fifo() ? 1 : 0; }

// ---- Deleting and changing visibility
// --------------------------------------------------------------------

int lqs_queue_delete_message(lqs_queue_t* queue, const char* receipt_handle, char** errptr) {
  return Guard(errptr, [&]() -> int {
    return SaveError(queue->rep->DeleteMessage(Str(receipt_handle)), errptr);
  });
}

int lqs_queue_delete_message_batch(lqs_queue_t* queue, const char* const* ids,
                                   const char* const* receipt_handles, size_t n,
                                   lqs_batch_result_t** result, char** errptr) {
  return Guard(errptr, [&]() -> int {
    const auto entries = ReceiptEntries<lqs::DeleteMessageBatchEntry>(ids, receipt_handles, n);
    return SaveBatchResult(queue->rep->DeleteMessageBatch(entries), result, errptr);
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
    return SaveError(queue->rep->ChangeMessageVisibility(Str(receipt_handle), visibility_timeout),
                     errptr);
  });
}

int lqs_queue_change_message_visibility_batch(lqs_queue_t* queue, const char* const* ids,
                                              const char* const* receipt_handles,
                                              const int* visibility_timeouts, size_t n,
                                              lqs_batch_result_t** result, char** errptr) {
  return Guard(errptr, [&]() -> int {
    auto entries = ReceiptEntries<lqs::ChangeMessageVisibilityBatchEntry>(ids, receipt_handles, n);
    for (size_t i = 0; i < n; ++i) {
      if (visibility_timeouts != nullptr && visibility_timeouts[i] >= 0) {
        entries[i].visibility_timeout = visibility_timeouts[i];
      }
    }
    return SaveBatchResult(queue->rep->ChangeMessageVisibilityBatch(entries), result, errptr);
  });
}

int lqs_queue_purge(lqs_queue_t* queue, char** errptr) {
  return Guard(errptr, [&]() -> int { return SaveError(queue->rep->PurgeQueue(), errptr); });
}

// ---- Attributes, tags, permissions
// -------------------------------------------------------------------------

int lqs_queue_get_attributes(lqs_queue_t* queue, const char* const* names, size_t n,
                             lqs_strmap_t** attributes, char** errptr) {
  return Guard(errptr, [&]() -> int {
    return SaveResult(queue->rep->GetAttributes(MakeList(names, n)), attributes, errptr, NewMap);
  });
}

int lqs_queue_set_attributes(lqs_queue_t* queue, const char* const* names,
                             const char* const* values, size_t n, char** errptr) {
  return Guard(errptr, [&]() -> int {
    return SaveError(queue->rep->SetAttributes(MakeMap(names, values, n)), errptr);
  });
}

int lqs_queue_tag(lqs_queue_t* queue, const char* const* keys, const char* const* values, size_t n,
                  char** errptr) {
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
    return SaveResult(queue->rep->ListQueueTags(), tags, errptr, NewMap);
  });
}

int lqs_queue_add_permission(lqs_queue_t* queue, const char* label, const char* const* account_ids,
                             size_t n_accounts, const char* const* actions, size_t n_actions,
                             char** errptr) {
  return Guard(errptr, [&]() -> int {
    return SaveError(queue->rep->AddPermission(Str(label), MakeList(account_ids, n_accounts),
                                               MakeList(actions, n_actions)),
                     errptr);
  });
}

int lqs_queue_remove_permission(lqs_queue_t* queue, const char* label, char** errptr) {
  return Guard(
      errptr, [&]() -> int { return SaveError(queue->rep->RemovePermission(Str(label)), errptr); });
}

}  // extern "C"
