/* lqs/c_transaction.h — the C API of tables and transactions
 * (lqs::Transaction, lqs/transaction.h; docs/transactions.md): the
 * application's records and its queue operations in one atomic commit.
 * Included by lqs/c.h; its conventions (handles, errors, strings, optional
 * values) hold here too.
 *
 *   lqs_transaction_t* tx = NULL;
 *   char* err = NULL;
 *   lqs_begin_transaction(broker, &tx, &err);
 *   lqs_transaction_put(tx, "exports", id, id_len, "ACCEPTED", 8, &err);
 *   lqs_send_request_t* job = lqs_send_request_create(id, id_len);
 *   if (lqs_transaction_send_message(tx, "jobs", job, &err) != LQS_OK) { ... }
 *   lqs_transaction_result_t* done = NULL;
 *   int rc = lqs_transaction_commit(tx, &done, &err);
 *   if (rc == LQS_TRANSACTION_CONFLICT) { ... run it again ... }
 *   lqs_transaction_result_destroy(done);
 *   lqs_send_request_destroy(job);
 *   lqs_transaction_destroy(tx);
 *
 * Keys, values and prefixes are bytes with an explicit length (they may
 * contain NUL bytes); a NULL pointer is allowed only with length 0. Table
 * and queue names and receipt handles are NUL-terminated strings. Limits:
 * table 1..64 characters of [A-Za-z0-9_.-], key 1..1024 bytes, value
 * 0..256 KiB; a bad one fails with LQS_INVALID_PARAMETER_VALUE naming Table,
 * Key or Value. A C argument that must not be NULL fails the same way,
 * naming the parameter.
 *
 * Semantics are those of lqs::Transaction: every call checks its arguments
 * at once (a failed call records nothing and the transaction stays usable);
 * nothing is visible to others before lqs_transaction_commit returns LQS_OK;
 * the transaction sees its own table writes, not its own sends. The commit
 * fails with LQS_TRANSACTION_CONFLICT, applying nothing, when a key it read
 * was changed by another commit since, or when the lease behind one of its
 * deletes or visibility changes was lost; that is the only error running
 * the transaction again can fix. It can also fail with
 * LQS_QUEUE_DOES_NOT_EXIST, LQS_OVER_STORAGE_BUDGET,
 * LQS_INVALID_PARAMETER_VALUE (beyond the 12-hour lease budget), LQS_CLOSED
 * and LQS_IO_ERROR. A commit is as durable as a send.
 *
 * Ownership: lqs_begin_transaction hands the caller a transaction, which it
 * releases with lqs_transaction_destroy; destroying one that was not
 * committed rolls it back. The transaction keeps its own reference to the
 * broker's memory, but not the database open: after lqs_close its calls
 * fail with LQS_CLOSED (and it must still be destroyed). Values returned
 * through char** are malloc'd (freed with lqs_free); scan results and commit
 * results are freed with their own destroy function.
 *
 * Thread safety: a transaction is used by one thread at a time; any number
 * of transactions may run and commit concurrently, from any threads.
 * lqs_table_get, lqs_table_scan and lqs_list_tables may be called from any
 * thread. Results are plain values: one thread at a time. */

#ifndef LQS_C_TRANSACTION_H_
#define LQS_C_TRANSACTION_H_

/* lqs/c.h includes this header at its end; including this one first works
 * too (the types below come from c.h). */
#include "lqs/c.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lqs_transaction_t lqs_transaction_t;               /* an open transaction */
typedef struct lqs_table_entries_t lqs_table_entries_t;           /* records of a scan */
typedef struct lqs_transaction_result_t lqs_transaction_result_t; /* what a commit sent */

/* ---- Table entries (scan results) ---------------------------------------- */

LQS_C_EXPORT size_t lqs_table_entries_count(const lqs_table_entries_t* e);
/* Entry i's key and value (REQUIRES: i < count). Borrowed: valid until
 * lqs_table_entries_destroy. Also NUL-terminated; *len (may be NULL)
 * receives the length. Entries come in byte order of their keys. */
LQS_C_EXPORT const char* lqs_table_entries_key(const lqs_table_entries_t* e, size_t i, size_t* len);
LQS_C_EXPORT const char* lqs_table_entries_value(const lqs_table_entries_t* e, size_t i,
                                                 size_t* len);
LQS_C_EXPORT void lqs_table_entries_destroy(lqs_table_entries_t* e);

/* ---- Committed reads ----------------------------------------------------- */

/* The committed value of `key` in `table`. *value receives a malloc'd copy
 * (NUL-terminated after its *value_len bytes; value_len may be NULL), or
 * NULL when the key is absent (an empty value is a non-NULL "").
 * Errors: LQS_INVALID_PARAMETER_VALUE (Table, Key), LQS_CLOSED, LQS_IO_ERROR. */
LQS_C_EXPORT int lqs_table_get(lqs_broker_t* broker, const char* table, const void* key,
                               size_t key_len, char** value, size_t* value_len, char** errptr);

/* The committed records of `table` whose key starts with the prefix
 * (length 0: all), in key byte order, read from one consistent view.
 * Loads them all: meant for small tables and narrow prefixes. Errors: as
 * lqs_table_get. */
LQS_C_EXPORT int lqs_table_scan(lqs_broker_t* broker, const char* table, const void* prefix,
                                size_t prefix_len, lqs_table_entries_t** entries, char** errptr);

/* The names of the tables that hold at least one record, in byte order.
 * Errors: LQS_CLOSED, LQS_IO_ERROR. */
LQS_C_EXPORT int lqs_list_tables(lqs_broker_t* broker, lqs_strlist_t** tables, char** errptr);

/* ---- Transactions -------------------------------------------------------- */

/* A new transaction on the database (lqs_transaction_destroy). Errors:
 * LQS_INVALID_PARAMETER_VALUE (broker or transaction NULL). */
LQS_C_EXPORT int lqs_begin_transaction(lqs_broker_t* broker, lqs_transaction_t** transaction,
                                       char** errptr);

/* Writes `value` under `key` in `table`, at commit. */
LQS_C_EXPORT int lqs_transaction_put(lqs_transaction_t* tx, const char* table, const void* key,
                                     size_t key_len, const void* value, size_t value_len,
                                     char** errptr);

/* As lqs_table_get, seeing this transaction's own puts and deletes. A key
 * read from the database is checked again at commit. */
LQS_C_EXPORT int lqs_transaction_get(lqs_transaction_t* tx, const char* table, const void* key,
                                     size_t key_len, char** value, size_t* value_len,
                                     char** errptr);

/* Deletes `key` at commit; deleting an absent key succeeds (and conflicts
 * with nothing). */
LQS_C_EXPORT int lqs_transaction_delete(lqs_transaction_t* tx, const char* table, const void* key,
                                        size_t key_len, char** errptr);

/* As lqs_table_scan, with this transaction's own writes merged in. The keys
 * and gaps it covered are checked again at commit. */
LQS_C_EXPORT int lqs_transaction_scan(lqs_transaction_t* tx, const char* table, const void* prefix,
                                      size_t prefix_len, lqs_table_entries_t** entries,
                                      char** errptr);

/* Sends `send` (lqs/c.h's request builder; copied, may be reused) to queue
 * `queue_name` at commit. Checked now as lqs_queue_send_message checks it.
 * Errors: LQS_QUEUE_DOES_NOT_EXIST and those of lqs_queue_send_message. */
LQS_C_EXPORT int lqs_transaction_send_message(lqs_transaction_t* tx, const char* queue_name,
                                              const lqs_send_request_t* send, char** errptr);

/* Sends the batch's entries at commit. Unlike lqs_queue_send_message_batch
 * it fails whole, recording nothing, on its first bad entry (the error
 * names the entry's problem); the commit result lists the entries' send
 * results in their order. */
LQS_C_EXPORT int lqs_transaction_send_message_batch(lqs_transaction_t* tx, const char* queue_name,
                                                    const lqs_send_batch_request_t* batch,
                                                    char** errptr);

/* Deletes the message at commit, if `receipt_handle` is still its current
 * lease then (otherwise the commit fails with LQS_TRANSACTION_CONFLICT).
 * Errors now: LQS_QUEUE_DOES_NOT_EXIST, LQS_RECEIPT_HANDLE_IS_INVALID,
 * LQS_INVALID_PARAMETER_VALUE (already deleted in this transaction). */
LQS_C_EXPORT int lqs_transaction_delete_message(lqs_transaction_t* tx, const char* queue_name,
                                                const char* receipt_handle, char** errptr);

/* Changes the message's visibility at commit, if `receipt_handle` is still
 * its current lease then. Errors now: as lqs_transaction_delete_message,
 * and LQS_INVALID_PARAMETER_VALUE for a timeout outside 0..43200. */
LQS_C_EXPORT int lqs_transaction_change_message_visibility(lqs_transaction_t* tx,
                                                           const char* queue_name,
                                                           const char* receipt_handle,
                                                           int visibility_timeout, char** errptr);

/* Applies everything as one atomic write. *result (may be NULL) receives
 * what was sent. Afterwards, whatever the outcome, the transaction is
 * finished: further calls fail with LQS_INVALID_PARAMETER_VALUE (it must
 * still be destroyed). Errors: see the top of this header. */
LQS_C_EXPORT int lqs_transaction_commit(lqs_transaction_t* tx, lqs_transaction_result_t** result,
                                        char** errptr);

/* Abandons the transaction: nothing it recorded is applied, and further
 * calls fail with LQS_INVALID_PARAMETER_VALUE (it must still be
 * destroyed). Idempotent; NULL is a no-op, and so is a worker's
 * transaction (see "Transactional worker handlers"). */
LQS_C_EXPORT void lqs_transaction_rollback(lqs_transaction_t* tx);

/* Rolls back a transaction that was not committed, and frees it. NULL is a
 * no-op, and so is a worker's transaction (see below). */
LQS_C_EXPORT void lqs_transaction_destroy(lqs_transaction_t* tx);

/* One send result per message the commit sent, in the order of the send
 * calls (a batch's entries in their order). Borrowed: valid until
 * lqs_transaction_result_destroy. REQUIRES: i < count. */
LQS_C_EXPORT size_t lqs_transaction_result_sent_count(const lqs_transaction_result_t* r);
LQS_C_EXPORT const lqs_send_result_t* lqs_transaction_result_sent(const lqs_transaction_result_t* r,
                                                                  size_t i);
LQS_C_EXPORT void lqs_transaction_result_destroy(lqs_transaction_result_t* r);

/* ---- Transactional worker handlers (lqs::TransactionalHandler) -----------
 * A worker (lqs/c.h, "Worker") whose handler records its effect in a
 * transaction the worker gives it: table puts and deletes, sends, other
 * messages' deletes. On LQS_WORKER_SUCCESS the worker adds the message's
 * delete (and, with the inbox, its idempotency record) to that transaction
 * and commits it: one atomic write, so the effect is applied exactly when
 * the message is acknowledged.
 *   - The commit fails with LQS_TRANSACTION_CONFLICT (the lease was lost, or
 *     a key the handler read was changed by another commit): nothing is
 *     applied, the message comes back (after the retry backoff if the lease
 *     is still held) and lqs_worker_stats_v2_t.transaction_conflicts counts
 *     it. Any other commit error: nothing applied; handled as a retry.
 *   - LQS_WORKER_RETRY, LQS_WORKER_NON_RETRYABLE (or any other value): the
 *     transaction is rolled back, and the message is retried or
 *     dead-lettered as for lqs_worker_handler_t.
 * The worker owns `tx`; it is valid only during the call. The handler may
 * call every lqs_transaction_* function that records or reads on it, but:
 * lqs_transaction_commit fails with LQS_INVALID_PARAMETER_VALUE (the
 * error says the worker commits it) and changes nothing;
 * lqs_transaction_rollback and lqs_transaction_destroy do nothing (return
 * LQS_WORKER_RETRY to roll it back). It must not delete or change the
 * visibility of its own message in `tx` (the worker does). There is no
 * transactional batch handler. */
typedef int (*lqs_worker_transactional_handler_t)(const lqs_worker_message_t* message,
                                                  lqs_transaction_t* tx, void* user,
                                                  lqs_worker_result_t* result);

/* As lqs_worker_create, with a transactional handler. Errors: those of
 * lqs_worker_create. */
LQS_C_EXPORT int lqs_worker_create_transactional(lqs_queue_t* queue,
                                                 const lqs_worker_options_t* options,
                                                 lqs_worker_transactional_handler_t handler,
                                                 void* user, lqs_worker_t** worker, char** errptr);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LQS_C_TRANSACTION_H_ */
