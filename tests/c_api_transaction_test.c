/* c_api_transaction_test.c — the C API of tables and transactions
 * (include/lqs/c_transaction.h), compiled as C11 and run by ctest (and under
 * AddressSanitizer by scripts/sanitize.sh, for the ownership of returned
 * buffers). Every function on a temporary database with a manual clock:
 * records with NUL bytes, reads that see the transaction's own writes,
 * sends, deletes and visibility changes applied at commit, a read-write
 * conflict, a lost lease, rollback, and bad input naming the parameter.
 *
 * Usage: c_api_transaction_test [SCRATCH_DIR]   (default: a fresh directory under /tmp) */

#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_test_support.h"

#include "lqs/c.h"

static char dir_template[] = "/tmp/lqs_c_api_transaction_test_XXXXXX";

/* A value the tests store in out parameters to see that a failed call left
 * them unchanged. */
static char untouched[] = "untouched";

static lqs_transaction_t* begin(lqs_broker_t* broker) {
  lqs_transaction_t* tx = NULL;
  CHECK_OK(lqs_begin_transaction(broker, &tx, &err_));
  return tx;
}

/* Checks that the committed value of table `t`, key `k` (klen bytes) is the
 * vlen bytes at `v`, or absent when v is NULL. */
static void check_committed(lqs_broker_t* broker, const char* t, const char* k, size_t klen,
                            const char* v, size_t vlen) {
  char* got = untouched;
  size_t got_len = 12345;
  CHECK_OK(lqs_table_get(broker, t, k, klen, &got, &got_len, &err_));
  if (v == NULL) {
    CHECK(got == NULL);
    CHECK(got_len == 0);
  } else {
    CHECK(got != NULL && got != untouched);
    CHECK(got_len == vlen);
    if (got != NULL && got != untouched) {
      CHECK(memcmp(got, v, vlen) == 0);
      CHECK(got[vlen] == '\0'); /* NUL-terminated after the bytes */
      lqs_free(got);
    }
  }
}

/* Commits `tx` and checks that it sent no message; destroys `tx`. */
static void commit_sending_nothing(lqs_transaction_t* tx) {
  lqs_transaction_result_t* done = NULL;
  CHECK_OK(lqs_transaction_commit(tx, &done, &err_));
  CHECK(done != NULL && lqs_transaction_result_sent_count(done) == 0);
  lqs_transaction_result_destroy(done);
  lqs_transaction_destroy(tx);
}

/* The number of messages one receive (up to 10, no wait) gets from `q`,
 * leasing them for `visibility` seconds. */
static size_t receive_count(lqs_queue_t* q, int visibility) {
  lqs_receive_request_t* rr = lqs_receive_request_create();
  lqs_receive_request_set_max_number_of_messages(rr, 10);
  lqs_receive_request_set_wait_time_seconds(rr, 0);
  lqs_receive_request_set_visibility_timeout(rr, visibility);
  lqs_messages_t* got = NULL;
  CHECK_OK(lqs_queue_receive_message(q, rr, &got, &err_));
  const size_t n = got != NULL ? lqs_messages_count(got) : 0;
  lqs_messages_destroy(got);
  lqs_receive_request_destroy(rr);
  return n;
}

/* Sends `body` to `q` and receives it with a `visibility`-second lease;
 * *handle receives a malloc'd copy of its receipt handle (lqs_free). */
static void send_and_receive(lqs_queue_t* q, const char* body, int visibility, char** handle) {
  lqs_send_request_t* s = lqs_send_request_create(body, strlen(body));
  CHECK_OK(lqs_queue_send_message(q, s, NULL, &err_));
  lqs_send_request_destroy(s);
  lqs_receive_request_t* rr = lqs_receive_request_create();
  lqs_receive_request_set_wait_time_seconds(rr, 0);
  lqs_receive_request_set_visibility_timeout(rr, visibility);
  lqs_messages_t* got = NULL;
  CHECK_OK(lqs_queue_receive_message(q, rr, &got, &err_));
  *handle = NULL;
  CHECK(got != NULL && lqs_messages_count(got) == 1);
  if (got != NULL && lqs_messages_count(got) == 1) {
    const char* h = lqs_message_receipt_handle(lqs_messages_get(got, 0));
    *handle = malloc(strlen(h) + 1);
    if (*handle != NULL) strcpy(*handle, h);
  }
  lqs_messages_destroy(got);
  lqs_receive_request_destroy(rr);
}

/* Put, get, delete and scan, in a transaction and committed; NUL bytes in
 * keys and values; keys in byte order; an empty value is not an absent one. */
static void test_records(lqs_broker_t* broker) {
  static const char k_nul[] = {'a', '\0', 'b'};
  static const char v_nul[] = {'x', '\0', 'y', '\0'};
  lqs_transaction_t* tx = begin(broker);
  CHECK_OK(lqs_transaction_put(tx, "t1", k_nul, 3, v_nul, 4, &err_));
  CHECK_OK(lqs_transaction_put(tx, "t1", "b", 1, "2", 1, &err_));
  CHECK_OK(lqs_transaction_put(tx, "t1", "a\xff", 2, "3", 1, &err_));
  CHECK_OK(lqs_transaction_put(tx, "t1", "a", 1, "1", 1, &err_));
  CHECK_OK(lqs_transaction_put(tx, "t1", "empty", 5, NULL, 0, &err_)); /* "" */
  CHECK_OK(lqs_transaction_put(tx, "t2", "gone", 4, "soon", 4, &err_));
  CHECK_OK(lqs_transaction_delete(tx, "t2", "gone", 4, &err_));

  /* The transaction sees its own writes; nobody else does yet. */
  char* v = untouched;
  size_t vlen = 0;
  CHECK_OK(lqs_transaction_get(tx, "t1", k_nul, 3, &v, &vlen, &err_));
  CHECK(v != NULL && v != untouched && vlen == 4 && memcmp(v, v_nul, 4) == 0);
  if (v != untouched) lqs_free(v);
  v = untouched;
  CHECK_OK(lqs_transaction_get(tx, "t1", "empty", 5, &v, NULL, &err_));
  CHECK(v != NULL && v != untouched && v[0] == '\0'); /* present, empty */
  if (v != untouched) lqs_free(v);
  v = untouched;
  CHECK_OK(lqs_transaction_get(tx, "t2", "gone", 4, &v, &vlen, &err_));
  CHECK(v == NULL && vlen == 0); /* deleted in the transaction */
  v = untouched;
  CHECK_OK(lqs_transaction_get(tx, "t1", "never", 5, &v, &vlen, &err_));
  CHECK(v == NULL);
  check_committed(broker, "t1", k_nul, 3, NULL, 0);

  lqs_table_entries_t* e = NULL;
  CHECK_OK(lqs_transaction_scan(tx, "t1", "a", 1, &e, &err_));
  CHECK(e != NULL && lqs_table_entries_count(e) == 3);
  if (e != NULL && lqs_table_entries_count(e) == 3) {
    size_t len = 0;
    CHECK(memcmp(lqs_table_entries_key(e, 0, &len), "a", 1) == 0 && len == 1);
    CHECK(memcmp(lqs_table_entries_key(e, 1, &len), k_nul, 3) == 0 && len == 3);
    CHECK(memcmp(lqs_table_entries_value(e, 1, &len), v_nul, 4) == 0 && len == 4);
    CHECK(memcmp(lqs_table_entries_key(e, 2, NULL), "a\xff", 2) == 0);
    CHECK(streq(lqs_table_entries_value(e, 2, NULL), "3"));
  }
  lqs_table_entries_destroy(e);

  commit_sending_nothing(tx);

  check_committed(broker, "t1", k_nul, 3, v_nul, 4);
  check_committed(broker, "t1", "empty", 5, "", 0);
  check_committed(broker, "t2", "gone", 4, NULL, 0);
  /* Scan everything (NULL prefix, length 0): byte order, 5 records. */
  e = NULL;
  CHECK_OK(lqs_table_scan(broker, "t1", NULL, 0, &e, &err_));
  CHECK(e != NULL && lqs_table_entries_count(e) == 5);
  if (e != NULL && lqs_table_entries_count(e) == 5) {
    CHECK(streq(lqs_table_entries_key(e, 0, NULL), "a"));
    CHECK(memcmp(lqs_table_entries_key(e, 1, NULL), k_nul, 3) == 0);
    CHECK(memcmp(lqs_table_entries_key(e, 2, NULL), "a\xff", 2) == 0);
    CHECK(streq(lqs_table_entries_key(e, 3, NULL), "b"));
    CHECK(streq(lqs_table_entries_key(e, 4, NULL), "empty"));
  }
  lqs_table_entries_destroy(e);
  /* A prefix holding a NUL byte. */
  e = NULL;
  CHECK_OK(lqs_table_scan(broker, "t1", k_nul, 2, &e, &err_));
  CHECK(e != NULL && lqs_table_entries_count(e) == 1);
  lqs_table_entries_destroy(e);

  lqs_strlist_t* tables = NULL;
  CHECK_OK(lqs_list_tables(broker, &tables, &err_));
  CHECK(tables != NULL && lqs_strlist_count(tables) == 1); /* t2 is empty */
  if (tables != NULL && lqs_strlist_count(tables) == 1) {
    CHECK(streq(lqs_strlist_get(tables, 0), "t1"));
  }
  lqs_strlist_destroy(tables);

  /* Deleting in a later transaction. */
  tx = begin(broker);
  CHECK_OK(lqs_transaction_delete(tx, "t1", "b", 1, &err_));
  CHECK_OK(lqs_transaction_delete(tx, "t1", "absent", 6, &err_)); /* not an error */
  CHECK_OK(lqs_transaction_commit(tx, NULL, &err_));
  lqs_transaction_destroy(tx);
  check_committed(broker, "t1", "b", 1, NULL, 0);
}

/* A record and sends in one commit: the messages appear only then, and the
 * result lists their ids in the order of the calls. */
static void test_sends(lqs_broker_t* broker, lqs_queue_t* q) {
  lqs_transaction_t* tx = begin(broker);
  CHECK_OK(lqs_transaction_put(tx, "orders", "o-1", 3, "ACCEPTED", 8, &err_));
  lqs_send_request_t* job = lqs_send_request_create("job-1", 5);
  CHECK_OK(lqs_transaction_send_message(tx, "jobs", job, &err_));
  lqs_send_batch_request_t* batch = lqs_send_batch_request_create();
  lqs_send_request_t* b1 = lqs_send_request_create("job-2", 5);
  lqs_send_request_t* b2 = lqs_send_request_create("job-3", 5);
  lqs_send_batch_request_add(batch, "e1", b1);
  lqs_send_batch_request_add(batch, "e2", b2);
  CHECK_OK(lqs_transaction_send_message_batch(tx, "jobs", batch, &err_));
  CHECK(receive_count(q, 30) == 0); /* not before the commit */
  check_committed(broker, "orders", "o-1", 3, NULL, 0);

  lqs_transaction_result_t* done = NULL;
  CHECK_OK(lqs_transaction_commit(tx, &done, &err_));
  CHECK(done != NULL && lqs_transaction_result_sent_count(done) == 3);
  if (done != NULL && lqs_transaction_result_sent_count(done) == 3) {
    const char* id0 = lqs_send_result_message_id(lqs_transaction_result_sent(done, 0));
    const char* id2 = lqs_send_result_message_id(lqs_transaction_result_sent(done, 2));
    CHECK(id0 != NULL && id0[0] != '\0' && !streq(id0, id2));
    CHECK(lqs_send_result_md5_of_message_body(lqs_transaction_result_sent(done, 0))[0] != '\0');
  }
  lqs_transaction_result_destroy(done);
  lqs_transaction_destroy(tx);
  check_committed(broker, "orders", "o-1", 3, "ACCEPTED", 8);
  CHECK(receive_count(q, 0) == 3); /* visibility 0: they stay available */

  /* A batch with a bad entry fails whole and records nothing. */
  tx = begin(broker);
  lqs_send_batch_request_t* bad = lqs_send_batch_request_create();
  lqs_send_batch_request_add(bad, "ok", b1);
  lqs_send_batch_request_add(bad, "ok", b2); /* ids not distinct */
  char* err = NULL;
  CHECK(lqs_transaction_send_message_batch(tx, "jobs", bad, &err) ==
        LQS_BATCH_ENTRY_IDS_NOT_DISTINCT);
  CHECK(err != NULL);
  lqs_free(err);
  commit_sending_nothing(tx);
  lqs_send_batch_request_destroy(bad);

  lqs_send_batch_request_destroy(batch);
  lqs_send_request_destroy(b1);
  lqs_send_request_destroy(b2);
  lqs_send_request_destroy(job);
}

/* Empties `q`: receives and deletes until a receive comes back empty. */
static void drain(lqs_queue_t* q) {
  for (;;) {
    lqs_receive_request_t* rr = lqs_receive_request_create();
    lqs_receive_request_set_max_number_of_messages(rr, 10);
    lqs_receive_request_set_wait_time_seconds(rr, 0);
    lqs_messages_t* got = NULL;
    CHECK_OK(lqs_queue_receive_message(q, rr, &got, &err_));
    lqs_receive_request_destroy(rr);
    const size_t n = got != NULL ? lqs_messages_count(got) : 0;
    for (size_t i = 0; i < n; ++i) {
      CHECK_OK(
          lqs_queue_delete_message(q, lqs_message_receipt_handle(lqs_messages_get(got, i)), &err_));
    }
    lqs_messages_destroy(got);
    if (n == 0) return;
  }
}

/* A delete and a visibility change applied at commit, and a lease lost
 * before the commit: LQS_TRANSACTION_CONFLICT, nothing applied. */
static void test_leases(lqs_broker_t* broker, lqs_queue_t* q, lqs_clock_t* clock) {
  drain(q);
  char* handle = NULL;
  send_and_receive(q, "to-delete", 30, &handle);
  lqs_transaction_t* tx = begin(broker);
  CHECK_OK(lqs_transaction_put(tx, "orders", "o-2", 3, "SUCCEEDED", 9, &err_));
  CHECK_OK(lqs_transaction_delete_message(tx, "jobs", handle, &err_));
  CHECK_OK(lqs_transaction_commit(tx, NULL, &err_));
  lqs_transaction_destroy(tx);
  lqs_free(handle);
  lqs_clock_advance_seconds(clock, 31);
  CHECK(receive_count(q, 0) == 0); /* deleted, not just leased */
  check_committed(broker, "orders", "o-2", 3, "SUCCEEDED", 9);

  send_and_receive(q, "to-hide", 30, &handle);
  tx = begin(broker);
  CHECK_OK(lqs_transaction_change_message_visibility(tx, "jobs", handle, 100, &err_));
  CHECK_OK(lqs_transaction_commit(tx, NULL, &err_));
  lqs_transaction_destroy(tx);
  lqs_free(handle);
  lqs_clock_advance_seconds(clock, 31);
  CHECK(receive_count(q, 0) == 0); /* the lease is 100 s now */
  lqs_clock_advance_seconds(clock, 70);
  CHECK(receive_count(q, 0) == 1);
  drain(q);

  /* The lease ends before the commit. */
  send_and_receive(q, "lost", 10, &handle);
  tx = begin(broker);
  CHECK_OK(lqs_transaction_put(tx, "orders", "o-3", 3, "SUCCEEDED", 9, &err_));
  CHECK_OK(lqs_transaction_delete_message(tx, "jobs", handle, &err_));
  lqs_clock_advance_seconds(clock, 11);
  char* err = NULL;
  lqs_transaction_result_t* result = (lqs_transaction_result_t*)(void*)untouched;
  CHECK(lqs_transaction_commit(tx, &result, &err) == LQS_TRANSACTION_CONFLICT);
  CHECK(err != NULL);
  CHECK(result == (lqs_transaction_result_t*)(void*)untouched); /* left unchanged */
  lqs_free(err);
  lqs_transaction_destroy(tx);
  lqs_free(handle);
  check_committed(broker, "orders", "o-3", 3, NULL, 0); /* nothing applied */
  CHECK(receive_count(q, 0) == 1);                      /* the message is still there */
  drain(q);
}

/* Two transactions read and write the same key: the second commit
 * conflicts, applies nothing, and finishes the transaction. */
static void test_conflict(lqs_broker_t* broker) {
  lqs_transaction_t* a = begin(broker);
  lqs_transaction_t* b = begin(broker);
  char* v = untouched;
  CHECK_OK(lqs_transaction_get(a, "counters", "n", 1, &v, NULL, &err_));
  CHECK(v == NULL);
  v = untouched;
  CHECK_OK(lqs_transaction_get(b, "counters", "n", 1, &v, NULL, &err_));
  CHECK(v == NULL);
  CHECK_OK(lqs_transaction_put(a, "counters", "n", 1, "a", 1, &err_));
  CHECK_OK(lqs_transaction_put(b, "counters", "n", 1, "b", 1, &err_));
  CHECK_OK(lqs_transaction_put(b, "counters", "other", 5, "b", 1, &err_));
  CHECK_OK(lqs_transaction_commit(a, NULL, &err_));
  char* err = NULL;
  CHECK(lqs_transaction_commit(b, NULL, &err) == LQS_TRANSACTION_CONFLICT);
  CHECK(err != NULL);
  check_committed(broker, "counters", "n", 1, "a", 1);
  check_committed(broker, "counters", "other", 5, NULL, 0);
  /* Finished: further calls fail. */
  CHECK(lqs_transaction_put(b, "counters", "n", 1, "c", 1, &err) == LQS_INVALID_PARAMETER_VALUE);
  CHECK(lqs_transaction_commit(b, NULL, &err) == LQS_INVALID_PARAMETER_VALUE);
  lqs_free(err);
  lqs_transaction_destroy(a);
  lqs_transaction_destroy(b);

  /* A scan's range conflicts with an insert into it. */
  a = begin(broker);
  b = begin(broker);
  lqs_table_entries_t* e = NULL;
  CHECK_OK(lqs_transaction_scan(a, "counters", "x", 1, &e, &err_));
  CHECK(e != NULL && lqs_table_entries_count(e) == 0);
  lqs_table_entries_destroy(e);
  CHECK_OK(lqs_transaction_put(a, "counters", "summary", 7, "0", 1, &err_));
  CHECK_OK(lqs_transaction_put(b, "counters", "x1", 2, "1", 1, &err_));
  CHECK_OK(lqs_transaction_commit(b, NULL, &err_));
  err = NULL;
  CHECK(lqs_transaction_commit(a, NULL, &err) == LQS_TRANSACTION_CONFLICT);
  lqs_free(err);
  lqs_transaction_destroy(a);
  lqs_transaction_destroy(b);
}

/* Destroying without a commit rolls back; so does lqs_transaction_rollback. */
static void test_rollback(lqs_broker_t* broker, lqs_queue_t* q) {
  drain(q);
  lqs_transaction_t* tx = begin(broker);
  CHECK_OK(lqs_transaction_put(tx, "rb", "k", 1, "v", 1, &err_));
  lqs_send_request_t* s = lqs_send_request_create("never", 5);
  CHECK_OK(lqs_transaction_send_message(tx, "jobs", s, &err_));
  lqs_transaction_destroy(tx);
  check_committed(broker, "rb", "k", 1, NULL, 0);
  CHECK(receive_count(q, 0) == 0);

  tx = begin(broker);
  CHECK_OK(lqs_transaction_put(tx, "rb", "k", 1, "v", 1, &err_));
  CHECK_OK(lqs_transaction_send_message(tx, "jobs", s, &err_));
  lqs_transaction_rollback(tx);
  lqs_transaction_rollback(tx); /* idempotent */
  char* err = NULL;
  CHECK(lqs_transaction_commit(tx, NULL, &err) == LQS_INVALID_PARAMETER_VALUE);
  CHECK(err != NULL && strstr(err, "rolled back") != NULL);
  lqs_free(err);
  lqs_transaction_destroy(tx);
  check_committed(broker, "rb", "k", 1, NULL, 0);
  CHECK(receive_count(q, 0) == 0);
  lqs_transaction_rollback(NULL);
  lqs_transaction_destroy(NULL);
  lqs_table_entries_destroy(NULL);
  lqs_transaction_result_destroy(NULL);
  lqs_send_request_destroy(s);
}

/* Checks that `rc` is `code` and `*err` mentions `what`; frees *err. */
static void expect_error(int rc, int code, char** err, const char* what) {
  CHECK(rc == code);
  CHECK(*err != NULL && strstr(*err, what) != NULL);
  if (rc != code || *err == NULL || strstr(*err, what) == NULL) {
    fprintf(stderr, "  got %s: %s (wanted %s naming %s)\n", lqs_error_name(rc),
            *err ? *err : "(no message)", lqs_error_name(code), what);
  }
  lqs_free(*err);
  *err = NULL;
}

/* Bad input fails naming the parameter, records nothing, and leaves the
 * transaction usable. */
static void test_bad_input(lqs_broker_t* broker, lqs_queue_t* q) {
  drain(q);
  char* err = NULL;
  const int BAD = LQS_INVALID_PARAMETER_VALUE;
  lqs_transaction_t* none = NULL;
  expect_error(lqs_begin_transaction(NULL, &none, &err), BAD, &err, "broker");
  expect_error(lqs_begin_transaction(broker, NULL, &err), BAD, &err, "transaction");
  CHECK(none == NULL);
  expect_error(lqs_transaction_put(NULL, "t", "k", 1, "v", 1, &err), BAD, &err, "transaction");

  lqs_transaction_t* tx = begin(broker);
  expect_error(lqs_transaction_put(tx, "bad name!", "k", 1, "v", 1, &err), BAD, &err, "Table");
  expect_error(lqs_transaction_put(tx, NULL, "k", 1, "v", 1, &err), BAD, &err, "table");
  expect_error(lqs_transaction_put(tx, "t", "", 0, "v", 1, &err), BAD, &err, "Key");
  expect_error(lqs_transaction_put(tx, "t", NULL, 3, "v", 1, &err), BAD, &err, "key");
  expect_error(lqs_transaction_put(tx, "t", "k", 1, NULL, 1, &err), BAD, &err, "value");
  char big_key[1025];
  memset(big_key, 'k', sizeof big_key);
  expect_error(lqs_transaction_put(tx, "t", big_key, sizeof big_key, "v", 1, &err), BAD, &err,
               "Key");
  const size_t big = 256 * 1024 + 1;
  char* big_value = calloc(big, 1);
  CHECK(big_value != NULL);
  if (big_value != NULL) {
    expect_error(lqs_transaction_put(tx, "t", "k", 1, big_value, big, &err), BAD, &err, "Value");
    free(big_value);
  }
  char* v = untouched;
  expect_error(lqs_transaction_get(tx, "t", "", 0, &v, NULL, &err), BAD, &err, "Key");
  CHECK(v == untouched); /* left unchanged */
  expect_error(lqs_transaction_get(tx, "t", "k", 1, NULL, NULL, &err), BAD, &err, "value");
  expect_error(lqs_transaction_delete(tx, "t", NULL, 1, &err), BAD, &err, "key");
  lqs_table_entries_t* e = NULL;
  expect_error(lqs_transaction_scan(tx, "t", NULL, 2, &e, &err), BAD, &err, "prefix");
  expect_error(lqs_transaction_scan(tx, "t", "p", 1, NULL, &err), BAD, &err, "entries");
  expect_error(lqs_transaction_scan(tx, "", "p", 1, &e, &err), BAD, &err, "Table");
  CHECK(e == NULL);

  lqs_send_request_t* s = lqs_send_request_create("m", 1);
  expect_error(lqs_transaction_send_message(tx, "nope", s, &err), LQS_QUEUE_DOES_NOT_EXIST, &err,
               "queue");
  expect_error(lqs_transaction_send_message(tx, NULL, s, &err), BAD, &err, "queue_name");
  expect_error(lqs_transaction_send_message(tx, "jobs", NULL, &err), BAD, &err, "send");
  lqs_send_request_set_delay_seconds(s, 901);
  expect_error(lqs_transaction_send_message(tx, "jobs", s, &err), BAD, &err, "DelaySeconds");
  lqs_send_request_destroy(s);
  expect_error(lqs_transaction_send_message_batch(tx, "jobs", NULL, &err), BAD, &err, "batch");
  lqs_send_batch_request_t* empty = lqs_send_batch_request_create();
  expect_error(lqs_transaction_send_message_batch(tx, "jobs", empty, &err), LQS_EMPTY_BATCH_REQUEST,
               &err, "");
  lqs_send_batch_request_destroy(empty);
  expect_error(lqs_transaction_delete_message(tx, "jobs", "garbage", &err),
               LQS_RECEIPT_HANDLE_IS_INVALID, &err, "");
  expect_error(lqs_transaction_delete_message(tx, "jobs", NULL, &err), BAD, &err, "receipt_handle");
  expect_error(lqs_transaction_change_message_visibility(tx, "jobs", "garbage", 43201, &err), BAD,
               &err, "VisibilityTimeout");
  expect_error(lqs_transaction_change_message_visibility(tx, NULL, "h", 1, &err), BAD, &err,
               "queue_name");
  expect_error(lqs_transaction_commit(NULL, NULL, &err), BAD, &err, "transaction");

  /* Nothing was recorded, and the transaction still works. */
  CHECK_OK(lqs_transaction_put(tx, "t", "k", 1, "ok", 2, &err_));
  commit_sending_nothing(tx);
  check_committed(broker, "t", "k", 1, "ok", 2);
  CHECK(receive_count(q, 0) == 0);

  /* The database-level reads. */
  v = untouched;
  expect_error(lqs_table_get(NULL, "t", "k", 1, &v, NULL, &err), BAD, &err, "broker");
  expect_error(lqs_table_get(broker, "t", NULL, 1, &v, NULL, &err), BAD, &err, "key");
  expect_error(lqs_table_get(broker, "t", "k", 1, NULL, NULL, &err), BAD, &err, "value");
  expect_error(lqs_table_get(broker, "t!", "k", 1, &v, NULL, &err), BAD, &err, "Table");
  CHECK(v == untouched);
  expect_error(lqs_table_scan(broker, NULL, "", 0, &e, &err), BAD, &err, "table");
  expect_error(lqs_table_scan(broker, "t", "", 0, NULL, &err), BAD, &err, "entries");
  expect_error(lqs_list_tables(broker, NULL, &err), BAD, &err, "tables");
  expect_error(lqs_list_tables(NULL, NULL, &err), BAD, &err, "broker");
}

int main(int argc, char** argv) {
  const char* base = scratch_dir(argc, argv, dir_template);
  if (base == NULL) return 1;
  CHECK(LQS_C_API_VERSION >= 6 && lqs_c_api_version() == LQS_C_API_VERSION);
  lqs_clock_t* clock = lqs_manual_clock_create(LQS_MANUAL_CLOCK_DEFAULT_START_MS);
  lqs_broker_t* broker = open_broker(base, clock);
  if (broker == NULL) return 1;
  lqs_queue_t* q = NULL;
  CHECK_OK(lqs_create_queue(broker, "jobs", NULL, NULL, 0, NULL, NULL, 0, &q, &err_));
  if (q == NULL) return 1;

  test_records(broker);
  test_sends(broker, q);
  test_leases(broker, q, clock);
  test_conflict(broker);
  test_rollback(broker, q);
  test_bad_input(broker, q);

  /* A transaction outliving its database: LQS_CLOSED, and it can still be
   * destroyed. */
  lqs_transaction_t* tx = begin(broker);
  CHECK_OK(lqs_transaction_put(tx, "late", "k", 1, "v", 1, &err_));
  CHECK_OK(lqs_close(broker, &err_));
  char* err = NULL;
  CHECK(lqs_transaction_put(tx, "late", "k", 1, "v", 1, &err) == LQS_CLOSED);
  CHECK(lqs_transaction_commit(tx, NULL, &err) == LQS_CLOSED);
  lqs_free(err);
  lqs_transaction_destroy(tx);
  lqs_queue_destroy(q);

  /* Reopened: the committed records are there, the late one is not. */
  broker = open_broker(base, clock);
  if (broker != NULL) {
    check_committed(broker, "orders", "o-1", 3, "ACCEPTED", 8);
    check_committed(broker, "late", "k", 1, NULL, 0);
    CHECK_OK(lqs_close(broker, &err_));
  }
  lqs_clock_destroy(clock);
  return finish("c_api_transaction_test", argc, base);
}
