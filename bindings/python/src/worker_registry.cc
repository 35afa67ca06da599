// The GIL for worker callbacks and the registry of a broker's workers (see
// worker_registry.h).

#include "bindings/python/src/worker_registry.h"

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace lqs_py {
namespace {

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

}  // namespace

thread_local const WorkerState* tls_handler_of = nullptr;

WorkerGil::WorkerGil() : keep_(FirstOnForeignThread()) {
  if (keep_) {
    gil_.inc_ref();
    tls_thread_state.kind = 1;
  }
}

bool WorkerGil::FirstOnForeignThread() {
  if (tls_thread_state.kind != 0) return false;
  if (PyGILState_GetThisThreadState() == nullptr) return true;
  tls_thread_state.kind = 2;
  return false;
}

void WorkerRegistry::StopAll(std::chrono::milliseconds deadline) {
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

}  // namespace lqs_py
