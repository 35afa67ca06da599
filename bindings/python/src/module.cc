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
//     stops every worker of the broker first. Worker threads are C++ threads:
//     they take the GIL only to call the Python handler or logger and convert
//     values, and a Python exception never leaves those calls (it becomes a
//     HandlerResult). Every call into the worker releases the GIL.
//
// Files: this one (the module, its functions, lqs.limits, ManualClock), broker_bindings.cc
// (_Broker, wrapped by lqs.Broker), queue_bindings.cc (Queue),
// worker_bindings.cc and worker_registry.{h,cc} (Worker), endpoint_bindings.cc
// (Endpoint, for lqs.Server); common.{h,cc} (errors, the GIL, conversions) and
// handles.h (the broker and queue handles) are shared.

#include <cstdint>
#include <memory>
#include <string>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings/python/src/common.h"
#include "bindings/python/src/handles.h"
#include "server/error_map.h"

#include "lqs/limits.h"
#include "lqs/lqs.h"

namespace py = pybind11;
using lqs_py::Unlocked;

namespace {

// The HTTP status is lqsd's (server/error_map.h): lqs.Error.http_status and the
// boto3-shaped client answer as the endpoint would.
py::list ErrorTable() {
  py::list out;
  for (int c : {0,  1,  2,  3,  4,  5,  6,   7,   8,   9,   10,  11,  12, 13,
                14, 15, 16, 17, 18, 19, 100, 101, 102, 103, 104, 105, 106}) {
    auto code = static_cast<lqs::ErrorCode>(c);
    const lqs::ErrorInfo& info = lqs::ErrorInfoFor(code);
    out.append(py::make_tuple(c, std::string(lqs::ErrorCodeName(code)), std::string(info.shape),
                              std::string(info.query_code), lqsd::HttpStatusFor(code),
                              info.sender_fault));
  }
  return out;
}

// lqs.limits: SQS's limits (lqs/limits.h) as module constants, named as in
// C++ without the k prefix, in upper case.
void BindLimits(py::module_& m) {
  namespace l = lqs::limits;
  py::module_ limits = m.def_submodule("limits", "SQS's limits and defaults (lqs/limits.h).");
  const auto set = [&limits](const char* name, int64_t value) { limits.attr(name) = value; };
  set("MAX_VISIBILITY_TIMEOUT_SECONDS", l::kMaxVisibilityTimeoutSeconds);
  set("DEFAULT_VISIBILITY_TIMEOUT_SECONDS", l::kDefaultVisibilityTimeoutSeconds);
  set("MAX_LEASE_BUDGET_MS", l::kMaxLeaseBudgetMs);
  set("MAX_WAIT_TIME_SECONDS", l::kMaxWaitTimeSeconds);
  set("MAX_RECEIVE_MESSAGES", l::kMaxReceiveMessages);
  set("MAX_INFLIGHT_MESSAGES", l::kMaxInflightMessages);
  set("MAX_DELAY_SECONDS", l::kMaxDelaySeconds);
  set("MIN_RETENTION_SECONDS", l::kMinRetentionSeconds);
  set("MAX_RETENTION_SECONDS", l::kMaxRetentionSeconds);
  set("DEFAULT_RETENTION_SECONDS", l::kDefaultRetentionSeconds);
  set("MIN_MAXIMUM_MESSAGE_SIZE", l::kMinMaximumMessageSize);
  set("MAX_MESSAGE_SIZE", l::kMaxMessageSize);
  set("DEFAULT_MAXIMUM_MESSAGE_SIZE", l::kDefaultMaximumMessageSize);
  set("MAX_BATCH_ENTRIES", l::kMaxBatchEntries);
  set("MAX_BATCH_BYTES", l::kMaxBatchBytes);
  set("MAX_BATCH_ENTRY_ID_LENGTH", static_cast<int64_t>(l::kMaxBatchEntryIdLength));
  set("MAX_MESSAGE_ATTRIBUTES", l::kMaxMessageAttributes);
  set("MAX_ATTRIBUTE_NAME_LENGTH", static_cast<int64_t>(l::kMaxAttributeNameLength));
  set("MAX_GROUP_OR_DEDUP_ID_LENGTH", static_cast<int64_t>(l::kMaxGroupOrDedupIdLength));
  set("DEDUPLICATION_WINDOW_MS", l::kDeduplicationWindowMs);
  set("MAX_QUEUE_NAME_LENGTH", static_cast<int64_t>(l::kMaxQueueNameLength));
  set("MIN_MAX_RECEIVE_COUNT", l::kMinMaxReceiveCount);
  set("MAX_MAX_RECEIVE_COUNT", l::kMaxMaxReceiveCount);
  set("MAX_LIST_QUEUES_RESULTS", l::kMaxListQueuesResults);
  set("MAX_MOVE_TASK_RESULTS", l::kMaxMoveTaskResults);
  set("MAX_TAGS", static_cast<int64_t>(l::kMaxTags));
  set("MAX_IDEMPOTENCY_KEY_BYTES", static_cast<int64_t>(l::kMaxIdempotencyKeyBytes));
  set("MAX_INBOX_TTL_SECONDS", l::kMaxInboxTtlSeconds);
  set("DEFAULT_INBOX_TTL_SECONDS", l::kDefaultInboxTtlSeconds);
}

}  // namespace

PYBIND11_MODULE(_lqs, m) {
  m.doc() = "Private pybind11 layer of the lqs package; use `import lqs`.";
  m.attr("__version__") = lqs::Version();
  m.def("version", [] { return std::string(lqs::Version()); });
  m.def("error_table", &ErrorTable,
        "[(code, name, shape, query_code, http_status, sender_fault)] for every ErrorCode.");

  py::class_<lqs::ManualClock, std::shared_ptr<lqs::ManualClock>>(m, "ManualClock")
      .def(py::init([](int64_t start_ms, bool running) {
             return running ? lqs::ManualClock::Running(start_ms)
                            : std::make_shared<lqs::ManualClock>(start_ms);
           }),
           py::arg("start_ms") = int64_t{1767225600000}, py::kw_only(), py::arg("running") = false)
      .def_property_readonly("running", &lqs::ManualClock::running)
      .def("now_millis", &lqs::ManualClock::NowMillis)
      .def(
          "advance_millis",
          [](lqs::ManualClock& c, int64_t ms) {
            if (ms < 0) throw py::value_error("ms must be >= 0");
            Unlocked([&] { c.AdvanceMillis(ms); });
          },
          py::arg("ms"))
      .def(
          "advance_seconds",
          [](lqs::ManualClock& c, double s) {
            if (s < 0) throw py::value_error("seconds must be >= 0");
            Unlocked([&] { c.AdvanceMillis(static_cast<int64_t>(s * 1000.0 + 0.5)); });
          },
          py::arg("seconds"))
      .def(
          "set_millis", [](lqs::ManualClock& c, int64_t ms) { Unlocked([&] { c.SetMillis(ms); }); },
          py::arg("ms"));

  BindLimits(m);
  lqs_py::BindQueue(m);
  lqs_py::BindWorker(m);
  lqs_py::BindEndpoint(m);
  lqs_py::BindLocalCaller(m);
  lqs_py::BindBridge(m);
  lqs_py::BindBroker(m);
  lqs_py::BindTransaction(m);
}
