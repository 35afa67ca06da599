/* c_test_support.h — what the C API's C11 tests (c_api_test.c,
 * c_api_worker_test.c, c_api_bridge_test.c) share: the check counters and
 * macros, waiting on the library's threads, and opening a scratch database
 * on a manual clock. Each test program includes it once;
 * the definitions are static, one copy per program. */

#ifndef LQS_TESTS_C_TEST_SUPPORT_H_
#define LQS_TESTS_C_TEST_SUPPORT_H_

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lqs/c.h"

static int failures = 0;
static int checks = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    ++checks;                                                                  \
    if (!(cond)) {                                                             \
      ++failures;                                                              \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

/* Calls `expr` (which takes `&err_` as its errptr) and checks it returns LQS_OK. */
#define CHECK_OK(expr)                                                         \
  do {                                                                         \
    char* err_ = NULL;                                                         \
    int rc_ = (expr);                                                          \
    ++checks;                                                                  \
    if (rc_ != LQS_OK) {                                                       \
      ++failures;                                                              \
      fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #expr, \
              lqs_error_name(rc_), err_ ? err_ : "(no message)");              \
    }                                                                          \
    lqs_free(err_);                                                            \
  } while (0)

static inline double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Polls `cond` every millisecond until it holds or 20 s of real time pass,
 * then checks it. Only for waiting on the library's own threads (a worker's,
 * a bridge's): time in the tests' databases comes from a manual clock. */
#define WAIT_FOR(cond)                                   \
  do {                                                   \
    const double end_ = now_seconds() + 20;              \
    while (!(cond) && now_seconds() < end_) sleep_ms(1); \
    CHECK(cond);                                         \
  } while (0)

static inline int streq(const char* a, const char* b) {
  return a != NULL && b != NULL && strcmp(a, b) == 0;
}

static inline void remove_tree(const char* path) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", path);
}

/* A broker on the database at `path` on `clock`, without background maintenance (tests
 * run it themselves), durability `process`; NULL (reported) on failure. */
static inline lqs_broker_t* open_broker(const char* path, lqs_clock_t* clock) {
  lqs_options_t* opts = lqs_options_create();
  lqs_options_set_clock(opts, clock);
  lqs_options_set_background_maintenance(opts, 0);
  lqs_options_set_durability(opts, LQS_DURABILITY_PROCESS);
  lqs_broker_t* broker = NULL;
  char* err = NULL;
  int rc = lqs_open(path, opts, &broker, &err);
  lqs_options_destroy(opts); /* the broker keeps what it needs */
  if (rc != LQS_OK) {
    fprintf(stderr, "lqs_open: %s\n", err);
    lqs_free(err);
    return NULL;
  }
  return broker;
}

/* The test's scratch directory: argv[1] when given, else a fresh one made
 * from `tmpl` (a mkdtemp template). NULL (reported) when it cannot be made. */
static inline const char* scratch_dir(int argc, char** argv, char* tmpl) {
  const char* base = argc > 1 ? argv[1] : mkdtemp(tmpl);
  if (base == NULL) perror("mkdtemp");
  return base;
}

/* Removes the directory scratch_dir made (not one given in argv), prints
 * the tally as "<name>: N checks, M failures" and returns the exit status. */
static inline int finish(const char* name, int argc, const char* base) {
  if (argc <= 1) remove_tree(base);
  printf("%s: %d checks, %d failures\n", name, checks, failures);
  return failures == 0 ? 0 : 1;
}

#endif /* LQS_TESTS_C_TEST_SUPPORT_H_ */
