// lqs._lqs._Bridge: lqs::Bridge (lqs/bridge.h) on an open _Broker. The
// bridge runs on its own C++ threads, which call into Python only for its
// log lines (taking the GIL, rarely: a line per online/offline transition or
// stuck message); every call into it releases the GIL. lqs.Bridge
// (lqs/__init__.py) wraps it.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings/python/src/common.h"
#include "bindings/python/src/handles.h"
#include "wire/bridge_stats_json.h"

#include "lqs/bridge.h"

namespace lqs_py {
namespace {

// The Python callable that takes the bridge's log lines. Shared by the
// bridge's log function, which may outlive the PyBridge by a moment (the
// bridge is destroyed with the GIL released), so it drops its reference
// with the GIL taken, or leaks it once Python is finalizing.
struct BridgeLog {
  py::object call;  // callable(line: str)

  explicit BridgeLog(py::object c) : call(std::move(c)) {}
  BridgeLog(const BridgeLog&) = delete;
  BridgeLog& operator=(const BridgeLog&) = delete;
  ~BridgeLog() {
    if (PythonGone()) {
      call.release();
      return;
    }
    py::gil_scoped_acquire gil;
    call = py::object();
  }

  // From a bridge thread. A failing callable loses its line, nothing else.
  void Line(std::string_view line) const {
    if (PythonGone()) return;
    py::gil_scoped_acquire gil;
    try {
      call(py::str(line.data(), line.size()));
    } catch (const std::exception&) {
      PyErr_Clear();
    }
  }
};

struct PyBridge {
  std::shared_ptr<lqs::Broker> broker;  // the bridge borrows it: keep it alive
  std::unique_ptr<lqs::Bridge> rep;

  PyBridge() = default;
  PyBridge(const PyBridge&) = delete;
  PyBridge& operator=(const PyBridge&) = delete;
  ~PyBridge() {
    py::gil_scoped_release release;
    rep.reset();  // stops and joins
  }
};

}  // namespace

void BindBridge(py::module_& m) {
  py::class_<PyBridge>(m, "_Bridge")
      .def_static(
          "start",
          [](PyBroker& b, const std::string& direction, const std::string& local_queue,
             const std::string& remote_queue_url, const std::string& region,
             const std::optional<std::string>& access_key_id,
             const std::optional<std::string>& secret_access_key, const std::string& session_token,
             const std::string& profile, const std::string& ca_file, int request_timeout_seconds,
             int64_t backoff_base_ms, int64_t backoff_max_ms, double backoff_jitter,
             int max_batches_in_flight, int lease_seconds, int wait_time_seconds,
             int64_t dedup_window_seconds, bool once, int once_attempts, py::object log) {
            if (b.closed || !b.rep) Raise(lqs::Status(lqs::ErrorCode::kClosed, "closed"));
            if (direction != "forward" && direction != "pull") {
              throw py::value_error("direction must be \"forward\" or \"pull\"");
            }
            lqs::BridgeOptions o;
            o.direction = direction == "forward" ? lqs::BridgeDirection::kForward
                                                 : lqs::BridgeDirection::kPull;
            o.local_queue = local_queue;
            o.remote_queue_url = remote_queue_url;
            o.region = region;
            if (access_key_id || secret_access_key) {
              o.credentials =
                  lqs::RemoteCredentials{access_key_id.value_or(""), secret_access_key.value_or(""),
                                         session_token, "lqs.Bridge"};
            }
            o.profile = profile;
            o.ca_file = ca_file;
            o.request_timeout_seconds = request_timeout_seconds;
            o.backoff_base_ms = backoff_base_ms;
            o.backoff_max_ms = backoff_max_ms;
            o.backoff_jitter = backoff_jitter;
            o.max_batches_in_flight = max_batches_in_flight;
            o.lease_seconds = lease_seconds;
            o.wait_time_seconds = wait_time_seconds;
            o.dedup_window_seconds = dedup_window_seconds;
            o.once = once;
            o.once_attempts = once_attempts;
            if (!log.is_none()) {
              o.log = [sink = std::make_shared<BridgeLog>(std::move(log))](std::string_view line) {
                sink->Line(line);
              };
            }
            auto bridge = Unlocked([&] { return lqs::Bridge::Start(b.rep.get(), std::move(o)); });
            auto out = std::make_unique<PyBridge>();
            out->broker = b.rep;
            out->rep = Take(std::move(bridge));
            return out;
          },
          py::arg("broker"), py::arg("direction"), py::arg("local_queue"),
          py::arg("remote_queue_url"), py::arg("region"), py::arg("access_key_id"),
          py::arg("secret_access_key"), py::arg("session_token"), py::arg("profile"),
          py::arg("ca_file"), py::arg("request_timeout_seconds"), py::arg("backoff_base_ms"),
          py::arg("backoff_max_ms"), py::arg("backoff_jitter"), py::arg("max_batches_in_flight"),
          py::arg("lease_seconds"), py::arg("wait_time_seconds"), py::arg("dedup_window_seconds"),
          py::arg("once"), py::arg("once_attempts"), py::arg("log"))
      .def("stop", [](PyBridge& self) { Unlocked([&] { self.rep->Stop(); }); })
      .def("wait", [](PyBridge& self) { Check(Unlocked([&] { return self.rep->Wait(); })); })
      // The counters as JSON text (wire/bridge_stats_json.h, as `lqs forward
      // --json` prints them); lqs.Bridge.stats() makes a dict of it.
      .def("stats_json", [](PyBridge& self) {
        lqs::BridgeStats s = Unlocked([&] { return self.rep->Stats(); });
        return lqs::wire::BridgeStatsJson(s).dump();
      });
}

}  // namespace lqs_py
