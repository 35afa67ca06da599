/* lqs/c.h — the C API of lqs, an embedded persistent message queue with
 * Amazon SQS semantics.
 *
 * This header is plain C (C99 or later; tested as C11) and may also be
 * included from C++. It wraps the C++ API (the headers in include/lqs/) one to one; the
 * semantics of every call (validation, SQS error codes, idempotency, long
 * polling) are those documented there and in docs/sqs_compat.md.
 *
 *   lqs_options_t* opts = lqs_options_create();
 *   char* err = NULL;
 *   lqs_broker_t* broker = NULL;
 *   if (lqs_open("/var/lib/myapp/queues", opts, &broker, &err) != LQS_OK) {
 *     fprintf(stderr, "open: %s\n", err);
 *     lqs_free(err);
 *   }
 *   lqs_options_destroy(opts);
 *   lqs_queue_t* q = NULL;
 *   lqs_create_queue(broker, "jobs", NULL, NULL, 0, NULL, NULL, 0, &q, &err);
 *   lqs_send_request_t* msg = lqs_send_request_create("hello", 5);
 *   lqs_send_result_t* sent = NULL;
 *   lqs_queue_send_message(q, msg, &sent, &err);
 *   ...
 *   lqs_send_result_destroy(sent);
 *   lqs_send_request_destroy(msg);
 *   lqs_queue_destroy(q);
 *   lqs_close(broker);
 *
 * CONVENTIONS (they hold for every function below)
 *
 * 1. Handles. Every lqs object is an opaque pointer. A function that creates
 *    or returns an object (lqs_*_create, lqs_open, an `out` parameter of
 *    pointer-to-pointer type) hands ownership to the caller, who releases it
 *    with the matching lqs_*_destroy (lqs_close for lqs_broker_t). Every destroy
 *    function accepts NULL and does nothing. Pointers obtained from an
 *    accessor of an object (strings, messages, attributes) are borrowed: they
 *    stay valid until that object is destroyed, and must not be freed.
 *
 * 2. Errors. Every fallible function returns an int: LQS_OK (0) on success,
 *    otherwise one of the LQS_* codes below, which are the SQS errors of the
 *    C++ API (lqs::ErrorCode) with the same, never renumbered values. The
 *    last parameter, `char** errptr`, may be NULL. If it is not NULL,
 *    *errptr must be NULL or a message returned by an earlier lqs call; on
 *    failure lqs frees that message and stores a new one (NUL-terminated,
 *    "<what went wrong>", naming the parameter and the rule), which the
 *    caller frees with lqs_free. On success *errptr is left unchanged.
 *    lqs_error_query_code(), lqs_error_shape() etc. give the spellings
 *    SQS front ends use for a code. On failure, `out` parameters are left
 *    unchanged and nothing was modified (a rejected call changes nothing).
 *    No C++ exception crosses this API: an unexpected one (including
 *    std::bad_alloc) becomes LQS_INTERNAL.
 *
 * 3. Strings. Names, ids, ARNs, receipt handles and attribute values are
 *    NUL-terminated UTF-8. Message bodies and binary attribute values are
 *    pointer + length (binary values may contain NUL bytes). Strings
 *    returned through `char**` out parameters are malloc'd and freed with
 *    lqs_free.
 *
 * 4. Optional values. An optional integer is "absent" when passed as a
 *    negative number (for counts and limits documented as such), an
 *    optional string when passed as NULL. Booleans are int (0 = false).
 *
 * 5. Maps. Attribute and tag maps are passed as two parallel arrays of n
 *    keys and n values (NULL arrays are allowed when n == 0) and returned as
 *    an lqs_strmap_t, in key order.
 *
 * THREAD SAFETY
 *
 * lqs_broker_t, lqs_queue_t, lqs_worker_t and lqs_bridge_t handles may be
 * used from any number of threads at once, except that lqs_close must not
 * race with other calls on the same broker (a worker's and a bridge's
 * threads make such calls: see "Worker" and lqs/c_bridge.h).
 * Request builders (lqs_options_t, lqs_send_request_t, lqs_receive_request_t,
 * lqs_send_batch_request_t, lqs_worker_options_t, lqs_bridge_options_t) and
 * results are plain values: use one from one thread at a time, as a
 * transaction (lqs_transaction_t, lqs/c_transaction.h). A manual
 * clock may be advanced from any thread.
 *
 * BLOCKING
 *
 * lqs_queue_receive_message blocks for up to WaitTimeSeconds (long polling).
 * lqs_worker_stop, lqs_worker_wait and lqs_worker_destroy wait for the
 * worker's handlers, as documented there; lqs_bridge_wait and
 * lqs_bridge_destroy for the bridge's threads. Every other call returns as soon
 * as its write is durable in the database's durability mode.
 */

#ifndef LQS_C_H_
#define LQS_C_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define LQS_C_EXPORT __attribute__((visibility("default")))
#else
#define LQS_C_EXPORT
#endif

/* The version of this header's API. It grows when functions are added;
 * existing signatures never change (a *_v2 function appears instead).
 * 2: the worker (lqs_worker_*).
 * 3: noun type names (lqs_broker_t, lqs_send_request_t, lqs_send_batch_request_t,
 *    lqs_receive_request_t and their functions); no lqs_error_http_status.
 * 4: the storage budget and the small-device preset
 *    (lqs_options_set_max_disk_bytes, lqs_options_use_small_device,
 *    LQS_OVER_STORAGE_BUDGET).
 * 5: bridges to a remote SQS queue (lqs_bridge_*, lqs/c_bridge.h).
 * 6: tables and transactions (lqs_transaction_*, lqs_table_*,
 *    lqs_list_tables; lqs/c_transaction.h).
 * 7: transactional worker handlers (lqs_worker_create_transactional,
 *    lqs/c_transaction.h) and lqs_worker_get_stats_v2
 *    (transaction_conflicts). */
#define LQS_C_API_VERSION 7

/* ---- Error codes (== lqs::ErrorCode; never renumbered) ------------------ */

enum {
  LQS_OK = 0,

  /* SQS errors: the caller's fault, do not retry unchanged. */
  LQS_INVALID_PARAMETER_VALUE = 1,
  LQS_MISSING_PARAMETER = 2,
  LQS_INVALID_ATTRIBUTE_NAME = 3,
  LQS_INVALID_ATTRIBUTE_VALUE = 4,
  LQS_QUEUE_DOES_NOT_EXIST = 5, /* AWS.SimpleQueueService.NonExistentQueue */
  LQS_QUEUE_NAME_EXISTS = 6,    /* QueueAlreadyExists */
  LQS_QUEUE_DELETED_RECENTLY = 7,
  LQS_PURGE_QUEUE_IN_PROGRESS = 8,
  LQS_RECEIPT_HANDLE_IS_INVALID = 9,
  LQS_INVALID_MESSAGE_CONTENTS = 10,
  LQS_EMPTY_BATCH_REQUEST = 11,
  LQS_TOO_MANY_ENTRIES_IN_BATCH_REQUEST = 12,
  LQS_BATCH_ENTRY_IDS_NOT_DISTINCT = 13,
  LQS_INVALID_BATCH_ENTRY_ID = 14,
  LQS_BATCH_REQUEST_TOO_LONG = 15,
  LQS_OVER_LIMIT = 16,
  LQS_RESOURCE_NOT_FOUND = 17, /* ResourceNotFoundException */
  LQS_UNSUPPORTED_OPERATION = 18,
  LQS_MESSAGE_NOT_INFLIGHT = 19,

  /* Engine errors (server faults). */
  LQS_IO_ERROR = 100,            /* the disk refused (ENOSPC, EIO); retry later */
  LQS_CORRUPTION = 101,          /* a stored record failed verification */
  LQS_DATABASE_LOCKED = 102,     /* another process holds the database */
  LQS_CLOSED = 103,              /* the broker was closed */
  LQS_INTERNAL = 104,            /* a bug (or out of memory); please report it */
  LQS_OVER_STORAGE_BUDGET = 105, /* the database is at max_disk_bytes; retry later */
  LQS_TRANSACTION_CONFLICT = 106 /* a transaction's commit conflicted; run it again */
};

/* The enumerator's name without prefix, e.g. "QueueDoesNotExist". Static
 * storage; never NULL (unknown codes give "Internal"). */
LQS_C_EXPORT const char* lqs_error_name(int code);
/* The SQS query-protocol error code, e.g.
 * "AWS.SimpleQueueService.NonExistentQueue" (what boto3 shows as
 * Error.Code). "" for LQS_OK. Static storage. */
LQS_C_EXPORT const char* lqs_error_query_code(int code);
/* The SQS error shape name (JSON __type suffix), e.g. "QueueDoesNotExist". */
LQS_C_EXPORT const char* lqs_error_shape(int code);
/* 1 if the error is the caller's fault ("Sender"), 0 otherwise. */
LQS_C_EXPORT int lqs_error_is_sender_fault(int code);

/* Frees a string returned by lqs (error messages, char** out parameters).
 * NULL is allowed. */
LQS_C_EXPORT void lqs_free(void* ptr);

/* The library version at run time ("0.1.0") and its parts. */
LQS_C_EXPORT const char* lqs_version(void);
LQS_C_EXPORT int lqs_version_major(void);
LQS_C_EXPORT int lqs_version_minor(void);
LQS_C_EXPORT int lqs_version_patch(void);
/* The LQS_C_API_VERSION the library was built with. */
LQS_C_EXPORT int lqs_c_api_version(void);

/* ---- Opaque types ------------------------------------------------------- */

typedef struct lqs_broker_t lqs_broker_t;             /* an open database */
typedef struct lqs_options_t lqs_options_t;           /* how to open it */
typedef struct lqs_clock_t lqs_clock_t;               /* a manual clock */
typedef struct lqs_queue_t lqs_queue_t;               /* a queue handle */
typedef struct lqs_strmap_t lqs_strmap_t;             /* string -> string, sorted */
typedef struct lqs_strlist_t lqs_strlist_t;           /* list of strings */
typedef struct lqs_send_request_t lqs_send_request_t; /* a message to send */
typedef struct lqs_send_result_t lqs_send_result_t;
typedef struct lqs_send_batch_request_t lqs_send_batch_request_t; /* entries to send */
typedef struct lqs_batch_result_t lqs_batch_result_t;
typedef struct lqs_receive_request_t lqs_receive_request_t; /* receive parameters */
typedef struct lqs_messages_t lqs_messages_t;               /* received messages */
typedef struct lqs_message_t lqs_message_t;                 /* one, borrowed */
typedef struct lqs_move_tasks_t lqs_move_tasks_t;           /* message move tasks */
typedef struct lqs_worker_t lqs_worker_t;                   /* a consumer loop */
typedef struct lqs_worker_options_t lqs_worker_options_t;
typedef struct lqs_worker_message_t lqs_worker_message_t; /* borrowed */
typedef struct lqs_worker_result_t lqs_worker_result_t;   /* borrowed */

/* ---- String maps and lists (results) ------------------------------------- */

LQS_C_EXPORT size_t lqs_strmap_count(const lqs_strmap_t* map);
/* REQUIRES: i < lqs_strmap_count(map). */
LQS_C_EXPORT const char* lqs_strmap_key(const lqs_strmap_t* map, size_t i);
LQS_C_EXPORT const char* lqs_strmap_value(const lqs_strmap_t* map, size_t i);
/* The value for `key`, or NULL if absent. */
LQS_C_EXPORT const char* lqs_strmap_get(const lqs_strmap_t* map, const char* key);
LQS_C_EXPORT void lqs_strmap_destroy(lqs_strmap_t* map);

LQS_C_EXPORT size_t lqs_strlist_count(const lqs_strlist_t* list);
LQS_C_EXPORT const char* lqs_strlist_get(const lqs_strlist_t* list, size_t i);
LQS_C_EXPORT void lqs_strlist_destroy(lqs_strlist_t* list);

/* ---- Clock ----------------------------------------------------------------
 * A clock that moves only when told to, for tests: visibility timeouts,
 * delays, retention and long-poll deadlines follow it instead of real time.
 * The database keeps its own reference: the handle may be destroyed while
 * the database still uses the clock. */

/* The default start of lqs_manual_clock_create: 2026-01-01T00:00:00Z. */
#define LQS_MANUAL_CLOCK_DEFAULT_START_MS INT64_C(1767225600000)

LQS_C_EXPORT lqs_clock_t* lqs_manual_clock_create(int64_t start_ms);
LQS_C_EXPORT int64_t lqs_clock_now_millis(lqs_clock_t* clock);
/* Moves the clock forward by ms (>= 0) and wakes waiting receivers. */
LQS_C_EXPORT void lqs_clock_advance_millis(lqs_clock_t* clock, int64_t ms);
LQS_C_EXPORT void lqs_clock_advance_seconds(lqs_clock_t* clock, int64_t s);
/* Sets the clock; lqs clamps a backwards step to the last value it saw. */
LQS_C_EXPORT void lqs_clock_set_millis(lqs_clock_t* clock, int64_t ms);
LQS_C_EXPORT void lqs_clock_destroy(lqs_clock_t* clock);

/* ---- Options (lqs::Options; defaults are the C++ defaults) --------------- */

enum {
  LQS_DURABILITY_NONE = 0,    /* survives a clean close only */
  LQS_DURABILITY_PROCESS = 1, /* default: survives kill -9 */
  LQS_DURABILITY_FSYNC = 2    /* survives power loss for sends */
};

LQS_C_EXPORT lqs_options_t* lqs_options_create(void);
LQS_C_EXPORT void lqs_options_destroy(lqs_options_t* options);
/* Default 1. If 0, opening a missing database fails with LQS_IO_ERROR. */
LQS_C_EXPORT void lqs_options_set_create_if_missing(lqs_options_t* o, int v);
/* One of LQS_DURABILITY_*; other values are rejected by lqs_open
 * (LQS_INVALID_PARAMETER_VALUE). */
LQS_C_EXPORT void lqs_options_set_durability(lqs_options_t* o, int durability);
/* The clock to read time from (the options keep a reference). NULL restores
 * the system clock. */
LQS_C_EXPORT void lqs_options_set_clock(lqs_options_t* o, lqs_clock_t* clock);
/* For ARNs: "us-east-1" and "123456789012" by default. */
LQS_C_EXPORT void lqs_options_set_region(lqs_options_t* o, const char* region);
LQS_C_EXPORT void lqs_options_set_account_id(lqs_options_t* o, const char* id);
LQS_C_EXPORT void lqs_options_set_sender_id(lqs_options_t* o, const char* id);
/* SQS's 60-second rules; both default 1. */
LQS_C_EXPORT void lqs_options_set_enforce_queue_name_reuse_delay(lqs_options_t* o, int v);
LQS_C_EXPORT void lqs_options_set_enforce_purge_interval(lqs_options_t* o, int v);
LQS_C_EXPORT void lqs_options_set_max_inflight_per_queue(lqs_options_t* o, int64_t n);
/* The background maintenance thread (default 1) and its interval. */
LQS_C_EXPORT void lqs_options_set_background_maintenance(lqs_options_t* o, int v);
LQS_C_EXPORT void lqs_options_set_maintenance_interval_ms(lqs_options_t* o, int64_t ms);
LQS_C_EXPORT void lqs_options_set_block_cache_bytes(lqs_options_t* o, int64_t n);
LQS_C_EXPORT void lqs_options_set_write_buffer_bytes(lqs_options_t* o, int64_t n);
/* The storage budget (lqs::Options::max_disk_bytes): once the database's
 * files reach it, sends fail with LQS_OVER_STORAGE_BUDGET until deleted
 * messages are reclaimed; receives and deletes go on. Default 0: none. */
LQS_C_EXPORT void lqs_options_set_max_disk_bytes(lqs_options_t* o, int64_t n);
/* RocksDB's memory settings of lqs::Options::SmallDevice() (block cache,
 * memtables, background jobs); the other options are kept. */
LQS_C_EXPORT void lqs_options_use_small_device(lqs_options_t* o);

/* ---- Broker -------------------------------------------------------------- */

/* Opens (or creates) the database in directory `path`. `options` may be
 * NULL (defaults) and may be destroyed right after the call. On success
 * *broker receives the handle; close it with lqs_close.
 * Errors: LQS_DATABASE_LOCKED (another process holds it), LQS_IO_ERROR,
 * LQS_CORRUPTION, LQS_INVALID_PARAMETER_VALUE (bad option). */
LQS_C_EXPORT int lqs_open(const char* path, const lqs_options_t* options, lqs_broker_t** broker,
                          char** errptr);

/* Flushes and closes the database and frees the handle. Long-polling
 * receivers wake and fail with LQS_CLOSED; queue handles still alive fail
 * every call with LQS_CLOSED and must still be destroyed. NULL is a no-op.
 * Returns the status of the final flush (the handle is freed regardless). */
LQS_C_EXPORT int lqs_close(lqs_broker_t* broker, char** errptr);

/* The ARN lqs gives queue `name`: arn:aws:sqs:<region>:<account>:<name>.
 * Malloc'd; free with lqs_free. */
LQS_C_EXPORT char* lqs_arn_for(const lqs_broker_t* broker, const char* name);
/* The options' region and account id (borrowed from the broker). */
LQS_C_EXPORT const char* lqs_region(const lqs_broker_t* broker);
LQS_C_EXPORT const char* lqs_account_id(const lqs_broker_t* broker);

/* ---- Queue catalogue ----------------------------------------------------- */

/* Creates queue `name` with the given attributes and tags, or returns the
 * existing queue when every given attribute equals its current value (SQS's
 * CreateQueue idempotency; tags are then ignored). *queue receives a new
 * handle (lqs_queue_destroy).
 * Errors: LQS_INVALID_PARAMETER_VALUE (bad name), LQS_INVALID_ATTRIBUTE_NAME,
 * LQS_INVALID_ATTRIBUTE_VALUE, LQS_QUEUE_NAME_EXISTS, LQS_QUEUE_DELETED_RECENTLY,
 * LQS_UNSUPPORTED_OPERATION. */
LQS_C_EXPORT int lqs_create_queue(lqs_broker_t* broker, const char* name,
                                  const char* const* attr_names, const char* const* attr_values,
                                  size_t n_attrs, const char* const* tag_keys,
                                  const char* const* tag_values, size_t n_tags, lqs_queue_t** queue,
                                  char** errptr);

/* The queue called `name` (case-sensitive). Errors: LQS_QUEUE_DOES_NOT_EXIST. */
LQS_C_EXPORT int lqs_get_queue(lqs_broker_t* broker, const char* name, lqs_queue_t** queue,
                               char** errptr);

/* The queue whose ARN is `arn`. Errors: LQS_QUEUE_DOES_NOT_EXIST,
 * LQS_INVALID_PARAMETER_VALUE (not an ARN of this region and account). */
LQS_C_EXPORT int lqs_get_queue_by_arn(lqs_broker_t* broker, const char* arn, lqs_queue_t** queue,
                                      char** errptr);

/* Deletes a queue and its messages; the name cannot be re-created for 60 s
 * unless the reuse delay is disabled. Existing handles then fail with
 * LQS_QUEUE_DOES_NOT_EXIST. Errors: LQS_QUEUE_DOES_NOT_EXIST. */
LQS_C_EXPORT int lqs_delete_queue(lqs_broker_t* broker, const char* name, char** errptr);

/* Queue names starting with `prefix` (NULL or "" for all), in name order.
 * max_results < 0: at most 1000 names and never a next token; otherwise
 * 1..1000 names per page. `next_token` is NULL/"" for the first page.
 * *names receives the page; *next_token_out (may be NULL) receives a
 * malloc'd token, or NULL on the last page. */
LQS_C_EXPORT int lqs_list_queues(lqs_broker_t* broker, const char* prefix, int max_results,
                                 const char* next_token, lqs_strlist_t** names,
                                 char** next_token_out, char** errptr);

/* Names of the queues whose RedrivePolicy targets `dlq_name`, paginated as
 * lqs_list_queues. Errors: LQS_QUEUE_DOES_NOT_EXIST. */
LQS_C_EXPORT int lqs_list_dead_letter_source_queues(lqs_broker_t* broker, const char* dlq_name,
                                                    int max_results, const char* next_token,
                                                    lqs_strlist_t** names, char** next_token_out,
                                                    char** errptr);

/* ---- Message move tasks (dead-letter queue redrive) ---------------------- */

/* Starts moving the messages of dead-letter queue `source_arn` to
 * `destination_arn`, or (NULL) back to each message's source queue, at most
 * max_per_second messages a second (< 0: the default rate). *task_handle
 * receives the malloc'd handle.
 * Errors: LQS_RESOURCE_NOT_FOUND, LQS_INVALID_PARAMETER_VALUE (not a DLQ, a
 * task already running, bad ARN, rate out of 1..500). */
LQS_C_EXPORT int lqs_start_message_move_task(lqs_broker_t* broker, const char* source_arn,
                                             const char* destination_arn, int max_per_second,
                                             char** task_handle, char** errptr);

/* Cancels a running task; *moved (may be NULL) receives the number of
 * messages moved so far. Errors: LQS_INVALID_PARAMETER_VALUE (undecodable
 * handle), LQS_RESOURCE_NOT_FOUND (unknown source queue or task, or a task
 * that is no longer running). */
LQS_C_EXPORT int lqs_cancel_message_move_task(lqs_broker_t* broker, const char* task_handle,
                                              int64_t* moved, char** errptr);

/* The most recent tasks of `source_arn`, newest first (max_results 1..10;
 * < 0 means 1, as SQS). */
LQS_C_EXPORT int lqs_list_message_move_tasks(lqs_broker_t* broker, const char* source_arn,
                                             int max_results, lqs_move_tasks_t** tasks,
                                             char** errptr);
LQS_C_EXPORT size_t lqs_move_tasks_count(const lqs_move_tasks_t* t);
/* The task handle ("" unless the task is RUNNING). */
LQS_C_EXPORT const char* lqs_move_task_handle(const lqs_move_tasks_t* t, size_t i);
/* RUNNING, COMPLETED, CANCELLING, CANCELLED or FAILED. */
LQS_C_EXPORT const char* lqs_move_task_status(const lqs_move_tasks_t* t, size_t i);
LQS_C_EXPORT const char* lqs_move_task_source_arn(const lqs_move_tasks_t* t, size_t i);
/* NULL when the task moves messages back to their sources. */
LQS_C_EXPORT const char* lqs_move_task_destination_arn(const lqs_move_tasks_t* t, size_t i);
/* -1 when not given at start. */
LQS_C_EXPORT int lqs_move_task_max_per_second(const lqs_move_tasks_t* t, size_t i);
LQS_C_EXPORT int64_t lqs_move_task_moved(const lqs_move_tasks_t* t, size_t i);
LQS_C_EXPORT int64_t lqs_move_task_to_move(const lqs_move_tasks_t* t, size_t i);
/* NULL unless FAILED. */
LQS_C_EXPORT const char* lqs_move_task_failure_reason(const lqs_move_tasks_t* t, size_t i);
/* Epoch milliseconds. */
LQS_C_EXPORT int64_t lqs_move_task_started_timestamp(const lqs_move_tasks_t* t, size_t i);
LQS_C_EXPORT void lqs_move_tasks_destroy(lqs_move_tasks_t* t);

/* ---- Maintenance --------------------------------------------------------- */

/* One pass of the background work (retention, move tasks, space). */
LQS_C_EXPORT int lqs_run_maintenance(lqs_broker_t* broker, char** errptr);
/* Compacts the whole database. Slow; for operators. */
LQS_C_EXPORT int lqs_compact_all(lqs_broker_t* broker, char** errptr);
/* Checks every invariant; *problems receives the list (empty = consistent). */
LQS_C_EXPORT int lqs_verify(lqs_broker_t* broker, lqs_strlist_t** problems, char** errptr);

/* ---- Queue handles ------------------------------------------------------- */

/* Releases the handle (not the queue). The handle keeps the broker's
 * memory alive, but not open: after lqs_close its calls fail. */
LQS_C_EXPORT void lqs_queue_destroy(lqs_queue_t* queue);
/* Borrowed; valid until lqs_queue_destroy. */
LQS_C_EXPORT const char* lqs_queue_name(const lqs_queue_t* queue);
LQS_C_EXPORT const char* lqs_queue_arn(const lqs_queue_t* queue);
LQS_C_EXPORT int lqs_queue_is_fifo(const lqs_queue_t* queue);

/* ---- Sending ------------------------------------------------------------- */

/* A message to send: body (1 byte or more of XML-legal UTF-8). The builder
 * copies everything it is given and may be reused for several sends. */
LQS_C_EXPORT lqs_send_request_t* lqs_send_request_create(const char* body, size_t body_len);
LQS_C_EXPORT void lqs_send_request_destroy(lqs_send_request_t* send);
/* 0..900; without it the queue's DelaySeconds applies. */
LQS_C_EXPORT void lqs_send_request_set_delay_seconds(lqs_send_request_t* send, int seconds);
/* A String or Number message attribute (data_type "String", "Number" or
 * with a ".label"). Replaces an attribute of the same name. */
LQS_C_EXPORT void lqs_send_request_add_string_attribute(lqs_send_request_t* send, const char* name,
                                                        const char* data_type, const char* value);
/* A Binary message attribute (data_type "Binary" or "Binary.label"); raw
 * bytes, not base64. */
LQS_C_EXPORT void lqs_send_request_add_binary_attribute(lqs_send_request_t* send, const char* name,
                                                        const char* data_type, const void* value,
                                                        size_t len);
/* A message system attribute; only "AWSTraceHeader" of type "String" is
 * accepted by the send. */
LQS_C_EXPORT void lqs_send_request_add_system_attribute(lqs_send_request_t* send, const char* name,
                                                        const char* data_type, const char* value);
/* FIFO queues (and fair standard queues). */
LQS_C_EXPORT void lqs_send_request_set_message_group_id(lqs_send_request_t* send, const char* id);
/* FIFO queues only. */
LQS_C_EXPORT void lqs_send_request_set_message_deduplication_id(lqs_send_request_t* send,
                                                                const char* id);

/* Stores one message, durable before it returns. *result (may be NULL)
 * receives the message id and digests.
 * Errors: LQS_MISSING_PARAMETER (empty body), LQS_INVALID_MESSAGE_CONTENTS,
 * LQS_INVALID_PARAMETER_VALUE (size, delay, attributes, ids),
 * LQS_QUEUE_DOES_NOT_EXIST, LQS_OVER_STORAGE_BUDGET (retry later). */
LQS_C_EXPORT int lqs_queue_send_message(lqs_queue_t* queue, const lqs_send_request_t* send,
                                        lqs_send_result_t** result, char** errptr);

LQS_C_EXPORT const char* lqs_send_result_message_id(const lqs_send_result_t* r);
LQS_C_EXPORT const char* lqs_send_result_md5_of_message_body(const lqs_send_result_t* r);
/* NULL when the message had no attributes. */
LQS_C_EXPORT const char* lqs_send_result_md5_of_message_attributes(const lqs_send_result_t* r);
/* NULL when the message had no system attributes. */
LQS_C_EXPORT const char* lqs_send_result_md5_of_message_system_attributes(
    const lqs_send_result_t* r);
/* NULL except on FIFO queues. */
LQS_C_EXPORT const char* lqs_send_result_sequence_number(const lqs_send_result_t* r);
LQS_C_EXPORT void lqs_send_result_destroy(lqs_send_result_t* r);

/* A batch of 1..10 messages, each with an id ([A-Za-z0-9_-]{1,80},
 * distinct). lqs_send_batch_request_add copies `send`. */
LQS_C_EXPORT lqs_send_batch_request_t* lqs_send_batch_request_create(void);
LQS_C_EXPORT void lqs_send_batch_request_add(lqs_send_batch_request_t* batch, const char* id,
                                             const lqs_send_request_t* send);
LQS_C_EXPORT void lqs_send_batch_request_destroy(lqs_send_batch_request_t* batch);

/* Sends a batch; each entry succeeds or fails on its own (see
 * lqs_batch_result_t). Whole-request errors: LQS_EMPTY_BATCH_REQUEST,
 * LQS_TOO_MANY_ENTRIES_IN_BATCH_REQUEST, LQS_INVALID_BATCH_ENTRY_ID,
 * LQS_BATCH_ENTRY_IDS_NOT_DISTINCT, LQS_BATCH_REQUEST_TOO_LONG,
 * LQS_OVER_STORAGE_BUDGET (the whole batch; retry later). */
LQS_C_EXPORT int lqs_queue_send_message_batch(lqs_queue_t* queue,
                                              const lqs_send_batch_request_t* batch,
                                              lqs_batch_result_t** result, char** errptr);

/* ---- Batch results (send, delete and change-visibility batches) ---------- */

LQS_C_EXPORT size_t lqs_batch_result_successful_count(const lqs_batch_result_t* r);
LQS_C_EXPORT const char* lqs_batch_result_successful_id(const lqs_batch_result_t* r, size_t i);
/* Send batches only (NULL otherwise): the entry's send result. Borrowed. */
LQS_C_EXPORT const lqs_send_result_t* lqs_batch_result_successful_send(const lqs_batch_result_t* r,
                                                                       size_t i);
LQS_C_EXPORT size_t lqs_batch_result_failed_count(const lqs_batch_result_t* r);
LQS_C_EXPORT const char* lqs_batch_result_failed_id(const lqs_batch_result_t* r, size_t i);
/* The SQS query-protocol code, e.g. "ReceiptHandleIsInvalid". */
LQS_C_EXPORT const char* lqs_batch_result_failed_code(const lqs_batch_result_t* r, size_t i);
LQS_C_EXPORT const char* lqs_batch_result_failed_message(const lqs_batch_result_t* r, size_t i);
LQS_C_EXPORT int lqs_batch_result_failed_sender_fault(const lqs_batch_result_t* r, size_t i);
LQS_C_EXPORT void lqs_batch_result_destroy(lqs_batch_result_t* r);

/* ---- Receiving ----------------------------------------------------------- */

/* Receive parameters; defaults are SQS's (1 message, the queue's
 * visibility timeout and wait time, no attributes). */
LQS_C_EXPORT lqs_receive_request_t* lqs_receive_request_create(void);
LQS_C_EXPORT void lqs_receive_request_destroy(lqs_receive_request_t* r);
/* 1..10. */
LQS_C_EXPORT void lqs_receive_request_set_max_number_of_messages(lqs_receive_request_t* r, int n);
/* 0..43200 seconds, for the messages of this receive. */
LQS_C_EXPORT void lqs_receive_request_set_visibility_timeout(lqs_receive_request_t* r, int seconds);
/* 0..20 seconds; > 0 is a long poll. */
LQS_C_EXPORT void lqs_receive_request_set_wait_time_seconds(lqs_receive_request_t* r, int seconds);
/* System attributes to return: "All", "SentTimestamp", ... */
LQS_C_EXPORT void lqs_receive_request_add_system_attribute_name(lqs_receive_request_t* r,
                                                                const char* name);
/* User attributes to return: "All", ".*", a name, or "prefix.*". */
LQS_C_EXPORT void lqs_receive_request_add_message_attribute_name(lqs_receive_request_t* r,
                                                                 const char* name);
/* FIFO only. */
LQS_C_EXPORT void lqs_receive_request_set_receive_request_attempt_id(lqs_receive_request_t* r,
                                                                     const char* id);

/* Leases up to max_number_of_messages messages. `request` may be NULL
 * (defaults). Long polling: blocks the calling thread until a message is
 * available or the wait ends (or the database closes: LQS_CLOSED). An empty
 * *messages is not an error; a wait that the queue's deletion cuts short
 * ends with one. Errors: LQS_INVALID_PARAMETER_VALUE, LQS_OVER_LIMIT,
 * LQS_QUEUE_DOES_NOT_EXIST (deleted before the call). */
LQS_C_EXPORT int lqs_queue_receive_message(lqs_queue_t* queue, const lqs_receive_request_t* request,
                                           lqs_messages_t** messages, char** errptr);

LQS_C_EXPORT size_t lqs_messages_count(const lqs_messages_t* list);
/* Borrowed; valid until lqs_messages_destroy(list). */
LQS_C_EXPORT const lqs_message_t* lqs_messages_get(const lqs_messages_t* list, size_t i);
LQS_C_EXPORT void lqs_messages_destroy(lqs_messages_t* list);

LQS_C_EXPORT const char* lqs_message_id(const lqs_message_t* m);
LQS_C_EXPORT const char* lqs_message_receipt_handle(const lqs_message_t* m);
/* The body (also NUL-terminated); *len (may be NULL) receives its length. */
LQS_C_EXPORT const char* lqs_message_body(const lqs_message_t* m, size_t* len);
LQS_C_EXPORT const char* lqs_message_md5_of_body(const lqs_message_t* m);
/* The requested system attributes ("SentTimestamp" -> "1767225600000"). */
LQS_C_EXPORT const lqs_strmap_t* lqs_message_attributes(const lqs_message_t* m);
/* NULL when no user attribute was returned. */
LQS_C_EXPORT const char* lqs_message_md5_of_message_attributes(const lqs_message_t* m);
/* The requested user attributes, in name order. */
LQS_C_EXPORT size_t lqs_message_attribute_count(const lqs_message_t* m);
LQS_C_EXPORT const char* lqs_message_attribute_name(const lqs_message_t* m, size_t i);
LQS_C_EXPORT const char* lqs_message_attribute_data_type(const lqs_message_t* m, size_t i);
/* 1 for Binary types (use the binary value), 0 for String and Number. */
LQS_C_EXPORT int lqs_message_attribute_is_binary(const lqs_message_t* m, size_t i);
LQS_C_EXPORT const char* lqs_message_attribute_string_value(const lqs_message_t* m, size_t i);
LQS_C_EXPORT const void* lqs_message_attribute_binary_value(const lqs_message_t* m, size_t i,
                                                            size_t* len);

/* ---- Deleting and changing visibility ------------------------------------ */

/* Deletes the message a receipt handle names. Deleting an already deleted
 * message succeeds (standard queues). Errors: LQS_RECEIPT_HANDLE_IS_INVALID,
 * LQS_QUEUE_DOES_NOT_EXIST. */
LQS_C_EXPORT int lqs_queue_delete_message(lqs_queue_t* queue, const char* receipt_handle,
                                          char** errptr);

/* Deletes n (1..10) messages; per-entry failures are in *result. */
LQS_C_EXPORT int lqs_queue_delete_message_batch(lqs_queue_t* queue, const char* const* ids,
                                                const char* const* receipt_handles, size_t n,
                                                lqs_batch_result_t** result, char** errptr);

/* Ends the message's lease `visibility_timeout` seconds from now (0: visible
 * at once). Errors: LQS_RECEIPT_HANDLE_IS_INVALID,
 * LQS_INVALID_PARAMETER_VALUE (message gone, timeout out of range or over
 * the 12-hour budget). */
LQS_C_EXPORT int lqs_queue_change_message_visibility(lqs_queue_t* queue, const char* receipt_handle,
                                                     int visibility_timeout, char** errptr);

/* n (1..10) changes. visibility_timeouts[i] < 0 leaves entry i's lease as it
 * is; the array itself may be NULL (all absent). */
LQS_C_EXPORT int lqs_queue_change_message_visibility_batch(
    lqs_queue_t* queue, const char* const* ids, const char* const* receipt_handles,
    const int* visibility_timeouts, size_t n, lqs_batch_result_t** result, char** errptr);

/* Deletes every message of the queue. Errors: LQS_PURGE_QUEUE_IN_PROGRESS
 * (a purge less than 60 s ago), LQS_QUEUE_DOES_NOT_EXIST. */
LQS_C_EXPORT int lqs_queue_purge(lqs_queue_t* queue, char** errptr);

/* ---- Consumer support (lqs extensions; no SQS action maps to these) ------ */

/* The idempotency inbox (lqs::Queue::DeleteMessageAndRecord): deletes the
 * message `receipt_handle` names and records `key` (key_len 1..512 arbitrary
 * bytes) for ttl_seconds (1..1209600) in one atomic write, so that a
 * consumer can skip work it already did when a message comes again. A
 * message already gone is not an error (the key is still recorded).
 * PurgeQueue keeps the records; DeleteQueue drops them. Errors: those of
 * lqs_queue_delete_message; LQS_INVALID_PARAMETER_VALUE naming
 * IdempotencyKey or TtlSeconds. */
LQS_C_EXPORT int lqs_queue_delete_message_and_record(lqs_queue_t* queue, const char* receipt_handle,
                                                     const void* key, size_t key_len,
                                                     int64_t ttl_seconds, char** errptr);

/* *contains = 1 when `key` is recorded and its record has not expired (by
 * the database's clock), else 0. Errors: LQS_INVALID_PARAMETER_VALUE
 * (IdempotencyKey empty or over 512 bytes), LQS_QUEUE_DOES_NOT_EXIST. */
LQS_C_EXPORT int lqs_queue_inbox_contains(lqs_queue_t* queue, const void* key, size_t key_len,
                                          int* contains, char** errptr);

/* Moves the leased message `receipt_handle` names to the queue's dead-letter
 * queue at once, whatever its receive count (lqs::Queue::
 * MoveToDeadLetterQueue), adding n String message attributes
 * names[i] = values[i] (n may be 0; they overwrite same-named ones).
 * Errors: LQS_RECEIPT_HANDLE_IS_INVALID; LQS_INVALID_PARAMETER_VALUE (no
 * RedrivePolicy, message gone or its lease ended, a bad attribute);
 * LQS_QUEUE_DOES_NOT_EXIST. */
LQS_C_EXPORT int lqs_queue_move_to_dead_letter_queue(lqs_queue_t* queue, const char* receipt_handle,
                                                     const char* const* names,
                                                     const char* const* values, size_t n,
                                                     char** errptr);

/* ---- Worker (lqs::Worker, lqs/worker.h; docs/worker.md) -------------------
 * The consumer loop. A worker long-polls one queue and calls a handler for
 * each message (or each received batch) on a pool of threads. It deletes a
 * message only after its handler succeeded, extends the lease while the
 * handler runs, makes a failed message visible again after a backoff that
 * grows with its receive count, moves a non-retryable failure to the
 * dead-letter queue at once, and on stop gives back (visibility 0) what it
 * received but did not start. Delivery is at least once.
 *
 * Time: leases, heartbeats, backoffs and rate limits follow the clock the
 * database was opened with (lqs_options_set_clock; the system clock by
 * default), so a test with a manual clock advances it instead of sleeping.
 * Only lqs_worker_stop's deadline is real time.
 *
 * Callbacks: the handler and the logger run on the worker's threads, up to
 * `concurrency` handlers at once; they must be thread-safe and must return
 * (no longjmp, no C++ exception). They may call any lqs function, but on
 * their own worker only lqs_worker_pause, _resume, _paused and _get_stats:
 * the others wait for the handlers. Their `user` pointers must stay valid
 * until lqs_worker_destroy returns.
 *
 * Closing: a worker's threads call the broker, and lqs_close must not race
 * with other calls: destroy the broker's workers before lqs_close. */

/* A handler's outcome (== lqs::HandlerResult::Outcome). */
enum {
  LQS_WORKER_SUCCESS = 0,      /* delete the message */
  LQS_WORKER_RETRY = 1,        /* make it visible again after the backoff */
  LQS_WORKER_NON_RETRYABLE = 2 /* move it to the dead-letter queue now */
};

/* Log levels (== lqs::WorkerLogLevel). */
enum {
  LQS_WORKER_LOG_DEBUG = 0,
  LQS_WORKER_LOG_INFO = 1,
  LQS_WORKER_LOG_WARNING = 2,
  LQS_WORKER_LOG_ERROR = 3
};

/* Handles one message and returns its outcome. For LQS_WORKER_RETRY and
 * LQS_WORKER_NON_RETRYABLE, lqs_worker_result_set_error gives the reason
 * (logged, and for the latter stored in the error attribute). Any other
 * return value counts as LQS_WORKER_RETRY. `message` and `result` are valid
 * only during the call. */
typedef int (*lqs_worker_handler_t)(const lqs_worker_message_t* message, void* user,
                                    lqs_worker_result_t* result);

/* Handles the n messages (1..max_messages_per_receive) of one receive, in
 * the SQS "batch item failures" model: report each failed message with
 * lqs_worker_result_fail and return LQS_WORKER_SUCCESS; the messages not
 * reported succeeded. Returning LQS_WORKER_RETRY or LQS_WORKER_NON_RETRYABLE
 * (any other value: RETRY) fails the whole batch, with the reason given to
 * lqs_worker_result_set_error. FIFO queues: after a group's first failed
 * message, the group's later messages in the batch are released
 * (visibility 0), whatever was reported. `messages` (an array of n) and
 * `result` are valid only during the call. */
typedef int (*lqs_worker_batch_handler_t)(const lqs_worker_message_t* const* messages, size_t n,
                                          void* user, lqs_worker_result_t* result);

/* Receives one line per event, e.g. "queue=jobs message_id=... receive_count=2:
 * handler failed, retry in 2 s: timeout"; `level` is an LQS_WORKER_LOG_*.
 * `line` is valid only during the call. */
typedef void (*lqs_worker_logger_t)(int level, const char* line, void* user);

/* Options (lqs::WorkerOptions; defaults are the C++ defaults). Setters only
 * store; lqs_worker_create checks every value and fails with
 * LQS_INVALID_PARAMETER_VALUE naming the option ("WorkerOptions.concurrency"). */
LQS_C_EXPORT lqs_worker_options_t* lqs_worker_options_create(void);
LQS_C_EXPORT void lqs_worker_options_destroy(lqs_worker_options_t* o);
/* Messages asked for per receive, 1..10 (default 10). */
LQS_C_EXPORT void lqs_worker_options_set_max_messages_per_receive(lqs_worker_options_t* o, int n);
/* Long-poll wait, 0..20 s (default 20). With 0, an empty receive is followed
 * by a 1-second pause (clock time). */
LQS_C_EXPORT void lqs_worker_options_set_wait_time_seconds(lqs_worker_options_t* o, int s);
/* The lease each receive asks for and each heartbeat renews, 1..43200 s
 * (default 30). A heartbeat runs when a third of it is left. */
LQS_C_EXPORT void lqs_worker_options_set_visibility_timeout_seconds(lqs_worker_options_t* o, int s);
/* Handler threads, 1..4096 (default 4). */
LQS_C_EXPORT void lqs_worker_options_set_concurrency(lqs_worker_options_t* o, int n);
/* The most messages received and not yet finished, 0..1000000; receives ask
 * only for the room left. Default 0: concurrency + max_messages_per_receive. */
LQS_C_EXPORT void lqs_worker_options_set_max_in_progress(lqs_worker_options_t* o, int n);
/* Handler starts per second, overall and per MessageGroupId; 0..1e9, default
 * 0 (no limit). Token buckets holding one second's worth of starts (at
 * least 1); a batch handler's call counts one start per message. */
LQS_C_EXPORT void lqs_worker_options_set_rate_limit_per_second(lqs_worker_options_t* o,
                                                               double rate);
LQS_C_EXPORT void lqs_worker_options_set_rate_limit_per_group_per_second(lqs_worker_options_t* o,
                                                                         double rate);
/* A retryable failure on receive n makes the message visible again after
 * min(backoff_max_seconds, backoff_base_seconds * 2^(n-1)) seconds plus up
 * to backoff_jitter of that, at random. Base 0..43200 (default 1), max
 * base..43200 (default 900), jitter 0..1 (default 0.1). */
LQS_C_EXPORT void lqs_worker_options_set_backoff_base_seconds(lqs_worker_options_t* o, int s);
LQS_C_EXPORT void lqs_worker_options_set_backoff_max_seconds(lqs_worker_options_t* o, int s);
LQS_C_EXPORT void lqs_worker_options_set_backoff_jitter(lqs_worker_options_t* o, double jitter);
/* The String message attribute that carries the error text (at most 1 KiB)
 * of a message moved to the dead-letter queue; default "lqs.Error", NULL
 * restores it. A queue without a RedrivePolicy gets a non-retryable failure
 * retried after backoff_max_seconds instead (and a warning logged). */
LQS_C_EXPORT void lqs_worker_options_set_error_attribute(lqs_worker_options_t* o, const char* name);
/* The idempotency inbox (default 0): record each completion atomically with
 * its delete (lqs_queue_delete_message_and_record), and delete without
 * running the handler a message whose idempotency key is recorded. */
LQS_C_EXPORT void lqs_worker_options_set_inbox(lqs_worker_options_t* o, int v);
/* The message attribute holding a message's idempotency key; default
 * "IdempotencyKey", NULL restores it. Without that attribute the key is the
 * MessageDeduplicationId (FIFO), else the MessageId. */
LQS_C_EXPORT void lqs_worker_options_set_idempotency_attribute(lqs_worker_options_t* o,
                                                               const char* name);
/* How long the inbox keeps a key, 1..1209600 s (default 86400). */
LQS_C_EXPORT void lqs_worker_options_set_inbox_ttl_seconds(lqs_worker_options_t* o, int64_t s);
/* Where log lines go. NULL (the default): LQS_WORKER_LOG_WARNING and above
 * to stderr. */
LQS_C_EXPORT void lqs_worker_options_set_logger(lqs_worker_options_t* o, lqs_worker_logger_t logger,
                                                void* user);

/* Builds a stopped worker that calls `handler(message, user, result)` for
 * each message of `queue`. `options` may be NULL (defaults). The worker
 * copies the options and keeps its own reference to the queue: both may be
 * destroyed after the call. *worker receives the handle (lqs_worker_destroy).
 * Errors: LQS_INVALID_PARAMETER_VALUE (an option out of range, naming it;
 * queue, handler or worker NULL). */
LQS_C_EXPORT int lqs_worker_create(lqs_queue_t* queue, const lqs_worker_options_t* options,
                                   lqs_worker_handler_t handler, void* user, lqs_worker_t** worker,
                                   char** errptr);
/* The same with a batch handler. (With a handler that records its effect
 * in a transaction the worker commits with the delete:
 * lqs_worker_create_transactional, lqs/c_transaction.h.) */
LQS_C_EXPORT int lqs_worker_create_batch(lqs_queue_t* queue, const lqs_worker_options_t* options,
                                         lqs_worker_batch_handler_t handler, void* user,
                                         lqs_worker_t** worker, char** errptr);

/* Starts the receive loop and the handler threads. Errors:
 * LQS_INVALID_PARAMETER_VALUE (already started or stopped: a worker starts
 * once). */
LQS_C_EXPORT int lqs_worker_start(lqs_worker_t* w, char** errptr);

/* Stops receiving until lqs_worker_resume, for a downstream that is
 * unhealthy; running handlers go on and their leases are kept. A long poll
 * waiting at the time is abandoned: a message it still delivers is given
 * back at once (its receive count went up by one), before lqs_worker_pause
 * returns. Both are idempotent. */
LQS_C_EXPORT void lqs_worker_pause(lqs_worker_t* w);
LQS_C_EXPORT void lqs_worker_resume(lqs_worker_t* w);
/* 1 while paused, else 0. */
LQS_C_EXPORT int lqs_worker_paused(const lqs_worker_t* w);

/* Graceful shutdown: stops receiving, gives back (visibility 0) the messages
 * received but not started, and waits up to deadline_ms of real time
 * (< 0: 0) for the running handlers, whose messages are deleted or retried
 * as usual. Returns 1 when every handler finished in time; else 0, and the
 * late handlers' leases are no longer extended (their messages return when
 * the leases end) and lqs_worker_destroy waits for them. Idempotent: later
 * calls return the first one's result. Valid before lqs_worker_start. */
LQS_C_EXPORT int lqs_worker_stop(lqs_worker_t* w, int64_t deadline_ms);

/* Blocks until an lqs_worker_stop (from another thread, or from a signal:
 * lqs_worker_install_signal_handlers) has finished. */
LQS_C_EXPORT void lqs_worker_wait(lqs_worker_t* w);

/* Makes SIGTERM and SIGINT call lqs_worker_stop(w, deadline_ms) on a thread
 * of the worker (not in signal context); lqs_worker_wait then returns. At
 * most one worker per process may install them; the previous handlers are
 * restored when it is destroyed. Errors: LQS_INVALID_PARAMETER_VALUE (this
 * or another worker installed them), LQS_INTERNAL (pipe or sigaction
 * failed). */
LQS_C_EXPORT int lqs_worker_install_signal_handlers(lqs_worker_t* w, int64_t deadline_ms,
                                                    char** errptr);

/* Counters since lqs_worker_start, and handler durations (lqs::WorkerStats).
 * A plain struct, not an opaque handle: its layout is part of the ABI and
 * never changes (new fields would come as lqs_worker_stats_v2_t with
 * lqs_worker_get_stats_v2). */
typedef struct lqs_worker_stats_t {
  int64_t received;                 /* messages received */
  int64_t succeeded;                /* handler succeeded and message deleted */
  int64_t retried;                  /* retryable failures (visible again later) */
  int64_t dead_lettered;            /* non-retryable failures moved to the DLQ */
  int64_t duplicates_skipped;       /* inbox hits deleted without the handler */
  int64_t released;                 /* given back unstarted (visibility 0) */
  int64_t lease_extensions;         /* successful heartbeats */
  int64_t lease_extension_failures; /* failed heartbeats */
  int64_t delete_failures;          /* handler succeeded, delete failed */
  int64_t in_progress;              /* gauge: received and not finished */
  double handler_p50_ms;            /* median handler time (clock time) */
  double handler_p99_ms;            /* 99th percentile; both 0 before any */
} lqs_worker_stats_t;

/* Fills *stats (a snapshot; may be called while the worker runs). */
LQS_C_EXPORT void lqs_worker_get_stats(const lqs_worker_t* w, lqs_worker_stats_t* stats);

/* lqs_worker_stats_t with the counter of transactional workers
 * (lqs_worker_create_transactional, lqs/c_transaction.h). Same rules: its
 * layout never changes. */
typedef struct lqs_worker_stats_v2_t {
  int64_t received;
  int64_t succeeded;
  int64_t retried;
  int64_t dead_lettered;
  int64_t duplicates_skipped;
  int64_t released;
  int64_t lease_extensions;
  int64_t lease_extension_failures;
  int64_t delete_failures;
  /* commits refused with LQS_TRANSACTION_CONFLICT (nothing applied; the
   * message is redelivered); always 0 for other workers */
  int64_t transaction_conflicts;
  int64_t in_progress;
  double handler_p50_ms;
  double handler_p99_ms;
} lqs_worker_stats_v2_t;

/* As lqs_worker_get_stats, into the v2 struct. */
LQS_C_EXPORT void lqs_worker_get_stats_v2(const lqs_worker_t* w, lqs_worker_stats_v2_t* stats);

/* Stops the worker (30 s deadline) if it runs, waits for every handler (even
 * those that outlived a stop deadline), restores the signal handlers it
 * replaced, and frees it. NULL is a no-op. */
LQS_C_EXPORT void lqs_worker_destroy(lqs_worker_t* w);

/* The message a handler is given (lqs::WorkerMessage). Borrowed: valid until
 * the handler returns; every pointer from it too. */
LQS_C_EXPORT const char* lqs_worker_message_queue_name(const lqs_worker_message_t* m);
LQS_C_EXPORT const char* lqs_worker_message_id(const lqs_worker_message_t* m);
LQS_C_EXPORT const char* lqs_worker_message_receipt_handle(const lqs_worker_message_t* m);
/* The body (also NUL-terminated); *len (may be NULL) receives its length. */
LQS_C_EXPORT const char* lqs_worker_message_body(const lqs_worker_message_t* m, size_t* len);
/* ApproximateReceiveCount: 1 on the first delivery. */
LQS_C_EXPORT int lqs_worker_message_receive_count(const lqs_worker_message_t* m);
/* NULL when the message has no MessageGroupId. */
LQS_C_EXPORT const char* lqs_worker_message_group_id(const lqs_worker_message_t* m);
/* The key the inbox records (see lqs_worker_options_set_idempotency_attribute;
 * bytes, as a Binary attribute may give; also NUL-terminated); *len (may be
 * NULL) receives its length, 1..512. */
LQS_C_EXPORT const char* lqs_worker_message_idempotency_key(const lqs_worker_message_t* m,
                                                            size_t* len);
/* All system attributes (SentTimestamp, ApproximateReceiveCount,
 * MessageGroupId, ...). */
LQS_C_EXPORT const lqs_strmap_t* lqs_worker_message_attributes(const lqs_worker_message_t* m);
/* All user attributes, in name order, as lqs_message_attribute_*. */
LQS_C_EXPORT size_t lqs_worker_message_attribute_count(const lqs_worker_message_t* m);
LQS_C_EXPORT const char* lqs_worker_message_attribute_name(const lqs_worker_message_t* m, size_t i);
LQS_C_EXPORT const char* lqs_worker_message_attribute_data_type(const lqs_worker_message_t* m,
                                                                size_t i);
LQS_C_EXPORT int lqs_worker_message_attribute_is_binary(const lqs_worker_message_t* m, size_t i);
LQS_C_EXPORT const char* lqs_worker_message_attribute_string_value(const lqs_worker_message_t* m,
                                                                   size_t i);
LQS_C_EXPORT const void* lqs_worker_message_attribute_binary_value(const lqs_worker_message_t* m,
                                                                   size_t i, size_t* len);

/* The reason for a handler's failure outcome (or a batch handler's
 * whole-batch failure). Copied; NULL or "" clears it (a default naming the
 * outcome is used). The last call wins. */
LQS_C_EXPORT void lqs_worker_result_set_error(lqs_worker_result_t* r, const char* error);
/* Batch handlers: messages[i] failed with `outcome` (LQS_WORKER_RETRY or
 * LQS_WORKER_NON_RETRYABLE; LQS_WORKER_SUCCESS withdraws an earlier report;
 * any other value: RETRY) for the reason `error` (copied; may be NULL). An
 * i >= n is ignored, as is every call from a message handler. */
LQS_C_EXPORT void lqs_worker_result_fail(lqs_worker_result_t* r, size_t i, int outcome,
                                         const char* error);

/* ---- Attributes, tags, permissions --------------------------------------- */

/* The attributes named (names from SQS, or "All"); n == 0 gives an empty
 * map. Errors: LQS_INVALID_ATTRIBUTE_NAME. */
LQS_C_EXPORT int lqs_queue_get_attributes(lqs_queue_t* queue, const char* const* names, size_t n,
                                          lqs_strmap_t** attributes, char** errptr);

/* Validates all, then applies all. Errors: LQS_INVALID_ATTRIBUTE_NAME,
 * LQS_INVALID_ATTRIBUTE_VALUE, LQS_INVALID_PARAMETER_VALUE. */
LQS_C_EXPORT int lqs_queue_set_attributes(lqs_queue_t* queue, const char* const* names,
                                          const char* const* values, size_t n, char** errptr);

/* Adds or overwrites tags (at most 50 per queue). */
LQS_C_EXPORT int lqs_queue_tag(lqs_queue_t* queue, const char* const* keys,
                               const char* const* values, size_t n, char** errptr);
/* Removes tags; unknown keys are ignored. */
LQS_C_EXPORT int lqs_queue_untag(lqs_queue_t* queue, const char* const* keys, size_t n,
                                 char** errptr);
LQS_C_EXPORT int lqs_queue_list_tags(lqs_queue_t* queue, lqs_strmap_t** tags, char** errptr);

/* Adds a Policy statement `label` granting `actions` to `account_ids`.
 * Errors: LQS_INVALID_PARAMETER_VALUE (label exists, an unknown action, an
 * action only the queue owner may use: see Queue::AddPermission),
 * LQS_OVER_LIMIT. A refused call leaves the Policy unchanged. */
LQS_C_EXPORT int lqs_queue_add_permission(lqs_queue_t* queue, const char* label,
                                          const char* const* account_ids, size_t n_accounts,
                                          const char* const* actions, size_t n_actions,
                                          char** errptr);
/* Errors: LQS_INVALID_PARAMETER_VALUE (no such label). */
LQS_C_EXPORT int lqs_queue_remove_permission(lqs_queue_t* queue, const char* label, char** errptr);

#ifdef __cplusplus
} /* extern "C" */
#endif

/* Bridges (lqs_bridge_*) and transactions (lqs_transaction_*): their own
 * headers, part of the C API. */
#include "lqs/c_bridge.h"
#include "lqs/c_transaction.h"

#endif /* LQS_C_H_ */
