/* c_api_worker_test.c — the C API's worker (include/lqs/c.h, "Worker"),
 * compiled as C11 and run by ctest (and as c_api_worker_test_asan under
 * AddressSanitizer with -DLQS_C_API_ASAN=ON).
 *
 * Time is the database's manual clock, which the worker follows: tests
 * advance it instead of sleeping. They wait (with a real-time bound) only
 * for the worker's threads to do something, never for a timeout to pass.
 *
 * Usage: c_api_worker_test [SCRATCH_DIR]   (default: a fresh directory under /tmp) */

#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "c_test_support.h"

#include "lqs/c.h"

static lqs_worker_stats_t stats_of(const lqs_worker_t* w) {
  lqs_worker_stats_t s;
  memset(&s, 0xff, sizeof s);
  lqs_worker_get_stats(w, &s);
  return s;
}

/* ---- A log every test's workers write to --------------------------------- */

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char* log_text = NULL; /* "LEVEL line\n" ... */
static size_t log_len = 0;
static int log_bad_user = 0; /* the logger got a `user` it was not given */

static void capture_log(int level, const char* line, void* user) {
  static const char* const kNames[] = {"DEBUG", "INFO", "WARNING", "ERROR"};
  const char* name = level >= 0 && level <= 3 ? kNames[level] : "?";
  pthread_mutex_lock(&log_mu);
  if (user != &log_text) log_bad_user = 1;
  const size_t add = strlen(name) + 1 + strlen(line) + 1;
  char* grown = realloc(log_text, log_len + add + 1);
  if (grown != NULL) {
    log_text = grown;
    snprintf(log_text + log_len, add + 1, "%s %s\n", name, line);
    log_len += add;
  }
  pthread_mutex_unlock(&log_mu);
}

static int logged(const char* needle) {
  pthread_mutex_lock(&log_mu);
  const int found = log_text != NULL && strstr(log_text, needle) != NULL;
  pthread_mutex_unlock(&log_mu);
  return found;
}

static void clear_log(void) {
  pthread_mutex_lock(&log_mu);
  free(log_text);
  log_text = NULL;
  log_len = 0;
  pthread_mutex_unlock(&log_mu);
}

/* Options for tests: no backoff jitter, lines to the captured log. */
static lqs_worker_options_t* test_options(void) {
  lqs_worker_options_t* o = lqs_worker_options_create();
  lqs_worker_options_set_backoff_jitter(o, 0);
  lqs_worker_options_set_logger(o, capture_log, &log_text);
  return o;
}

/* A started worker on `q` with options `o` (destroyed here) and `handler`
 * (called with `user`); NULL when it could not be created (a failed check). */
static lqs_worker_t* start_worker(lqs_queue_t* q, lqs_worker_options_t* o,
                                  lqs_worker_handler_t handler, void* user) {
  lqs_worker_t* w = NULL;
  CHECK_OK(lqs_worker_create(q, o, handler, user, &w, &err_));
  lqs_worker_options_destroy(o);
  if (w != NULL) CHECK_OK(lqs_worker_start(w, &err_));
  return w;
}

/* ---- A gate handlers wait on (every wait bounded) ------------------------ */

struct gate {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int open;
};

static void gate_init(struct gate* g) {
  pthread_mutex_init(&g->mu, NULL);
  pthread_cond_init(&g->cv, NULL);
  g->open = 0;
}

static void gate_open(struct gate* g) {
  pthread_mutex_lock(&g->mu);
  g->open = 1;
  pthread_cond_broadcast(&g->cv);
  pthread_mutex_unlock(&g->mu);
}

static void gate_wait(struct gate* g) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 20;
  pthread_mutex_lock(&g->mu);
  while (!g->open) {
    if (pthread_cond_timedwait(&g->cv, &g->mu, &until) != 0) break;
  }
  pthread_mutex_unlock(&g->mu);
}

static void gate_destroy(struct gate* g) {
  pthread_cond_destroy(&g->cv);
  pthread_mutex_destroy(&g->mu);
}

/* ---- Broker and queue helpers ---------------------------------------------- */

static char dir_template[] = "/tmp/lqs_c_api_worker_test_XXXXXX";

static lqs_queue_t* make_queue(lqs_broker_t* broker, const char* name) {
  lqs_queue_t* q = NULL;
  CHECK_OK(lqs_create_queue(broker, name, NULL, NULL, 0, NULL, NULL, 0, &q, &err_));
  return q;
}

/* Creates `dlq_name`, then `name` with a RedrivePolicy naming it. */
static lqs_queue_t* make_queue_with_dlq(lqs_broker_t* broker, const char* name,
                                        const char* dlq_name, lqs_queue_t** dlq) {
  *dlq = make_queue(broker, dlq_name);
  char policy[256];
  snprintf(policy, sizeof policy, "{\"deadLetterTargetArn\":\"%s\",\"maxReceiveCount\":5}",
           lqs_queue_arn(*dlq));
  const char* names[] = {"RedrivePolicy"};
  const char* values[] = {policy};
  lqs_queue_t* q = NULL;
  CHECK_OK(lqs_create_queue(broker, name, names, values, 1, NULL, NULL, 0, &q, &err_));
  return q;
}

static void send_body(lqs_queue_t* q, const char* body) {
  lqs_send_request_t* s = lqs_send_request_create(body, strlen(body));
  CHECK_OK(lqs_queue_send_message(q, s, NULL, &err_));
  lqs_send_request_destroy(s);
}

/* ApproximateNumberOfMessages + ApproximateNumberOfMessagesNotVisible. */
static long queue_depth(lqs_queue_t* q) {
  const char* names[] = {"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"};
  lqs_strmap_t* attrs = NULL;
  long n = -1;
  if (lqs_queue_get_attributes(q, names, 2, &attrs, NULL) == LQS_OK) {
    n = atol(lqs_strmap_get(attrs, names[0])) + atol(lqs_strmap_get(attrs, names[1]));
  }
  lqs_strmap_destroy(attrs);
  return n;
}

static long visible_count(lqs_queue_t* q) {
  const char* names[] = {"ApproximateNumberOfMessages"};
  lqs_strmap_t* attrs = NULL;
  long n = -1;
  if (lqs_queue_get_attributes(q, names, 1, &attrs, NULL) == LQS_OK) {
    n = atol(lqs_strmap_get(attrs, names[0]));
  }
  lqs_strmap_destroy(attrs);
  return n;
}

/* Receives (no wait) up to 10 messages with all attributes; the caller
 * destroys the list. */
static lqs_messages_t* receive_now(lqs_queue_t* q) {
  lqs_receive_request_t* r = lqs_receive_request_create();
  lqs_receive_request_set_max_number_of_messages(r, 10);
  lqs_receive_request_set_wait_time_seconds(r, 0);
  lqs_receive_request_add_message_attribute_name(r, "All");
  lqs_messages_t* got = NULL;
  CHECK_OK(lqs_queue_receive_message(q, r, &got, &err_));
  lqs_receive_request_destroy(r);
  return got;
}

/* ---- A handler that counts calls, and one that blocks -------------------------- */

struct counter {
  pthread_mutex_t mu;
  int calls;
  int last_receive_count;
};

static int count_and_succeed(const lqs_worker_message_t* m, void* user, lqs_worker_result_t* r) {
  struct counter* c = user;
  (void)r;
  pthread_mutex_lock(&c->mu);
  ++c->calls;
  c->last_receive_count = lqs_worker_message_receive_count(m);
  pthread_mutex_unlock(&c->mu);
  return LQS_WORKER_SUCCESS;
}

/* *value, read holding *mu (the handlers' counters and flags). */
static int read_locked(pthread_mutex_t* mu, const int* value) {
  pthread_mutex_lock(mu);
  const int v = *value;
  pthread_mutex_unlock(mu);
  return v;
}

static int calls_of(struct counter* c) { return read_locked(&c->mu, &c->calls); }

struct blocker {
  struct gate gate;
  pthread_mutex_t mu;
  int entered;
};

static int block_then_succeed(const lqs_worker_message_t* m, void* user, lqs_worker_result_t* r) {
  struct blocker* b = user;
  (void)m;
  (void)r;
  pthread_mutex_lock(&b->mu);
  ++b->entered;
  pthread_mutex_unlock(&b->mu);
  gate_wait(&b->gate);
  return LQS_WORKER_SUCCESS;
}

static void blocker_init(struct blocker* b) {
  gate_init(&b->gate);
  pthread_mutex_init(&b->mu, NULL);
  b->entered = 0;
}

static void blocker_destroy(struct blocker* b) {
  gate_destroy(&b->gate);
  pthread_mutex_destroy(&b->mu);
}

static int entered_of(struct blocker* b) { return read_locked(&b->mu, &b->entered); }

/* ---- Options and lifecycle ------------------------------------------------------ */

/* Checks that lqs_worker_create refuses the options `o` (destroyed here),
 * naming WorkerOptions.`option`, and leaves its out parameter unchanged. */
static void expect_refused(lqs_queue_t* q, lqs_worker_options_t* o, const char* option) {
  struct counter c = {PTHREAD_MUTEX_INITIALIZER, 0, 0};
  lqs_worker_t* w = NULL;
  char* err = NULL;
  char want[128];
  snprintf(want, sizeof want, "WorkerOptions.%s", option);
  CHECK(lqs_worker_create(q, o, count_and_succeed, &c, &w, &err) == LQS_INVALID_PARAMETER_VALUE);
  CHECK(w == NULL);
  CHECK(err != NULL && strstr(err, want) != NULL);
  if (err == NULL || strstr(err, want) == NULL) fprintf(stderr, "  option %s: %s\n", option, err);
  lqs_free(err);
  lqs_worker_options_destroy(o);
}

/* The test options with OPTION set to VALUE are refused, naming OPTION. */
#define CHECK_REFUSED(q, option, value)         \
  do {                                          \
    lqs_worker_options_t* o_ = test_options();  \
    lqs_worker_options_set_##option(o_, value); \
    expect_refused((q), o_, #option);           \
  } while (0)

static void test_options_and_lifecycle(lqs_broker_t* broker) {
  lqs_queue_t* q = make_queue(broker, "opts");
  struct counter c = {PTHREAD_MUTEX_INITIALIZER, 0, 0};
  char* err = NULL;
  lqs_worker_t* w = NULL;
  /* Out of range, and (a maximum below its base) inconsistent. */
  CHECK_REFUSED(q, max_messages_per_receive, 0);
  CHECK_REFUSED(q, max_messages_per_receive, 11);
  CHECK_REFUSED(q, wait_time_seconds, 21);
  CHECK_REFUSED(q, visibility_timeout_seconds, 0);
  CHECK_REFUSED(q, concurrency, 0);
  CHECK_REFUSED(q, max_in_progress, -1);
  CHECK_REFUSED(q, rate_limit_per_second, -1);
  CHECK_REFUSED(q, rate_limit_per_group_per_second, NAN);
  CHECK_REFUSED(q, backoff_base_seconds, -1);
  CHECK_REFUSED(q, backoff_max_seconds, 43201);
  lqs_worker_options_t* below_base = test_options();
  lqs_worker_options_set_backoff_base_seconds(below_base, 10);
  lqs_worker_options_set_backoff_max_seconds(below_base, 5);
  expect_refused(q, below_base, "backoff_max_seconds");
  CHECK_REFUSED(q, backoff_jitter, 1.5);
  CHECK_REFUSED(q, inbox_ttl_seconds, 0);
  /* Message attribute names SQS would refuse. */
  CHECK_REFUSED(q, error_attribute, "AWS.Error");
  CHECK_REFUSED(q, idempotency_attribute, "bad key");

  CHECK(lqs_worker_create(NULL, NULL, count_and_succeed, &c, &w, &err) ==
        LQS_INVALID_PARAMETER_VALUE);
  CHECK(err != NULL && strstr(err, "queue") != NULL);
  CHECK(lqs_worker_create(q, NULL, NULL, &c, &w, &err) == LQS_INVALID_PARAMETER_VALUE);
  CHECK(err != NULL && strstr(err, "handler") != NULL);
  CHECK(lqs_worker_create_batch(q, NULL, NULL, &c, &w, &err) == LQS_INVALID_PARAMETER_VALUE);
  CHECK(lqs_worker_create(q, NULL, count_and_succeed, &c, NULL, &err) ==
        LQS_INVALID_PARAMETER_VALUE);
  CHECK(w == NULL);

  /* NULL restores a string option's default; the options may be destroyed
   * right after the create. */
  lqs_worker_options_t* o = test_options();
  lqs_worker_options_set_error_attribute(o, "AWS.Error");
  lqs_worker_options_set_error_attribute(o, NULL);
  lqs_worker_options_set_idempotency_attribute(o, NULL);
  CHECK(lqs_worker_create(q, o, count_and_succeed, &c, &w, &err) == LQS_OK);
  lqs_worker_options_destroy(o);
  CHECK(w != NULL);
  if (w != NULL) {
    CHECK(lqs_worker_stop(w, 1000) == 1);                            /* valid before start */
    CHECK(lqs_worker_start(w, &err) == LQS_INVALID_PARAMETER_VALUE); /* stopped */
    lqs_worker_destroy(w);
    w = NULL;
  }

  CHECK(lqs_worker_create(q, NULL, count_and_succeed, &c, &w, &err) == LQS_OK);
  if (w != NULL) {
    CHECK_OK(lqs_worker_start(w, &err_));
    CHECK(lqs_worker_start(w, &err) == LQS_INVALID_PARAMETER_VALUE); /* starts once */
    CHECK(err != NULL && strstr(err, "already started") != NULL);
    CHECK(lqs_worker_stop(w, 5000) == 1);
    CHECK(lqs_worker_stop(w, -1) == 1); /* idempotent */
    lqs_worker_wait(w);                 /* returns: the stop finished */
    lqs_worker_destroy(w);
  }
  lqs_worker_destroy(NULL);
  lqs_worker_options_destroy(NULL);
  CHECK(calls_of(&c) == 0);
  lqs_free(err);
  lqs_queue_destroy(q);
}

/* ---- Success, and what a handler sees --------------------------------------------- */

struct seen {
  pthread_mutex_t mu;
  int calls;
  char queue_name[64];
  char id[64];
  int handle_ok;
  char body[64];
  size_t body_len;
  int receive_count;
  int group_is_null;
  char key[16];
  size_t key_len;
  char sent_timestamp[32];
  char receive_count_attr[8];
  size_t n_attrs;
  char attr_names[3][32];
  int binary_ok;
  char tenant[16];
  char tenant_type[16];
};

static int record_message(const lqs_worker_message_t* m, void* user, lqs_worker_result_t* r) {
  struct seen* s = user;
  (void)r;
  pthread_mutex_lock(&s->mu);
  ++s->calls;
  snprintf(s->queue_name, sizeof s->queue_name, "%s", lqs_worker_message_queue_name(m));
  snprintf(s->id, sizeof s->id, "%s", lqs_worker_message_id(m));
  s->handle_ok = strlen(lqs_worker_message_receipt_handle(m)) > 0;
  const char* body = lqs_worker_message_body(m, &s->body_len);
  memcpy(s->body, body, s->body_len < sizeof s->body ? s->body_len : sizeof s->body);
  s->receive_count = lqs_worker_message_receive_count(m);
  s->group_is_null = lqs_worker_message_group_id(m) == NULL;
  const char* key = lqs_worker_message_idempotency_key(m, &s->key_len);
  memcpy(s->key, key, s->key_len < sizeof s->key ? s->key_len : sizeof s->key);
  const lqs_strmap_t* sys = lqs_worker_message_attributes(m);
  const char* ts = lqs_strmap_get(sys, "SentTimestamp");
  snprintf(s->sent_timestamp, sizeof s->sent_timestamp, "%s", ts != NULL ? ts : "");
  const char* rc = lqs_strmap_get(sys, "ApproximateReceiveCount");
  snprintf(s->receive_count_attr, sizeof s->receive_count_attr, "%s", rc != NULL ? rc : "");
  s->n_attrs = lqs_worker_message_attribute_count(m);
  for (size_t i = 0; i < s->n_attrs && i < 3; ++i) {
    snprintf(s->attr_names[i], sizeof s->attr_names[i], "%s",
             lqs_worker_message_attribute_name(m, i));
    if (strcmp(s->attr_names[i], "blob") == 0) {
      size_t len = 0;
      const unsigned char* v = lqs_worker_message_attribute_binary_value(m, i, &len);
      s->binary_ok = lqs_worker_message_attribute_is_binary(m, i) == 1 && len == 3 &&
                     v[0] == 0x00 && v[1] == 0x01 && v[2] == 0xff;
    } else if (strcmp(s->attr_names[i], "tenant") == 0) {
      snprintf(s->tenant, sizeof s->tenant, "%s", lqs_worker_message_attribute_string_value(m, i));
      snprintf(s->tenant_type, sizeof s->tenant_type, "%s",
               lqs_worker_message_attribute_data_type(m, i));
    }
  }
  pthread_mutex_unlock(&s->mu);
  return LQS_WORKER_SUCCESS;
}

static void test_success_and_message_accessors(lqs_broker_t* broker) {
  clear_log();
  lqs_queue_t* q = make_queue(broker, "jobs");
  /* A body with multi-byte UTF-8 (SQS bodies cannot hold NUL: U+0000 is not
   * an XML character); a key with a NUL byte, from a Binary attribute. */
  static const char kBody[] = "caf\xc3\xa9 \xe2\x82\xac 42";
  static const unsigned char kBlob[] = {0x00, 0x01, 0xff};
  static const char kKey[] = {'k', '\0', '1'};
  lqs_send_request_t* send = lqs_send_request_create(kBody, sizeof kBody - 1);
  lqs_send_request_add_string_attribute(send, "tenant", "String", "acme");
  lqs_send_request_add_binary_attribute(send, "blob", "Binary", kBlob, sizeof kBlob);
  lqs_send_request_add_binary_attribute(send, "IdempotencyKey", "Binary", kKey, sizeof kKey);
  lqs_send_result_t* sent = NULL;
  CHECK_OK(lqs_queue_send_message(q, send, &sent, &err_));
  lqs_send_request_destroy(send);

  struct seen s;
  memset(&s, 0, sizeof s);
  pthread_mutex_init(&s.mu, NULL);
  lqs_worker_options_t* o = test_options();
  lqs_worker_t* w = NULL;
  CHECK_OK(lqs_worker_create(q, o, record_message, &s, &w, &err_));
  lqs_worker_options_destroy(o);
  lqs_queue_destroy(q); /* the worker keeps its own reference */
  q = NULL;
  if (w == NULL) return;
  CHECK_OK(lqs_worker_start(w, &err_));
  WAIT_FOR(stats_of(w).succeeded == 1);
  CHECK(lqs_worker_stop(w, 5000) == 1);

  const lqs_worker_stats_t st = stats_of(w);
  CHECK(st.received == 1);
  CHECK(st.succeeded == 1);
  CHECK(st.retried == 0 && st.dead_lettered == 0 && st.duplicates_skipped == 0);
  CHECK(st.released == 0 && st.delete_failures == 0 && st.in_progress == 0);
  CHECK(st.lease_extensions == 0 && st.lease_extension_failures == 0);
  /* Handler time is clock time: the manual clock did not move. */
  CHECK(st.handler_p50_ms == 0 && st.handler_p99_ms == 0);
  lqs_worker_destroy(w);

  pthread_mutex_lock(&s.mu);
  CHECK(s.calls == 1);
  CHECK(streq(s.queue_name, "jobs"));
  CHECK(sent != NULL && streq(s.id, lqs_send_result_message_id(sent)));
  CHECK(s.handle_ok);
  CHECK(s.body_len == sizeof kBody - 1 && memcmp(s.body, kBody, s.body_len) == 0);
  CHECK(s.receive_count == 1);
  CHECK(streq(s.receive_count_attr, "1"));
  CHECK(strlen(s.sent_timestamp) == 13);
  CHECK(s.group_is_null);
  CHECK(s.key_len == sizeof kKey && memcmp(s.key, kKey, sizeof kKey) == 0);
  CHECK(s.n_attrs == 3); /* name order: IdempotencyKey, blob, tenant */
  CHECK(streq(s.attr_names[0], "IdempotencyKey"));
  CHECK(streq(s.attr_names[1], "blob"));
  CHECK(streq(s.attr_names[2], "tenant"));
  CHECK(s.binary_ok);
  CHECK(streq(s.tenant, "acme") && streq(s.tenant_type, "String"));
  pthread_mutex_unlock(&s.mu);
  pthread_mutex_destroy(&s.mu);
  lqs_send_result_destroy(sent);

  CHECK(logged("INFO queue=jobs: worker started"));
  CHECK(logged("DEBUG queue=jobs message_id="));
  CHECK(logged("receive_count=1: done; deleted"));
  lqs_queue_t* again = NULL;
  CHECK_OK(lqs_get_queue(broker, "jobs", &again, &err_));
  CHECK(queue_depth(again) == 0);
  lqs_queue_destroy(again);
}

/* FIFO: the group id, and the deduplication id as the idempotency key. */
static int record_group(const lqs_worker_message_t* m, void* user, lqs_worker_result_t* r) {
  char* out = user; /* "group|key" */
  size_t key_len = 0;
  const char* key = lqs_worker_message_idempotency_key(m, &key_len);
  const char* group = lqs_worker_message_group_id(m);
  (void)r;
  snprintf(out, 64, "%s|%.*s", group != NULL ? group : "(null)", (int)key_len, key);
  return LQS_WORKER_SUCCESS;
}

static void test_fifo_group_and_key(lqs_broker_t* broker) {
  const char* names[] = {"FifoQueue"};
  const char* values[] = {"true"};
  lqs_queue_t* q = NULL;
  CHECK_OK(lqs_create_queue(broker, "orders.fifo", names, values, 1, NULL, NULL, 0, &q, &err_));
  if (q == NULL) return;
  lqs_send_request_t* send = lqs_send_request_create("o1", 2);
  lqs_send_request_set_message_group_id(send, "customer-7");
  lqs_send_request_set_message_deduplication_id(send, "dedup-1");
  CHECK_OK(lqs_queue_send_message(q, send, NULL, &err_));
  lqs_send_request_destroy(send);
  char seen[64] = "";
  lqs_worker_options_t* o = test_options();
  lqs_worker_t* w = start_worker(q, o, record_group, seen);
  if (w != NULL) {
    WAIT_FOR(stats_of(w).succeeded == 1);
    CHECK(lqs_worker_stop(w, 5000) == 1);
    lqs_worker_destroy(w);
  }
  CHECK(streq(seen, "customer-7|dedup-1"));
  lqs_queue_destroy(q);
}

/* ---- Retries and the backoff ------------------------------------------------------- */

/* Call 1 returns an invalid outcome, call 2 RETRY with a reason, call 3
 * succeeds. */
static int fail_twice(const lqs_worker_message_t* m, void* user, lqs_worker_result_t* r) {
  struct counter* c = user;
  pthread_mutex_lock(&c->mu);
  const int call = ++c->calls;
  c->last_receive_count = lqs_worker_message_receive_count(m);
  pthread_mutex_unlock(&c->mu);
  if (call == 1) return 42;
  if (call == 2) {
    lqs_worker_result_set_error(r, "first reason");
    lqs_worker_result_set_error(r, "downstream busy"); /* the last call wins */
    return LQS_WORKER_RETRY;
  }
  return LQS_WORKER_SUCCESS;
}

static void test_retry_backoff(lqs_broker_t* broker, lqs_clock_t* clock) {
  clear_log();
  lqs_queue_t* q = make_queue(broker, "flaky");
  send_body(q, "flaky job");
  struct counter c = {PTHREAD_MUTEX_INITIALIZER, 0, 0};
  lqs_worker_options_t* o = test_options();
  lqs_worker_options_set_backoff_base_seconds(o, 2);
  lqs_worker_options_set_backoff_max_seconds(o, 60);
  lqs_worker_t* w = start_worker(q, o, fail_twice, &c);
  if (w == NULL) return;

  /* Receive 1: an invalid outcome counts as RETRY; backoff 2 s. */
  WAIT_FOR(stats_of(w).retried == 1);
  /* (The worker counts a retry just before it logs it.) */
  WAIT_FOR(
      logged("handler failed, retry in 2 s: the handler returned 42, which is not an "
             "LQS_WORKER_* outcome"));
  lqs_messages_t* got = receive_now(q);
  CHECK(lqs_messages_count(got) == 0); /* invisible during the backoff */
  lqs_messages_destroy(got);
  lqs_clock_advance_seconds(clock, 2);

  /* Receive 2: RETRY with a reason; backoff 4 s. */
  WAIT_FOR(stats_of(w).retried == 2);
  WAIT_FOR(logged("receive_count=2: handler failed, retry in 4 s: downstream busy"));
  CHECK(!logged("first reason"));
  lqs_clock_advance_millis(clock, 3999);
  got = receive_now(q);
  CHECK(lqs_messages_count(got) == 0); /* one millisecond short */
  lqs_messages_destroy(got);
  lqs_clock_advance_millis(clock, 1);

  /* Receive 3: success. */
  WAIT_FOR(stats_of(w).succeeded == 1);
  CHECK(lqs_worker_stop(w, 5000) == 1);
  const lqs_worker_stats_t st = stats_of(w);
  CHECK(st.received == 3 && st.retried == 2 && st.succeeded == 1 && st.in_progress == 0);
  lqs_worker_destroy(w);
  CHECK(calls_of(&c) == 3);
  CHECK(c.last_receive_count == 3);
  CHECK(queue_depth(q) == 0);
  lqs_queue_destroy(q);
}

/* ---- Non-retryable failures and the dead-letter queue ------------------------------ */

static int refuse(const lqs_worker_message_t* m, void* user, lqs_worker_result_t* r) {
  size_t len = 0;
  const char* body = lqs_worker_message_body(m, &len);
  (void)user;
  if (len == 3 && memcmp(body, "bad", 3) == 0) lqs_worker_result_set_error(r, "invalid body: bad");
  return LQS_WORKER_NON_RETRYABLE; /* "worse": no reason given */
}

static void test_non_retryable_dead_letter(lqs_broker_t* broker) {
  clear_log();
  lqs_queue_t* dlq = NULL;
  lqs_queue_t* q = make_queue_with_dlq(broker, "refused", "refused-dlq", &dlq);
  send_body(q, "bad");
  send_body(q, "worse");
  lqs_worker_options_t* o = test_options();
  lqs_worker_options_set_error_attribute(o, "app.Error");
  lqs_worker_t* w = start_worker(q, o, refuse, NULL);
  if (w == NULL) return;
  WAIT_FOR(stats_of(w).dead_lettered == 2);
  CHECK(lqs_worker_stop(w, 5000) == 1);
  const lqs_worker_stats_t st = stats_of(w);
  CHECK(st.received == 2 && st.retried == 0 && st.succeeded == 0);
  lqs_worker_destroy(w);
  CHECK(logged("WARNING queue=refused message_id="));
  CHECK(logged("moved to the dead-letter queue: invalid body: bad"));
  CHECK(queue_depth(q) == 0);

  lqs_messages_t* dead = receive_now(dlq);
  CHECK(lqs_messages_count(dead) == 2);
  for (size_t i = 0; i < lqs_messages_count(dead); ++i) {
    const lqs_message_t* m = lqs_messages_get(dead, i);
    const char* body = lqs_message_body(m, NULL);
    CHECK(lqs_message_attribute_count(m) == 1);
    if (lqs_message_attribute_count(m) != 1) continue;
    CHECK(streq(lqs_message_attribute_name(m, 0), "app.Error"));
    const char* error = lqs_message_attribute_string_value(m, 0);
    if (streq(body, "bad")) {
      CHECK(streq(error, "invalid body: bad"));
    } else {
      CHECK(streq(error, "the handler returned LQS_WORKER_NON_RETRYABLE"));
    }
  }
  lqs_messages_destroy(dead);
  lqs_queue_destroy(q);
  lqs_queue_destroy(dlq);
}

/* ---- Batch handlers -------------------------------------------------------------------- */

struct batch_seen {
  pthread_mutex_t mu;
  int calls;
  int max_n;
  int handled[8]; /* by body "b<i>": calls that included it */
  int ignored_calls_ok;
};

/* b1 and b3 fail (RETRY) on their first delivery; b4 is reported and then
 * withdrawn; an out-of-range index is ignored. A message "w" fails the whole
 * batch on its first delivery. */
static int batch_handler(const lqs_worker_message_t* const* ms, size_t n, void* user,
                         lqs_worker_result_t* r) {
  struct batch_seen* s = user;
  int whole = 0;
  pthread_mutex_lock(&s->mu);
  ++s->calls;
  if ((int)n > s->max_n) s->max_n = (int)n;
  for (size_t i = 0; i < n; ++i) {
    size_t len = 0;
    const char* body = lqs_worker_message_body(ms[i], &len);
    const int first = lqs_worker_message_receive_count(ms[i]) == 1;
    if (len == 2 && body[0] == 'b' && body[1] >= '0' && body[1] <= '7') {
      ++s->handled[body[1] - '0'];
      if (first && (body[1] == '1' || body[1] == '3')) {
        lqs_worker_result_fail(r, i, LQS_WORKER_RETRY, "item busy");
      }
      if (body[1] == '4') {
        lqs_worker_result_fail(r, i, LQS_WORKER_RETRY, "not really");
        lqs_worker_result_fail(r, i, LQS_WORKER_SUCCESS, NULL); /* withdrawn */
      }
    } else if (first && len == 1 && body[0] == 'w') {
      whole = 1;
    }
  }
  lqs_worker_result_fail(r, n, LQS_WORKER_RETRY, "out of range"); /* ignored */
  pthread_mutex_unlock(&s->mu);
  if (whole) {
    lqs_worker_result_set_error(r, "whole batch down");
    return LQS_WORKER_RETRY;
  }
  return LQS_WORKER_SUCCESS;
}

static void test_batch_handler(lqs_broker_t* broker, lqs_clock_t* clock) {
  clear_log();
  lqs_queue_t* q = make_queue(broker, "batched");
  char body[3] = "b0";
  for (int i = 0; i < 5; ++i) {
    body[1] = (char)('0' + i);
    send_body(q, body);
  }
  struct batch_seen s;
  memset(&s, 0, sizeof s);
  pthread_mutex_init(&s.mu, NULL);
  lqs_worker_options_t* o = test_options();
  lqs_worker_t* w = NULL;
  CHECK_OK(lqs_worker_create_batch(q, o, batch_handler, &s, &w, &err_));
  lqs_worker_options_destroy(o);
  if (w == NULL) return;
  CHECK_OK(lqs_worker_start(w, &err_));
  WAIT_FOR(stats_of(w).succeeded == 3 && stats_of(w).retried == 2);
  WAIT_FOR(logged("retry in 1 s: item busy"));
  CHECK(!logged("not really") && !logged("out of range"));
  lqs_clock_advance_seconds(clock, 1); /* backoff_base_seconds: b1 and b3 return */
  WAIT_FOR(stats_of(w).succeeded == 5);

  send_body(q, "w");
  WAIT_FOR(stats_of(w).retried == 3);
  WAIT_FOR(logged("retry in 1 s: whole batch down"));
  lqs_clock_advance_seconds(clock, 1);
  WAIT_FOR(stats_of(w).succeeded == 6);
  CHECK(lqs_worker_stop(w, 5000) == 1);
  lqs_worker_destroy(w);

  pthread_mutex_lock(&s.mu);
  CHECK(s.max_n >= 1 && s.max_n <= 10);
  CHECK(s.handled[0] == 1 && s.handled[2] == 1 && s.handled[4] == 1);
  CHECK(s.handled[1] == 2 && s.handled[3] == 2);
  pthread_mutex_unlock(&s.mu);
  pthread_mutex_destroy(&s.mu);
  CHECK(queue_depth(q) == 0);
  lqs_queue_destroy(q);
}

/* ---- The inbox ------------------------------------------------------------------------------- */

static void send_with_key(lqs_queue_t* q, const char* body, const char* key) {
  lqs_send_request_t* s = lqs_send_request_create(body, strlen(body));
  lqs_send_request_add_string_attribute(s, "Key", "String", key);
  CHECK_OK(lqs_queue_send_message(q, s, NULL, &err_));
  lqs_send_request_destroy(s);
}

static void test_inbox_skips_duplicates(lqs_broker_t* broker) {
  clear_log();
  lqs_queue_t* q = make_queue(broker, "charges");
  struct counter c = {PTHREAD_MUTEX_INITIALIZER, 0, 0};
  lqs_worker_options_t* o = test_options();
  lqs_worker_options_set_inbox(o, 1);
  lqs_worker_options_set_idempotency_attribute(o, "Key");
  lqs_worker_options_set_inbox_ttl_seconds(o, 3600);
  lqs_worker_t* w = start_worker(q, o, count_and_succeed, &c);
  if (w == NULL) return;
  send_with_key(q, "charge order 42", "order-42");
  WAIT_FOR(stats_of(w).succeeded == 1);
  send_with_key(q, "charge order 42 (sent again)", "order-42");
  WAIT_FOR(stats_of(w).duplicates_skipped == 1);
  CHECK(lqs_worker_stop(w, 5000) == 1);
  lqs_worker_destroy(w);
  CHECK(calls_of(&c) == 1);
  CHECK(logged("duplicate of completed work (idempotency key order-42)"));
  int contains = 0;
  CHECK_OK(lqs_queue_inbox_contains(q, "order-42", 8, &contains, &err_));
  CHECK(contains == 1);
  CHECK(queue_depth(q) == 0);
  lqs_queue_destroy(q);
}

/* ---- Pause, heartbeats, shutdown -------------------------------------------------------- */

static void test_pause_resume(lqs_broker_t* broker) {
  lqs_queue_t* q = make_queue(broker, "paused");
  struct counter c = {PTHREAD_MUTEX_INITIALIZER, 0, 0};
  lqs_worker_t* w = NULL;
  CHECK_OK(lqs_worker_create(q, NULL, count_and_succeed, &c, &w, &err_)); /* default options */
  if (w == NULL) return;
  CHECK_OK(lqs_worker_start(w, &err_));
  CHECK(lqs_worker_paused(w) == 0);
  lqs_worker_pause(w);
  lqs_worker_pause(w); /* idempotent */
  CHECK(lqs_worker_paused(w) == 1);
  /* Once pause returned, nothing is leased for the worker: a poll that was
   * starting has been withdrawn or has given back what it took. */
  for (int i = 0; i < 3; ++i) send_body(q, "p");
  CHECK(visible_count(q) == 3);
  CHECK(stats_of(w).received == 0);
  lqs_worker_resume(w);
  CHECK(lqs_worker_paused(w) == 0);
  WAIT_FOR(stats_of(w).succeeded == 3);
  CHECK(lqs_worker_stop(w, 5000) == 1);
  lqs_worker_destroy(w);
  CHECK(calls_of(&c) == 3);
  lqs_queue_destroy(q);
}

/* The worker follows the database's manual clock: a handler slower than the
 * visibility timeout keeps its lease, and a stop deadline can pass. */
static void test_heartbeat_and_stop_deadline(lqs_broker_t* broker, lqs_clock_t* clock) {
  clear_log();
  lqs_queue_t* q = make_queue(broker, "slow");
  send_body(q, "slow job");
  struct blocker b;
  blocker_init(&b);
  lqs_worker_options_t* o = test_options();
  lqs_worker_options_set_visibility_timeout_seconds(o, 30);
  lqs_worker_options_set_concurrency(o, 1);
  lqs_worker_t* w = start_worker(q, o, block_then_succeed, &b);
  if (w != NULL) {
    WAIT_FOR(entered_of(&b) == 1);
    lqs_clock_advance_seconds(clock, 20); /* a third of the lease left: renewed */
    WAIT_FOR(stats_of(w).lease_extensions == 1);
    lqs_clock_advance_seconds(clock, 15); /* past the first lease's end */
    lqs_messages_t* got = receive_now(q);
    CHECK(lqs_messages_count(got) == 0); /* still leased by the worker */
    lqs_messages_destroy(got);

    CHECK(lqs_worker_stop(w, 50) == 0); /* the handler is still blocked */
    CHECK(lqs_worker_stop(w, 50) == 0); /* idempotent: the same answer */
    CHECK(logged("handlers still running after the deadline"));
    gate_open(&b.gate);
    WAIT_FOR(stats_of(w).succeeded == 1); /* it still deletes its message */
    const lqs_worker_stats_t st = stats_of(w);
    CHECK(st.handler_p50_ms >= 30000 && st.handler_p99_ms >= st.handler_p50_ms);
    CHECK(st.in_progress == 0);
    lqs_worker_destroy(w); /* joins the handler thread */
  }
  CHECK(queue_depth(q) == 0);
  blocker_destroy(&b);
  lqs_queue_destroy(q);
}

struct stop_arg {
  lqs_worker_t* w;
  int result;
};

static void* stop_thread(void* p) {
  struct stop_arg* a = p;
  a->result = lqs_worker_stop(a->w, 20000);
  return NULL;
}

static void test_stop_releases_unstarted(lqs_broker_t* broker) {
  lqs_queue_t* q = make_queue(broker, "draining");
  for (int i = 0; i < 5; ++i) send_body(q, "d");
  struct blocker b;
  blocker_init(&b);
  lqs_worker_options_t* o = test_options();
  lqs_worker_options_set_concurrency(o, 1);
  lqs_worker_options_set_max_messages_per_receive(o, 5);
  lqs_worker_options_set_max_in_progress(o, 5);
  lqs_worker_t* w = start_worker(q, o, block_then_succeed, &b);
  if (w != NULL) {
    WAIT_FOR(stats_of(w).received == 5 && entered_of(&b) == 1);
    CHECK(stats_of(w).in_progress == 5);

    struct stop_arg arg = {w, -1};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, stop_thread, &arg) == 0);
    WAIT_FOR(stats_of(w).released == 4);
    /* Released messages can be received at once, without moving the clock. */
    lqs_messages_t* got = receive_now(q);
    CHECK(lqs_messages_count(got) == 4);
    lqs_messages_destroy(got);
    gate_open(&b.gate);
    pthread_join(t, NULL);
    CHECK(arg.result == 1);
    lqs_worker_wait(w); /* returns at once: the stop finished */
    CHECK(lqs_worker_stop(w, 0) == 1);
    const lqs_worker_stats_t st = stats_of(w);
    CHECK(st.succeeded == 1 && st.released == 4 && st.in_progress == 0);
    lqs_worker_destroy(w);
  }
  CHECK(entered_of(&b) == 1); /* nothing unstarted ran */
  blocker_destroy(&b);
  lqs_queue_destroy(q);
}

/* ---- Signals -------------------------------------------------------------------------------- */

struct wait_arg {
  lqs_worker_t* w;
  pthread_mutex_t mu;
  int done;
};

static void* wait_thread(void* p) {
  struct wait_arg* a = p;
  lqs_worker_wait(a->w);
  pthread_mutex_lock(&a->mu);
  a->done = 1;
  pthread_mutex_unlock(&a->mu);
  return NULL;
}

static int waited(struct wait_arg* a) { return read_locked(&a->mu, &a->done); }

static void test_signal_handlers(lqs_broker_t* broker) {
  clear_log();
  lqs_queue_t* q = make_queue(broker, "signalled");
  struct counter c = {PTHREAD_MUTEX_INITIALIZER, 0, 0};
  struct sigaction before;
  sigaction(SIGTERM, NULL, &before);
  lqs_worker_options_t* o = test_options();
  lqs_worker_t* w = NULL;
  lqs_worker_t* other = NULL;
  CHECK_OK(lqs_worker_create(q, o, count_and_succeed, &c, &w, &err_));
  CHECK_OK(lqs_worker_create(q, o, count_and_succeed, &c, &other, &err_));
  lqs_worker_options_destroy(o);
  if (w == NULL || other == NULL) {
    lqs_worker_destroy(w);
    lqs_worker_destroy(other);
    lqs_queue_destroy(q);
    return;
  }
  CHECK_OK(lqs_worker_start(w, &err_));
  char* err = NULL;
  const int rc = lqs_worker_install_signal_handlers(w, 5000, &err);
  CHECK(rc == LQS_OK);
  CHECK(lqs_worker_install_signal_handlers(w, 5000, &err) == LQS_INVALID_PARAMETER_VALUE);
  CHECK(lqs_worker_install_signal_handlers(other, 5000, &err) == LQS_INVALID_PARAMETER_VALUE);
  lqs_free(err);
  struct wait_arg arg;
  arg.w = w;
  pthread_mutex_init(&arg.mu, NULL);
  arg.done = 0;
  pthread_t t;
  CHECK(pthread_create(&t, NULL, wait_thread, &arg) == 0);
  if (rc == LQS_OK) { /* else SIGTERM would end this process */
    CHECK(raise(SIGTERM) == 0);
    WAIT_FOR(waited(&arg));
    CHECK(logged("caught SIGTERM; stopping"));
  }
  if (!waited(&arg)) lqs_worker_stop(w, 1000); /* let the waiting thread end */
  pthread_join(t, NULL);
  pthread_mutex_destroy(&arg.mu);
  lqs_worker_destroy(other);
  lqs_worker_destroy(w); /* restores the previous handlers */
  struct sigaction after;
  sigaction(SIGTERM, NULL, &after);
  CHECK(after.sa_handler == before.sa_handler);
  lqs_queue_destroy(q);
}

/* ---- Transactional handlers (lqs/c_transaction.h) --------------------------- */

static lqs_worker_stats_v2_t stats_v2_of(const lqs_worker_t* w) {
  lqs_worker_stats_v2_t s;
  memset(&s, 0xff, sizeof s);
  lqs_worker_get_stats_v2(w, &s);
  return s;
}

struct tx_handler {
  pthread_mutex_t mu;
  int calls;
  int outcome;          /* what the handler returns */
  struct gate* gate;    /* the first call waits on it (NULL: no wait) */
  int commit_rc;        /* what its lqs_transaction_commit returned */
  int commit_named_why; /* its error said the worker commits */
  int put_after_rc;     /* a put after rollback and destroy (no-ops) */
};

static void tx_handler_init(struct tx_handler* h, int outcome, struct gate* gate) {
  pthread_mutex_init(&h->mu, NULL);
  h->calls = 0;
  h->outcome = outcome;
  h->gate = gate;
  h->commit_rc = -1;
  h->commit_named_why = 0;
  h->put_after_rc = -1;
}

/* Records "effects"/<body> = "shipped" in the worker's transaction, tries
 * to commit, roll back and destroy it (all refused), records once more. */
static int record_in_tx(const lqs_worker_message_t* m, lqs_transaction_t* tx, void* user,
                        lqs_worker_result_t* r) {
  struct tx_handler* h = user;
  pthread_mutex_lock(&h->mu);
  const int call = ++h->calls;
  pthread_mutex_unlock(&h->mu);
  if (call == 1 && h->gate != NULL) gate_wait(h->gate);
  size_t len = 0;
  const char* body = lqs_worker_message_body(m, &len);
  char* err = NULL;
  if (lqs_transaction_put(tx, "effects", body, len, "shipped", 7, &err) != LQS_OK) {
    lqs_worker_result_set_error(r, err);
    lqs_free(err);
    return LQS_WORKER_RETRY;
  }
  const int rc = lqs_transaction_commit(tx, NULL, &err);
  const int named = err != NULL && strstr(err, "worker commits") != NULL;
  lqs_free(err);
  err = NULL;
  lqs_transaction_rollback(tx);
  lqs_transaction_destroy(tx);
  const int after = lqs_transaction_put(tx, "effects", "after", 5, "yes", 3, &err);
  lqs_free(err);
  pthread_mutex_lock(&h->mu);
  h->commit_rc = rc;
  h->commit_named_why = named;
  h->put_after_rc = after;
  pthread_mutex_unlock(&h->mu);
  if (h->outcome != LQS_WORKER_SUCCESS) lqs_worker_result_set_error(r, "not now");
  return h->outcome;
}

/* The committed value of "effects"/key, malloc'd, or NULL. */
static char* effect(lqs_broker_t* broker, const char* key) {
  char* value = NULL;
  CHECK_OK(lqs_table_get(broker, "effects", key, strlen(key), &value, NULL, &err_));
  return value;
}

static lqs_worker_t* start_tx_worker(lqs_queue_t* q, lqs_worker_options_t* o,
                                     struct tx_handler* h) {
  lqs_worker_t* w = NULL;
  CHECK_OK(lqs_worker_create_transactional(q, o, record_in_tx, h, &w, &err_));
  lqs_worker_options_destroy(o);
  if (w != NULL) CHECK_OK(lqs_worker_start(w, &err_));
  return w;
}

/* Success: the handler's record and the message's delete are one commit;
 * the handler cannot commit, roll back or free the worker's transaction. */
static void test_transactional_success(lqs_broker_t* broker) {
  clear_log();
  lqs_queue_t* q = make_queue(broker, "tx-success");
  struct tx_handler h;
  tx_handler_init(&h, LQS_WORKER_SUCCESS, NULL);
  lqs_worker_t* w = NULL;
  char* err = NULL;
  CHECK(lqs_worker_create_transactional(q, NULL, NULL, &h, &w, &err) ==
        LQS_INVALID_PARAMETER_VALUE);
  CHECK(w == NULL && err != NULL && strstr(err, "handler") != NULL);
  lqs_free(err);

  send_body(q, "order-1");
  w = start_tx_worker(q, test_options(), &h);
  if (w != NULL) {
    WAIT_FOR(stats_of(w).succeeded == 1);
    CHECK(lqs_worker_stop(w, 5000) == 1);
    const lqs_worker_stats_v2_t st = stats_v2_of(w);
    CHECK(st.received == 1 && st.succeeded == 1 && st.retried == 0);
    CHECK(st.transaction_conflicts == 0 && st.delete_failures == 0 && st.in_progress == 0);
    lqs_worker_destroy(w);
  }
  CHECK(queue_depth(q) == 0);
  char* v = effect(broker, "order-1");
  CHECK(v != NULL && streq(v, "shipped"));
  lqs_free(v);
  v = effect(broker, "after"); /* the transaction outlived rollback and destroy */
  CHECK(v != NULL && streq(v, "yes"));
  lqs_free(v);
  pthread_mutex_lock(&h.mu);
  CHECK(h.calls == 1);
  CHECK(h.commit_rc == LQS_INVALID_PARAMETER_VALUE && h.commit_named_why);
  CHECK(h.put_after_rc == LQS_OK);
  pthread_mutex_unlock(&h.mu);
  pthread_mutex_destroy(&h.mu);
  lqs_queue_destroy(q);
}

/* Retry: the transaction is rolled back, the message stays. */
static void test_transactional_retry(lqs_broker_t* broker) {
  clear_log();
  lqs_queue_t* q = make_queue(broker, "tx-retry");
  struct tx_handler h;
  tx_handler_init(&h, LQS_WORKER_RETRY, NULL);
  send_body(q, "order-2");
  lqs_worker_t* w = start_tx_worker(q, test_options(), &h);
  if (w != NULL) {
    WAIT_FOR(stats_of(w).retried == 1);
    CHECK(lqs_worker_stop(w, 5000) == 1);
    const lqs_worker_stats_v2_t st = stats_v2_of(w);
    CHECK(st.succeeded == 0 && st.transaction_conflicts == 0);
    lqs_worker_destroy(w);
  }
  CHECK(queue_depth(q) == 1);
  char* v = effect(broker, "order-2");
  CHECK(v == NULL);
  lqs_free(v);
  CHECK(logged("not now"));
  pthread_mutex_destroy(&h.mu);
  lqs_queue_destroy(q);
}

/* The handler outlives its lease (the clock jumps past it, so no heartbeat
 * runs) and another consumer receives the message: the commit is refused
 * and counted, and nothing of it is applied. */
static void test_transactional_lost_lease(lqs_broker_t* broker, lqs_clock_t* clock) {
  clear_log();
  lqs_queue_t* q = make_queue(broker, "tx-lost");
  struct gate g;
  gate_init(&g);
  struct tx_handler h;
  tx_handler_init(&h, LQS_WORKER_SUCCESS, &g);
  send_body(q, "order-3");
  lqs_worker_options_t* o = test_options();
  lqs_worker_options_set_visibility_timeout_seconds(o, 30);
  lqs_worker_options_set_concurrency(o, 1);
  lqs_worker_options_set_max_in_progress(o, 1);
  lqs_worker_t* w = start_tx_worker(q, o, &h);
  if (w != NULL) {
    WAIT_FOR(read_locked(&h.mu, &h.calls) == 1);
    lqs_clock_advance_seconds(clock, 31);
    lqs_messages_t* got = receive_now(q); /* another consumer's lease */
    CHECK(lqs_messages_count(got) == 1);
    lqs_messages_destroy(got);
    gate_open(&g);
    WAIT_FOR(stats_v2_of(w).transaction_conflicts == 1);
    CHECK(lqs_worker_stop(w, 5000) == 1);
    const lqs_worker_stats_v2_t st = stats_v2_of(w);
    CHECK(st.succeeded == 0 && st.transaction_conflicts == 1);
    lqs_worker_destroy(w);
  }
  CHECK(logged("transaction conflict"));
  CHECK(queue_depth(q) == 1);
  char* v = effect(broker, "order-3");
  CHECK(v == NULL);
  lqs_free(v);
  gate_destroy(&g);
  pthread_mutex_destroy(&h.mu);
  lqs_queue_destroy(q);
}

int main(int argc, char** argv) {
  const char* base = scratch_dir(argc, argv, dir_template);
  if (base == NULL) return 2;
  char path[512];
  snprintf(path, sizeof path, "%s/broker", base);
  CHECK(lqs_c_api_version() == LQS_C_API_VERSION && LQS_C_API_VERSION >= 7);

  lqs_clock_t* clock = lqs_manual_clock_create(LQS_MANUAL_CLOCK_DEFAULT_START_MS);
  lqs_broker_t* broker = open_broker(path, clock);
  CHECK(broker != NULL);
  if (broker != NULL) {
    test_options_and_lifecycle(broker);
    test_success_and_message_accessors(broker);
    test_fifo_group_and_key(broker);
    test_retry_backoff(broker, clock);
    test_non_retryable_dead_letter(broker);
    test_batch_handler(broker, clock);
    test_inbox_skips_duplicates(broker);
    test_pause_resume(broker);
    test_heartbeat_and_stop_deadline(broker, clock);
    test_stop_releases_unstarted(broker);
    test_signal_handlers(broker);
    test_transactional_success(broker);
    test_transactional_retry(broker);
    test_transactional_lost_lease(broker, clock);
    /* Every worker was destroyed before the close. */
    CHECK_OK(lqs_close(broker, &err_));
  }
  lqs_clock_destroy(clock);
  clear_log();
  CHECK(!log_bad_user);

  return finish("c_api_worker_test", argc, base);
}
