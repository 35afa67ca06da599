// lqs._lqs.LocalCaller: lqsd's request handling in this process, without
// sockets (server/local_caller.h), for lqs.client().

#include <memory>
#include <string>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings/python/src/common.h"
#include "bindings/python/src/handles.h"
#include "server/local_caller.h"

namespace lqs_py {
namespace {

struct PyLocalCaller {
  std::shared_ptr<lqs::Broker> broker;  // kept alive while the caller serves it
  std::unique_ptr<lqsd::LocalCaller> rep;
};

PyLocalCaller MakeLocalCaller(const PyBroker& broker, const std::string& account_id,
                              const std::string& endpoint_url) {
  if (broker.closed) Check(lqs::Status(lqs::ErrorCode::kClosed, "the database is closed"));
  lqsd::LocalCallerConfig config;
  config.account_id = account_id;
  config.endpoint_url = endpoint_url;
  return PyLocalCaller{broker.rep, std::make_unique<lqsd::LocalCaller>(broker.rep.get(), config)};
}

// (status, request id, x-amzn-query-error or "", body as bytes).
py::tuple Call(PyLocalCaller& caller, const std::string& action, std::string json_input) {
  lqsd::HttpResponse response =
      Unlocked([&] { return caller.rep->Call(action, std::move(json_input)); });
  std::string request_id, query_error;
  for (const auto& [name, value] : response.headers) {
    if (name == "x-amzn-RequestId") request_id = value;
    if (name == "x-amzn-query-error") query_error = value;
  }
  return py::make_tuple(response.status, request_id, query_error, py::bytes(response.body));
}

}  // namespace

void BindLocalCaller(py::module_& m) {
  py::class_<PyLocalCaller>(m, "LocalCaller")
      .def(py::init(&MakeLocalCaller), py::arg("broker"), py::arg("account_id"),
           py::arg("endpoint_url"))
      .def("call", &Call, py::arg("action"), py::arg("json_input"));
}

}  // namespace lqs_py
