// The web console's JSON documents (see console_api.h).

#include "server/console_api.h"

#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "server/action_outputs.h"
#include "server/peek_endpoint.h"

#include "lqs/limits.h"
#include "lqs/queue.h"

namespace lqsd::console_api {
namespace {

struct Row {
  std::string name, arn;
  bool fifo = false;
  lqs::QueueStats stats;
  std::string target_arn;  // its RedrivePolicy's deadLetterTargetArn
  int64_t max_receive_count = 0;
};

// The RedrivePolicy's target and maxReceiveCount; nothing when it has none
// or cannot be read.
void ReadRedrivePolicy(const std::string& policy, Row* row) {
  if (policy.empty()) return;
  const Json parsed = Json::parse(policy, nullptr, false);
  if (!parsed.is_object()) return;
  const auto target = parsed.find("deadLetterTargetArn");
  if (target != parsed.end() && target->is_string()) row->target_arn = target->get<std::string>();
  const auto count = parsed.find("maxReceiveCount");
  if (count != parsed.end()) {
    if (count->is_number_integer()) row->max_receive_count = count->get<int64_t>();
    if (count->is_string()) row->max_receive_count = std::atoll(count->get<std::string>().c_str());
  }
}

}  // namespace

lqs::StatusOr<Json> Queues(lqs::Broker* broker, const std::string& queue_url_prefix,
                           int64_t now_ms) {
  std::vector<Row> rows;
  lqs::ListQueuesRequest request;
  request.max_results = lqs::limits::kMaxListQueuesResults;
  for (;;) {
    auto page = broker->ListQueues(request);
    if (!page.ok()) return page.status();
    for (const std::string& name : page->queue_names) {
      auto queue = broker->GetQueue(name);
      if (!queue.ok()) continue;
      auto stats = (*queue)->GetStats();
      if (!stats.ok()) continue;
      Row row;
      row.name = name;
      row.arn = (*queue)->arn();
      row.stats = *stats;
      auto attributes = (*queue)->GetAttributes({"RedrivePolicy", "FifoQueue"});
      if (attributes.ok()) {
        const auto policy = attributes->find("RedrivePolicy");
        if (policy != attributes->end()) ReadRedrivePolicy(policy->second, &row);
        const auto fifo = attributes->find("FifoQueue");
        row.fifo = fifo != attributes->end() && fifo->second == "true";
      }
      rows.push_back(std::move(row));
    }
    if (page->next_token.empty()) break;
    request.next_token = page->next_token;
  }
  std::map<std::string, std::string> name_of_arn;
  std::map<std::string, std::vector<std::string>> sources_of;  // target name -> sources
  for (const Row& row : rows) name_of_arn[row.arn] = row.name;
  for (const Row& row : rows) {
    const auto target = name_of_arn.find(row.target_arn);
    if (target != name_of_arn.end()) sources_of[target->second].push_back(row.name);
  }
  Json queues = Json::array();
  for (const Row& row : rows) {
    Json q = {{"name", row.name},
              {"url", queue_url_prefix + "/" + row.name},
              {"arn", row.arn},
              {"fifo", row.fifo},
              {"visible", row.stats.visible},
              {"in_flight", row.stats.in_flight},
              {"delayed", row.stats.delayed},
              {"oldest_age_seconds", row.stats.oldest_message_age_seconds}};
    const auto target = name_of_arn.find(row.target_arn);
    q["dead_letter_target"] = target != name_of_arn.end() ? Json(target->second) : Json(nullptr);
    q["max_receive_count"] =
        row.max_receive_count > 0 ? Json(row.max_receive_count) : Json(nullptr);
    Json sources = Json::array();
    for (const std::string& source : sources_of[row.name]) sources.push_back(source);
    q["dead_letter_sources"] = std::move(sources);
    queues.push_back(std::move(q));
  }
  return Json{{"now_ms", now_ms}, {"queues", std::move(queues)}};
}

Json History(const QueueHistory& history, const std::string& queue) {
  Json samples = Json::array();
  for (const HistorySample& s : history.Get(queue)) {
    samples.push_back(
        Json::array({s.at_ms, s.visible, s.in_flight, s.delayed, s.oldest_age_seconds}));
  }
  return Json{{"queue", queue}, {"capacity", history.capacity()}, {"samples", std::move(samples)}};
}

lqs::StatusOr<Json> Messages(lqs::Broker* broker, const std::string& queue,
                             const std::string& message_id, size_t limit) {
  auto handle = broker->GetQueue(queue);
  if (!handle.ok()) return handle.status();
  lqs::StatusOr<lqs::ReceiveMessageResult> peeked = peek::Peek(**handle, true, true);
  if (!peeked.ok()) return peeked.status();
  std::vector<lqs::ReceivedMessage>& messages = peeked->messages;
  if (!message_id.empty()) {
    std::erase_if(messages,
                  [&](const lqs::ReceivedMessage& m) { return m.message_id != message_id; });
  }
  const size_t total = messages.size();
  if (messages.size() > limit) messages.resize(limit);
  Json out = ReceiveMessageOutput(*peeked);
  if (!out.contains("Messages")) out["Messages"] = Json::array();
  out["Total"] = total;
  out["Truncated"] = total > messages.size();
  return out;
}

}  // namespace lqsd::console_api
