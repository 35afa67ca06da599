/* bridge_consumer.c — the installed C API's bridges, from a find_package(lqs)
 * consumer (tests/install/run.sh): options, a start refused for a missing
 * local queue, and a once-mode bridge that gives up on a closed port. It
 * proves that lqs::lqs_c links with the bridges' libraries (lqs_bridge,
 * lqs_wire) and their dependencies (Boost.Beast, OpenSSL) as installed.
 *
 * Usage: bridge_consumer DIR   (a scratch directory for the database) */

#include <stdio.h>
#include <string.h>

#include "lqs/c.h"

static int fail(const char* what, int rc, const char* err) {
  fprintf(stderr, "bridge_consumer: %s: %s: %s\n", what, lqs_error_name(rc),
          err != NULL ? err : "(no message)");
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 2 || LQS_C_API_VERSION < 5 || lqs_c_api_version() != LQS_C_API_VERSION) return 2;
  char* err = NULL;
  lqs_broker_t* broker = NULL;
  int rc = lqs_open(argv[1], NULL, &broker, &err);
  if (rc != LQS_OK) return fail("lqs_open", rc, err);
  lqs_queue_t* q = NULL;
  rc = lqs_create_queue(broker, "outbox", NULL, NULL, 0, NULL, NULL, 0, &q, &err);
  if (rc != LQS_OK) return fail("lqs_create_queue", rc, err);
  lqs_queue_destroy(q);

  lqs_bridge_options_t* o = lqs_bridge_options_create();
  lqs_bridge_options_set_direction(o, LQS_BRIDGE_FORWARD);
  lqs_bridge_options_set_local_queue(o, "missing");
  /* Port 1 on the loopback: nothing listens (connection refused). */
  lqs_bridge_options_set_remote_queue_url(o, "http://127.0.0.1:1/123456789012/inbox");
  lqs_bridge_t* bridge = NULL;
  rc = lqs_bridge_start(broker, o, &bridge, &err);
  if (rc != LQS_QUEUE_DOES_NOT_EXIST || bridge != NULL) return fail("start (missing)", rc, err);

  lqs_bridge_options_set_local_queue(o, "outbox");
  lqs_bridge_options_set_once(o, 1);
  lqs_bridge_options_set_once_attempts(o, 1);
  lqs_bridge_options_set_request_timeout_seconds(o, 5);
  lqs_bridge_options_set_lease_seconds(o, 10);
  lqs_send_request_t* send = lqs_send_request_create("hello", 5);
  lqs_queue_t* outbox = NULL;
  rc = lqs_get_queue(broker, "outbox", &outbox, &err);
  if (rc == LQS_OK) rc = lqs_queue_send_message(outbox, send, NULL, &err);
  lqs_send_request_destroy(send);
  lqs_queue_destroy(outbox);
  if (rc != LQS_OK) return fail("send", rc, err);
  rc = lqs_bridge_start(broker, o, &bridge, &err);
  lqs_bridge_options_destroy(o);
  if (rc != LQS_OK) return fail("start", rc, err);
  rc = lqs_bridge_wait(bridge, &err);
  if (rc != LQS_IO_ERROR) return fail("wait (closed port)", rc, err);
  lqs_bridge_stats_t stats;
  lqs_bridge_get_stats(bridge, &stats);
  lqs_bridge_destroy(bridge);
  if (stats.failures < 1 || stats.transferred != 0 || stats.backlog != 1) {
    return fail("stats", LQS_INTERNAL, "a failure and the message kept were expected");
  }
  lqs_free(err);
  rc = lqs_close(broker, NULL);
  if (rc != LQS_OK) return fail("lqs_close", rc, NULL);
  printf("bridge_consumer: start refused a missing queue; once mode gave up on a closed port\n");
  return 0;
}
