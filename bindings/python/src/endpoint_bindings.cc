// lqs._lqs.Endpoint: lqsd's SQS endpoint in this process (lqs.Server).

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings/python/src/common.h"
#include "bindings/python/src/handles.h"
#include "server/endpoint.h"
#include "server/listen_address.h"
#include "server/url_style.h"

#include "lqs/lqs.h"

namespace lqs_py {
namespace {

struct PyEndpoint {
  std::shared_ptr<lqs::Broker> broker;      // kept alive while the endpoint serves it
  std::shared_ptr<WorkerRegistry> workers;  // the broker's: stopped before it closes
  std::unique_ptr<lqsd::Endpoint> rep;
};

PyEndpoint StartEndpoint(const PyBroker& broker, const std::string& host, uint16_t port,
                         const std::string& account_id, int threads, bool single_region,
                         int max_regions, std::optional<int> busy_poll_us,
                         const std::optional<std::string>& metrics_listen,
                         const std::string& url_style, const py::object& manual_clock) {
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
  if (!manual_clock.is_none()) {
    // The broker's own clock (lqs.Server passes the one it opened it with).
    config.manual_clock = py::cast<std::shared_ptr<lqs::ManualClock>>(manual_clock);
  }
  std::string error;
  PyEndpoint out{broker.rep, broker.workers, nullptr};
  out.rep = Unlocked([&] { return lqsd::Endpoint::Start(broker.rep.get(), config, &error); });
  if (out.rep == nullptr) throw py::value_error("cannot listen on " + host + ": " + error);
  return out;
}

}  // namespace

void BindEndpoint(py::module_& m) {
  py::class_<PyEndpoint>(m, "Endpoint")
      .def_static("start", &StartEndpoint, py::arg("broker"), py::arg("host"), py::arg("port"),
                  py::arg("account_id"), py::arg("threads"), py::arg("single_region"),
                  py::arg("max_regions"), py::arg("busy_poll_us"), py::arg("metrics_listen"),
                  py::arg("url_style"), py::arg("manual_clock"))
      .def_property_readonly("host_port", [](const PyEndpoint& e) { return e.rep->host_port(); })
      .def_property_readonly("metrics_host_port",
                             [](const PyEndpoint& e) { return e.rep->metrics_host_port(); })
      .def("shutdown", [](PyEndpoint& e) {
        Check(Unlocked([&] {
          // The endpoint's shutdown closes the broker: its workers stop first,
          // as in Broker.close(), instead of failing on a closed broker.
          e.workers->StopAll(std::chrono::seconds(30));
          return e.rep->Shutdown();
        }));
      });
}

}  // namespace lqs_py
