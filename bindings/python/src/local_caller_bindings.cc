// lqs._lqs.LocalCaller: lqsd's request handling in this process, without
// sockets (server/local_caller.h), for lqs.client(), with its fast codec
// (client_codec.h) for the call's keyword arguments and the answer; and
// lqs._lqs.action_model(): lqsd's description of the SQS actions'
// input members (server/action_model.h), for lqs.client()'s parameter checks.

#include <cstddef>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings/python/src/client_codec.h"
#include "bindings/python/src/common.h"
#include "bindings/python/src/handles.h"
#include "server/action_model.h"
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

// (status, request id, x-amzn-query-error or "", `body`).
py::tuple Answer(const lqsd::HttpResponse& response, py::object body) {
  std::string request_id, query_error;
  for (const auto& [name, value] : response.headers) {
    if (name == "x-amzn-RequestId") request_id = value;
    if (name == "x-amzn-query-error") query_error = value;
  }
  return py::make_tuple(response.status, request_id, query_error, std::move(body));
}

// (status, request id, x-amzn-query-error or "", body as bytes).
py::tuple Call(PyLocalCaller& caller, const std::string& action, std::string json_input) {
  lqsd::HttpResponse response =
      Unlocked([&] { return caller.rep->Call(action, std::move(json_input)); });
  return Answer(response, py::bytes(response.body));
}

// The same for `params`, the call's keyword arguments, with the answer's
// body as Python values ({} when empty); None, having sent nothing, when
// client_codec::EncodeInput declines them (lqs.client() then checks and
// encodes them in Python).
py::object CallWithParams(PyLocalCaller& caller, const std::string& action, py::dict params) {
  const lqsd::action_model::Action* row = lqsd::action_model::Find(action);
  if (row == nullptr) return py::none();
  std::optional<std::string> json_input = client_codec::EncodeInput(*row, params);
  if (!json_input.has_value()) return py::none();
  lqsd::HttpResponse response =
      Unlocked([&] { return caller.rep->Call(action, std::move(*json_input)); });
  return Answer(response,
                response.body.empty() ? py::dict() : client_codec::DecodeOutput(response.body));
}

// The kinds' names in Python, in the order of action_model::Kind.
constexpr const char* kKindNames[] = {
    "string", "integer", "string_list", "string_map", "message_attribute_map", "entry_list",
};
static_assert(static_cast<size_t>(lqsd::action_model::Kind::kEntryList) + 1 ==
              std::size(kKindNames));

// [(json name, kind name, required, an entry's members in the same form)].
py::list Members(std::span<const lqsd::action_model::Member> members) {
  py::list out;
  for (const lqsd::action_model::Member& m : members) {
    out.append(py::make_tuple(py::str(m.json_name.data(), m.json_name.size()),
                              kKindNames[static_cast<size_t>(m.kind)], m.required,
                              Members(m.entry)));
  }
  return out;
}

// {action name: its input members}, in the model's order.
py::dict ActionModel() {
  py::dict out;
  for (const lqsd::action_model::Action& action : lqsd::action_model::All()) {
    out[py::str(action.name.data(), action.name.size())] = Members(action.input);
  }
  return out;
}

}  // namespace

void BindLocalCaller(py::module_& m) {
  py::class_<PyLocalCaller>(m, "LocalCaller")
      .def(py::init(&MakeLocalCaller), py::arg("broker"), py::arg("account_id"),
           py::arg("endpoint_url"))
      .def("call", &Call, py::arg("action"), py::arg("json_input"))
      .def("call_with_params", &CallWithParams, py::arg("action"), py::arg("params"));
  m.def("action_model", &ActionModel,
        "{action: [(member, kind, required, entry members)]}, lqsd's model of the SQS "
        "actions' input (server/action_model.h).");
}

}  // namespace lqs_py
