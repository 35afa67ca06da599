/* c_api_bridge_test.c — the C API's bridges (include/lqs/c_bridge.h),
 * compiled as C11 and run by ctest against a real remote: the lqsd binary,
 * started here as a child process on a free port of 127.0.0.1.
 *
 * Messages go from a local queue to lqsd's queue (forward, once mode) and
 * back into another local queue (pull, once mode), and must arrive byte for
 * byte with their attributes. Start() errors, an unreachable remote, the log
 * callback, stop/wait and destroying a running bridge are checked too. The
 * databases use the system clock (a bridge's backoffs follow it), with
 * backoffs of milliseconds; the test waits in real time only for lqsd to
 * print its address and, with a 20-second bound, for the bridges' threads.
 *
 * Usage: c_api_bridge_test LQSD [SCRATCH_DIR]   (default: a fresh directory
 * under /tmp) */

#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "c_test_support.h"

#include "lqs/c.h"

enum { kMessages = 25 }; /* three SendMessageBatch calls' worth */

static char dir_template[] = "/tmp/lqs_c_bridge_test_XXXXXX";

/* Calls `expr` (taking `&err_`) and checks that it fails with `code` and a
 * message containing `needle`. */
#define CHECK_FAILS(expr, code, needle)                                                       \
  do {                                                                                        \
    char* err_ = NULL;                                                                        \
    const int rc_ = (expr);                                                                   \
    ++checks;                                                                                 \
    if (rc_ != (code) || err_ == NULL || strstr(err_, (needle)) == NULL) {                    \
      ++failures;                                                                             \
      fprintf(stderr, "%s:%d: %s: expected %s with \"%s\", got %s: %s\n", __FILE__, __LINE__, \
              #expr, lqs_error_name(code), (needle), lqs_error_name(rc_),                     \
              err_ ? err_ : "(no message)");                                                  \
    }                                                                                         \
    lqs_free(err_);                                                                           \
  } while (0)

/* Sets option OPTION of the caller's `o` to BAD, checks that
 * lqs_bridge_start(broker, o, &b) refuses it naming NEEDLE, and sets it back
 * to GOOD. */
#define CHECK_REFUSED(option, bad, good, needle)                                              \
  do {                                                                                        \
    lqs_bridge_options_set_##option(o, bad);                                                  \
    CHECK_FAILS(lqs_bridge_start(broker, o, &b, &err_), LQS_INVALID_PARAMETER_VALUE, needle); \
    lqs_bridge_options_set_##option(o, good);                                                 \
  } while (0)

/* ---- lqsd, the remote ---------------------------------------------------- */

typedef struct {
  pid_t pid;
  FILE* out;      /* its standard output, open until it is stopped */
  char base[320]; /* http://127.0.0.1:PORT/123456789012/ */
} lqsd_t;

/* Starts `binary` on database `data` and reads the address it prints when
 * ready ("lqsd listening on http://HOST:PORT"). 0 on success. */
static int start_lqsd(const char* binary, const char* data, lqsd_t* out) {
  int fds[2];
  if (pipe(fds) != 0) {
    perror("pipe");
    return -1;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    return -1;
  }
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    execl(binary, binary, "--data", data, "--listen", "127.0.0.1:0", (char*)NULL);
    perror("execl lqsd");
    _exit(127);
  }
  close(fds[1]);
  out->pid = pid;
  out->out = fdopen(fds[0], "r");
  char line[256];
  const char* prefix = "lqsd listening on ";
  while (out->out != NULL && fgets(line, sizeof line, out->out) != NULL) {
    if (strncmp(line, prefix, strlen(prefix)) != 0) continue;
    line[strcspn(line, "\r\n")] = '\0';
    snprintf(out->base, sizeof out->base, "%s/123456789012/", line + strlen(prefix));
    return 0;
  }
  fprintf(stderr, "lqsd exited before it listened\n");
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  return -1;
}

/* SIGTERM, then waits: lqsd closes its database and exits 0. */
static void stop_lqsd(lqsd_t* d) {
  kill(d->pid, SIGTERM);
  int status = 0;
  CHECK(waitpid(d->pid, &status, 0) == d->pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  if (d->out != NULL) fclose(d->out);
}

/* A port of 127.0.0.1 that nothing listens on (bound, then closed). */
static int closed_port(void) {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (s >= 0 && bind(s, (struct sockaddr*)&a, sizeof a) == 0 &&
      getsockname(s, (struct sockaddr*)&a, &len) == 0) {
    port = ntohs(a.sin_port);
  }
  if (s >= 0) close(s);
  return port;
}

/* ---- Local helpers ------------------------------------------------------- */

static lqs_broker_t* open_system_clock_broker(const char* path) {
  lqs_broker_t* broker = NULL;
  char* err = NULL;
  if (lqs_open(path, NULL, &broker, &err) != LQS_OK) {
    fprintf(stderr, "lqs_open %s: %s\n", path, err);
    lqs_free(err);
    return NULL;
  }
  return broker;
}

static void create_queue(lqs_broker_t* broker, const char* name) {
  int fifo = strstr(name, ".fifo") != NULL;
  const char* names[] = {"FifoQueue"};
  const char* values[] = {"true"};
  lqs_queue_t* q = NULL;
  CHECK_OK(lqs_create_queue(broker, name, names, values, fifo ? 1 : 0, NULL, NULL, 0, &q, &err_));
  lqs_queue_destroy(q);
}

static void url_of(const lqsd_t* d, const char* queue, char* out, size_t n) {
  snprintf(out, n, "%s%s", d->base, queue);
}

/* Options with explicit credentials (lqsd without --auth-file accepts any
 * signature; explicit ones keep the environment out of the test) and
 * millisecond backoffs. */
static lqs_bridge_options_t* options_for(int direction, const char* local, const char* url) {
  lqs_bridge_options_t* o = lqs_bridge_options_create();
  lqs_bridge_options_set_direction(o, direction);
  lqs_bridge_options_set_local_queue(o, local);
  lqs_bridge_options_set_remote_queue_url(o, url);
  lqs_bridge_options_set_credentials(o, "AKIDEXAMPLE", "secret", NULL);
  lqs_bridge_options_set_region(o, "us-east-1");
  lqs_bridge_options_set_backoff_base_ms(o, 1);
  lqs_bridge_options_set_backoff_max_ms(o, 20);
  lqs_bridge_options_set_backoff_jitter(o, 0);
  lqs_bridge_options_set_request_timeout_seconds(o, 10);
  lqs_bridge_options_set_lease_seconds(o, 60);
  lqs_bridge_options_set_wait_time_seconds(o, 1);
  lqs_bridge_options_set_dedup_window_seconds(o, 600);
  lqs_bridge_options_set_max_batches_in_flight(o, 2);
  return o;
}

/* The body of message i: printable, tabs, newlines and multi-byte UTF-8. */
static void body_of(int i, char* out, size_t n) {
  snprintf(out, n, "msg-%02d|\tline one\nline two \xc3\xa9\xe2\x82\xac\xf0\x9f\x93\xa6 %d", i,
           i * 7919);
}

static const unsigned char kBinary[] = {0x00, 0x01, 0xff, 0x00, 0x7f, 0x80, 'x'};

static int64_t approximate(lqs_queue_t* q, const char* attribute) {
  lqs_strmap_t* attrs = NULL;
  const char* names[] = {attribute};
  int64_t n = -1;
  CHECK_OK(lqs_queue_get_attributes(q, names, 1, &attrs, &err_));
  const char* v = attrs != NULL ? lqs_strmap_get(attrs, attribute) : NULL;
  if (v != NULL) n = strtoll(v, NULL, 10);
  lqs_strmap_destroy(attrs);
  return n;
}

static int64_t messages_in(lqs_broker_t* broker, const char* name) {
  lqs_queue_t* q = NULL;
  CHECK_OK(lqs_get_queue(broker, name, &q, &err_));
  if (q == NULL) return -1;
  const int64_t n = approximate(q, "ApproximateNumberOfMessages") +
                    approximate(q, "ApproximateNumberOfMessagesNotVisible") +
                    approximate(q, "ApproximateNumberOfMessagesDelayed");
  lqs_queue_destroy(q);
  return n;
}

/* ---- The log callback ------------------------------------------------------ */

typedef struct {
  pthread_mutex_t mu;
  int lines;
  char last[512];
} log_sink_t;

static log_sink_t sink = {PTHREAD_MUTEX_INITIALIZER, 0, ""};

static void log_line(const char* line, void* user) {
  log_sink_t* s = (log_sink_t*)user;
  pthread_mutex_lock(&s->mu);
  ++s->lines;
  snprintf(s->last, sizeof s->last, "%s", line);
  pthread_mutex_unlock(&s->mu);
}

/* ---- Tests ------------------------------------------------------------------------ */

static void test_options_and_start_errors(lqs_broker_t* broker, const lqsd_t* remote) {
  char url[512], fifo_url[512];
  url_of(remote, "remote", url, sizeof url);
  url_of(remote, "remote.fifo", fifo_url, sizeof fifo_url);
  lqs_bridge_options_destroy(NULL);
  lqs_bridge_destroy(NULL);
  lqs_bridge_stop(NULL);

  lqs_bridge_t* b = NULL;
  lqs_bridge_options_t* o = options_for(LQS_BRIDGE_FORWARD, "missing", url);
  CHECK_FAILS(lqs_bridge_start(broker, o, &b, &err_), LQS_QUEUE_DOES_NOT_EXIST, "does not exist");
  CHECK(b == NULL);
  CHECK_FAILS(lqs_bridge_start(NULL, o, &b, &err_), LQS_INVALID_PARAMETER_VALUE, "broker");
  CHECK_FAILS(lqs_bridge_start(broker, o, NULL, &err_), LQS_INVALID_PARAMETER_VALUE, "bridge");
  CHECK_FAILS(lqs_bridge_start(broker, NULL, &b, &err_), LQS_QUEUE_DOES_NOT_EXIST, "");
  CHECK_FAILS(lqs_bridge_wait(NULL, &err_), LQS_INVALID_PARAMETER_VALUE, "bridge");
  /* errptr may be NULL. */
  CHECK(lqs_bridge_start(broker, o, &b, NULL) == LQS_QUEUE_DOES_NOT_EXIST);

  lqs_bridge_options_set_local_queue(o, "outbox");
  lqs_bridge_options_set_remote_queue_url(o, "not a url");
  CHECK_FAILS(lqs_bridge_start(broker, o, &b, &err_), LQS_INVALID_PARAMETER_VALUE, "QueueUrl");
  lqs_bridge_options_set_remote_queue_url(o, "ftp://127.0.0.1/123456789012/remote");
  CHECK_FAILS(lqs_bridge_start(broker, o, &b, &err_), LQS_INVALID_PARAMETER_VALUE, "QueueUrl");

  /* FIFO/standard mismatch, both ways. */
  lqs_bridge_options_set_remote_queue_url(o, fifo_url);
  CHECK_FAILS(lqs_bridge_start(broker, o, &b, &err_), LQS_INVALID_PARAMETER_VALUE,
              "a bridge joins two FIFO queues or two standard queues");
  lqs_bridge_options_set_local_queue(o, "outbox.fifo");
  lqs_bridge_options_set_remote_queue_url(o, url);
  CHECK_FAILS(lqs_bridge_start(broker, o, &b, &err_), LQS_INVALID_PARAMETER_VALUE,
              "is a FIFO queue");
  lqs_bridge_options_set_local_queue(o, "outbox");

  /* Values out of range name their option; each is put back to a valid
   * value before the next. A maximum below its base names the base. */
  CHECK_REFUSED(max_batches_in_flight, 0, 1, "max_batches_in_flight");
  CHECK_REFUSED(max_batches_in_flight, 65, 1, "max_batches_in_flight");
  CHECK_REFUSED(wait_time_seconds, 21, 1, "wait_time_seconds");
  CHECK_REFUSED(lease_seconds, 19, 60, "lease_seconds"); /* < 2 * request_timeout_seconds */
  CHECK_REFUSED(backoff_jitter, 1.5, 0, "backoff_jitter");
  CHECK_REFUSED(backoff_max_ms, 0, 20, "backoff_base_ms");
  CHECK_REFUSED(once_attempts, 0, 4, "once_attempts");
  CHECK_REFUSED(dedup_window_seconds, 0, 600, "dedup_window_seconds");
  CHECK_REFUSED(request_timeout_seconds, 0, 10, "request_timeout_seconds");
  CHECK_REFUSED(direction, 7, LQS_BRIDGE_FORWARD, "direction");
  lqs_bridge_options_set_credentials(o, "AKIDEXAMPLE", NULL, NULL); /* no secret */
  CHECK_FAILS(lqs_bridge_start(broker, o, &b, &err_), LQS_INVALID_PARAMETER_VALUE, "secret");
  lqs_bridge_options_set_credentials(o, "AKIDEXAMPLE", "secret", "token");
  lqs_bridge_options_set_region(o, "not a region");
  CHECK_FAILS(lqs_bridge_start(broker, o, &b, &err_), LQS_INVALID_PARAMETER_VALUE, "region");
  lqs_bridge_options_set_region(o, NULL);
  CHECK(b == NULL);

  /* The corrected options start; stop and wait end it with LQS_OK. */
  CHECK_OK(lqs_bridge_start(broker, o, &b, &err_));
  CHECK(b != NULL);
  if (b != NULL) {
    char expected[600];
    snprintf(expected, sizeof expected, "forward outbox -> %s", url);
    CHECK(streq(lqs_bridge_name(b), expected));
    lqs_bridge_stats_t s;
    lqs_bridge_get_stats(b, &s);
    CHECK(s.direction == LQS_BRIDGE_FORWARD);
    lqs_bridge_get_stats(b, NULL); /* allowed */
    lqs_bridge_stop(b);
    lqs_bridge_stop(b); /* idempotent */
    CHECK_OK(lqs_bridge_wait(b, &err_));
    CHECK_OK(lqs_bridge_wait(b, &err_)); /* the same answer again */
    lqs_bridge_get_stats(b, &s);
    CHECK(s.running == 0);
    CHECK(s.transferred == 0);
    lqs_bridge_destroy(b);
  }
  lqs_bridge_options_destroy(o);
}

/* Sends `m` to `queue`, then destroys it. */
static void send_to(lqs_broker_t* broker, const char* queue, lqs_send_request_t* m) {
  lqs_queue_t* q = NULL;
  CHECK_OK(lqs_get_queue(broker, queue, &q, &err_));
  if (q != NULL) CHECK_OK(lqs_queue_send_message(q, m, NULL, &err_));
  lqs_send_request_destroy(m);
  lqs_queue_destroy(q);
}

/* Message i of send_messages: every third has a String, a Number and a
 * Binary attribute (with NUL bytes). */
static lqs_send_request_t* message_request(int i) {
  char body[128];
  body_of(i, body, sizeof body);
  lqs_send_request_t* m = lqs_send_request_create(body, strlen(body));
  if (i % 3 == 0) {
    char n[16];
    snprintf(n, sizeof n, "%d", i);
    lqs_send_request_add_string_attribute(m, "color", "String", "blue \xc3\xa9");
    lqs_send_request_add_string_attribute(m, "index", "Number.int", n);
    lqs_send_request_add_binary_attribute(m, "blob", "Binary", kBinary, sizeof kBinary);
  }
  return m;
}

/* Sends kMessages (message_request) to `queue`. */
static void send_messages(lqs_broker_t* broker, const char* queue) {
  for (int i = 0; i < kMessages; ++i) send_to(broker, queue, message_request(i));
}

/* Receives everything in `queue` and checks it is exactly what
 * send_messages sent, attributes included, each message once. */
static void check_received(lqs_broker_t* broker, const char* queue) {
  lqs_queue_t* q = NULL;
  CHECK_OK(lqs_get_queue(broker, queue, &q, &err_));
  if (q == NULL) return;
  int seen[kMessages] = {0};
  int total = 0;
  lqs_receive_request_t* r = lqs_receive_request_create();
  lqs_receive_request_set_max_number_of_messages(r, 10);
  lqs_receive_request_set_visibility_timeout(r, 600);
  lqs_receive_request_set_wait_time_seconds(r, 0);
  lqs_receive_request_add_message_attribute_name(r, "All");
  for (;;) {
    lqs_messages_t* ms = NULL;
    CHECK_OK(lqs_queue_receive_message(q, r, &ms, &err_));
    const size_t n = ms != NULL ? lqs_messages_count(ms) : 0;
    for (size_t k = 0; k < n; ++k) {
      const lqs_message_t* m = lqs_messages_get(ms, k);
      size_t len = 0;
      const char* body = lqs_message_body(m, &len);
      const int i = atoi(body + 4);
      CHECK(strncmp(body, "msg-", 4) == 0 && i >= 0 && i < kMessages);
      if (i < 0 || i >= kMessages) continue;
      ++seen[i];
      ++total;
      char expected[128];
      body_of(i, expected, sizeof expected);
      CHECK(len == strlen(expected) && memcmp(body, expected, len) == 0);
      if (i % 3 != 0) {
        CHECK(lqs_message_attribute_count(m) == 0);
        continue;
      }
      /* In name order: blob, color, index. */
      CHECK(lqs_message_attribute_count(m) == 3);
      if (lqs_message_attribute_count(m) != 3) continue;
      CHECK(streq(lqs_message_attribute_name(m, 0), "blob"));
      CHECK(streq(lqs_message_attribute_data_type(m, 0), "Binary"));
      CHECK(lqs_message_attribute_is_binary(m, 0) == 1);
      size_t blen = 0;
      const void* blob = lqs_message_attribute_binary_value(m, 0, &blen);
      CHECK(blen == sizeof kBinary && memcmp(blob, kBinary, blen) == 0);
      CHECK(streq(lqs_message_attribute_name(m, 1), "color"));
      CHECK(streq(lqs_message_attribute_data_type(m, 1), "String"));
      CHECK(streq(lqs_message_attribute_string_value(m, 1), "blue \xc3\xa9"));
      char num[16];
      snprintf(num, sizeof num, "%d", i);
      CHECK(streq(lqs_message_attribute_name(m, 2), "index"));
      CHECK(streq(lqs_message_attribute_data_type(m, 2), "Number.int"));
      CHECK(streq(lqs_message_attribute_string_value(m, 2), num));
    }
    lqs_messages_destroy(ms);
    if (n == 0) break;
  }
  lqs_receive_request_destroy(r);
  lqs_queue_destroy(q);
  CHECK(total == kMessages);
  for (int i = 0; i < kMessages; ++i) CHECK(seen[i] == 1);
}

/* Runs a `once` bridge to its end and checks that it ended well; the
 * bridge (for its stats), or NULL when it did not start. */
static lqs_bridge_t* run_once(lqs_broker_t* broker, int direction, const char* local,
                              const char* url) {
  lqs_bridge_options_t* o = options_for(direction, local, url);
  lqs_bridge_options_set_once(o, 1);
  lqs_bridge_t* b = NULL;
  CHECK_OK(lqs_bridge_start(broker, o, &b, &err_));
  lqs_bridge_options_destroy(o); /* the bridge copied what it needs */
  if (b != NULL) CHECK_OK(lqs_bridge_wait(b, &err_));
  return b;
}

static void test_forward_then_pull(lqs_broker_t* broker, const lqsd_t* remote) {
  char url[512];
  url_of(remote, "remote", url, sizeof url);
  send_messages(broker, "outbox");
  CHECK(messages_in(broker, "outbox") == kMessages);

  /* Forward: outbox -> remote, once. */
  lqs_bridge_t* b = run_once(broker, LQS_BRIDGE_FORWARD, "outbox", url);
  if (b == NULL) return;
  lqs_bridge_stats_t s;
  lqs_bridge_get_stats(b, &s);
  CHECK(s.direction == LQS_BRIDGE_FORWARD);
  CHECK(s.running == 0);
  CHECK(s.online == 1);
  CHECK(s.transferred == kMessages);
  CHECK(s.failures == 0 && s.md5_mismatches == 0 && s.dead_lettered == 0 && s.stuck == 0);
  CHECK(s.last_success_ms > 0 && s.last_error_ms == 0);
  CHECK(s.backlog == 0);
  lqs_strmap_t* f = lqs_bridge_failures(b);
  CHECK(f != NULL && lqs_strmap_count(f) == 0);
  lqs_strmap_destroy(f);
  char* last = lqs_bridge_last_error(b);
  CHECK(streq(last, ""));
  lqs_free(last);
  char* json = lqs_bridge_stats_json(b);
  CHECK(json != NULL && strstr(json, "\"Transferred\":25") != NULL &&
        strstr(json, "\"Direction\":\"forward\"") != NULL &&
        strstr(json, "\"Failures\":{}") != NULL);
  lqs_free(json);
  lqs_bridge_destroy(b);
  CHECK(messages_in(broker, "outbox") == 0);

  /* Pull: remote -> inbox, once (ends at the first empty receive). */
  b = run_once(broker, LQS_BRIDGE_PULL, "inbox", url);
  if (b == NULL) return;
  lqs_bridge_get_stats(b, &s);
  CHECK(s.direction == LQS_BRIDGE_PULL);
  CHECK(s.transferred == kMessages);
  CHECK(s.duplicates == 0 && s.failures == 0);
  char expected[600];
  snprintf(expected, sizeof expected, "pull %s -> inbox", url);
  CHECK(streq(lqs_bridge_name(b), expected));
  lqs_bridge_destroy(b);
  CHECK(messages_in(broker, "inbox") == kMessages);
  check_received(broker, "inbox");

  /* The remote is empty now: a second pull brings nothing. */
  b = run_once(broker, LQS_BRIDGE_PULL, "inbox2", url);
  if (b == NULL) return;
  lqs_bridge_get_stats(b, &s);
  CHECK(s.transferred == 0 && s.online == 1);
  lqs_bridge_destroy(b);
  CHECK(messages_in(broker, "inbox2") == 0);
}

static void test_unreachable_remote(lqs_broker_t* broker) {
  const int port = closed_port();
  CHECK(port > 0);
  char url[128];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/123456789012/remote", port);
  send_to(broker, "offline", lqs_send_request_create("kept", 4));

  lqs_bridge_options_t* o = options_for(LQS_BRIDGE_FORWARD, "offline", url);
  lqs_bridge_options_set_once(o, 1);
  lqs_bridge_options_set_once_attempts(o, 2);
  lqs_bridge_options_set_max_batches_in_flight(o, 1);
  lqs_bridge_options_set_logger(o, log_line, &sink);
  lqs_bridge_t* b = NULL;
  CHECK_OK(lqs_bridge_start(broker, o, &b, &err_));
  lqs_bridge_options_destroy(o);
  if (b == NULL) return;
  CHECK_FAILS(lqs_bridge_wait(b, &err_), LQS_IO_ERROR, "could not be reached after 2 attempts");
  /* Later waits give the same answer. */
  CHECK_FAILS(lqs_bridge_wait(b, &err_), LQS_IO_ERROR, "NetworkError");
  lqs_bridge_stats_t s;
  lqs_bridge_get_stats(b, &s);
  CHECK(s.running == 0);
  CHECK(s.online == 0);
  CHECK(s.transferred == 0);
  CHECK(s.failures == 2);
  CHECK(s.last_error_ms > 0 && s.last_success_ms == 0);
  CHECK(s.backlog == 1); /* the message stayed local */
  lqs_strmap_t* f = lqs_bridge_failures(b);
  CHECK(f != NULL && lqs_strmap_count(f) == 1 && streq(lqs_strmap_get(f, "NetworkError"), "2"));
  lqs_strmap_destroy(f);
  char* last = lqs_bridge_last_error(b);
  CHECK(last != NULL && strncmp(last, "NetworkError", 12) == 0);
  lqs_free(last);
  char* json = lqs_bridge_stats_json(b);
  CHECK(json != NULL && strstr(json, "\"Failures\":{\"NetworkError\":2}") != NULL &&
        strstr(json, "\"Online\":false") != NULL);
  lqs_free(json);

  /* One line when it went offline, naming the bridge. */
  pthread_mutex_lock(&sink.mu);
  CHECK(sink.lines == 1);
  CHECK(strncmp(sink.last, lqs_bridge_name(b), strlen(lqs_bridge_name(b))) == 0);
  CHECK(strstr(sink.last, ": offline (NetworkError") != NULL);
  pthread_mutex_unlock(&sink.mu);
  lqs_bridge_destroy(b);
  CHECK(messages_in(broker, "offline") == 1);
}

/* A pull bridge (not once) in its remote long poll of 20 s: destroying it
 * aborts the poll and returns long before the poll would end. */
static void test_destroy_while_running(lqs_broker_t* broker, const lqsd_t* remote) {
  char url[512];
  url_of(remote, "remote", url, sizeof url);
  send_to(broker, "outbox", lqs_send_request_create("one more", 8));

  /* Forward (not once): it runs until stopped. */
  lqs_bridge_options_t* o = options_for(LQS_BRIDGE_FORWARD, "outbox", url);
  lqs_bridge_t* fwd = NULL;
  CHECK_OK(lqs_bridge_start(broker, o, &fwd, &err_));
  lqs_bridge_options_destroy(o);

  o = options_for(LQS_BRIDGE_PULL, "inbox3", url);
  lqs_bridge_options_set_wait_time_seconds(o, 20);
  lqs_bridge_options_set_max_batches_in_flight(o, 1);
  lqs_bridge_t* pull = NULL;
  CHECK_OK(lqs_bridge_start(broker, o, &pull, &err_));
  lqs_bridge_options_destroy(o);
  if (fwd == NULL || pull == NULL) {
    lqs_bridge_destroy(fwd);
    lqs_bridge_destroy(pull);
    return;
  }
  lqs_bridge_stats_t s;
  WAIT_FOR((lqs_bridge_get_stats(pull, &s), s.transferred == 1));
  /* The forward bridge counts the message once it deleted it locally. */
  WAIT_FOR((lqs_bridge_get_stats(fwd, &s), s.transferred == 1));
  CHECK(s.running == 1);
  lqs_bridge_get_stats(pull, &s);
  CHECK(s.running == 1 && s.online == 1);
  CHECK(messages_in(broker, "inbox3") == 1);

  /* The pull loop is back in a 20-second long poll (the remote is empty):
   * stopping cuts it short, and that is not a failure of the remote. */
  const double start = now_seconds();
  lqs_bridge_stop(pull);
  CHECK_OK(lqs_bridge_wait(pull, &err_));
  lqs_bridge_get_stats(pull, &s);
  CHECK(s.running == 0 && s.failures == 0 && s.online == 1);
  lqs_bridge_destroy(pull);
  lqs_bridge_destroy(fwd);
  CHECK(now_seconds() - start < 10);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s LQSD [SCRATCH_DIR]\n", argv[0]);
    return 2;
  }
  const char* lqsd_binary = argv[1];
  const char* base = scratch_dir(argc - 1, argv + 1, dir_template);
  if (base == NULL) return 2;
  CHECK(lqs_c_api_version() == LQS_C_API_VERSION && LQS_C_API_VERSION >= 5);

  /* The remote's queues, made in its database before lqsd opens it. */
  char remote_dir[512], local_dir[512];
  snprintf(remote_dir, sizeof remote_dir, "%s/remote", base);
  snprintf(local_dir, sizeof local_dir, "%s/local", base);
  lqs_broker_t* remote_db = open_system_clock_broker(remote_dir);
  CHECK(remote_db != NULL);
  if (remote_db == NULL) return finish("c_api_bridge_test", argc - 1, base);
  create_queue(remote_db, "remote");
  CHECK_OK(lqs_close(remote_db, &err_));

  lqsd_t remote;
  memset(&remote, 0, sizeof remote);
  if (start_lqsd(lqsd_binary, remote_dir, &remote) != 0) {
    CHECK(!"lqsd started");
    return finish("c_api_bridge_test", argc - 1, base);
  }

  lqs_broker_t* broker = open_system_clock_broker(local_dir);
  CHECK(broker != NULL);
  if (broker != NULL) {
    const char* queues[] = {"outbox", "outbox.fifo", "inbox", "inbox2", "inbox3", "offline"};
    for (size_t i = 0; i < sizeof queues / sizeof queues[0]; ++i) create_queue(broker, queues[i]);
    test_options_and_start_errors(broker, &remote);
    test_forward_then_pull(broker, &remote);
    test_unreachable_remote(broker);
    test_destroy_while_running(broker, &remote);
    /* Every bridge was destroyed before the close. */
    CHECK_OK(lqs_close(broker, &err_));
  }
  stop_lqsd(&remote);
  return finish("c_api_bridge_test", argc - 1, base);
}
