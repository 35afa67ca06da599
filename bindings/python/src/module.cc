// lqs._lqs — the private pybind11 layer under the `lqs` Python package.
//
// It mirrors the C++ API one to one with plain Python values (dicts, lists,
// tuples); the Pythonic classes live in lqs/__init__.py. Rules:
//   * arguments are converted to C++ values with the GIL held, then the GIL is
//     released around every call that touches the database (long polls block
//     only the calling thread), then results are converted back;
//   * a non-OK Status becomes the exception class lqs._errors picks for its
//     code (one table, rooted at lqs.Error);
//   * a Queue keeps its Broker alive; after Broker.close() calls fail with
//     lqs.Closed instead of crashing;
//   * a Worker (lqs::Worker) keeps its Queue and Broker alive; Broker.close()
//     stops every worker of the database first. Worker threads are C++ threads:
//     they take the GIL only to call the Python handler or logger and convert
//     values, and a Python exception never leaves those calls (it becomes a
//     HandlerResult). Every call into the worker releases the GIL.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lqs/lqs.h"
#include "lqs/worker.h"
#include "server/endpoint.h"
#include "server/listen_address.h"
#include "server/url_style.h"

namespace py = pybind11;

namespace {

// ---- Errors ------------------------------------------------------------------------

[[noreturn]] void Raise(const lqs::Status& status) {
  py::object factory = py::module_::import("lqs._errors").attr("_from_status");
  py::object exc = factory(static_cast<int>(status.code()), status.message());
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
  throw py::error_already_set();
}

void Check(const lqs::Status& status) {
  if (!status.ok()) Raise(status);
}

template <typename T>
T Take(lqs::StatusOr<T>&& result) {
  if (!result.ok()) Raise(result.status());
  return std::move(result).value();
}

// Runs fn() with the GIL released.
template <typename Fn>
auto Unlocked(Fn&& fn) {
  py::gil_scoped_release release;
  return fn();
}

// ---- Conversions -------------------------------------------------------------------

py::str Text(const std::string& s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()),
                                     "surrogateescape");
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

py::object OptText(const std::optional<std::string>& s) {
  if (!s.has_value()) return py::none();
  return Text(*s);
}

// {name: (data_type, str | bytes)} -> MessageAttributeMap
lqs::MessageAttributeMap ToAttributes(const py::object& obj) {
  lqs::MessageAttributeMap out;
  if (obj.is_none()) return out;
  for (auto item : py::cast<py::dict>(obj)) {
    std::string name = py::cast<std::string>(item.first);
    auto pair = py::cast<py::tuple>(item.second);
    if (pair.size() != 2) throw py::value_error("message attribute must be (data_type, value)");
    lqs::MessageAttributeValue v;
    v.data_type = py::cast<std::string>(pair[0]);
    py::handle value = pair[1];
    if (py::isinstance<py::bytes>(value) || py::isinstance<py::bytearray>(value) ||
        py::isinstance<py::memoryview>(value)) {
      v.binary_value = py::cast<std::string>(py::bytes(py::reinterpret_borrow<py::object>(value)));
    } else {
      v.string_value = py::cast<std::string>(value);
    }
    out[name] = std::move(v);
  }
  return out;
}

py::dict FromAttributes(const lqs::MessageAttributeMap& attrs) {
  py::dict out;
  for (const auto& [name, v] : attrs) {
    if (v.IsBinary()) {
      out[Text(name)] = py::make_tuple(Text(v.data_type), py::bytes(v.binary_value));
    } else {
      out[Text(name)] = py::make_tuple(Text(v.data_type), Text(v.string_value));
    }
  }
  return out;
}

py::dict FromMap(const std::map<std::string, std::string>& m) {
  py::dict out;
  for (const auto& [k, v] : m) out[Text(k)] = Text(v);
  return out;
}

py::dict FromSendResult(const lqs::SendMessageResult& r) {
  py::dict d;
  d["message_id"] = Text(r.message_id);
  d["md5_of_message_body"] = Text(r.md5_of_message_body);
  d["md5_of_message_attributes"] = OptText(r.md5_of_message_attributes);
  d["md5_of_message_system_attributes"] = OptText(r.md5_of_message_system_attributes);
  d["sequence_number"] = OptText(r.sequence_number);
  return d;
}

py::list FromFailed(const std::vector<lqs::BatchResultError>& failed) {
  py::list out;
  for (const auto& f : failed) {
    py::dict d;
    d["id"] = Text(f.id);
    d["sender_fault"] = f.sender_fault;
    d["code"] = Text(f.code);
    d["message"] = Text(f.message);
    out.append(d);
  }
  return out;
}

py::dict FromBatch(const lqs::BatchResult& r) {
  py::dict d;
  py::list ok;
  for (const auto& id : r.successful) ok.append(Text(id));
  d["successful"] = ok;
  d["failed"] = FromFailed(r.failed);
  return d;
}

lqs::SendMessageRequest MakeSend(std::string body, std::optional<int> delay_seconds,
                                 const py::object& message_attributes,
                                 const py::object& message_system_attributes,
                                 std::optional<std::string> message_group_id,
                                 std::optional<std::string> message_deduplication_id) {
  lqs::SendMessageRequest r;
  r.body = std::move(body);
  r.delay_seconds = delay_seconds;
  r.message_attributes = ToAttributes(message_attributes);
  r.message_system_attributes = ToAttributes(message_system_attributes);
  r.message_group_id = std::move(message_group_id);
  r.message_deduplication_id = std::move(message_deduplication_id);
  return r;
}

py::dict FromListResult(const lqs::ListQueuesResult& r) {
  py::dict d;
  py::list names;
  for (const auto& n : r.queue_names) names.append(Text(n));
  d["queue_names"] = names;
  d["next_token"] = r.next_token.empty() ? py::object(py::none()) : py::object(Text(r.next_token));
  return d;
}

lqs::ListQueuesRequest MakeList(const std::string& prefix, std::optional<int> max_results,
                                const std::optional<std::string>& next_token) {
  lqs::ListQueuesRequest r;
  r.queue_name_prefix = prefix;
  r.max_results = max_results;
  r.next_token = next_token.value_or("");
  return r;
}

// ---- Workers: shared state ------------------------------------------------------------

// True once the interpreter is finalizing (callable without the GIL): worker
// threads must not try to take the GIL then.
bool PythonGone() {
#if PY_VERSION_HEX >= 0x030D0000
  return !Py_IsInitialized() || Py_IsFinalizing();
#else
  return !Py_IsInitialized() || _Py_IsFinalizing();
#endif
}

// What the C++ worker's callbacks share with the Python-side Worker object.
// The py::objects are touched only with the GIL held.
struct WorkerState {
  py::object call;    // lqs._worker's wrapper around the user's handler
  py::object logger;  // callable(level: str, line: str), or None
  int log_min_level = 0;  // WorkerLogLevel below which lines are dropped

  std::mutex mu;
  std::condition_variable cv;
  bool stop_done = false;  // a Stop() returned

  ~WorkerState() {
    if (PythonGone()) {  // too late to decref: leak
      call.release();
      logger.release();
      return;
    }
    py::gil_scoped_acquire gil;
    call = py::object();
    logger = py::object();
  }

  void MarkStopped() {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop_done = true;
    }
    cv.notify_all();
  }
};

// A worker thread (a C++ thread) keeps one Python thread state for its whole
// life, instead of a new one per call: handlers' threading.local() data (a
// per-thread database connection, say) then lasts from one message to the next.
// The state is deleted when the thread exits (the threads are joined with the
// GIL released), or leaked if the interpreter is finalizing by then.
struct PersistentThreadState {
  int kind = 0;  // 0: not seen yet; 1: a foreign thread whose state we keep; 2: Python's own
  ~PersistentThreadState() {
    if (kind != 1 || PythonGone()) return;
    py::gil_scoped_acquire gil;
    gil.dec_ref();  // drop the extra reference: gil's destructor deletes the state
  }
};
thread_local PersistentThreadState tls_thread_state;

// py::gil_scoped_acquire for callbacks from the worker (see PersistentThreadState).
// A callback may also run on a Python thread (a log line from pause(), say):
// that thread's own state is used as is.
class WorkerGil {
 public:
  WorkerGil() : keep_(FirstOnForeignThread()) {
    if (keep_) {
      gil_.inc_ref();
      tls_thread_state.kind = 1;
    }
  }
  WorkerGil(const WorkerGil&) = delete;
  WorkerGil& operator=(const WorkerGil&) = delete;

 private:
  static bool FirstOnForeignThread() {
    if (tls_thread_state.kind != 0) return false;
    if (PyGILState_GetThisThreadState() == nullptr) return true;
    tls_thread_state.kind = 2;
    return false;
  }
  const bool keep_;  // initialized before gil_
  py::gil_scoped_acquire gil_;
};

// The worker whose handler this thread is running, if any (a handler must not
// stop or destroy its own worker: that would wait for itself).
thread_local const WorkerState* tls_handler_of = nullptr;

struct InHandler {
  const WorkerState* prev;
  explicit InHandler(const WorkerState* s) : prev(tls_handler_of) { tls_handler_of = s; }
  ~InHandler() { tls_handler_of = prev; }
  InHandler(const InHandler&) = delete;
  InHandler& operator=(const InHandler&) = delete;
};

// The workers of one open database, so that close() stops them first.
struct WorkerRegistry {
  std::mutex mu;
  bool closed = false;
  std::vector<std::pair<std::weak_ptr<lqs::Worker>, std::weak_ptr<WorkerState>>> entries;

  void Add(const std::shared_ptr<lqs::Worker>& w, const std::shared_ptr<WorkerState>& s) {
    std::lock_guard<std::mutex> lock(mu);
    std::erase_if(entries, [](const auto& e) { return e.first.expired(); });
    entries.emplace_back(w, s);
  }

  bool is_closed() {
    std::lock_guard<std::mutex> lock(mu);
    return closed;
  }

  // Marks the database closed and stops every live worker. Call with the GIL
  // released (handlers need it to finish).
  void StopAll(std::chrono::milliseconds deadline) {
    std::vector<std::pair<std::shared_ptr<lqs::Worker>, std::shared_ptr<WorkerState>>> live;
    {
      std::lock_guard<std::mutex> lock(mu);
      closed = true;
      for (auto& [wp, sp] : entries) {
        auto w = wp.lock();
        auto st = sp.lock();
        if (w && st) live.emplace_back(std::move(w), std::move(st));
      }
      entries.clear();
    }
    for (auto& [w, st] : live) {
      if (tls_handler_of == st.get()) {
        w->Pause();  // close() from this worker's own handler: cannot wait for itself
        continue;
      }
      w->Stop(deadline);
      st->MarkStopped();
    }
  }
};

// ---- Handles --------------------------------------------------------------------------

struct PyQueue {
  std::shared_ptr<lqs::Broker> broker;
  std::shared_ptr<lqs::Queue> rep;
  std::shared_ptr<WorkerRegistry> workers;
};

struct PyBroker {
  std::shared_ptr<lqs::Broker> rep;
  bool closed = false;
  std::shared_ptr<WorkerRegistry> workers = std::make_shared<WorkerRegistry>();

  PyQueue Wrap(std::shared_ptr<lqs::Queue> q) const {
    return PyQueue{rep, std::move(q), workers};
  }
};

// ---- Workers: the Python object ---------------------------------------------------------

struct PyWorker {
  std::shared_ptr<lqs::Broker> broker;  // keeps the database's memory alive
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
                        Text(m.body), FromMap(m.attributes),
                        FromAttributes(m.message_attributes), m.receive_count,
                        OptText(m.message_group_id), Text(m.idempotency_key));
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
    case 0: return lqs::HandlerResult::Success();
    case 2: return lqs::HandlerResult::NonRetryable(std::move(error));
    default: return lqs::HandlerResult::Retry(std::move(error));
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

lqs::BatchItemFailures CallBatchHandler(WorkerState& s,
                                        const std::vector<lqs::WorkerMessage>& ms) {
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
    case lqs::WorkerLogLevel::kDebug: return "debug";
    case lqs::WorkerLogLevel::kInfo: return "info";
    case lqs::WorkerLogLevel::kWarning: return "warning";
    case lqs::WorkerLogLevel::kError: return "error";
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

// {option name: value} (values already of the right Python type) -> WorkerOptions.
lqs::WorkerOptions MakeWorkerOptions(const py::dict& options) {
  lqs::WorkerOptions o;
  for (auto item : options) {
    std::string key = py::cast<std::string>(item.first);
    py::handle v = item.second;
    if (key == "max_messages_per_receive") o.max_messages_per_receive = py::cast<int>(v);
    else if (key == "wait_time_seconds") o.wait_time_seconds = py::cast<int>(v);
    else if (key == "visibility_timeout_seconds") o.visibility_timeout_seconds = py::cast<int>(v);
    else if (key == "concurrency") o.concurrency = py::cast<int>(v);
    else if (key == "max_in_progress") o.max_in_progress = py::cast<int>(v);
    else if (key == "rate_limit_per_second") o.rate_limit_per_second = py::cast<double>(v);
    else if (key == "rate_limit_per_group_per_second") o.rate_limit_per_group_per_second = py::cast<double>(v);
    else if (key == "backoff_base_seconds") o.backoff_base_seconds = py::cast<int>(v);
    else if (key == "backoff_max_seconds") o.backoff_max_seconds = py::cast<int>(v);
    else if (key == "backoff_jitter") o.backoff_jitter = py::cast<double>(v);
    else if (key == "error_attribute") o.error_attribute = py::cast<std::string>(v);
    else if (key == "inbox") o.inbox = py::cast<bool>(v);
    else if (key == "idempotency_attribute") o.idempotency_attribute = py::cast<std::string>(v);
    else if (key == "inbox_ttl_seconds") o.inbox_ttl_seconds = py::cast<int64_t>(v);
    else throw py::type_error("unknown Worker option '" + key + "'");
  }
  return o;
}

std::unique_ptr<PyWorker> MakeWorker(PyQueue& q, py::object call, bool batch,
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
  d["in_progress"] = st.in_progress;
  d["handler_p50_ms"] = st.handler_p50_ms;
  d["handler_p99_ms"] = st.handler_p99_ms;
  return d;
}

PyBroker Open(const std::string& path, bool create_if_missing, int durability,
              const py::object& clock, const std::string& region,
              const std::string& account_id, const std::string& sender_id,
              bool enforce_queue_name_reuse_delay, bool enforce_purge_interval,
              int64_t max_inflight_per_queue, bool background_maintenance,
              int64_t maintenance_interval_ms, int64_t block_cache_bytes,
              int64_t write_buffer_bytes, bool flush_on_close, bool deferred_commits) {
  lqs::Options o;
  o.path = path;
  o.create_if_missing = create_if_missing;
  if (durability < 0 || durability > 2) {
    throw py::value_error("durability must be 0 (none), 1 (process) or 2 (fsync)");
  }
  o.durability = static_cast<lqs::Durability>(durability);
  if (!clock.is_none()) o.clock = py::cast<std::shared_ptr<lqs::ManualClock>>(clock);
  o.region = region;
  o.account_id = account_id;
  o.sender_id = sender_id;
  o.enforce_queue_name_reuse_delay = enforce_queue_name_reuse_delay;
  o.enforce_purge_interval = enforce_purge_interval;
  o.max_inflight_per_queue = max_inflight_per_queue;
  o.background_maintenance = background_maintenance;
  o.maintenance_interval_ms = maintenance_interval_ms;
  o.block_cache_bytes = block_cache_bytes;
  o.write_buffer_bytes = write_buffer_bytes;
  o.flush_on_close = flush_on_close;
  o.deferred_commits = deferred_commits;
  auto broker = Unlocked([&] { return lqs::Broker::Open(o); });
  return PyBroker{std::shared_ptr<lqs::Broker>(Take(std::move(broker)))};
}

// ---- lqs.Server: lqsd's endpoint in this process ----------------------------------------

struct PyEndpoint {
  std::shared_ptr<lqs::Broker> broker;  // kept alive while the endpoint serves it
  std::shared_ptr<WorkerRegistry> workers;  // the database's: stopped before it closes
  std::unique_ptr<lqsd::Endpoint> rep;
};

PyEndpoint StartEndpoint(const PyBroker& broker, const std::string& host, uint16_t port,
                         const std::string& account_id, int threads, bool single_region,
                         int max_regions, std::optional<int> busy_poll_us,
                         const std::optional<std::string>& metrics_listen,
                         const std::string& url_style) {
  if (broker.closed) Check(lqs::Status(lqs::ErrorCode::kClosed, "the database is closed"));
  lqsd::EndpointConfig config;
  config.host = host;
  config.port = port;
  config.account_id = account_id;
  config.single_region = single_region;
  if (max_regions < 1) throw py::value_error("max_regions must be at least 1");
  config.max_regions = static_cast<size_t>(max_regions);
  config.threads = threads;
  if (busy_poll_us.has_value() && (*busy_poll_us < 0 || *busy_poll_us > lqsd::kMaxBusyPollMicros)) {
    throw py::value_error("busy_poll_us must be None or 0 to " +
                          std::to_string(lqsd::kMaxBusyPollMicros) + ", not " +
                          std::to_string(*busy_poll_us));
  }
  config.busy_poll_us = busy_poll_us.value_or(-1);  // -1: lqsd's default
  if (metrics_listen.has_value() &&
      !lqsd::ParseListenAddress(*metrics_listen, &config.metrics_host, &config.metrics_port)) {
    throw py::value_error("metrics_listen must be None or \"HOST:PORT\", not '" + *metrics_listen +
                          "'");
  }
  const std::optional<lqsd::UrlStyle> style = lqsd::ParseUrlStyle(url_style);
  if (!style.has_value()) {
    throw py::value_error("url_style must be \"path\" or \"host\", not '" + url_style + "'");
  }
  config.url_style = *style;
  std::string error;
  PyEndpoint out{broker.rep, broker.workers, nullptr};
  out.rep = Unlocked([&] { return lqsd::Endpoint::Start(broker.rep.get(), config, &error); });
  if (out.rep == nullptr) throw py::value_error("cannot listen on " + host + ": " + error);
  return out;
}

py::list ErrorTable() {
  py::list out;
  for (int c : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 100,
                101, 102, 103, 104}) {
    auto code = static_cast<lqs::ErrorCode>(c);
    const lqs::ErrorInfo& info = lqs::ErrorInfoFor(code);
    out.append(py::make_tuple(c, std::string(lqs::ErrorCodeName(code)),
                              std::string(info.shape), std::string(info.query_code),
                              info.http_status, info.sender_fault));
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(_lqs, m) {
  m.doc() = "Private pybind11 layer of the lqs package; use `import lqs`.";
  m.attr("__version__") = lqs::Version();
  m.def("version", [] { return std::string(lqs::Version()); });
  m.def("error_table", &ErrorTable,
        "[(code, name, shape, query_code, http_status, sender_fault)] for every ErrorCode.");

  py::class_<lqs::ManualClock, std::shared_ptr<lqs::ManualClock>>(m, "ManualClock")
      .def(py::init<int64_t>(), py::arg("start_ms") = int64_t{1767225600000})
      .def("now_millis", &lqs::ManualClock::NowMillis)
      .def("advance_millis",
           [](lqs::ManualClock& c, int64_t ms) {
             if (ms < 0) throw py::value_error("ms must be >= 0");
             Unlocked([&] { c.AdvanceMillis(ms); });
           },
           py::arg("ms"))
      .def("advance_seconds",
           [](lqs::ManualClock& c, double s) {
             if (s < 0) throw py::value_error("seconds must be >= 0");
             Unlocked([&] { c.AdvanceMillis(static_cast<int64_t>(s * 1000.0 + 0.5)); });
           },
           py::arg("seconds"))
      .def("set_millis",
           [](lqs::ManualClock& c, int64_t ms) { Unlocked([&] { c.SetMillis(ms); }); },
           py::arg("ms"));

  py::class_<PyQueue>(m, "Queue")
      .def_property_readonly("name", [](const PyQueue& q) { return Text(q.rep->name()); })
      .def_property_readonly("arn", [](const PyQueue& q) { return Text(q.rep->arn()); })
      .def_property_readonly("is_fifo", [](const PyQueue& q) { return q.rep->is_fifo(); })
      .def("send_message",
           [](PyQueue& q, std::string body, std::optional<int> delay_seconds,
              const py::object& attrs, const py::object& sys_attrs,
              std::optional<std::string> group, std::optional<std::string> dedup) {
             auto request = MakeSend(std::move(body), delay_seconds, attrs, sys_attrs,
                                     std::move(group), std::move(dedup));
             auto result = Unlocked([&] { return q.rep->SendMessage(request); });
             return FromSendResult(Take(std::move(result)));
           },
           py::arg("body"), py::arg("delay_seconds") = py::none(),
           py::arg("message_attributes") = py::none(),
           py::arg("message_system_attributes") = py::none(),
           py::arg("message_group_id") = py::none(),
           py::arg("message_deduplication_id") = py::none())
      .def("send_message_batch",
           [](PyQueue& q, const py::list& entries) {
             // entries: [(id, body, delay, attrs, sys_attrs, group, dedup)]
             std::vector<lqs::SendMessageBatchEntry> batch;
             for (auto e : entries) {
               auto t = py::cast<py::tuple>(e);
               if (t.size() != 7) throw py::value_error("batch entry must have 7 fields");
               lqs::SendMessageBatchEntry entry;
               entry.id = py::cast<std::string>(t[0]);
               entry.request = MakeSend(py::cast<std::string>(t[1]),
                                        py::cast<std::optional<int>>(t[2]), t[3], t[4],
                                        py::cast<std::optional<std::string>>(t[5]),
                                        py::cast<std::optional<std::string>>(t[6]));
               batch.push_back(std::move(entry));
             }
             auto result = Take(Unlocked([&] { return q.rep->SendMessageBatch(batch); }));
             py::dict d;
             py::list ok;
             for (const auto& s : result.successful) {
               ok.append(py::make_tuple(Text(s.id), FromSendResult(s.result)));
             }
             d["successful"] = ok;
             d["failed"] = FromFailed(result.failed);
             return d;
           },
           py::arg("entries"))
      .def("receive_message",
           [](PyQueue& q, int max_number_of_messages, std::optional<int> visibility_timeout,
              std::optional<int> wait_time_seconds, std::vector<std::string> system_names,
              std::vector<std::string> attribute_names,
              std::optional<std::string> attempt_id) {
             lqs::ReceiveMessageRequest r;
             r.max_number_of_messages = max_number_of_messages;
             r.visibility_timeout = visibility_timeout;
             r.wait_time_seconds = wait_time_seconds;
             r.message_system_attribute_names = std::move(system_names);
             r.message_attribute_names = std::move(attribute_names);
             r.receive_request_attempt_id = std::move(attempt_id);
             auto result = Take(Unlocked([&] { return q.rep->ReceiveMessage(r); }));
             py::list out;
             for (const auto& msg : result.messages) {
               py::dict d;
               d["message_id"] = Text(msg.message_id);
               d["receipt_handle"] = Text(msg.receipt_handle);
               d["body"] = Text(msg.body);
               d["md5_of_body"] = Text(msg.md5_of_body);
               d["attributes"] = FromMap(msg.attributes);
               d["message_attributes"] = FromAttributes(msg.message_attributes);
               d["md5_of_message_attributes"] = OptText(msg.md5_of_message_attributes);
               out.append(d);
             }
             return out;
           },
           py::arg("max_number_of_messages") = 1, py::arg("visibility_timeout") = py::none(),
           py::arg("wait_time_seconds") = py::none(),
           py::arg("message_system_attribute_names") = std::vector<std::string>{},
           py::arg("message_attribute_names") = std::vector<std::string>{},
           py::arg("receive_request_attempt_id") = py::none())
      .def("delete_message",
           [](PyQueue& q, const std::string& handle) {
             Check(Unlocked([&] { return q.rep->DeleteMessage(handle); }));
           },
           py::arg("receipt_handle"))
      .def("delete_message_batch",
           [](PyQueue& q, const std::vector<std::pair<std::string, std::string>>& entries) {
             std::vector<lqs::DeleteMessageBatchEntry> batch;
             for (const auto& [id, handle] : entries) batch.push_back({id, handle});
             return FromBatch(Take(Unlocked([&] { return q.rep->DeleteMessageBatch(batch); })));
           },
           py::arg("entries"))
      .def("change_message_visibility",
           [](PyQueue& q, const std::string& handle, int timeout) {
             Check(Unlocked([&] { return q.rep->ChangeMessageVisibility(handle, timeout); }));
           },
           py::arg("receipt_handle"), py::arg("visibility_timeout"))
      .def("change_message_visibility_batch",
           [](PyQueue& q,
              const std::vector<std::tuple<std::string, std::string, std::optional<int>>>&
                  entries) {
             std::vector<lqs::ChangeMessageVisibilityBatchEntry> batch;
             for (const auto& [id, handle, timeout] : entries) {
               batch.push_back({id, handle, timeout});
             }
             return FromBatch(
                 Take(Unlocked([&] { return q.rep->ChangeMessageVisibilityBatch(batch); })));
           },
           py::arg("entries"))
      .def("purge", [](PyQueue& q) { Check(Unlocked([&] { return q.rep->PurgeQueue(); })); })
      .def("get_attributes",
           [](PyQueue& q, const std::vector<std::string>& names) {
             return FromMap(Take(Unlocked([&] { return q.rep->GetAttributes(names); })));
           },
           py::arg("names"))
      .def("set_attributes",
           [](PyQueue& q, const std::map<std::string, std::string>& attrs) {
             Check(Unlocked([&] { return q.rep->SetAttributes(attrs); }));
           },
           py::arg("attributes"))
      .def("tag",
           [](PyQueue& q, const std::map<std::string, std::string>& tags) {
             Check(Unlocked([&] { return q.rep->TagQueue(tags); }));
           },
           py::arg("tags"))
      .def("untag",
           [](PyQueue& q, const std::vector<std::string>& keys) {
             Check(Unlocked([&] { return q.rep->UntagQueue(keys); }));
           },
           py::arg("keys"))
      .def("list_tags",
           [](PyQueue& q) { return FromMap(Take(Unlocked([&] { return q.rep->ListQueueTags(); }))); })
      .def("add_permission",
           [](PyQueue& q, const std::string& label, const std::vector<std::string>& accounts,
              const std::vector<std::string>& actions) {
             Check(Unlocked([&] { return q.rep->AddPermission(label, accounts, actions); }));
           },
           py::arg("label"), py::arg("account_ids"), py::arg("actions"))
      .def("remove_permission",
           [](PyQueue& q, const std::string& label) {
             Check(Unlocked([&] { return q.rep->RemovePermission(label); }));
           },
           py::arg("label"))
      .def("delete_message_and_record",
           [](PyQueue& q, const std::string& handle, const std::string& key, int64_t ttl) {
             Check(Unlocked([&] { return q.rep->DeleteMessageAndRecord(handle, key, ttl); }));
           },
           py::arg("receipt_handle"), py::arg("idempotency_key"), py::arg("ttl_seconds"))
      .def("inbox_contains",
           [](PyQueue& q, const std::string& key) {
             return Take(Unlocked([&] { return q.rep->InboxContains(key); }));
           },
           py::arg("idempotency_key"))
      .def("move_to_dead_letter_queue",
           [](PyQueue& q, const std::string& handle, const py::object& extra) {
             lqs::MessageAttributeMap attrs = ToAttributes(extra);
             Check(Unlocked([&] { return q.rep->MoveToDeadLetterQueue(handle, attrs); }));
           },
           py::arg("receipt_handle"), py::arg("extra_attributes") = py::none());

  py::class_<PyWorker>(m, "Worker")
      .def(py::init(&MakeWorker), py::arg("queue"), py::arg("call"), py::arg("batch"),
           py::arg("options"), py::arg("clock"), py::arg("logger"), py::arg("log_min_level"))
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
      .def("stop",
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
      .def("wait",
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

  py::class_<PyEndpoint>(m, "Endpoint")
      .def_static("start", &StartEndpoint, py::arg("broker"), py::arg("host"), py::arg("port"),
                  py::arg("account_id"), py::arg("threads"), py::arg("single_region"),
                  py::arg("max_regions"), py::arg("busy_poll_us"), py::arg("metrics_listen"),
                  py::arg("url_style"))
      .def_property_readonly("host_port", [](const PyEndpoint& e) { return e.rep->host_port(); })
      .def_property_readonly("metrics_host_port",
                             [](const PyEndpoint& e) { return e.rep->metrics_host_port(); })
      .def("shutdown", [](PyEndpoint& e) {
        Check(Unlocked([&] {
          // The endpoint's shutdown closes the database: its workers stop first,
          // as in Broker.close(), instead of failing on a closed database.
          e.workers->StopAll(std::chrono::seconds(30));
          return e.rep->Shutdown();
        }));
      });

  py::class_<PyBroker>(m, "Broker")
      .def_static("open", &Open, py::arg("path"), py::arg("create_if_missing") = true,
                  py::arg("durability") = 1, py::arg("clock") = py::none(),
                  py::arg("region") = "us-east-1", py::arg("account_id") = "123456789012",
                  py::arg("sender_id") = "AIDAIT2UOQQY3AUEKVGXU",
                  py::arg("enforce_queue_name_reuse_delay") = true,
                  py::arg("enforce_purge_interval") = true,
                  py::arg("max_inflight_per_queue") = int64_t{120000},
                  py::arg("background_maintenance") = true,
                  py::arg("maintenance_interval_ms") = int64_t{1000},
                  py::arg("block_cache_bytes") = int64_t{32} << 20,
                  py::arg("write_buffer_bytes") = int64_t{16} << 20,
                  py::arg("flush_on_close") = true,
                  py::arg("deferred_commits") = false)
      .def("close",
           [](PyBroker& b) {
             b.closed = true;
             Check(Unlocked([&] {
               b.workers->StopAll(std::chrono::seconds(30));  // workers first
               return b.rep->Close();
             }));
           })
      .def_property_readonly("closed", [](const PyBroker& b) { return b.closed; })
      .def_property_readonly("region",
                             [](const PyBroker& b) { return Text(b.rep->options().region); })
      .def_property_readonly("account_id",
                             [](const PyBroker& b) { return Text(b.rep->options().account_id); })
      .def_property_readonly("path", [](const PyBroker& b) { return Text(b.rep->options().path); })
      .def("arn_for", [](const PyBroker& b, const std::string& name) { return Text(b.rep->ArnFor(name)); },
           py::arg("name"))
      .def("create_queue",
           [](PyBroker& b, const std::string& name,
              const std::map<std::string, std::string>& attributes,
              const std::map<std::string, std::string>& tags) {
             return b.Wrap(
                 Take(Unlocked([&] { return b.rep->CreateQueue(name, attributes, tags); })));
           },
           py::arg("name"), py::arg("attributes") = std::map<std::string, std::string>{},
           py::arg("tags") = std::map<std::string, std::string>{})
      .def("get_queue",
           [](PyBroker& b, const std::string& name) {
             return b.Wrap(Take(Unlocked([&] { return b.rep->GetQueue(name); })));
           },
           py::arg("name"))
      .def("get_queue_by_arn",
           [](PyBroker& b, const std::string& arn) {
             return b.Wrap(Take(Unlocked([&] { return b.rep->GetQueueByArn(arn); })));
           },
           py::arg("arn"))
      .def("delete_queue",
           [](PyBroker& b, const std::string& name) {
             Check(Unlocked([&] { return b.rep->DeleteQueue(name); }));
           },
           py::arg("name"))
      .def("list_queues",
           [](PyBroker& b, const std::string& prefix, std::optional<int> max_results,
              std::optional<std::string> next_token) {
             auto request = MakeList(prefix, max_results, next_token);
             return FromListResult(Take(Unlocked([&] { return b.rep->ListQueues(request); })));
           },
           py::arg("prefix") = "", py::arg("max_results") = py::none(),
           py::arg("next_token") = py::none())
      .def("list_dead_letter_source_queues",
           [](PyBroker& b, const std::string& dlq_name, std::optional<int> max_results,
              std::optional<std::string> next_token) {
             auto request = MakeList("", max_results, next_token);
             return FromListResult(Take(Unlocked(
                 [&] { return b.rep->ListDeadLetterSourceQueues(dlq_name, request); })));
           },
           py::arg("dlq_name"), py::arg("max_results") = py::none(),
           py::arg("next_token") = py::none())
      .def("start_message_move_task",
           [](PyBroker& b, const std::string& source_arn,
              std::optional<std::string> destination_arn, std::optional<int> rate) {
             lqs::StartMessageMoveTaskRequest r;
             r.source_arn = source_arn;
             r.destination_arn = std::move(destination_arn);
             r.max_number_of_messages_per_second = rate;
             return Text(Take(Unlocked([&] { return b.rep->StartMessageMoveTask(r); })));
           },
           py::arg("source_arn"), py::arg("destination_arn") = py::none(),
           py::arg("max_number_of_messages_per_second") = py::none())
      .def("cancel_message_move_task",
           [](PyBroker& b, const std::string& handle) {
             return Take(Unlocked([&] { return b.rep->CancelMessageMoveTask(handle); }));
           },
           py::arg("task_handle"))
      .def("list_message_move_tasks",
           [](PyBroker& b, const std::string& source_arn, int max_results) {
             auto tasks = Take(Unlocked(
                 [&] { return b.rep->ListMessageMoveTasks(source_arn, max_results); }));
             py::list out;
             for (const auto& t : tasks) {
               py::dict d;
               d["task_handle"] = t.task_handle.empty() ? py::object(py::none())
                                                        : py::object(Text(t.task_handle));
               d["status"] = Text(t.status);
               d["source_arn"] = Text(t.source_arn);
               d["destination_arn"] = OptText(t.destination_arn);
               d["max_number_of_messages_per_second"] =
                   t.max_number_of_messages_per_second.has_value()
                       ? py::object(py::int_(*t.max_number_of_messages_per_second))
                       : py::object(py::none());
               d["approximate_number_of_messages_moved"] = t.approximate_number_of_messages_moved;
               d["approximate_number_of_messages_to_move"] =
                   t.approximate_number_of_messages_to_move;
               d["failure_reason"] = OptText(t.failure_reason);
               d["started_timestamp"] = t.started_timestamp;
               out.append(d);
             }
             return out;
           },
           py::arg("source_arn"), py::arg("max_results") = 1)
      .def("run_maintenance",
           [](PyBroker& b) { Check(Unlocked([&] { return b.rep->RunMaintenance(); })); })
      .def("compact_all", [](PyBroker& b) { Check(Unlocked([&] { return b.rep->CompactAll(); })); })
      .def("verify", [](PyBroker& b) {
        auto problems = Take(Unlocked([&] { return b.rep->Verify(); }));
        return problems;
      });
}
