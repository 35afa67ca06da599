// lqs._lqs.Worker: lqs::Worker with Python handlers and logger. Worker
// threads are C++ threads: they take the GIL only to call the handler or the
// logger and convert values, and a Python exception never leaves those calls
// (it becomes a HandlerResult). Every call into the worker releases the GIL.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings/python/src/common.h"
#include "bindings/python/src/handles.h"
#include "bindings/python/src/worker_registry.h"

#include "lqs/lqs.h"
#include "lqs/worker.h"

namespace lqs_py {
namespace {

struct PyWorker {
  std::shared_ptr<lqs::Broker> broker;  // keeps the broker's memory alive
  std::shared_ptr<lqs::Queue> queue;
  std::shared_ptr<WorkerRegistry> registry;
  std::shared_ptr<WorkerState> state;
  std::shared_ptr<lqs::Worker> rep;

  PyWorker() = default;
  PyWorker(const PyWorker&) = delete;
  PyWorker& operator=(const PyWorker&) = delete;

  ~PyWorker() {
    if (!rep) return;
    if (tls_handler_of == state.get()) {
      // Collected inside one of its own handlers (a reference cycle): the
      // destructor joins the handler threads, so finish on another thread.
      std::thread([w = std::move(rep)]() mutable { w.reset(); }).detach();
      return;
    }
    py::gil_scoped_release release;
    rep.reset();  // stops (30 s deadline) if running and joins every thread
  }

  void CheckNotOwnHandler(const char* what) const {
    if (tls_handler_of == state.get()) {
      throw std::runtime_error(std::string("Worker.") + what +
                               "() called from the worker's own handler would wait for itself");
    }
  }
};

py::tuple FromWorkerMessage(const lqs::WorkerMessage& m) {
  return py::make_tuple(Text(m.queue_name), Text(m.message_id), Text(m.receipt_handle),
                        Text(m.body), FromMap(m.attributes), FromAttributes(m.message_attributes),
                        m.receive_count, OptText(m.message_group_id), Text(m.idempotency_key));
}

// The wrapper's verdict: None (success) or (outcome, error): 1 retry, 2 non-retryable.
lqs::HandlerResult ToHandlerResult(py::handle r) {
  if (r.is_none()) return lqs::HandlerResult::Success();
  if (!py::isinstance<py::tuple>(r) || py::len(r) != 2) {
    throw py::value_error("handler verdict must be None or (outcome, error)");
  }
  auto t = py::reinterpret_borrow<py::tuple>(r);
  int outcome = py::cast<int>(t[0]);
  std::string error = py::cast<std::string>(t[1]);
  switch (outcome) {
    case 0:
      return lqs::HandlerResult::Success();
    case 2:
      return lqs::HandlerResult::NonRetryable(std::move(error));
    default:
      return lqs::HandlerResult::Retry(std::move(error));
  }
}

const char* const kShuttingDown = "the Python interpreter is shutting down";

lqs::HandlerResult CallMessageHandler(WorkerState& s, const lqs::WorkerMessage& m) {
  if (PythonGone()) return lqs::HandlerResult::Retry(kShuttingDown);
  InHandler scope(&s);
  WorkerGil gil;
  try {
    py::object r = s.call(FromWorkerMessage(m));
    return ToHandlerResult(r);
  } catch (py::error_already_set& e) {  // fetched (and cleared) the Python error
    return lqs::HandlerResult::Retry(e.what());
  } catch (const std::exception& e) {
    PyErr_Clear();
    return lqs::HandlerResult::Retry(e.what());
  }
}

// A transactional handler: the Python side gets the transaction as a
// _Transaction lent for this call only (Python code may keep a reference;
// it fails once the call returned).
lqs::HandlerResult CallTransactionalHandler(WorkerState& s, const lqs::WorkerMessage& m,
                                            lqs::Transaction& tx) {
  if (PythonGone()) return lqs::HandlerResult::Retry(kShuttingDown);
  InHandler scope(&s);
  WorkerGil gil;
  try {
    PyTransaction lent;  // the worker keeps the broker and the transaction alive
    lent.from_worker = true;
    lent.lent = &tx;
    py::object handle = py::cast(std::move(lent));
    PyTransaction* kept = &handle.cast<PyTransaction&>();
    struct Unlend {
      PyTransaction* t;
      ~Unlend() { t->lent = nullptr; }
    } unlend{kept};
    py::object r = s.call(FromWorkerMessage(m), handle);
    return ToHandlerResult(r);
  } catch (py::error_already_set& e) {
    return lqs::HandlerResult::Retry(e.what());
  } catch (const std::exception& e) {
    PyErr_Clear();
    return lqs::HandlerResult::Retry(e.what());
  }
}

lqs::BatchItemFailures CallBatchHandler(WorkerState& s, const std::vector<lqs::WorkerMessage>& ms) {
  auto fail_all = [&](const lqs::HandlerResult& r) {
    lqs::BatchItemFailures all;
    for (const auto& m : ms) all[m.message_id] = r;
    return all;
  };
  if (PythonGone()) return fail_all(lqs::HandlerResult::Retry(kShuttingDown));
  InHandler scope(&s);
  WorkerGil gil;
  try {
    py::list rows;
    for (const auto& m : ms) rows.append(FromWorkerMessage(m));
    py::object r = s.call(rows);
    lqs::BatchItemFailures out;
    if (r.is_none()) return out;
    if (!py::isinstance<py::dict>(r)) throw py::value_error("batch verdict must be a dict");
    for (auto item : py::reinterpret_borrow<py::dict>(r)) {
      out[py::cast<std::string>(item.first)] = ToHandlerResult(item.second);
    }
    return out;
  } catch (py::error_already_set& e) {
    return fail_all(lqs::HandlerResult::Retry(e.what()));
  } catch (const std::exception& e) {
    PyErr_Clear();
    return fail_all(lqs::HandlerResult::Retry(e.what()));
  }
}

const char* LevelName(lqs::WorkerLogLevel level) {
  switch (level) {
    case lqs::WorkerLogLevel::kDebug:
      return "debug";
    case lqs::WorkerLogLevel::kInfo:
      return "info";
    case lqs::WorkerLogLevel::kWarning:
      return "warning";
    case lqs::WorkerLogLevel::kError:
      return "error";
  }
  return "error";
}

void CallLogger(WorkerState& s, lqs::WorkerLogLevel level, const std::string& line) {
  if (static_cast<int>(level) < s.log_min_level || PythonGone()) return;
  WorkerGil gil;
  try {
    s.logger(LevelName(level), Text(line));
  } catch (const std::exception&) {  // a failing logger loses its line, nothing else
    PyErr_Clear();
  }
}

// Sets one WorkerOptions member from a Python value of its type.
template <auto Member>
void SetWorkerOption(lqs::WorkerOptions& o, py::handle v) {
  using T = std::remove_reference_t<decltype(o.*Member)>;
  o.*Member = py::cast<T>(v);
}

struct WorkerOptionSetter {
  std::string_view name;
  void (*set)(lqs::WorkerOptions&, py::handle);
};

using WO = lqs::WorkerOptions;
constexpr WorkerOptionSetter kWorkerOptionSetters[] = {
    {"max_messages_per_receive", &SetWorkerOption<&WO::max_messages_per_receive>},
    {"wait_time_seconds", &SetWorkerOption<&WO::wait_time_seconds>},
    {"visibility_timeout_seconds", &SetWorkerOption<&WO::visibility_timeout_seconds>},
    {"concurrency", &SetWorkerOption<&WO::concurrency>},
    {"max_in_progress", &SetWorkerOption<&WO::max_in_progress>},
    {"rate_limit_per_second", &SetWorkerOption<&WO::rate_limit_per_second>},
    {"rate_limit_per_group_per_second", &SetWorkerOption<&WO::rate_limit_per_group_per_second>},
    {"backoff_base_seconds", &SetWorkerOption<&WO::backoff_base_seconds>},
    {"backoff_max_seconds", &SetWorkerOption<&WO::backoff_max_seconds>},
    {"backoff_jitter", &SetWorkerOption<&WO::backoff_jitter>},
    {"error_attribute", &SetWorkerOption<&WO::error_attribute>},
    {"inbox", &SetWorkerOption<&WO::inbox>},
    {"idempotency_attribute", &SetWorkerOption<&WO::idempotency_attribute>},
    {"inbox_ttl_seconds", &SetWorkerOption<&WO::inbox_ttl_seconds>},
};

// {option name: value} (values already of the right Python type) -> WorkerOptions.
lqs::WorkerOptions MakeWorkerOptions(const py::dict& options) {
  lqs::WorkerOptions o;
  for (auto item : options) {
    std::string key = py::cast<std::string>(item.first);
    const auto setter =
        std::find_if(std::begin(kWorkerOptionSetters), std::end(kWorkerOptionSetters),
                     [&key](const WorkerOptionSetter& s) { return s.name == key; });
    if (setter == std::end(kWorkerOptionSetters)) {
      throw py::type_error("unknown Worker option '" + key + "'");
    }
    setter->set(o, item.second);
  }
  return o;
}

std::unique_ptr<PyWorker> MakeWorker(PyQueue& q, py::object call, bool batch, bool transaction,
                                     const py::dict& options, const py::object& clock,
                                     py::object logger, int log_min_level) {
  if (q.workers->is_closed()) Raise(lqs::Status(lqs::ErrorCode::kClosed, "database is closed"));
  lqs::WorkerOptions o = MakeWorkerOptions(options);
  if (!clock.is_none()) o.clock = py::cast<std::shared_ptr<lqs::ManualClock>>(clock);
  auto state = std::make_shared<WorkerState>();
  state->call = std::move(call);
  state->log_min_level = log_min_level;
  if (!logger.is_none()) {
    state->logger = std::move(logger);
    o.logger = [s = state](lqs::WorkerLogLevel level, const std::string& line) {
      CallLogger(*s, level, line);
    };
  }
  auto created = Unlocked([&]() -> lqs::StatusOr<std::unique_ptr<lqs::Worker>> {
    if (batch) {
      lqs::BatchHandler h = [s = state](const std::vector<lqs::WorkerMessage>& ms) {
        return CallBatchHandler(*s, ms);
      };
      return lqs::Worker::Create(q.rep, std::move(o), std::move(h));
    }
    if (transaction) {
      lqs::TransactionalHandler h = [s = state](const lqs::WorkerMessage& m, lqs::Transaction& tx) {
        return CallTransactionalHandler(*s, m, tx);
      };
      return lqs::Worker::Create(q.rep, std::move(o), std::move(h));
    }
    lqs::MessageHandler h = [s = state](const lqs::WorkerMessage& m) {
      return CallMessageHandler(*s, m);
    };
    return lqs::Worker::Create(q.rep, std::move(o), std::move(h));
  });
  auto w = std::make_unique<PyWorker>();
  w->broker = q.broker;
  w->queue = q.rep;
  w->registry = q.workers;
  w->state = state;
  w->rep = std::shared_ptr<lqs::Worker>(Take(std::move(created)));
  q.workers->Add(w->rep, state);
  return w;
}

py::dict FromWorkerStats(const lqs::WorkerStats& st) {
  py::dict d;
  d["received"] = st.received;
  d["succeeded"] = st.succeeded;
  d["retried"] = st.retried;
  d["dead_lettered"] = st.dead_lettered;
  d["duplicates_skipped"] = st.duplicates_skipped;
  d["released"] = st.released;
  d["lease_extensions"] = st.lease_extensions;
  d["lease_extension_failures"] = st.lease_extension_failures;
  d["delete_failures"] = st.delete_failures;
  d["transaction_conflicts"] = st.transaction_conflicts;
  d["in_progress"] = st.in_progress;
  d["handler_p50_ms"] = st.handler_p50_ms;
  d["handler_p99_ms"] = st.handler_p99_ms;
  return d;
}

}  // namespace

void BindWorker(py::module_& m) {
  py::class_<PyWorker>(m, "Worker")
      .def(py::init(&MakeWorker), py::arg("queue"), py::arg("call"), py::arg("batch"),
           py::arg("transaction"), py::arg("options"), py::arg("clock"), py::arg("logger"),
           py::arg("log_min_level"))
      .def("start",
           [](PyWorker& w) {
             if (w.registry->is_closed()) {
               Raise(lqs::Status(lqs::ErrorCode::kClosed, "database is closed"));
             }
             Check(Unlocked([&] { return w.rep->Start(); }));
           })
      .def("pause", [](PyWorker& w) { Unlocked([&] { w.rep->Pause(); }); })
      .def("resume", [](PyWorker& w) { Unlocked([&] { w.rep->Resume(); }); })
      .def_property_readonly("paused",
                             [](PyWorker& w) { return Unlocked([&] { return w.rep->paused(); }); })
      .def(
          "stop",
          [](PyWorker& w, double timeout) {
            w.CheckNotOwnHandler("stop");
            if (!(timeout >= 0)) timeout = 0;  // also NaN
            auto deadline = std::chrono::milliseconds(
                static_cast<int64_t>(std::min(timeout, 1e9) * 1000.0 + 0.5));
            return Unlocked([&] {
              bool finished = w.rep->Stop(deadline);
              w.state->MarkStopped();
              return finished;
            });
          },
          py::arg("timeout"))
      .def(
          "wait",
          [](PyWorker& w, std::optional<double> timeout) {
            w.CheckNotOwnHandler("wait");
            return Unlocked([&] {
              std::unique_lock<std::mutex> lock(w.state->mu);
              auto done = [&] { return w.state->stop_done; };
              if (!timeout.has_value()) {
                w.state->cv.wait(lock, done);
                return true;
              }
              double t = *timeout >= 0 ? std::min(*timeout, 1e9) : 0.0;
              return w.state->cv.wait_for(lock, std::chrono::duration<double>(t), done);
            });
          },
          py::arg("timeout") = py::none(),
          "Blocks (GIL released) until stop() finished; False if `timeout` s passed first.")
      .def_property_readonly("stopped",
                             [](PyWorker& w) {
                               std::lock_guard<std::mutex> lock(w.state->mu);
                               return w.state->stop_done;
                             })
      .def("stats",
           [](PyWorker& w) { return FromWorkerStats(Unlocked([&] { return w.rep->stats(); })); });
}

}  // namespace lqs_py
