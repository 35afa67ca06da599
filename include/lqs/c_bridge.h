/* lqs/c_bridge.h — the C API of bridges (lqs::Bridge, lqs/bridge.h;
 * docs/bridge.md): a local queue drained into a remote SQS queue (forward),
 * or a remote queue drained into a local one (pull). The remote is Amazon
 * SQS (HTTPS, SigV4) or another lqsd. Included by lqs/c.h; its conventions
 * (handles, errors, strings, optional values) hold here too.
 *
 *   lqs_bridge_options_t* o = lqs_bridge_options_create();
 *   lqs_bridge_options_set_direction(o, LQS_BRIDGE_FORWARD);
 *   lqs_bridge_options_set_local_queue(o, "outbox");
 *   lqs_bridge_options_set_remote_queue_url(
 *       o, "https://sqs.eu-west-1.amazonaws.com/123456789012/inbox");
 *   lqs_bridge_options_set_once(o, 1);  (drain what is there, then end)
 *   lqs_bridge_t* bridge = NULL;
 *   char* err = NULL;
 *   if (lqs_bridge_start(broker, o, &bridge, &err) != LQS_OK) {
 *     fprintf(stderr, "bridge: %s\n", err);  (names the option)
 *   } else if (lqs_bridge_wait(bridge, &err) != LQS_OK) {
 *     fprintf(stderr, "remote unreachable: %s\n", err);  (messages stay local)
 *   }
 *   lqs_free(err);
 *   lqs_bridge_destroy(bridge);  (NULL is a no-op)
 *   lqs_bridge_options_destroy(o);
 *
 * Delivery is at least once: a forwarded message is deleted locally only
 * after the remote acknowledged it with the same digests; a pulled one is
 * deleted remotely only after it is stored locally.
 *
 * Ownership: a bridge keeps its own reference to the broker's memory, but
 * its threads call the broker: destroy a broker's bridges before lqs_close.
 * Thread safety: lqs_bridge_t may be used from any number of threads at
 * once (lqs_bridge_stop, _wait, _get_stats and the stats accessors), except
 * lqs_bridge_destroy, which must be the last call on it. Options are a plain
 * value: one thread at a time.
 * Time: backoffs and leases follow the clock the database was opened with;
 * network timeouts are real time. */

#ifndef LQS_C_BRIDGE_H_
#define LQS_C_BRIDGE_H_

/* lqs/c.h includes this header at its end; including this one first works
 * too (the types below come from c.h). */
#include "lqs/c.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lqs_bridge_t lqs_bridge_t;                 /* a running bridge */
typedef struct lqs_bridge_options_t lqs_bridge_options_t; /* how to run one */

/* A bridge's direction (== lqs::BridgeDirection). */
enum {
  LQS_BRIDGE_FORWARD = 0, /* local queue -> remote queue (the default) */
  LQS_BRIDGE_PULL = 1     /* remote queue -> local queue */
};

/* Receives one line on each online/offline transition and on a stuck
 * message. Called on the bridge's threads (several may call at once): it
 * must be thread-safe and must return. `line` is valid only during the
 * call; `user` must stay valid until lqs_bridge_destroy returns. */
typedef void (*lqs_bridge_logger_t)(const char* line, void* user);

/* ---- Options (lqs::BridgeOptions; defaults are the C++ defaults) ---------
 * Setters only store (strings are copied; NULL is ""); lqs_bridge_start
 * checks every value and fails with LQS_INVALID_PARAMETER_VALUE naming the
 * option (its C++ name: "max_batches_in_flight"; the URL is "QueueUrl"). */

LQS_C_EXPORT lqs_bridge_options_t* lqs_bridge_options_create(void);
LQS_C_EXPORT void lqs_bridge_options_destroy(lqs_bridge_options_t* o);
/* LQS_BRIDGE_FORWARD or LQS_BRIDGE_PULL; other values are rejected by
 * lqs_bridge_start. */
LQS_C_EXPORT void lqs_bridge_options_set_direction(lqs_bridge_options_t* o, int direction);
/* A queue of the broker; it must exist. */
LQS_C_EXPORT void lqs_bridge_options_set_local_queue(lqs_bridge_options_t* o, const char* name);
/* http(s)://HOST[:PORT]/ACCOUNT/NAME. A FIFO queue (".fifo") pairs with a
 * FIFO local queue, a standard one with a standard one. */
LQS_C_EXPORT void lqs_bridge_options_set_remote_queue_url(lqs_bridge_options_t* o, const char* url);
/* The region requests are signed for. Default "": the URL's
 * (sqs.REGION.amazonaws.com), else AWS_REGION, AWS_DEFAULT_REGION,
 * us-east-1. */
LQS_C_EXPORT void lqs_bridge_options_set_region(lqs_bridge_options_t* o, const char* region);
/* An explicit access key (session_token may be NULL: none). A NULL
 * access_key_id clears it (the default): the key is then found as the AWS
 * SDKs do (the AWS_* environment variables, then the shared credentials
 * file at the profile); none found: unsigned requests. A key id without a
 * secret fails lqs_bridge_start. */
LQS_C_EXPORT void lqs_bridge_options_set_credentials(lqs_bridge_options_t* o,
                                                     const char* access_key_id,
                                                     const char* secret_access_key,
                                                     const char* session_token);
/* The shared credentials file's profile; default "": AWS_PROFILE, else
 * "default". */
LQS_C_EXPORT void lqs_bridge_options_set_profile(lqs_bridge_options_t* o, const char* profile);
/* HTTPS: a PEM file of a CA trusted besides the system's; default "". */
LQS_C_EXPORT void lqs_bridge_options_set_ca_file(lqs_bridge_options_t* o, const char* path);
/* The timeout of one request, >= 1 s (default 30); a long poll adds its wait. */
LQS_C_EXPORT void lqs_bridge_options_set_request_timeout_seconds(lqs_bridge_options_t* o, int s);
/* After the n-th failure in a row the bridge waits
 * min(backoff_max_ms, backoff_base_ms * 2^(n-1)), less up to backoff_jitter
 * of it. Base >= 1 (default 250), max >= base (default 300000), jitter
 * 0..1 (default 0.5). */
LQS_C_EXPORT void lqs_bridge_options_set_backoff_base_ms(lqs_bridge_options_t* o, int64_t ms);
LQS_C_EXPORT void lqs_bridge_options_set_backoff_max_ms(lqs_bridge_options_t* o, int64_t ms);
LQS_C_EXPORT void lqs_bridge_options_set_backoff_jitter(lqs_bridge_options_t* o, double jitter);
/* Batches in flight at once, 1..64 (default 4): forward lanes or pull
 * loops, each a thread with its own connection. FIFO groups keep their
 * order at any value. */
LQS_C_EXPORT void lqs_bridge_options_set_max_batches_in_flight(lqs_bridge_options_t* o, int n);
/* Forward: the local lease of a message being forwarded, renewed while its
 * batch is retried; at least 2 * request_timeout_seconds (default 120). */
LQS_C_EXPORT void lqs_bridge_options_set_lease_seconds(lqs_bridge_options_t* o, int s);
/* Pull: the remote long poll, 0..20 s (default 20). */
LQS_C_EXPORT void lqs_bridge_options_set_wait_time_seconds(lqs_bridge_options_t* o, int s);
/* Pull: how long a pulled MessageId is remembered to drop a redelivery,
 * 1..1209600 s (default 3600; at least the remote VisibilityTimeout plus a
 * minute when the bridge can read it). */
LQS_C_EXPORT void lqs_bridge_options_set_dedup_window_seconds(lqs_bridge_options_t* o, int64_t s);
/* Once mode (default 0): drain what is there and end (lqs_bridge_wait
 * returns): forward, until the local queue has no visible message; pull,
 * until a receive comes back empty. After once_attempts (>= 1, default 4)
 * failures in a row the bridge ends with the error. */
LQS_C_EXPORT void lqs_bridge_options_set_once(lqs_bridge_options_t* o, int v);
LQS_C_EXPORT void lqs_bridge_options_set_once_attempts(lqs_bridge_options_t* o, int n);
/* Where log lines go; NULL (the default): standard error. */
LQS_C_EXPORT void lqs_bridge_options_set_logger(lqs_bridge_options_t* o, lqs_bridge_logger_t logger,
                                                void* user);

/* ---- The bridge ------------------------------------------------------------ */

/* Checks `options`, resolves the credentials and the region, and starts the
 * bridge's threads. `options` may be destroyed after the call (NULL: the
 * defaults, which name no queue). *bridge receives the handle
 * (lqs_bridge_destroy). An unreachable remote is not an error here: the
 * bridge retries it (once mode: see lqs_bridge_wait).
 * Errors: LQS_QUEUE_DOES_NOT_EXIST (the local queue);
 * LQS_INVALID_PARAMETER_VALUE naming the option (a malformed URL, a
 * FIFO/standard mismatch between the two queues, a value out of range, an
 * unknown direction, a key id without a secret, a missing profile; broker or
 * bridge NULL); LQS_IO_ERROR (an unreadable credentials or CA file). */
LQS_C_EXPORT int lqs_bridge_start(lqs_broker_t* broker, const lqs_bridge_options_t* options,
                                  lqs_bridge_t** bridge, char** errptr);

/* Ends the bridge without waiting: in-flight requests finish or time out,
 * messages leased locally and not forwarded are released (visible again).
 * Idempotent. */
LQS_C_EXPORT void lqs_bridge_stop(lqs_bridge_t* bridge);

/* Blocks until the bridge ends (a once-mode drain, or lqs_bridge_stop from
 * another thread). Returns LQS_OK when it ended normally, else the code of
 * why the remote could not be reached (once mode: the last of once_attempts
 * failures: LQS_IO_ERROR, "the remote queue could not be reached after
 * ..."), with its message in *errptr. Later calls return the same. */
LQS_C_EXPORT int lqs_bridge_wait(lqs_bridge_t* bridge, char** errptr);

/* A snapshot of the bridge's counters (lqs::BridgeStats). A plain struct,
 * not an opaque handle: its layout is part of the ABI and never changes
 * (new fields would come as lqs_bridge_stats_v2_t with
 * lqs_bridge_get_stats_v2). Times are the database clock's milliseconds
 * since the epoch, 0 for never. */
typedef struct lqs_bridge_stats_t {
  int direction;              /* LQS_BRIDGE_FORWARD or LQS_BRIDGE_PULL */
  int running;                /* 1 until the bridge ended */
  int online;                 /* 1 when the last exchange with the remote succeeded */
  int64_t transferred;        /* forwarded (deleted locally) or pulled (stored locally) */
  int64_t duplicates;         /* pull: redeliveries dropped by the local record */
  int64_t dead_lettered;      /* forward: refused for good, moved to the local DLQ */
  int64_t stuck;              /* forward: refused for good, no DLQ: kept, retried slowly */
  int64_t md5_mismatches;     /* acknowledgements whose digests were not the message's */
  int64_t failures;           /* all failures (lqs_bridge_failures: by code) */
  int64_t backoff_ms;         /* the current wait before the next try; 0: none */
  int64_t last_success_ms;    /* when an exchange last succeeded */
  int64_t last_error_ms;      /* when the last failure happened (lqs_bridge_last_error) */
  int64_t backlog;            /* the local queue: visible + delayed + in flight */
  int64_t oldest_age_seconds; /* the local queue's oldest message */
} lqs_bridge_stats_t;

/* Fills *stats (NULL: nothing). May be called while the bridge runs, and
 * after it ended. */
LQS_C_EXPORT void lqs_bridge_get_stats(const lqs_bridge_t* bridge, lqs_bridge_stats_t* stats);

/* "forward LOCAL -> URL" or "pull URL -> LOCAL". Borrowed: valid until
 * lqs_bridge_destroy. */
LQS_C_EXPORT const char* lqs_bridge_name(const lqs_bridge_t* bridge);

/* The last failure's text ("" when none), malloc'd: free with lqs_free.
 * NULL when out of memory. */
LQS_C_EXPORT char* lqs_bridge_last_error(const lqs_bridge_t* bridge);

/* The failures by error code ("NetworkError", the remote's SQS code,
 * "MD5Mismatch", "Local<code>" for the local queue's) to their counts as
 * decimal strings, in code order. A new map: free with lqs_strmap_destroy.
 * NULL when out of memory. */
LQS_C_EXPORT lqs_strmap_t* lqs_bridge_failures(const lqs_bridge_t* bridge);

/* The whole snapshot as one JSON object, the shape `lqs forward --json`
 * prints and lqs.Bridge.stats() reads ({"Bridge": ..., "Transferred": ...,
 * "Failures": {...}, ...}; docs/bridge.md, "Metrics"). Malloc'd: free with
 * lqs_free. NULL when out of memory. */
LQS_C_EXPORT char* lqs_bridge_stats_json(const lqs_bridge_t* bridge);

/* Stops the bridge if it runs, waits for its threads (at most about one
 * request timeout, for a request in flight), and frees it. NULL is a
 * no-op. */
LQS_C_EXPORT void lqs_bridge_destroy(lqs_bridge_t* bridge);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LQS_C_BRIDGE_H_ */
