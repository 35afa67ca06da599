// lqs._lqs.Queue: one queue's calls (lqs::Queue), with plain Python values.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings/python/src/common.h"
#include "bindings/python/src/handles.h"

#include "lqs/lqs.h"

namespace lqs_py {
namespace {

py::list FromFailed(const std::vector<lqs::BatchResultError>& failed) {
  py::list out;
  for (const auto& f : failed) {
    py::dict d;
    d["id"] = Text(f.id);
    d["sender_fault"] = f.sender_fault;
    d["code"] = Text(f.code);
    d["message"] = Text(f.message);
    out.append(d);
  }
  return out;
}

py::dict FromBatch(const lqs::BatchResult& r) {
  py::dict d;
  py::list ok;
  for (const auto& id : r.successful) ok.append(Text(id));
  d["successful"] = ok;
  d["failed"] = FromFailed(r.failed);
  return d;
}

}  // namespace

void BindQueue(py::module_& m) {
  py::class_<PyQueue> queue(m, "Queue");
  queue.def_property_readonly("name", [](const PyQueue& q) { return Text(q.rep->name()); })
      .def_property_readonly("arn", [](const PyQueue& q) { return Text(q.rep->arn()); })
      .def_property_readonly("is_fifo", [](const PyQueue& q) { return q.rep->is_fifo(); });
  DefSendMessage(queue, [](PyQueue& q, std::string body, std::optional<int> delay_seconds,
                           const py::object& attrs, const py::object& sys_attrs,
                           std::optional<std::string> group, std::optional<std::string> dedup) {
    auto request = MakeSend(std::move(body), delay_seconds, attrs, sys_attrs, std::move(group),
                            std::move(dedup));
    auto result = Unlocked([&] { return q.rep->SendMessage(request); });
    return FromSendResult(Take(std::move(result)));
  });
  queue
      .def(
          "send_message_batch",
          [](PyQueue& q, const py::list& entries) {
            // entries: [(id, body, delay, attrs, sys_attrs, group, dedup)]
            std::vector<lqs::SendMessageBatchEntry> batch;
            for (auto e : entries) {
              auto t = py::cast<py::tuple>(e);
              if (t.size() != 7) throw py::value_error("batch entry must have 7 fields");
              lqs::SendMessageBatchEntry entry;
              entry.id = py::cast<std::string>(t[0]);
              entry.request =
                  MakeSend(py::cast<std::string>(t[1]), py::cast<std::optional<int>>(t[2]), t[3],
                           t[4], py::cast<std::optional<std::string>>(t[5]),
                           py::cast<std::optional<std::string>>(t[6]));
              batch.push_back(std::move(entry));
            }
            auto result = Take(Unlocked([&] { return q.rep->SendMessageBatch(batch); }));
            py::dict d;
            py::list ok;
            for (const auto& s : result.successful) {
              ok.append(py::make_tuple(Text(s.id), FromSendResult(s.result)));
            }
            d["successful"] = ok;
            d["failed"] = FromFailed(result.failed);
            return d;
          },
          py::arg("entries"))
      .def(
          "receive_message",
          [](PyQueue& q, int max_number_of_messages, std::optional<int> visibility_timeout,
             std::optional<int> wait_time_seconds, std::vector<std::string> system_names,
             std::vector<std::string> attribute_names, std::optional<std::string> attempt_id) {
            lqs::ReceiveMessageRequest r;
            r.max_number_of_messages = max_number_of_messages;
            r.visibility_timeout = visibility_timeout;
            r.wait_time_seconds = wait_time_seconds;
            r.message_system_attribute_names = std::move(system_names);
            r.message_attribute_names = std::move(attribute_names);
            r.receive_request_attempt_id = std::move(attempt_id);
            auto result = Take(Unlocked([&] { return q.rep->ReceiveMessage(r); }));
            py::list out;
            for (const auto& msg : result.messages) {
              py::dict d;
              d["message_id"] = Text(msg.message_id);
              d["receipt_handle"] = Text(msg.receipt_handle);
              d["body"] = Text(msg.body);
              d["md5_of_body"] = Text(msg.md5_of_body);
              d["attributes"] = FromMap(msg.attributes);
              d["message_attributes"] = FromAttributes(msg.message_attributes);
              d["md5_of_message_attributes"] = OptText(msg.md5_of_message_attributes);
              out.append(d);
            }
            return out;
          },
          py::arg("max_number_of_messages") = 1, py::arg("visibility_timeout") = py::none(),
          py::arg("wait_time_seconds") = py::none(),
          py::arg("message_system_attribute_names") = std::vector<std::string>{},
          py::arg("message_attribute_names") = std::vector<std::string>{},
          py::arg("receive_request_attempt_id") = py::none())
      .def("delete_message", CheckedCall<PyQueue>(&lqs::Queue::DeleteMessage),
           py::arg("receipt_handle"))
      .def(
          "delete_message_batch",
          [](PyQueue& q, const std::vector<std::pair<std::string, std::string>>& entries) {
            std::vector<lqs::DeleteMessageBatchEntry> batch;
            for (const auto& [id, handle] : entries) batch.push_back({id, handle});
            return FromBatch(Take(Unlocked([&] { return q.rep->DeleteMessageBatch(batch); })));
          },
          py::arg("entries"))
      .def("change_message_visibility", CheckedCall<PyQueue>(&lqs::Queue::ChangeMessageVisibility),
           py::arg("receipt_handle"), py::arg("visibility_timeout"))
      .def(
          "change_message_visibility_batch",
          [](PyQueue& q,
             const std::vector<std::tuple<std::string, std::string, std::optional<int>>>& entries) {
            std::vector<lqs::ChangeMessageVisibilityBatchEntry> batch;
            for (const auto& [id, handle, timeout] : entries) {
              batch.push_back({id, handle, timeout});
            }
            return FromBatch(
                Take(Unlocked([&] { return q.rep->ChangeMessageVisibilityBatch(batch); })));
          },
          py::arg("entries"))
      .def("purge", CheckedCall<PyQueue>(&lqs::Queue::PurgeQueue))
      .def("get_attributes", TakenCall<PyQueue>(&lqs::Queue::GetAttributes, &FromMap),
           py::arg("names"))
      .def("set_attributes", CheckedCall<PyQueue>(&lqs::Queue::SetAttributes),
           py::arg("attributes"))
      .def("tag", CheckedCall<PyQueue>(&lqs::Queue::TagQueue), py::arg("tags"))
      .def("untag", CheckedCall<PyQueue>(&lqs::Queue::UntagQueue), py::arg("keys"))
      .def("list_tags", TakenCall<PyQueue>(&lqs::Queue::ListQueueTags, &FromMap))
      .def("add_permission", CheckedCall<PyQueue>(&lqs::Queue::AddPermission), py::arg("label"),
           py::arg("account_ids"), py::arg("actions"))
      .def("remove_permission", CheckedCall<PyQueue>(&lqs::Queue::RemovePermission),
           py::arg("label"))
      .def("delete_message_and_record", CheckedCall<PyQueue>(&lqs::Queue::DeleteMessageAndRecord),
           py::arg("receipt_handle"), py::arg("idempotency_key"), py::arg("ttl_seconds"))
      .def("inbox_contains", TakenCall<PyQueue>(&lqs::Queue::InboxContains),
           py::arg("idempotency_key"))
      .def(
          "move_to_dead_letter_queue",
          [](PyQueue& q, const std::string& handle, const py::object& extra) {
            lqs::MessageAttributeMap attrs = ToAttributes(extra);
            Check(Unlocked([&] { return q.rep->MoveToDeadLetterQueue(handle, attrs); }));
          },
          py::arg("receipt_handle"), py::arg("extra_attributes") = py::none());
}

}  // namespace lqs_py
