// bindings/python/src/common.h — what every file of lqs._lqs shares: turning
// a Status into the Python exception lqs._errors picks for its code, releasing
// the GIL around C++ calls, and the value conversions (str with surrogateescape,
// message attributes as {name: (data_type, str | bytes)}).
//
// Thread safety: every function here needs the GIL except inside Unlocked(),
// and PythonGone().

#ifndef LQS_BINDINGS_PYTHON_COMMON_H_
#define LQS_BINDINGS_PYTHON_COMMON_H_

#include <map>
#include <optional>
#include <string>
#include <utility>

#include <pybind11/pybind11.h>

#include "lqs/lqs.h"

namespace lqs_py {

namespace py = pybind11;

// ---- Errors ------------------------------------------------------------------------

// Raises the lqs.Error subclass of status.code() with status.message().
// REQUIRES: !status.ok()
[[noreturn]] void Raise(const lqs::Status& status);

inline void Check(const lqs::Status& status) {
  if (!status.ok()) Raise(status);
}

template <typename T>
T Take(lqs::StatusOr<T>&& result) {
  if (!result.ok()) Raise(result.status());
  return std::move(result).value();
}

// Runs fn() with the GIL released.
template <typename Fn>
auto Unlocked(Fn&& fn) {
  py::gil_scoped_release release;
  return fn();
}

// True once the interpreter is finalizing (callable without the GIL): C++
// threads (a worker's, a bridge's) must not try to take the GIL then.
inline bool PythonGone() {
#if PY_VERSION_HEX >= 0x030D0000
  return !Py_IsInitialized() || Py_IsFinalizing();
#else
  return !Py_IsInitialized() || _Py_IsFinalizing();
#endif
}

// A binding (for py::class_<Handle>::def) of a Status-returning method of the
// C++ object that a Handle holds in `rep`: it calls the method with the GIL
// released and raises on an error. For example
// .def("purge", CheckedCall<PyQueue>(&lqs::Queue::PurgeQueue)).
template <typename Handle, typename Class, typename... Args>
auto CheckedCall(lqs::Status (Class::*method)(Args...)) {
  return [method](Handle& h, Args... args) {
    Check(Unlocked([&] { return ((*h.rep).*method)(args...); }));
  };
}

// The same for a StatusOr-returning method: the binding returns
// convert(value), or the value itself.
template <typename Handle, typename Class, typename T, typename... Args, typename Convert>
auto TakenCall(lqs::StatusOr<T> (Class::*method)(Args...), Convert convert) {
  return [method, convert](Handle& h, Args... args) {
    return convert(Take(Unlocked([&] { return ((*h.rep).*method)(args...); })));
  };
}
template <typename Handle, typename Class, typename T, typename... Args>
auto TakenCall(lqs::StatusOr<T> (Class::*method)(Args...)) {
  return TakenCall<Handle>(method, [](T value) { return value; });
}

// ---- Conversions -------------------------------------------------------------------

// UTF-8 (invalid bytes as surrogate escapes) -> str.
py::str Text(const std::string& s);
// None when absent.
py::object OptText(const std::optional<std::string>& s);
// {name: (data_type, str | bytes)} (or None) -> MessageAttributeMap
lqs::MessageAttributeMap ToAttributes(const py::object& obj);
// MessageAttributeMap -> {name: (data_type, str | bytes)}
py::dict FromAttributes(const lqs::MessageAttributeMap& attrs);
py::dict FromMap(const std::map<std::string, std::string>& m);
// SendMessageResult -> {message_id, md5_of_message_body, ...}
py::dict FromSendResult(const lqs::SendMessageResult& r);
// A SendMessageRequest from send_message's arguments.
lqs::SendMessageRequest MakeSend(std::string body, std::optional<int> delay_seconds,
                                 const py::object& message_attributes,
                                 const py::object& message_system_attributes,
                                 std::optional<std::string> message_group_id,
                                 std::optional<std::string> message_deduplication_id);

// Defines send_message on `cls` with `send`, whose parameters are `leading`
// (named before the body: Transaction's queue), then the body and the five
// optional members MakeSend takes, each default None: one Python signature
// for every send_message.
template <typename Class, typename Send, typename... Leading>
Class& DefSendMessage(Class& cls, Send&& send, Leading... leading) {
  return cls.def("send_message", std::forward<Send>(send), leading..., py::arg("body"),
                 py::arg("delay_seconds") = py::none(), py::arg("message_attributes") = py::none(),
                 py::arg("message_system_attributes") = py::none(),
                 py::arg("message_group_id") = py::none(),
                 py::arg("message_deduplication_id") = py::none());
}

}  // namespace lqs_py

#endif  // LQS_BINDINGS_PYTHON_COMMON_H_
