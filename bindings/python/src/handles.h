// bindings/python/src/handles.h — the handles lqs._lqs hands to Python, and
// the functions that register each class on the module.
//
// A _Broker owns the lqs::Broker; a Queue keeps its Broker's memory alive
// (after close() its calls fail with lqs.Closed) and shares the broker's
// WorkerRegistry, so that close() stops the broker's workers first.

#ifndef LQS_BINDINGS_PYTHON_HANDLES_H_
#define LQS_BINDINGS_PYTHON_HANDLES_H_

#include <memory>
#include <utility>

#include <pybind11/pybind11.h>

#include "bindings/python/src/worker_registry.h"

#include "lqs/lqs.h"

namespace lqs_py {

struct PyQueue {
  std::shared_ptr<lqs::Broker> broker;
  std::shared_ptr<lqs::Queue> rep;
  std::shared_ptr<WorkerRegistry> workers;
};

struct PyBroker {
  std::shared_ptr<lqs::Broker> rep;
  bool closed = false;
  std::shared_ptr<WorkerRegistry> workers = std::make_shared<WorkerRegistry>();

  PyQueue Wrap(std::shared_ptr<lqs::Queue> q) const { return PyQueue{rep, std::move(q), workers}; }
};

// A transaction: owned (Broker.transaction()), or lent by a Worker to its
// transactional handler for the duration of one call (`lent` is cleared when
// the call returns; the worker commits it, so commit and rollback refuse).
struct PyTransaction {
  std::shared_ptr<lqs::Broker> broker;  // keeps the Broker's memory alive
  std::unique_ptr<lqs::Transaction> rep;
  bool from_worker = false;
  lqs::Transaction* lent = nullptr;

  // Raises (so: with the GIL held) when the transaction was rolled back or
  // its handler call is over.
  lqs::Transaction& Get();
  // Raises for a lent transaction: `what` is commit or rollback.
  void CheckOwned(const char* what) const;
};

// Each registers one class on module `m` (module.cc calls them all).
void BindBroker(py::module_& m);       // _Broker
void BindQueue(py::module_& m);        // Queue
void BindWorker(py::module_& m);       // Worker
void BindEndpoint(py::module_& m);     // Endpoint
void BindLocalCaller(py::module_& m);  // LocalCaller
void BindBridge(py::module_& m);       // _Bridge
// _Transaction, and _Broker's begin_transaction, get and scan (after
// BindBroker).
void BindTransaction(py::module_& m);

}  // namespace lqs_py

#endif  // LQS_BINDINGS_PYTHON_HANDLES_H_
