// lqs.client()'s fast codec (see client_codec.h).

#include "bindings/python/src/client_codec.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <absl/strings/escaping.h>
#include <simdjson.h>

#include "server/sqs_json.h"

namespace lqs_py::client_codec {
namespace {

namespace dom = simdjson::dom;
using lqsd::action_model::Kind;
using lqsd::action_model::Member;

// The UTF-8 of `value` when it is a str without lone surrogates.
bool Utf8(PyObject* value, std::string_view* out) {
  if (!PyUnicode_Check(value)) return false;
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(value, &size);
  if (data == nullptr) {
    PyErr_Clear();  // a lone surrogate: the Python path encodes it as json does
    return false;
  }
  *out = std::string_view(data, static_cast<size_t>(size));
  return true;
}

bool AppendStr(std::string* out, PyObject* value) {
  std::string_view text;
  if (!Utf8(value, &text)) return false;
  lqsd::sqs_json::AppendString(out, text);
  return true;
}

// A list or tuple: its items (borrowed) through PySequence_Fast_ITEMS.
bool IsSequence(PyObject* value) { return PyList_Check(value) || PyTuple_Check(value); }

std::span<PyObject*> Items(PyObject* sequence) {
  return {PySequence_Fast_ITEMS(sequence), static_cast<size_t>(PySequence_Fast_GET_SIZE(sequence))};
}

// [item, ...] of a list or tuple, each item appended by `append`.
template <typename AppendItem>
bool AppendList(std::string* out, PyObject* value, AppendItem append) {
  if (!IsSequence(value)) return false;
  out->push_back('[');
  bool first = true;
  for (PyObject* item : Items(value)) {
    if (!first) out->push_back(',');
    first = false;
    if (!append(out, item)) return false;
  }
  out->push_back(']');
  return true;
}

bool AppendStrList(std::string* out, PyObject* value) { return AppendList(out, value, AppendStr); }

// A blob as _client.py's _blob_in sends it: base64 of a str's UTF-8 or of bytes.
bool AppendBlob(std::string* out, PyObject* value) {
  std::string_view data;
  if (PyBytes_Check(value)) {
    data = std::string_view(PyBytes_AS_STRING(value), static_cast<size_t>(PyBytes_GET_SIZE(value)));
  } else if (PyByteArray_Check(value)) {
    data = std::string_view(PyByteArray_AS_STRING(value),
                            static_cast<size_t>(PyByteArray_GET_SIZE(value)));
  } else if (!Utf8(value, &data)) {
    return false;
  }
  out->push_back('"');
  out->append(absl::Base64Escape(absl::string_view(data.data(), data.size())));
  out->push_back('"');
  return true;
}

// One MessageAttributeValue: a dict with DataType; blobs as base64, the
// other members str or lists of str.
bool AppendAttributeValue(std::string* out, PyObject* value) {
  if (!PyDict_Check(value)) return false;
  out->push_back('{');
  bool first = true;
  bool has_data_type = false;
  Py_ssize_t pos = 0;
  PyObject* key = nullptr;
  PyObject* member = nullptr;
  while (PyDict_Next(value, &pos, &key, &member)) {
    std::string_view name;
    if (!Utf8(key, &name)) return false;
    if (!first) out->push_back(',');
    first = false;
    lqsd::sqs_json::AppendKey(out, name);
    has_data_type = has_data_type || name == "DataType";
    bool ok = false;
    if (name == "BinaryValue") {
      ok = AppendBlob(out, member);
    } else if (name == "BinaryListValues") {
      ok = AppendList(out, member, AppendBlob);
    } else {
      ok = PyUnicode_Check(member) ? AppendStr(out, member) : AppendStrList(out, member);
    }
    if (!ok) return false;
  }
  out->push_back('}');
  return has_data_type;
}

// {str: value} where each value is appended by `append`.
template <typename AppendValue>
bool AppendMap(std::string* out, PyObject* value, AppendValue append) {
  if (!PyDict_Check(value)) return false;
  out->push_back('{');
  bool first = true;
  Py_ssize_t pos = 0;
  PyObject* key = nullptr;
  PyObject* item = nullptr;
  while (PyDict_Next(value, &pos, &key, &item)) {
    if (!first) out->push_back(',');
    first = false;
    if (!AppendStr(out, key)) return false;
    out->push_back(':');
    if (!append(out, item)) return false;
  }
  out->push_back('}');
  return true;
}

bool AppendObject(std::string* out, std::span<const Member> members, PyObject* params);

bool AppendMember(std::string* out, const Member& member, PyObject* value) {
  switch (member.kind) {
    case Kind::kString:
      return AppendStr(out, value);
    case Kind::kInteger: {
      if (!PyLong_Check(value) || PyBool_Check(value)) return false;
      int overflow = 0;
      const long long n = PyLong_AsLongLongAndOverflow(value, &overflow);
      if (overflow != 0 || (n == -1 && PyErr_Occurred() != nullptr)) {
        PyErr_Clear();
        return false;
      }
      out->append(std::to_string(n));
      return true;
    }
    case Kind::kStringList:
      return AppendStrList(out, value);
    case Kind::kStringMap:
      return AppendMap(out, value, AppendStr);
    case Kind::kMessageAttributeMap:
      // _client.py encodes the blobs of these two maps only.
      if (member.json_name != "MessageAttributes" &&
          member.json_name != "MessageSystemAttributes") {
        return false;
      }
      return AppendMap(out, value, AppendAttributeValue);
    case Kind::kEntryList: {
      if (member.json_name != "Entries") return false;
      return AppendList(out, value, [&member](std::string* o, PyObject* entry) {
        return AppendObject(o, member.entry, entry);
      });
    }
  }
  return false;
}

// `params` as the object of `members`: each of its keys one of them, each
// required one present.
bool AppendObject(std::string* out, std::span<const Member> members, PyObject* params) {
  if (!PyDict_Check(params)) return false;
  size_t required_seen = 0;
  out->push_back('{');
  bool first = true;
  Py_ssize_t pos = 0;
  PyObject* key = nullptr;
  PyObject* value = nullptr;
  while (PyDict_Next(params, &pos, &key, &value)) {
    std::string_view name;
    if (!Utf8(key, &name)) return false;
    const Member* member = lqsd::action_model::FindMember(members, name, /*by_query_name=*/false);
    if (member == nullptr) return false;
    if (member->required) ++required_seen;
    if (!first) out->push_back(',');
    first = false;
    lqsd::sqs_json::AppendKey(out, member->json_name);
    if (!AppendMember(out, *member, value)) return false;
  }
  out->push_back('}');
  size_t required = 0;
  for (const Member& m : members) required += m.required ? 1 : 0;
  return required_seen == required;
}

// ---- Output ---------------------------------------------------------------------------

dom::parser& ThreadParser() {
  thread_local dom::parser parser;
  return parser;
}

py::str Str(std::string_view text) {
  PyObject* s = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), nullptr);
  if (s == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s);
}

py::object ToPython(dom::element value) {
  switch (value.type()) {
    case dom::element_type::OBJECT: {
      py::dict out;
      // (A copy: value_unsafe() refers into the temporary result.)
      const dom::object object = value.get_object().value_unsafe();
      for (const dom::key_value_pair field : object) {
        out[Str(field.key)] = ToPython(field.value);
      }
      return out;
    }
    case dom::element_type::ARRAY: {
      py::list out;
      const dom::array items = value.get_array().value_unsafe();
      for (const dom::element item : items) out.append(ToPython(item));
      return out;
    }
    case dom::element_type::STRING:
      return Str(value.get_string().value_unsafe());
    case dom::element_type::INT64:
      return py::int_(value.get_int64().value_unsafe());
    case dom::element_type::UINT64:
      return py::int_(value.get_uint64().value_unsafe());
    case dom::element_type::DOUBLE:
      return py::float_(value.get_double().value_unsafe());
    case dom::element_type::BOOL:
      return py::bool_(value.get_bool().value_unsafe());
    case dom::element_type::NULL_VALUE:
      return py::none();
  }
  return py::none();
}

}  // namespace

std::optional<std::string> EncodeInput(const lqsd::action_model::Action& action,
                                       py::handle params) {
  std::string out;
  out.reserve(256);
  if (!AppendObject(&out, action.input, params.ptr())) return std::nullopt;
  return out;
}

py::object DecodeOutput(std::string_view json) {
  dom::document document;
  dom::element root;
  if (ThreadParser().parse_into_document(document, json.data(), json.size()).get(root) ==
      simdjson::SUCCESS) {
    return ToPython(root);
  }
  // Not what simdjson reads (a number beyond 64 bits, say): as json does.
  return py::module_::import("json").attr("loads")(py::bytes(json.data(), json.size()));
}

}  // namespace lqs_py::client_codec
