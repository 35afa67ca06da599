// The C API's worker (include/lqs/c.h, "Worker"): lqs::Worker driving C
// callbacks. The handler gets views of the worker's messages built on the
// calling thread's stack; its int outcome and the reasons it gave become
// lqs::HandlerResults. C callbacks cannot throw; what the shim itself might
// throw inside a handler call (bad_alloc) reaches the worker, which retries
// the message. Every entry point catches all exceptions.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lib/c_internal.h"

#include "lqs/c.h"
#include "lqs/c_transaction.h"
#include "lqs/lqs.h"

struct lqs_worker_options_t {
  lqs::WorkerOptions rep;
};

struct lqs_worker_t {
  std::shared_ptr<lqs::Broker> broker;  // keeps the broker's memory alive
  std::unique_ptr<lqs::Worker> rep;     // destroyed first
};

struct lqs_worker_message_t {
  explicit lqs_worker_message_t(const lqs::WorkerMessage& m)
      : rep(&m), attrs(lqs::c_internal::IndexAttributes(m.message_attributes)) {
    attributes.rep.assign(m.attributes.begin(), m.attributes.end());
  }

  const lqs::WorkerMessage* rep;  // the worker's, for the handler call
  lqs_strmap_t attributes;
  lqs::c_internal::AttributeIndex attrs;
};

struct lqs_worker_result_t {
  struct Item {
    bool failed = false;
    int outcome = LQS_WORKER_RETRY;
    std::string error;
  };

  std::string error;        // lqs_worker_result_set_error
  std::vector<Item> items;  // batch handlers: one per message
};

namespace {

const char* OutcomeName(int outcome) {
  return outcome == LQS_WORKER_NON_RETRYABLE ? "LQS_WORKER_NON_RETRYABLE" : "LQS_WORKER_RETRY";
}

// The worker's verdict for a C outcome and the reason the handler gave.
lqs::HandlerResult Verdict(int outcome, std::string error) {
  switch (outcome) {
    case LQS_WORKER_SUCCESS:
      return lqs::HandlerResult::Success();
    case LQS_WORKER_RETRY:
    case LQS_WORKER_NON_RETRYABLE:
      if (error.empty()) error = std::string("the handler returned ") + OutcomeName(outcome);
      return outcome == LQS_WORKER_RETRY ? lqs::HandlerResult::Retry(std::move(error))
                                         : lqs::HandlerResult::NonRetryable(std::move(error));
    default: {
      std::string why = "the handler returned " + std::to_string(outcome) +
                        ", which is not an LQS_WORKER_* outcome";
      if (!error.empty()) why += ": " + error;
      return lqs::HandlerResult::Retry(std::move(why));
    }
  }
}

lqs::MessageHandler WrapHandler(lqs_worker_handler_t handler, void* user) {
  return [handler, user](const lqs::WorkerMessage& m) {
    const lqs_worker_message_t view(m);
    lqs_worker_result_t result;
    const int outcome = handler(&view, user, &result);
    return Verdict(outcome, std::move(result.error));
  };
}

lqs::BatchHandler WrapBatchHandler(lqs_worker_batch_handler_t handler, void* user) {
  return [handler, user](const std::vector<lqs::WorkerMessage>& ms) {
    std::vector<lqs_worker_message_t> views;
    views.reserve(ms.size());
    for (const lqs::WorkerMessage& m : ms) views.emplace_back(m);
    std::vector<const lqs_worker_message_t*> pointers;
    pointers.reserve(views.size());
    for (const lqs_worker_message_t& v : views) pointers.push_back(&v);
    lqs_worker_result_t result;
    result.items.resize(ms.size());

    const int outcome = handler(pointers.data(), pointers.size(), user, &result);

    lqs::BatchItemFailures failures;
    if (outcome != LQS_WORKER_SUCCESS) {  // the whole batch failed
      const lqs::HandlerResult all = Verdict(outcome, std::move(result.error));
      for (const lqs::WorkerMessage& m : ms) failures[m.message_id] = all;
      return failures;
    }
    for (size_t i = 0; i < ms.size(); ++i) {
      lqs_worker_result_t::Item& item = result.items[i];
      if (item.failed) failures[ms[i].message_id] = Verdict(item.outcome, std::move(item.error));
    }
    return failures;
  };
}

lqs::TransactionalHandler WrapTransactionalHandler(lqs_worker_transactional_handler_t handler,
                                                   void* user) {
  return [handler, user](const lqs::WorkerMessage& m, lqs::Transaction& tx) {
    const lqs_worker_message_t view(m);
    lqs_transaction_t lent;  // the worker's transaction, for this call only
    lent.lent = &tx;
    lqs_worker_result_t result;
    const int outcome = handler(&view, &lent, user, &result);
    return Verdict(outcome, std::move(result.error));
  };
}

// A real-time deadline from milliseconds: negative is 0; huge values are cut
// to about 35 years so that adding them to a steady_clock time cannot
// overflow.
std::chrono::milliseconds Deadline(int64_t ms) {
  return std::chrono::milliseconds(std::clamp<int64_t>(ms, 0, int64_t{1} << 40));
}

template <typename Handler>
int Create(lqs_queue_t* queue, const lqs_worker_options_t* options, Handler handler,
           lqs_worker_t** worker, char** errptr) {
  LQS_REQUIRE(queue != nullptr, "queue must not be NULL");
  LQS_REQUIRE(handler, "handler must not be NULL");
  LQS_REQUIRE(worker != nullptr, "worker must not be NULL");
  lqs::WorkerOptions o = RepOrDefault(options);
  o.clock = queue->broker->options().clock;  // the broker's clock, always
  auto created = lqs::Worker::Create(queue->rep, std::move(o), std::move(handler));
  if (!created.ok()) return SaveError(created.status(), errptr);
  *worker = new lqs_worker_t{queue->broker, std::move(*created)};
  return LQS_OK;
}

}  // namespace

extern "C" {

// ---- Options ------------------------------------------------------------------------

lqs_worker_options_t* lqs_worker_options_create(void) { return NewOrNull<lqs_worker_options_t>(); }
void lqs_worker_options_destroy(lqs_worker_options_t* o) { delete o; }
LQS_C_SETTER(lqs_worker_options, max_messages_per_receive, int)
LQS_C_SETTER(lqs_worker_options, wait_time_seconds, int)
LQS_C_SETTER(lqs_worker_options, visibility_timeout_seconds, int)
LQS_C_SETTER(lqs_worker_options, concurrency, int)
LQS_C_SETTER(lqs_worker_options, max_in_progress, int)
LQS_C_SETTER(lqs_worker_options, rate_limit_per_second, double)
LQS_C_SETTER(lqs_worker_options, rate_limit_per_group_per_second, double)
LQS_C_SETTER(lqs_worker_options, backoff_base_seconds, int)
LQS_C_SETTER(lqs_worker_options, backoff_max_seconds, int)
LQS_C_SETTER(lqs_worker_options, backoff_jitter, double)
void lqs_worker_options_set_error_attribute(lqs_worker_options_t* o, const char* name) {
  o->rep.error_attribute = name != nullptr ? name : lqs::WorkerOptions().error_attribute;
}
LQS_C_FLAG_SETTER(lqs_worker_options, inbox)
void lqs_worker_options_set_idempotency_attribute(lqs_worker_options_t* o, const char* name) {
  o->rep.idempotency_attribute =
      name != nullptr ? name : lqs::WorkerOptions().idempotency_attribute;
}
LQS_C_SETTER(lqs_worker_options, inbox_ttl_seconds, int64_t)
void lqs_worker_options_set_logger(lqs_worker_options_t* o, lqs_worker_logger_t logger,
                                   void* user) {
  if (logger == nullptr) {
    o->rep.logger = nullptr;
    return;
  }
  o->rep.logger = [logger, user](lqs::WorkerLogLevel level, const std::string& line) {
    logger(static_cast<int>(level), line.c_str(), user);
  };
}

// ---- The worker -----------------------------------------------------------------------

int lqs_worker_create(lqs_queue_t* queue, const lqs_worker_options_t* options,
                      lqs_worker_handler_t handler, void* user, lqs_worker_t** worker,
                      char** errptr) {
  return Guard(errptr, [&]() -> int {
    return Create(queue, options,
                  handler != nullptr ? WrapHandler(handler, user) : lqs::MessageHandler(), worker,
                  errptr);
  });
}

int lqs_worker_create_batch(lqs_queue_t* queue, const lqs_worker_options_t* options,
                            lqs_worker_batch_handler_t handler, void* user, lqs_worker_t** worker,
                            char** errptr) {
  return Guard(errptr, [&]() -> int {
    return Create(queue, options,
                  handler != nullptr ? WrapBatchHandler(handler, user) : lqs::BatchHandler(),
                  worker, errptr);
  });
}

int lqs_worker_create_transactional(lqs_queue_t* queue, const lqs_worker_options_t* options,
                                    lqs_worker_transactional_handler_t handler, void* user,
                                    lqs_worker_t** worker, char** errptr) {
  return Guard(errptr, [&]() -> int {
    return Create(
        queue, options,
        handler != nullptr ? WrapTransactionalHandler(handler, user) : lqs::TransactionalHandler(),
        worker, errptr);
  });
}

int lqs_worker_start(lqs_worker_t* w, char** errptr) {
  return Guard(errptr, [&]() -> int { return SaveError(w->rep->Start(), errptr); });
}

// These have no errptr: an exception (std::system_error from a mutex) is
// dropped, and the int ones return 0.
void lqs_worker_pause(lqs_worker_t* w) {
  IgnoreErrors([&] { w->rep->Pause(); });
}

void lqs_worker_resume(lqs_worker_t* w) {
  IgnoreErrors([&] { w->rep->Resume(); });
}

int lqs_worker_paused(const lqs_worker_t* w) {
  return OrElse(0, [&] { return w->rep->paused() ? 1 : 0; });
}

int lqs_worker_stop(lqs_worker_t* w, int64_t deadline_ms) {
  return OrElse(0, [&] { return w->rep->Stop(Deadline(deadline_ms)) ? 1 : 0; });
}

void lqs_worker_wait(lqs_worker_t* w) {
  IgnoreErrors([&] { w->rep->Wait(); });
}

int lqs_worker_install_signal_handlers(lqs_worker_t* w, int64_t deadline_ms, char** errptr) {
  return Guard(errptr, [&]() -> int {
    return SaveError(w->rep->InstallSignalHandlers(Deadline(deadline_ms)), errptr);
  });
}

void lqs_worker_get_stats(const lqs_worker_t* w, lqs_worker_stats_t* stats) {
  if (stats == nullptr) return;
  lqs::WorkerStats s;
  IgnoreErrors([&] { s = w->rep->stats(); });  // an exception leaves zeros
  *stats = lqs_worker_stats_t{
      s.received,           s.succeeded,   s.retried,          s.dead_lettered,
      s.duplicates_skipped, s.released,    s.lease_extensions, s.lease_extension_failures,
      s.delete_failures,    s.in_progress, s.handler_p50_ms,   s.handler_p99_ms};
}

void lqs_worker_get_stats_v2(const lqs_worker_t* w, lqs_worker_stats_v2_t* stats) {
  if (stats == nullptr) return;
  lqs::WorkerStats s;
  IgnoreErrors([&] { s = w->rep->stats(); });  // an exception leaves zeros
  *stats = lqs_worker_stats_v2_t{s.received,
                                 s.succeeded,
                                 s.retried,
                                 s.dead_lettered,
                                 s.duplicates_skipped,
                                 s.released,
                                 s.lease_extensions,
                                 s.lease_extension_failures,
                                 s.delete_failures,
                                 s.transaction_conflicts,
                                 s.in_progress,
                                 s.handler_p50_ms,
                                 s.handler_p99_ms};
}

void lqs_worker_destroy(lqs_worker_t* w) { delete w; }

// ---- Messages and results (valid during a handler call) -------------------------------

const char* lqs_worker_message_queue_name(const lqs_worker_message_t* m) {
  return m->rep->queue_name.c_str();
}
const char* lqs_worker_message_id(const lqs_worker_message_t* m) {
  return m->rep->message_id.c_str();
}
const char* lqs_worker_message_receipt_handle(const lqs_worker_message_t* m) {
  return m->rep->receipt_handle.c_str();
}
const char* lqs_worker_message_body(const lqs_worker_message_t* m, size_t* len) {
  if (len != nullptr) *len = m->rep->body.size();
  return m->rep->body.c_str();
}
int lqs_worker_message_receive_count(const lqs_worker_message_t* m) {
  return m->rep->receive_count;
}
const char* lqs_worker_message_group_id(const lqs_worker_message_t* m) {
  return OptStr(m->rep->message_group_id);
}
const char* lqs_worker_message_idempotency_key(const lqs_worker_message_t* m, size_t* len) {
  if (len != nullptr) *len = m->rep->idempotency_key.size();
  return m->rep->idempotency_key.c_str();
}
const lqs_strmap_t* lqs_worker_message_attributes(const lqs_worker_message_t* m) {
  return &m->attributes;
}
LQS_C_ATTRIBUTE_ACCESSORS(lqs_worker_message)

void lqs_worker_result_set_error(lqs_worker_result_t* r, const char* error) {
  AssignOrClear(&r->error, error);  // out of memory: the default reason is used
}

void lqs_worker_result_fail(lqs_worker_result_t* r, size_t i, int outcome, const char* error) {
  if (i >= r->items.size()) return;
  lqs_worker_result_t::Item& item = r->items[i];
  item.failed = outcome != LQS_WORKER_SUCCESS;
  item.outcome = outcome;
  AssignOrClear(&item.error, error);
}

}  // extern "C"
