/* c_api_test.c — the C API (include/lqs/c.h), compiled as C11 and run by
 * ctest. Exercises every group of functions on a temporary database with a
 * manual clock, and checks ownership rules by running under AddressSanitizer
 * (-DLQS_SANITIZE=address, and the c_api_test_asan build).
 *
 * Usage: c_api_test [SCRATCH_DIR]   (default: a fresh directory under /tmp) */

#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "c_test_support.h"

#include "lqs/c.h"

static char dir_template[] = "/tmp/lqs_c_api_test_XXXXXX";

/* Receives from `q` with `rr` (NULL: the defaults) into *got, checking that
 * exactly one message came; that message, or NULL. */
static const lqs_message_t* receive_one(lqs_queue_t* q, const lqs_receive_request_t* rr,
                                        lqs_messages_t** got) {
  char* err = NULL;
  CHECK(lqs_queue_receive_message(q, rr, got, &err) == LQS_OK);
  lqs_free(err);
  CHECK(lqs_messages_count(*got) == 1);
  return lqs_messages_count(*got) == 1 ? lqs_messages_get(*got, 0) : NULL;
}

static void test_errors_and_version(void) {
  CHECK(streq(lqs_error_name(LQS_QUEUE_DOES_NOT_EXIST), "QueueDoesNotExist"));
  CHECK(streq(lqs_error_query_code(LQS_QUEUE_DOES_NOT_EXIST),
              "AWS.SimpleQueueService.NonExistentQueue"));
  CHECK(streq(lqs_error_shape(LQS_QUEUE_DOES_NOT_EXIST), "QueueDoesNotExist"));
  CHECK(streq(lqs_error_query_code(LQS_PURGE_QUEUE_IN_PROGRESS),
              "AWS.SimpleQueueService.PurgeQueueInProgress"));
  CHECK(streq(lqs_error_shape(LQS_RESOURCE_NOT_FOUND), "ResourceNotFoundException"));
  CHECK(lqs_error_is_sender_fault(LQS_INVALID_PARAMETER_VALUE) == 1);
  CHECK(lqs_error_is_sender_fault(LQS_IO_ERROR) == 0);
  CHECK(streq(lqs_error_name(9999), "Internal"));
  CHECK(streq(lqs_error_query_code(LQS_OK), ""));
  CHECK(lqs_c_api_version() == LQS_C_API_VERSION);
  CHECK(lqs_version() != NULL && lqs_version()[0] != '\0');
  CHECK(lqs_version_major() >= 0);
  lqs_free(NULL); /* allowed */
}

static void test_open_errors(const char* base) {
  char path[512];
  snprintf(path, sizeof path, "%s/missing", base);
  lqs_options_t* opts = lqs_options_create();
  lqs_options_set_create_if_missing(opts, 0);
  lqs_broker_t* broker = NULL;
  char* err = NULL;
  int rc = lqs_open(path, opts, &broker, &err);
  CHECK(rc == LQS_IO_ERROR);
  CHECK(broker == NULL);
  CHECK(err != NULL);
  /* A second failure frees and replaces the earlier message. */
  lqs_options_set_create_if_missing(opts, 1);
  lqs_options_set_durability(opts, 7);
  rc = lqs_open(path, opts, &broker, &err);
  CHECK(rc == LQS_INVALID_PARAMETER_VALUE);
  CHECK(err != NULL && strstr(err, "durability") != NULL);
  lqs_free(err);
  lqs_options_destroy(opts);
  CHECK(lqs_close(NULL, NULL) == LQS_OK); /* no-op */
}

static void test_catalogue(lqs_broker_t* broker) {
  char* err = NULL;
  const char* attr_names[] = {"VisibilityTimeout", "DelaySeconds"};
  const char* attr_values[] = {"60", "0"};
  const char* tag_keys[] = {"team"};
  const char* tag_values[] = {"core"};
  lqs_queue_t* q = NULL;
  CHECK(lqs_create_queue(broker, "alpha", attr_names, attr_values, 2, tag_keys, tag_values, 1, &q,
                         &err) == LQS_OK);
  CHECK(q != NULL);
  CHECK(streq(lqs_queue_name(q), "alpha"));
  CHECK(streq(lqs_queue_arn(q), "arn:aws:sqs:us-east-1:123456789012:alpha"));
  CHECK(lqs_queue_is_fifo(q) == 0);
  char* arn = lqs_arn_for(broker, "alpha");
  CHECK(streq(arn, lqs_queue_arn(q)));
  lqs_free(arn);
  CHECK(streq(lqs_region(broker), "us-east-1"));
  CHECK(streq(lqs_account_id(broker), "123456789012"));

  /* Idempotent create; a different value is QueueNameExists. */
  lqs_queue_t* again = NULL;
  CHECK(lqs_create_queue(broker, "alpha", attr_names, attr_values, 1, NULL, NULL, 0, &again,
                         &err) == LQS_OK);
  lqs_queue_destroy(again);
  const char* other[] = {"90"};
  CHECK(lqs_create_queue(broker, "alpha", attr_names, other, 1, NULL, NULL, 0, &again, &err) ==
        LQS_QUEUE_NAME_EXISTS);
  CHECK(err != NULL);
  CHECK(lqs_create_queue(broker, "bad name!", NULL, NULL, 0, NULL, NULL, 0, &again, &err) ==
        LQS_INVALID_PARAMETER_VALUE);

  lqs_queue_t* beta = NULL;
  CHECK(lqs_create_queue(broker, "beta", NULL, NULL, 0, NULL, NULL, 0, &beta, &err) == LQS_OK);
  lqs_queue_destroy(beta);

  /* Get by name and ARN. */
  lqs_queue_t* got = NULL;
  CHECK(lqs_get_queue(broker, "alpha", &got, &err) == LQS_OK);
  lqs_queue_destroy(got);
  got = NULL;
  CHECK(lqs_get_queue(broker, "nope", &got, &err) == LQS_QUEUE_DOES_NOT_EXIST);
  CHECK(got == NULL);
  CHECK(lqs_get_queue_by_arn(broker, "arn:aws:sqs:us-east-1:123456789012:beta", &got, &err) ==
        LQS_OK);
  CHECK(got != NULL && streq(lqs_queue_name(got), "beta"));
  lqs_queue_destroy(got);

  /* Listing, with and without pages. */
  lqs_strlist_t* names = NULL;
  char* token = NULL;
  CHECK(lqs_list_queues(broker, NULL, -1, NULL, &names, &token, &err) == LQS_OK);
  CHECK(lqs_strlist_count(names) == 2);
  CHECK(streq(lqs_strlist_get(names, 0), "alpha"));
  CHECK(streq(lqs_strlist_get(names, 1), "beta"));
  CHECK(token == NULL);
  lqs_strlist_destroy(names);
  CHECK(lqs_list_queues(broker, "", 1, NULL, &names, &token, &err) == LQS_OK);
  CHECK(lqs_strlist_count(names) == 1);
  CHECK(token != NULL);
  lqs_strlist_destroy(names);
  char* token2 = NULL;
  CHECK(lqs_list_queues(broker, "", 1, token, &names, &token2, &err) == LQS_OK);
  CHECK(lqs_strlist_count(names) == 1 && streq(lqs_strlist_get(names, 0), "beta"));
  CHECK(token2 == NULL);
  lqs_strlist_destroy(names);
  lqs_free(token);
  CHECK(lqs_list_queues(broker, "b", -1, NULL, &names, NULL, &err) == LQS_OK);
  CHECK(lqs_strlist_count(names) == 1);
  lqs_strlist_destroy(names);

  /* Attributes. */
  const char* want[] = {"VisibilityTimeout", "QueueArn"};
  lqs_strmap_t* attrs = NULL;
  CHECK(lqs_queue_get_attributes(q, want, 2, &attrs, &err) == LQS_OK);
  CHECK(lqs_strmap_count(attrs) == 2);
  CHECK(streq(lqs_strmap_get(attrs, "VisibilityTimeout"), "60"));
  CHECK(streq(lqs_strmap_key(attrs, 0), "QueueArn")); /* key order */
  CHECK(lqs_strmap_get(attrs, "Nope") == NULL);
  lqs_strmap_destroy(attrs);
  const char* set_names[] = {"VisibilityTimeout"};
  const char* set_values[] = {"45"};
  CHECK(lqs_queue_set_attributes(q, set_names, set_values, 1, &err) == LQS_OK);
  const char* bad_values[] = {"99999"};
  CHECK(lqs_queue_set_attributes(q, set_names, bad_values, 1, &err) == LQS_INVALID_ATTRIBUTE_VALUE);
  const char* all[] = {"All"};
  CHECK(lqs_queue_get_attributes(q, all, 1, &attrs, &err) == LQS_OK);
  CHECK(streq(lqs_strmap_get(attrs, "VisibilityTimeout"), "45"));
  CHECK(streq(lqs_strmap_get(attrs, "ApproximateNumberOfMessages"), "0"));
  lqs_strmap_destroy(attrs);
  const char* unknown[] = {"Bogus"};
  CHECK(lqs_queue_get_attributes(q, unknown, 1, &attrs, &err) == LQS_INVALID_ATTRIBUTE_NAME);

  /* Tags. */
  lqs_strmap_t* tags = NULL;
  CHECK(lqs_queue_list_tags(q, &tags, &err) == LQS_OK);
  CHECK(lqs_strmap_count(tags) == 1 && streq(lqs_strmap_get(tags, "team"), "core"));
  lqs_strmap_destroy(tags);
  const char* more_keys[] = {"env", "team"};
  const char* more_values[] = {"test", "edge"};
  CHECK(lqs_queue_tag(q, more_keys, more_values, 2, &err) == LQS_OK);
  const char* drop[] = {"env", "unknown"};
  CHECK(lqs_queue_untag(q, drop, 2, &err) == LQS_OK);
  CHECK(lqs_queue_list_tags(q, &tags, &err) == LQS_OK);
  CHECK(lqs_strmap_count(tags) == 1 && streq(lqs_strmap_get(tags, "team"), "edge"));
  lqs_strmap_destroy(tags);

  /* Permissions. */
  const char* accounts[] = {"111122223333"};
  const char* actions[] = {"SendMessage"};
  CHECK(lqs_queue_add_permission(q, "p1", accounts, 1, actions, 1, &err) == LQS_OK);
  CHECK(lqs_queue_add_permission(q, "p1", accounts, 1, actions, 1, &err) ==
        LQS_INVALID_PARAMETER_VALUE);
  CHECK(lqs_queue_remove_permission(q, "p1", &err) == LQS_OK);
  CHECK(lqs_queue_remove_permission(q, "p1", &err) == LQS_INVALID_PARAMETER_VALUE);

  /* Delete: the old handle now fails, the name is blocked for 60 s. */
  CHECK(lqs_delete_queue(broker, "beta", &err) == LQS_OK);
  CHECK(lqs_delete_queue(broker, "beta", &err) == LQS_QUEUE_DOES_NOT_EXIST);
  CHECK(lqs_create_queue(broker, "beta", NULL, NULL, 0, NULL, NULL, 0, &beta, &err) ==
        LQS_QUEUE_DELETED_RECENTLY);
  lqs_queue_destroy(q);
  lqs_free(err);
}

static void test_messages(lqs_broker_t* broker, lqs_clock_t* clock) {
  char* err = NULL;
  lqs_queue_t* q = NULL;
  CHECK(lqs_create_queue(broker, "msgs", NULL, NULL, 0, NULL, NULL, 0, &q, &err) == LQS_OK);

  /* Send with attributes (string, number, binary with a NUL byte). */
  lqs_send_request_t* send = lqs_send_request_create("test", 4);
  lqs_send_request_add_string_attribute(send, "s", "String", "x");
  lqs_send_request_add_string_attribute(send, "n", "Number", "1493147359900");
  const unsigned char bin[] = {0x00, 0x01, 0xff};
  lqs_send_request_add_binary_attribute(send, "b", "Binary", bin, sizeof bin);
  lqs_send_request_add_system_attribute(send, "AWSTraceHeader", "String", "Root=1-abc");
  lqs_send_result_t* sent = NULL;
  CHECK(lqs_queue_send_message(q, send, &sent, &err) == LQS_OK);
  CHECK(streq(lqs_send_result_md5_of_message_body(sent), "098f6bcd4621d373cade4e832627b4f6"));
  CHECK(strlen(lqs_send_result_message_id(sent)) == 36);
  CHECK(lqs_send_result_md5_of_message_attributes(sent) != NULL);
  CHECK(lqs_send_result_md5_of_message_system_attributes(sent) != NULL);
  CHECK(lqs_send_result_sequence_number(sent) == NULL);
  char first_id[64];
  snprintf(first_id, sizeof first_id, "%s", lqs_send_result_message_id(sent));
  lqs_send_result_destroy(sent);
  lqs_send_request_destroy(send);

  /* Send errors. */
  send = lqs_send_request_create("", 0);
  CHECK(lqs_queue_send_message(q, send, NULL, &err) == LQS_MISSING_PARAMETER);
  lqs_send_request_destroy(send);
  send = lqs_send_request_create("\x01", 1);
  CHECK(lqs_queue_send_message(q, send, NULL, &err) == LQS_INVALID_MESSAGE_CONTENTS);
  lqs_send_request_destroy(send);
  send = lqs_send_request_create("late", 4);
  lqs_send_request_set_delay_seconds(send, 901);
  CHECK(lqs_queue_send_message(q, send, NULL, &err) == LQS_INVALID_PARAMETER_VALUE);
  lqs_send_request_set_delay_seconds(send, 5);
  CHECK(lqs_queue_send_message(q, send, NULL, &err) == LQS_OK); /* delayed 5 s */
  lqs_send_request_destroy(send);

  /* Receive with all attributes. */
  lqs_receive_request_t* rr = lqs_receive_request_create();
  lqs_receive_request_set_max_number_of_messages(rr, 10);
  lqs_receive_request_set_visibility_timeout(rr, 30);
  lqs_receive_request_set_wait_time_seconds(rr, 0);
  lqs_receive_request_add_system_attribute_name(rr, "All");
  lqs_receive_request_add_message_attribute_name(rr, "All");
  lqs_messages_t* got = NULL;
  const lqs_message_t* m = receive_one(q, rr, &got);
  if (m != NULL) {
    size_t len = 0;
    CHECK(streq(lqs_message_body(m, &len), "test") && len == 4);
    CHECK(streq(lqs_message_id(m), first_id));
    CHECK(streq(lqs_message_md5_of_body(m), "098f6bcd4621d373cade4e832627b4f6"));
    CHECK(lqs_message_receipt_handle(m)[0] != '\0');
    const lqs_strmap_t* sys = lqs_message_attributes(m);
    CHECK(streq(lqs_strmap_get(sys, "ApproximateReceiveCount"), "1"));
    CHECK(lqs_strmap_get(sys, "SentTimestamp") != NULL);
    CHECK(lqs_message_md5_of_message_attributes(m) != NULL);
    CHECK(lqs_message_attribute_count(m) == 3);
    /* name order: b, n, s */
    CHECK(streq(lqs_message_attribute_name(m, 0), "b"));
    CHECK(lqs_message_attribute_is_binary(m, 0) == 1);
    size_t blen = 0;
    const unsigned char* bv = lqs_message_attribute_binary_value(m, 0, &blen);
    CHECK(blen == 3 && bv[0] == 0x00 && bv[2] == 0xff);
    CHECK(streq(lqs_message_attribute_data_type(m, 1), "Number"));
    CHECK(streq(lqs_message_attribute_string_value(m, 1), "1493147359900"));
    CHECK(lqs_message_attribute_is_binary(m, 2) == 0);

    /* Change visibility, then delete (twice: the second also succeeds). */
    const char* handle = lqs_message_receipt_handle(m);
    CHECK(lqs_queue_change_message_visibility(q, handle, 0, &err) == LQS_OK);
    CHECK(lqs_queue_change_message_visibility(q, handle, 50000, &err) ==
          LQS_INVALID_PARAMETER_VALUE);
    /* The lease ended (0 above) and nobody received the message since: SQS
     * accepts a change then (never MessageNotInflight); it leases the message
     * again. */
    CHECK(lqs_queue_change_message_visibility(q, handle, 30, &err) == LQS_OK);
    CHECK(lqs_queue_delete_message(q, handle, &err) == LQS_OK);
    CHECK(lqs_queue_delete_message(q, handle, &err) == LQS_OK);
  }
  lqs_messages_destroy(got);
  CHECK(lqs_queue_delete_message(q, "garbage", &err) == LQS_RECEIPT_HANDLE_IS_INVALID);
  CHECK(err != NULL);

  /* The delayed message appears when the clock passes its delay. */
  CHECK(lqs_queue_receive_message(q, rr, &got, &err) == LQS_OK);
  CHECK(lqs_messages_count(got) == 0);
  lqs_messages_destroy(got);
  lqs_clock_advance_seconds(clock, 5);
  m = receive_one(q, NULL, &got); /* default request */
  if (m != NULL) {
    CHECK(lqs_strmap_count(lqs_message_attributes(m)) == 0);
    CHECK(lqs_message_attribute_count(m) == 0);
    CHECK(lqs_message_md5_of_message_attributes(m) == NULL);
    CHECK(lqs_queue_delete_message(q, lqs_message_receipt_handle(m), &err) == LQS_OK);
  }
  lqs_messages_destroy(got);

  lqs_receive_request_set_max_number_of_messages(rr, 11);
  CHECK(lqs_queue_receive_message(q, rr, &got, &err) == LQS_INVALID_PARAMETER_VALUE);
  lqs_receive_request_destroy(rr);

  /* Send batch: one entry fails on its own. */
  lqs_send_batch_request_t* batch = lqs_send_batch_request_create();
  lqs_send_request_t* a = lqs_send_request_create("one", 3);
  lqs_send_request_t* b = lqs_send_request_create("\x01", 1);
  lqs_send_request_t* c = lqs_send_request_create("three", 5);
  lqs_send_batch_request_add(batch, "a", a);
  lqs_send_batch_request_add(batch, "b", b);
  lqs_send_batch_request_add(batch, "c", c);
  lqs_send_request_destroy(a);
  lqs_send_request_destroy(b);
  lqs_send_request_destroy(c);
  lqs_batch_result_t* br = NULL;
  CHECK(lqs_queue_send_message_batch(q, batch, &br, &err) == LQS_OK);
  CHECK(lqs_batch_result_successful_count(br) == 2);
  CHECK(streq(lqs_batch_result_successful_id(br, 0), "a"));
  CHECK(lqs_batch_result_successful_send(br, 0) != NULL);
  CHECK(strlen(lqs_send_result_message_id(lqs_batch_result_successful_send(br, 1))) == 36);
  CHECK(lqs_batch_result_failed_count(br) == 1);
  CHECK(streq(lqs_batch_result_failed_id(br, 0), "b"));
  CHECK(streq(lqs_batch_result_failed_code(br, 0), "InvalidMessageContents"));
  CHECK(lqs_batch_result_failed_sender_fault(br, 0) == 1);
  CHECK(lqs_batch_result_failed_message(br, 0) != NULL);
  lqs_batch_result_destroy(br);
  lqs_send_batch_request_destroy(batch);

  batch = lqs_send_batch_request_create();
  CHECK(lqs_queue_send_message_batch(q, batch, &br, &err) == LQS_EMPTY_BATCH_REQUEST);
  lqs_send_request_t* d = lqs_send_request_create("dup", 3);
  lqs_send_batch_request_add(batch, "x", d);
  lqs_send_batch_request_add(batch, "x", d);
  CHECK(lqs_queue_send_message_batch(q, batch, &br, &err) == LQS_BATCH_ENTRY_IDS_NOT_DISTINCT);
  lqs_send_request_destroy(d);
  lqs_send_batch_request_destroy(batch);

  /* Receive both, change visibility and delete in batches. */
  rr = lqs_receive_request_create();
  lqs_receive_request_set_max_number_of_messages(rr, 10);
  CHECK(lqs_queue_receive_message(q, rr, &got, &err) == LQS_OK);
  CHECK(lqs_messages_count(got) == 2);
  if (lqs_messages_count(got) == 2) {
    const char* ids[] = {"m0", "m1", "bad"};
    const char* handles[] = {lqs_message_receipt_handle(lqs_messages_get(got, 0)),
                             lqs_message_receipt_handle(lqs_messages_get(got, 1)), "garbage"};
    const int timeouts[] = {100, -1, 10};
    CHECK(lqs_queue_change_message_visibility_batch(q, ids, handles, timeouts, 3, &br, &err) ==
          LQS_OK);
    CHECK(lqs_batch_result_successful_count(br) == 2);
    CHECK(lqs_batch_result_failed_count(br) == 1);
    CHECK(streq(lqs_batch_result_failed_code(br, 0), "ReceiptHandleIsInvalid"));
    CHECK(lqs_batch_result_successful_send(br, 0) == NULL);
    lqs_batch_result_destroy(br);
    CHECK(lqs_queue_delete_message_batch(q, ids, handles, 3, &br, &err) == LQS_OK);
    CHECK(lqs_batch_result_successful_count(br) == 2);
    CHECK(lqs_batch_result_failed_count(br) == 1);
    lqs_batch_result_destroy(br);
    CHECK(lqs_queue_delete_message_batch(q, ids, handles, 0, &br, &err) == LQS_EMPTY_BATCH_REQUEST);
  }
  lqs_messages_destroy(got);
  lqs_receive_request_destroy(rr);

  /* Purge, and the 60-second rule. */
  send = lqs_send_request_create("p", 1);
  CHECK(lqs_queue_send_message(q, send, NULL, &err) == LQS_OK);
  lqs_send_request_destroy(send);
  CHECK(lqs_queue_purge(q, &err) == LQS_OK);
  CHECK(lqs_queue_purge(q, &err) == LQS_PURGE_QUEUE_IN_PROGRESS);
  lqs_clock_advance_seconds(clock, 61);
  CHECK(lqs_queue_purge(q, &err) == LQS_OK);

  lqs_queue_destroy(q);
  lqs_free(err);
}

/* Long polling: a receiver blocked in another thread wakes when a message
 * arrives. */
struct poll_arg {
  lqs_queue_t* q;
  int rc;
  size_t count;
};

static void* poll_thread(void* p) {
  struct poll_arg* arg = p;
  lqs_receive_request_t* rr = lqs_receive_request_create();
  lqs_receive_request_set_wait_time_seconds(rr, 20);
  lqs_messages_t* got = NULL;
  arg->rc = lqs_queue_receive_message(arg->q, rr, &got, NULL);
  arg->count = lqs_messages_count(got);
  lqs_messages_destroy(got);
  lqs_receive_request_destroy(rr);
  return NULL;
}

static void test_long_poll(lqs_broker_t* broker) {
  char* err = NULL;
  lqs_queue_t* q = NULL;
  CHECK(lqs_create_queue(broker, "poll", NULL, NULL, 0, NULL, NULL, 0, &q, &err) == LQS_OK);
  struct poll_arg arg = {q, -1, 0};
  pthread_t t;
  CHECK(pthread_create(&t, NULL, poll_thread, &arg) == 0);
  struct timespec pause = {0, 100 * 1000 * 1000};
  nanosleep(&pause, NULL);
  lqs_send_request_t* send = lqs_send_request_create("wake", 4);
  CHECK(lqs_queue_send_message(q, send, NULL, &err) == LQS_OK);
  lqs_send_request_destroy(send);
  pthread_join(t, NULL);
  CHECK(arg.rc == LQS_OK);
  CHECK(arg.count == 1);
  lqs_queue_destroy(q);
  lqs_free(err);
}

/* Creates queue `dlq_name`, then queue `name` whose RedrivePolicy names it
 * with `max_receive_count` and whose VisibilityTimeout is `visibility` (NULL:
 * the default). */
static void create_with_dead_letter_queue(lqs_broker_t* broker, const char* name,
                                          const char* dlq_name, int max_receive_count,
                                          const char* visibility, lqs_queue_t** queue,
                                          lqs_queue_t** dlq) {
  char* err = NULL;
  CHECK(lqs_create_queue(broker, dlq_name, NULL, NULL, 0, NULL, NULL, 0, dlq, &err) == LQS_OK);
  char policy[256];
  snprintf(policy, sizeof policy, "{\"deadLetterTargetArn\":\"%s\",\"maxReceiveCount\":%d}",
           lqs_queue_arn(*dlq), max_receive_count);
  const char* names[] = {"RedrivePolicy", "VisibilityTimeout"};
  const char* values[] = {policy, visibility};
  CHECK(lqs_create_queue(broker, name, names, values, visibility != NULL ? 2 : 1, NULL, NULL, 0,
                         queue, &err) == LQS_OK);
  lqs_free(err);
}

static void test_dead_letter_and_move_tasks(lqs_broker_t* broker, lqs_clock_t* clock) {
  char* err = NULL;
  lqs_queue_t* dlq = NULL;
  lqs_queue_t* src = NULL;
  create_with_dead_letter_queue(broker, "src", "dlq", 1, "1", &src, &dlq);

  lqs_strlist_t* sources = NULL;
  char* token = NULL;
  CHECK(lqs_list_dead_letter_source_queues(broker, "dlq", -1, NULL, &sources, &token, &err) ==
        LQS_OK);
  CHECK(lqs_strlist_count(sources) == 1 && streq(lqs_strlist_get(sources, 0), "src"));
  CHECK(token == NULL);
  lqs_strlist_destroy(sources);
  CHECK(lqs_list_dead_letter_source_queues(broker, "nope", -1, NULL, &sources, NULL, &err) ==
        LQS_QUEUE_DOES_NOT_EXIST);

  /* Receive once, let the lease lapse: the next receive moves it. */
  lqs_send_request_t* send = lqs_send_request_create("poison", 6);
  CHECK(lqs_queue_send_message(src, send, NULL, &err) == LQS_OK);
  lqs_send_request_destroy(send);
  lqs_messages_t* got = NULL;
  CHECK(lqs_queue_receive_message(src, NULL, &got, &err) == LQS_OK);
  CHECK(lqs_messages_count(got) == 1);
  lqs_messages_destroy(got);
  lqs_clock_advance_seconds(clock, 2);
  CHECK(lqs_queue_receive_message(src, NULL, &got, &err) == LQS_OK);
  CHECK(lqs_messages_count(got) == 0);
  lqs_messages_destroy(got);
  const char* count_name[] = {"ApproximateNumberOfMessages"};
  lqs_strmap_t* attrs = NULL;
  CHECK(lqs_queue_get_attributes(dlq, count_name, 1, &attrs, &err) == LQS_OK);
  CHECK(streq(lqs_strmap_get(attrs, "ApproximateNumberOfMessages"), "1"));
  lqs_strmap_destroy(attrs);

  /* Move it back. */
  char* handle = NULL;
  CHECK(lqs_start_message_move_task(broker, "arn:aws:sqs:us-east-1:123456789012:src", NULL, -1,
                                    &handle, &err) == LQS_INVALID_PARAMETER_VALUE);
  CHECK(lqs_start_message_move_task(broker, lqs_queue_arn(dlq), NULL, 10, &handle, &err) == LQS_OK);
  CHECK(handle != NULL && handle[0] != '\0');
  lqs_move_tasks_t* tasks = NULL;
  CHECK(lqs_list_message_move_tasks(broker, lqs_queue_arn(dlq), 10, &tasks, &err) == LQS_OK);
  CHECK(lqs_move_tasks_count(tasks) == 1);
  if (lqs_move_tasks_count(tasks) == 1) {
    CHECK(streq(lqs_move_task_status(tasks, 0), "RUNNING"));
    CHECK(streq(lqs_move_task_handle(tasks, 0), handle));
    CHECK(streq(lqs_move_task_source_arn(tasks, 0), lqs_queue_arn(dlq)));
    CHECK(lqs_move_task_destination_arn(tasks, 0) == NULL);
    CHECK(lqs_move_task_max_per_second(tasks, 0) == 10);
    CHECK(lqs_move_task_to_move(tasks, 0) == 1);
    CHECK(lqs_move_task_failure_reason(tasks, 0) == NULL);
    CHECK(lqs_move_task_started_timestamp(tasks, 0) > 0);
  }
  lqs_move_tasks_destroy(tasks);
  lqs_clock_advance_seconds(clock, 1);
  CHECK(lqs_run_maintenance(broker, &err) == LQS_OK);
  CHECK(lqs_list_message_move_tasks(broker, lqs_queue_arn(dlq), -1, &tasks, &err) == LQS_OK);
  CHECK(lqs_move_tasks_count(tasks) == 1);
  if (lqs_move_tasks_count(tasks) == 1) {
    CHECK(streq(lqs_move_task_status(tasks, 0), "COMPLETED"));
    CHECK(lqs_move_task_moved(tasks, 0) == 1);
  }
  lqs_move_tasks_destroy(tasks);
  int64_t moved = -1;
  CHECK(lqs_cancel_message_move_task(broker, "not-a-handle", &moved, &err) ==
        LQS_INVALID_PARAMETER_VALUE);
  CHECK(lqs_cancel_message_move_task(broker, handle, &moved, &err) ==
        LQS_RESOURCE_NOT_FOUND); /* not running */
  lqs_free(handle);
  CHECK(lqs_queue_receive_message(src, NULL, &got, &err) == LQS_OK);
  CHECK(lqs_messages_count(got) == 1);
  lqs_messages_destroy(got);

  lqs_strlist_t* problems = NULL;
  CHECK(lqs_verify(broker, &problems, &err) == LQS_OK);
  CHECK(lqs_strlist_count(problems) == 0);
  lqs_strlist_destroy(problems);
  CHECK(lqs_compact_all(broker, &err) == LQS_OK);

  lqs_queue_destroy(src);
  lqs_queue_destroy(dlq);
  lqs_free(err);
}

/* The idempotency inbox and the immediate dead-letter move. */
static void test_consumer_support(lqs_broker_t* broker, lqs_clock_t* clock) {
  char* err = NULL;
  lqs_queue_t* dlq = NULL;
  lqs_queue_t* work = NULL;
  create_with_dead_letter_queue(broker, "work", "work-dlq", 5, NULL, &work, &dlq);
  for (int i = 0; i < 2; ++i) {
    lqs_send_request_t* send = lqs_send_request_create(i == 0 ? "done" : "fails", i == 0 ? 4 : 5);
    CHECK(lqs_queue_send_message(work, send, NULL, &err) == LQS_OK);
    lqs_send_request_destroy(send);
  }
  lqs_receive_request_t* req = lqs_receive_request_create();
  lqs_receive_request_set_max_number_of_messages(req, 10);
  lqs_receive_request_add_message_attribute_name(req, "All");
  lqs_messages_t* got = NULL;
  CHECK(lqs_queue_receive_message(work, req, &got, &err) == LQS_OK);
  CHECK(lqs_messages_count(got) == 2);
  if (lqs_messages_count(got) == 2) {
    const char* done = lqs_message_receipt_handle(lqs_messages_get(got, 0));
    const char* fails = lqs_message_receipt_handle(lqs_messages_get(got, 1));
    static const char kKey[] = {'j', 'o', 'b', '\0', '1'}; /* keys are bytes */
    int contains = -1;
    CHECK(lqs_queue_inbox_contains(work, kKey, sizeof kKey, &contains, &err) == LQS_OK);
    CHECK(contains == 0);
    CHECK(lqs_queue_delete_message_and_record(work, done, kKey, sizeof kKey, 0, &err) ==
          LQS_INVALID_PARAMETER_VALUE); /* TtlSeconds */
    CHECK(err != NULL && strstr(err, "TtlSeconds") != NULL);
    CHECK(lqs_queue_delete_message_and_record(work, done, kKey, 0, 60, &err) ==
          LQS_INVALID_PARAMETER_VALUE); /* empty IdempotencyKey */
    CHECK(lqs_queue_delete_message_and_record(work, done, kKey, sizeof kKey, 60, &err) == LQS_OK);
    CHECK(lqs_queue_inbox_contains(work, kKey, sizeof kKey, &contains, &err) == LQS_OK);
    CHECK(contains == 1);
    CHECK(lqs_queue_inbox_contains(work, kKey, 3, &contains, &err) == LQS_OK); /* "job" */
    CHECK(contains == 0);

    const char* attr_names[] = {"lqs.Error"};
    const char* attr_values[] = {"boom"};
    CHECK(lqs_queue_move_to_dead_letter_queue(dlq, fails, NULL, NULL, 0, &err) ==
          LQS_RECEIPT_HANDLE_IS_INVALID); /* a handle of another queue */
    CHECK(lqs_queue_move_to_dead_letter_queue(work, fails, attr_names, NULL, 1, &err) ==
          LQS_INVALID_PARAMETER_VALUE); /* values missing */
    CHECK(lqs_queue_move_to_dead_letter_queue(work, fails, attr_names, attr_values, 1, &err) ==
          LQS_OK);
    lqs_messages_t* dead = NULL;
    const lqs_message_t* m = receive_one(dlq, req, &dead);
    if (m != NULL) {
      size_t len = 0;
      CHECK(memcmp(lqs_message_body(m, &len), "fails", 5) == 0 && len == 5);
      CHECK(lqs_message_attribute_count(m) == 1);
      CHECK(streq(lqs_message_attribute_name(m, 0), "lqs.Error"));
      CHECK(streq(lqs_message_attribute_string_value(m, 0), "boom"));
    }
    lqs_messages_destroy(dead);
  }
  lqs_messages_destroy(got);
  lqs_receive_request_destroy(req);

  /* Records expire by the database's clock. */
  lqs_clock_advance_seconds(clock, 61);
  int contains = -1;
  static const char kKey2[] = {'j', 'o', 'b', '\0', '1'};
  CHECK(lqs_queue_inbox_contains(work, kKey2, sizeof kKey2, &contains, &err) == LQS_OK);
  CHECK(contains == 0);
  CHECK(lqs_queue_inbox_contains(work, NULL, 0, &contains, &err) == LQS_INVALID_PARAMETER_VALUE);

  lqs_queue_destroy(work);
  lqs_queue_destroy(dlq);
  lqs_free(err);
}

static void test_close_and_reopen(const char* path, lqs_clock_t* clock) {
  char* err = NULL;
  lqs_broker_t* broker = open_broker(path, clock);
  CHECK(broker != NULL);
  if (broker == NULL) return;
  lqs_queue_t* q = NULL;
  CHECK(lqs_get_queue(broker, "alpha", &q, &err) == LQS_OK);
  /* A second open of the same directory in this process is refused. */
  lqs_broker_t* second = NULL;
  CHECK(lqs_open(path, NULL, &second, &err) != LQS_OK);
  CHECK(second == NULL);
  CHECK(lqs_close(broker, &err) == LQS_OK);
  /* The queue handle outlives the broker and fails cleanly. */
  lqs_send_request_t* send = lqs_send_request_create("late", 4);
  CHECK(lqs_queue_send_message(q, send, NULL, &err) == LQS_CLOSED);
  lqs_send_request_destroy(send);
  lqs_queue_destroy(q);
  lqs_free(err);
}

/* A budget of one byte: the catalogue's first write reaches it, so the
 * first send is refused (and says why), under the small-device settings. */
static void test_storage_budget(const char* base) {
  CHECK(streq(lqs_error_name(LQS_OVER_STORAGE_BUDGET), "OverStorageBudget"));
  CHECK(streq(lqs_error_shape(LQS_OVER_STORAGE_BUDGET), "ServiceUnavailable"));
  CHECK(lqs_error_is_sender_fault(LQS_OVER_STORAGE_BUDGET) == 0);
  char path[512];
  snprintf(path, sizeof path, "%s/budget", base);
  lqs_options_t* opts = lqs_options_create();
  lqs_options_use_small_device(opts);
  lqs_options_set_max_disk_bytes(opts, 1);
  lqs_broker_t* broker = NULL;
  char* err = NULL;
  CHECK(lqs_open(path, opts, &broker, &err) == LQS_OK);
  lqs_options_destroy(opts);
  if (broker == NULL) return;
  lqs_queue_t* q = NULL;
  CHECK(lqs_create_queue(broker, "jobs", NULL, NULL, 0, NULL, NULL, 0, &q, &err) == LQS_OK);
  if (q != NULL) {
    lqs_send_request_t* msg = lqs_send_request_create("hello", 5);
    CHECK(lqs_queue_send_message(q, msg, NULL, &err) == LQS_OVER_STORAGE_BUDGET);
    CHECK(err != NULL && strstr(err, "max_disk_bytes = 1 bytes") != NULL);
    lqs_send_request_destroy(msg);
    lqs_queue_destroy(q);
  }
  lqs_free(err);
  CHECK_OK(lqs_close(broker, &err_));
}

int main(int argc, char** argv) {
  const char* base = scratch_dir(argc, argv, dir_template);
  if (base == NULL) return 2;
  char path[512];
  snprintf(path, sizeof path, "%s/broker", base);

  test_errors_and_version();
  test_open_errors(base);
  test_storage_budget(base);

  lqs_clock_t* clock = lqs_manual_clock_create(LQS_MANUAL_CLOCK_DEFAULT_START_MS);
  CHECK(lqs_clock_now_millis(clock) == LQS_MANUAL_CLOCK_DEFAULT_START_MS);
  lqs_broker_t* broker = open_broker(path, clock);
  CHECK(broker != NULL);
  if (broker != NULL) {
    test_catalogue(broker);
    test_messages(broker, clock);
    test_dead_letter_and_move_tasks(broker, clock);
    test_consumer_support(broker, clock);
    char* err = NULL;
    CHECK(lqs_close(broker, &err) == LQS_OK);
    lqs_free(err);
  }
  test_close_and_reopen(path, clock);

  /* Long polling with the system clock (real time). */
  char path2[512];
  snprintf(path2, sizeof path2, "%s/db2", base);
  lqs_broker_t* db2 = open_broker(path2, NULL);
  CHECK(db2 != NULL);
  if (db2 != NULL) {
    test_long_poll(db2);
    CHECK_OK(lqs_close(db2, &err_));
  }
  lqs_clock_set_millis(clock, LQS_MANUAL_CLOCK_DEFAULT_START_MS + 1000000);
  CHECK(lqs_clock_now_millis(clock) == LQS_MANUAL_CLOCK_DEFAULT_START_MS + 1000000);
  lqs_clock_destroy(clock);

  return finish("c_api_test", argc, base);
}
