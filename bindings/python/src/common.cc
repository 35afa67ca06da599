// Errors and conversions shared by the files of lqs._lqs (see common.h).

#include "bindings/python/src/common.h"

#include <map>
#include <optional>
#include <string>
#include <utility>

namespace lqs_py {

void Raise(const lqs::Status& status) {
  py::object factory = py::module_::import("lqs._errors").attr("_from_status");
  py::object exc = factory(static_cast<int>(status.code()), status.message());
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
  throw py::error_already_set();
}

py::str Text(const std::string& s) {
  PyObject* o =
      PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape");
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

}  // namespace lqs_py
