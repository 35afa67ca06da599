// bindings/python/src/worker_registry.h — what lqs.Worker's C++ threads share
// with the Python side: the per-worker state its callbacks use, the GIL for
// those callbacks, and the registry of one broker's workers, which
// Broker.close() (and the endpoint's shutdown) stops before closing.
//
// Thread safety: WorkerState's py::objects are touched only with the GIL
// held; its other members and WorkerRegistry are guarded by their mutexes.

#ifndef LQS_BINDINGS_PYTHON_WORKER_REGISTRY_H_
#define LQS_BINDINGS_PYTHON_WORKER_REGISTRY_H_

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>

#include "bindings/python/src/common.h"

#include "lqs/worker.h"

namespace lqs_py {

namespace py = pybind11;

// What the C++ worker's callbacks share with the Python-side Worker object.
// The py::objects are touched only with the GIL held.
struct WorkerState {
  py::object call;        // lqs._worker's wrapper around the user's handler
  py::object logger;      // callable(level: str, line: str), or None
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

// py::gil_scoped_acquire for callbacks from the worker. A worker thread (a C++
// thread) keeps the Python thread state its first WorkerGil creates for its
// whole life (worker_registry.cc), so handlers' threading.local() data lasts
// from one message to the next. A callback may also run on a Python thread (a
// log line from pause(), say): that thread's own state is used as is.
class WorkerGil {
 public:
  WorkerGil();
  WorkerGil(const WorkerGil&) = delete;
  WorkerGil& operator=(const WorkerGil&) = delete;

 private:
  static bool FirstOnForeignThread();
  const bool keep_;  // initialized before gil_
  py::gil_scoped_acquire gil_;
};

// The worker whose handler this thread is running, if any (a handler must not
// stop or destroy its own worker: that would wait for itself).
extern thread_local const WorkerState* tls_handler_of;

struct InHandler {
  const WorkerState* prev;
  explicit InHandler(const WorkerState* s) : prev(tls_handler_of) { tls_handler_of = s; }
  ~InHandler() { tls_handler_of = prev; }
  InHandler(const InHandler&) = delete;
  InHandler& operator=(const InHandler&) = delete;
};

// The workers of one open broker, so that close() stops them first.
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

  // Marks the broker closed and stops every live worker. Call with the GIL
  // released (handlers need it to finish).
  void StopAll(std::chrono::milliseconds deadline);
};

}  // namespace lqs_py

#endif  // LQS_BINDINGS_PYTHON_WORKER_REGISTRY_H_
