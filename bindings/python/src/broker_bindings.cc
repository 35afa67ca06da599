// lqs._lqs._Broker: opening a database and the broker's calls (lqs::Broker:
// the queue catalogue, move tasks, maintenance). lqs.Broker wraps it.

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings/python/src/common.h"
#include "bindings/python/src/handles.h"

#include "lqs/lqs.h"

namespace lqs_py {
namespace {

py::dict FromListResult(const lqs::ListQueuesResult& r) {
  py::dict d;
  py::list names;
  for (const auto& n : r.queue_names) names.append(Text(n));
  d["queue_names"] = names;
  d["next_token"] = r.next_token.empty() ? py::object(py::none()) : py::object(Text(r.next_token));
  return d;
}

lqs::ListQueuesRequest MakeList(const std::string& prefix, std::optional<int> max_results,
                                const std::optional<std::string>& next_token) {
  lqs::ListQueuesRequest r;
  r.queue_name_prefix = prefix;
  r.max_results = max_results;
  r.next_token = next_token.value_or("");
  return r;
}

PyBroker Open(const std::string& path, bool create_if_missing, int durability,
              const py::object& clock, const std::string& region, const std::string& account_id,
              const std::string& sender_id, bool enforce_queue_name_reuse_delay,
              bool enforce_purge_interval, int64_t max_inflight_per_queue,
              bool background_maintenance, int64_t maintenance_interval_ms,
              int64_t block_cache_bytes, int64_t write_buffer_bytes, bool flush_on_close,
              bool deferred_commits, int64_t max_disk_bytes, const std::string& profile) {
  if (profile != "default" && profile != "small") {
    throw py::value_error("profile must be \"default\" or \"small\", not \"" + profile + "\"");
  }
  lqs::Options o = profile == "small" ? lqs::Options::SmallDevice() : lqs::Options();
  o.path = path;
  o.create_if_missing = create_if_missing;
  if (durability < 0 || durability > 2) {
    throw py::value_error("durability must be 0 (none), 1 (process) or 2 (fsync)");
  }
  o.durability = static_cast<lqs::Durability>(durability);
  if (!clock.is_none()) o.clock = py::cast<std::shared_ptr<lqs::ManualClock>>(clock);
  o.region = region;
  o.account_id = account_id;
  o.sender_id = sender_id;
  o.enforce_queue_name_reuse_delay = enforce_queue_name_reuse_delay;
  o.enforce_purge_interval = enforce_purge_interval;
  o.max_inflight_per_queue = max_inflight_per_queue;
  o.background_maintenance = background_maintenance;
  o.maintenance_interval_ms = maintenance_interval_ms;
  if (block_cache_bytes >= 0) o.block_cache_bytes = block_cache_bytes;  // else the profile's
  if (write_buffer_bytes >= 0) o.write_buffer_bytes = write_buffer_bytes;
  o.flush_on_close = flush_on_close;
  o.deferred_commits = deferred_commits;
  o.max_disk_bytes = max_disk_bytes;
  auto broker = Unlocked([&] { return lqs::Broker::Open(o); });
  return PyBroker{std::shared_ptr<lqs::Broker>(Take(std::move(broker)))};
}

}  // namespace

void BindBroker(py::module_& m) {
  py::class_<PyBroker>(m, "_Broker")
      .def_static(
          "open", &Open, py::arg("path"), py::arg("create_if_missing") = true,
          py::arg("durability") = 1, py::arg("clock") = py::none(), py::arg("region") = "us-east-1",
          py::arg("account_id") = "123456789012", py::arg("sender_id") = "AIDAIT2UOQQY3AUEKVGXU",
          py::arg("enforce_queue_name_reuse_delay") = true,
          py::arg("enforce_purge_interval") = true,
          py::arg("max_inflight_per_queue") = lqs::limits::kMaxInflightMessages,
          py::arg("background_maintenance") = true,
          py::arg("maintenance_interval_ms") = int64_t{1000},
          py::arg("block_cache_bytes") = int64_t{-1}, py::arg("write_buffer_bytes") = int64_t{-1},
          py::arg("flush_on_close") = true, py::arg("deferred_commits") = false,
          py::arg("max_disk_bytes") = int64_t{0}, py::arg("profile") = "default")
      .def("close",
           [](PyBroker& b) {
             b.closed = true;
             Check(Unlocked([&] {
               b.workers->StopAll(std::chrono::seconds(30));  // workers first
               return b.rep->Close();
             }));
           })
      .def_property_readonly("closed", [](const PyBroker& b) { return b.closed; })
      .def_property_readonly("region",
                             [](const PyBroker& b) { return Text(b.rep->options().region); })
      .def_property_readonly("account_id",
                             [](const PyBroker& b) { return Text(b.rep->options().account_id); })
      .def_property_readonly("path", [](const PyBroker& b) { return Text(b.rep->options().path); })
      .def(
          "arn_for",
          [](const PyBroker& b, const std::string& name) { return Text(b.rep->ArnFor(name)); },
          py::arg("name"))
      .def(
          "create_queue",
          [](PyBroker& b, const std::string& name,
             const std::map<std::string, std::string>& attributes,
             const std::map<std::string, std::string>& tags) {
            return b.Wrap(
                Take(Unlocked([&] { return b.rep->CreateQueue(name, attributes, tags); })));
          },
          py::arg("name"), py::arg("attributes") = std::map<std::string, std::string>{},
          py::arg("tags") = std::map<std::string, std::string>{})
      .def(
          "get_queue",
          [](PyBroker& b, const std::string& name) {
            return b.Wrap(Take(Unlocked([&] { return b.rep->GetQueue(name); })));
          },
          py::arg("name"))
      .def(
          "get_queue_by_arn",
          [](PyBroker& b, const std::string& arn) {
            return b.Wrap(Take(Unlocked([&] { return b.rep->GetQueueByArn(arn); })));
          },
          py::arg("arn"))
      .def("delete_queue", CheckedCall<PyBroker>(&lqs::Broker::DeleteQueue), py::arg("name"))
      .def(
          "list_queues",
          [](PyBroker& b, const std::string& prefix, std::optional<int> max_results,
             std::optional<std::string> next_token) {
            auto request = MakeList(prefix, max_results, next_token);
            return FromListResult(Take(Unlocked([&] { return b.rep->ListQueues(request); })));
          },
          py::arg("prefix") = "", py::arg("max_results") = py::none(),
          py::arg("next_token") = py::none())
      .def(
          "list_dead_letter_source_queues",
          [](PyBroker& b, const std::string& dlq_name, std::optional<int> max_results,
             std::optional<std::string> next_token) {
            auto request = MakeList("", max_results, next_token);
            return FromListResult(Take(
                Unlocked([&] { return b.rep->ListDeadLetterSourceQueues(dlq_name, request); })));
          },
          py::arg("dlq_name"), py::arg("max_results") = py::none(),
          py::arg("next_token") = py::none())
      .def(
          "start_message_move_task",
          [](PyBroker& b, const std::string& source_arn, std::optional<std::string> destination_arn,
             std::optional<int> rate) {
            lqs::StartMessageMoveTaskRequest r;
            r.source_arn = source_arn;
            r.destination_arn = std::move(destination_arn);
            r.max_number_of_messages_per_second = rate;
            return Text(Take(Unlocked([&] { return b.rep->StartMessageMoveTask(r); })));
          },
          py::arg("source_arn"), py::arg("destination_arn") = py::none(),
          py::arg("max_number_of_messages_per_second") = py::none())
      .def("cancel_message_move_task", TakenCall<PyBroker>(&lqs::Broker::CancelMessageMoveTask),
           py::arg("task_handle"))
      .def(
          "list_message_move_tasks",
          [](PyBroker& b, const std::string& source_arn, int max_results) {
            auto tasks = Take(
                Unlocked([&] { return b.rep->ListMessageMoveTasks(source_arn, max_results); }));
            py::list out;
            for (const auto& t : tasks) {
              py::dict d;
              d["task_handle"] =
                  t.task_handle.empty() ? py::object(py::none()) : py::object(Text(t.task_handle));
              d["status"] = Text(t.status);
              d["source_arn"] = Text(t.source_arn);
              d["destination_arn"] = OptText(t.destination_arn);
              d["max_number_of_messages_per_second"] =
                  t.max_number_of_messages_per_second.has_value()
                      ? py::object(py::int_(*t.max_number_of_messages_per_second))
                      : py::object(py::none());
              d["approximate_number_of_messages_moved"] = t.approximate_number_of_messages_moved;
              d["approximate_number_of_messages_to_move"] =
                  t.approximate_number_of_messages_to_move;
              d["failure_reason"] = OptText(t.failure_reason);
              d["started_timestamp"] = t.started_timestamp;
              out.append(d);
            }
            return out;
          },
          py::arg("source_arn"), py::arg("max_results") = 1)
      .def("run_maintenance", CheckedCall<PyBroker>(&lqs::Broker::RunMaintenance))
      .def("compact_all", CheckedCall<PyBroker>(&lqs::Broker::CompactAll))
      .def("verify", TakenCall<PyBroker>(&lqs::Broker::Verify));
}

}  // namespace lqs_py
