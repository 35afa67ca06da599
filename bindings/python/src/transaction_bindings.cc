// lqs._lqs._Transaction and the broker's table reads (lqs::Transaction,
// Broker::Get / Scan). lqs.Transaction wraps it as a context manager.
//
// Keys and values are taken as bytes or str (UTF-8, pybind11's conversion to
// std::string) and returned as bytes. Every call that reaches the database
// releases the GIL.

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings/python/src/common.h"
#include "bindings/python/src/handles.h"

#include "lqs/lqs.h"

namespace lqs_py {
namespace {

py::object OptBytes(const std::optional<std::string>& v) {
  return v ? py::object(py::bytes(*v)) : py::object(py::none());
}

py::list Entries(const std::vector<lqs::TableEntry>& entries) {
  py::list out;
  for (const auto& e : entries) out.append(py::make_tuple(py::bytes(e.key), py::bytes(e.value)));
  return out;
}

}  // namespace

lqs::Transaction& PyTransaction::Get() {
  if (from_worker) {
    if (lent == nullptr) {
      Check(lqs::Status(lqs::ErrorCode::kInvalidParameterValue,
                        "The worker's transaction is usable only during the handler call."));
    }
    return *lent;
  }
  if (!rep) {
    Check(lqs::Status(lqs::ErrorCode::kInvalidParameterValue,
                      "The transaction was rolled back; begin a new one."));
  }
  return *rep;
}

void PyTransaction::CheckOwned(const char* what) const {
  if (!from_worker) return;
  Check(lqs::Status(lqs::ErrorCode::kInvalidParameterValue,
                    std::string("The worker commits its handler's transaction with the "
                                "message's delete; the handler cannot ") +
                        what + " it (raise to roll it back)."));
}

void BindTransaction(py::module_& m) {
  py::class_<PyTransaction> tx_class(m, "_Transaction");
  tx_class
      .def(
          "put",
          [](PyTransaction& t, const std::string& table, const std::string& key,
             const std::string& value) {
            lqs::Transaction& tx = t.Get();  // raises with the GIL held
            Check(Unlocked([&] { return tx.Put(table, key, value); }));
          },
          py::arg("table"), py::arg("key"), py::arg("value"))
      .def(
          "get",
          [](PyTransaction& t, const std::string& table, const std::string& key) {
            lqs::Transaction& tx = t.Get();  // raises with the GIL held
            return OptBytes(Take(Unlocked([&] { return tx.Get(table, key); })));
          },
          py::arg("table"), py::arg("key"))
      .def(
          "delete",
          [](PyTransaction& t, const std::string& table, const std::string& key) {
            lqs::Transaction& tx = t.Get();  // raises with the GIL held
            Check(Unlocked([&] { return tx.Delete(table, key); }));
          },
          py::arg("table"), py::arg("key"))
      .def(
          "scan",
          [](PyTransaction& t, const std::string& table, const std::string& prefix) {
            lqs::Transaction& tx = t.Get();  // raises with the GIL held
            return Entries(Take(Unlocked([&] { return tx.Scan(table, prefix); })));
          },
          py::arg("table"), py::arg("prefix") = std::string());
  DefSendMessage(
      tx_class,
      [](PyTransaction& t, const std::string& queue, std::string body,
         std::optional<int> delay_seconds, const py::object& attrs, const py::object& sys_attrs,
         std::optional<std::string> group, std::optional<std::string> dedup) {
        auto request = MakeSend(std::move(body), delay_seconds, attrs, sys_attrs, std::move(group),
                                std::move(dedup));
        lqs::Transaction& tx = t.Get();  // raises with the GIL held
        Check(Unlocked([&] { return tx.SendMessage(queue, request); }));
      },
      py::arg("queue"));
  tx_class
      .def(
          "delete_message",
          [](PyTransaction& t, const std::string& queue, const std::string& handle) {
            lqs::Transaction& tx = t.Get();  // raises with the GIL held
            Check(Unlocked([&] { return tx.DeleteMessage(queue, handle); }));
          },
          py::arg("queue"), py::arg("receipt_handle"))
      .def(
          "change_message_visibility",
          [](PyTransaction& t, const std::string& queue, const std::string& handle, int seconds) {
            lqs::Transaction& tx = t.Get();  // raises with the GIL held
            Check(Unlocked([&] { return tx.ChangeMessageVisibility(queue, handle, seconds); }));
          },
          py::arg("queue"), py::arg("receipt_handle"), py::arg("visibility_timeout"))
      .def("commit",
           [](PyTransaction& t) {
             t.CheckOwned("commit");
             lqs::Transaction& tx = t.Get();  // raises with the GIL held
             auto done = Take(Unlocked([&] { return tx.Commit(); }));
             py::list sent;
             for (const auto& r : done.sent) sent.append(FromSendResult(r));
             return sent;
           })
      .def("rollback", [](PyTransaction& t) {
        t.CheckOwned("roll back");
        t.rep.reset();
      });

  // The broker's side, on the _Broker class that BindBroker registered.
  auto broker = py::reinterpret_borrow<py::class_<PyBroker>>(m.attr("_Broker"));
  broker
      .def("begin_transaction",
           [](PyBroker& b) {
             if (b.closed) Check(lqs::Status(lqs::ErrorCode::kClosed, "the database is closed"));
             PyTransaction t;
             t.broker = b.rep;
             t.rep = b.rep->BeginTransaction();
             return t;
           })
      .def(
          "get",
          [](PyBroker& b, const std::string& table, const std::string& key) {
            return OptBytes(Take(Unlocked([&] { return b.rep->Get(table, key); })));
          },
          py::arg("table"), py::arg("key"))
      .def(
          "scan",
          [](PyBroker& b, const std::string& table, const std::string& prefix) {
            return Entries(Take(Unlocked([&] { return b.rep->Scan(table, prefix); })));
          },
          py::arg("table"), py::arg("prefix") = std::string());
}

}  // namespace lqs_py
