// Prometheus metrics (see metrics.h).

#include "server/metrics.h"

#include <cstdio>
#include <memory>
#include <utility>
#include <vector>

#include "server/text_util.h"

#include "lqs/limits.h"

namespace lqsd {
namespace {

std::string FormatDouble(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

void Header(std::string* out, std::string_view name, std::string_view type, std::string_view help) {
  out->append("# HELP ").append(name).append(" ").append(help).append("\n");
  out->append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

struct QueueSeries {
  std::string label;  // queue="<escaped name>",region="<escaped region>"
  lqs::QueueStats stats;
};

// The stats of every queue of `broker`, in name order, appended to *out;
// queues deleted meanwhile are skipped. Returns how many were appended.
size_t CollectQueues(lqs::Broker* broker, const std::string& region,
                     std::vector<QueueSeries>* out) {
  const size_t before = out->size();
  const std::string region_label = ",region=\"" + EscapeLabelValue(region) + "\"";
  lqs::ListQueuesRequest request;
  request.max_results = lqs::limits::kMaxListQueuesResults;
  for (;;) {
    auto listed = broker->ListQueues(request);
    if (!listed.ok()) break;
    const lqs::ListQueuesResult& page = listed.value();
    for (const std::string& name : page.queue_names) {
      auto queue = broker->GetQueue(name);
      if (!queue.ok()) continue;
      auto stats = queue.value()->GetStats();
      if (!stats.ok()) continue;
      out->push_back({"queue=\"" + EscapeLabelValue(name) + "\"" + region_label, stats.value()});
    }
    if (page.next_token.empty()) break;
    request.next_token = page.next_token;
  }
  return out->size() - before;
}

struct QueueMetric {
  const char* name;
  const char* type;
  const char* help;
  int64_t lqs::QueueStats::*field;
};

constexpr QueueMetric kQueueMetrics[] = {
    {"lqs_queue_messages_visible", "gauge",
     "Messages available for retrieval (ApproximateNumberOfMessages).", &lqs::QueueStats::visible},
    {"lqs_queue_messages_in_flight", "gauge",
     "Messages received but not yet deleted or visible again "
     "(ApproximateNumberOfMessagesNotVisible).",
     &lqs::QueueStats::in_flight},
    {"lqs_queue_messages_delayed", "gauge",
     "Messages not yet available because of a delay (ApproximateNumberOfMessagesDelayed).",
     &lqs::QueueStats::delayed},
    {"lqs_queue_oldest_message_age_seconds", "gauge",
     "Age of the oldest message in the queue (ApproximateAgeOfOldestMessage); 0 when empty.",
     &lqs::QueueStats::oldest_message_age_seconds},
    {"lqs_queue_messages_sent_total", "counter", "Messages sent to the queue.",
     &lqs::QueueStats::sent_total},
    {"lqs_queue_messages_received_total", "counter", "Messages received from the queue.",
     &lqs::QueueStats::received_total},
    {"lqs_queue_messages_deleted_total", "counter", "Messages deleted from the queue.",
     &lqs::QueueStats::deleted_total},
    {"lqs_queue_messages_moved_to_dlq_total", "counter",
     "Messages moved to the dead-letter queue after too many receives.",
     &lqs::QueueStats::moved_to_dlq_total},
    {"lqs_queue_messages_expired_total", "counter",
     "Messages dropped at the end of their retention period.", &lqs::QueueStats::expired_total},
    {"lqs_queue_messages_purged_total", "counter", "Messages removed by PurgeQueue.",
     &lqs::QueueStats::purged_total},
    {"lqs_queue_messages_redriven_total", "counter",
     "Messages moved out of the queue by message move tasks (redrive).",
     &lqs::QueueStats::redriven_total},
};

struct BridgeMetric {
  const char* name;
  const char* type;
  const char* help;
  int64_t (*value)(const lqs::BridgeStats&);
};

constexpr BridgeMetric kBridgeMetrics[] = {
    {"lqs_bridge_transferred_total", "counter",
     "Messages a bridge moved: forwarded (acknowledged remotely, deleted locally) or pulled "
     "(stored locally).",
     [](const lqs::BridgeStats& s) { return s.transferred; }},
    {"lqs_bridge_duplicates_total", "counter",
     "Pulled messages delivered again and dropped by their local record.",
     [](const lqs::BridgeStats& s) { return s.duplicates; }},
    {"lqs_bridge_dead_lettered_total", "counter",
     "Messages the remote refused for good, moved to the local dead-letter queue.",
     [](const lqs::BridgeStats& s) { return s.dead_lettered; }},
    {"lqs_bridge_stuck_messages", "gauge",
     "Messages the remote refused for good and the local queue keeps (no dead-letter queue).",
     [](const lqs::BridgeStats& s) { return s.stuck; }},
    {"lqs_bridge_md5_mismatches_total", "counter",
     "Acknowledgements or deliveries whose MD5 digests were not the message's.",
     [](const lqs::BridgeStats& s) { return s.md5_mismatches; }},
    {"lqs_bridge_online", "gauge", "1 when the last exchange with the remote succeeded.",
     [](const lqs::BridgeStats& s) { return int64_t{s.online ? 1 : 0}; }},
    {"lqs_bridge_backoff_seconds", "gauge", "The current wait before the next retry; 0: none.",
     [](const lqs::BridgeStats& s) { return s.backoff_ms / 1000; }},
    {"lqs_bridge_last_success_timestamp_seconds", "gauge",
     "When an exchange with the remote last succeeded (Unix time); 0: never.",
     [](const lqs::BridgeStats& s) { return s.last_success_ms / 1000; }},
    {"lqs_bridge_last_error_timestamp_seconds", "gauge",
     "When the last failure happened (Unix time); 0: never.",
     [](const lqs::BridgeStats& s) { return s.last_error_ms / 1000; }},
    {"lqs_bridge_backlog_messages", "gauge",
     "Messages in the bridge's local queue (visible, delayed and in flight).",
     [](const lqs::BridgeStats& s) { return s.backlog; }},
    {"lqs_bridge_oldest_message_age_seconds", "gauge",
     "Age of the oldest message in the bridge's local queue.",
     [](const lqs::BridgeStats& s) { return s.oldest_age_seconds; }},
};

void RenderBridges(const std::vector<lqs::BridgeStats>& bridges, std::string* out) {
  if (bridges.empty()) return;
  auto label = [](const lqs::BridgeStats& b) {
    return "bridge=\"" + EscapeLabelValue(b.name) + "\",direction=\"" +
           (b.direction == lqs::BridgeDirection::kForward ? "forward" : "pull") + "\"";
  };
  for (const BridgeMetric& m : kBridgeMetrics) {
    Header(out, m.name, m.type, m.help);
    for (const lqs::BridgeStats& b : bridges) {
      out->append(m.name).append("{").append(label(b)).append("} ");
      out->append(std::to_string(m.value(b))).append("\n");
    }
  }
  Header(out, "lqs_bridge_failures_total", "counter",
         "A bridge's failures, by error code (NetworkError, an SQS code, MD5Mismatch, "
         "Local<code> for the local queue's).");
  for (const lqs::BridgeStats& b : bridges) {
    for (const auto& [code, n] : b.failures) {
      out->append("lqs_bridge_failures_total{").append(label(b)).append(",code=\"");
      out->append(EscapeLabelValue(code)).append("\"} ").append(std::to_string(n)).append("\n");
    }
  }
}

}  // namespace

std::string EscapeLabelValue(std::string_view value) {
  // The Prometheus text format's escapes of a label value.
  static constexpr CharEscape kLabelValue[] = {{'\\', "\\\\"}, {'"', "\\\""}, {'\n', "\\n"}};
  return EscapeChars(value, kLabelValue);
}

void Metrics::Record(std::string_view action, int http_status, double seconds) {
  if (seconds < 0) seconds = 0;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = actions_.find(action);
  if (it == actions_.end()) it = actions_.emplace(std::string(action), ActionSeries{}).first;
  ActionSeries& s = it->second;
  ++s.by_status[http_status];
  ++s.count;
  s.sum += seconds;
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    if (seconds <= kBuckets[i]) {
      ++s.buckets[i];
      break;
    }
  }
}

std::string Metrics::Render(const std::vector<std::pair<std::string, lqs::Broker*>>& regions,
                            const std::vector<lqs::BridgeStats>& bridges) const {
  std::string out;
  std::vector<QueueSeries> queues;
  Header(&out, "lqs_queues", "gauge", "Number of queues, by region.");
  for (const auto& [region, broker] : regions) {
    const size_t n = CollectQueues(broker, region, &queues);
    out.append("lqs_queues{region=\"").append(EscapeLabelValue(region)).append("\"} ");
    out.append(std::to_string(n)).append("\n");
  }
  for (const QueueMetric& m : kQueueMetrics) {
    Header(&out, m.name, m.type, m.help);
    for (const QueueSeries& q : queues) {
      out.append(m.name).append("{").append(q.label).append("} ");
      out.append(std::to_string(q.stats.*(m.field))).append("\n");
    }
  }

  RenderBridges(bridges, &out);

  std::lock_guard<std::mutex> lock(mu_);
  Header(&out, "lqsd_requests_total", "counter",
         "SQS requests answered, by action and HTTP status.");
  for (const auto& [action, s] : actions_) {
    const std::string a = EscapeLabelValue(action);
    for (const auto& [status, n] : s.by_status) {
      out.append("lqsd_requests_total{action=\"").append(a).append("\",status=\"");
      out.append(std::to_string(status)).append("\"} ").append(std::to_string(n)).append("\n");
    }
  }
  Header(&out, "lqsd_request_duration_seconds", "histogram",
         "Time from reading an SQS request to its response, by action "
         "(long polls included).");
  for (const auto& [action, s] : actions_) {
    const std::string a = EscapeLabelValue(action);
    uint64_t cumulative = 0;
    for (size_t i = 0; i < kBuckets.size(); ++i) {
      cumulative += s.buckets[i];
      out.append("lqsd_request_duration_seconds_bucket{action=\"").append(a);
      out.append("\",le=\"").append(FormatDouble(kBuckets[i])).append("\"} ");
      out.append(std::to_string(cumulative)).append("\n");
    }
    out.append("lqsd_request_duration_seconds_bucket{action=\"").append(a);
    out.append("\",le=\"+Inf\"} ").append(std::to_string(s.count)).append("\n");
    out.append("lqsd_request_duration_seconds_sum{action=\"").append(a).append("\"} ");
    out.append(FormatDouble(s.sum)).append("\n");
    out.append("lqsd_request_duration_seconds_count{action=\"").append(a).append("\"} ");
    out.append(std::to_string(s.count)).append("\n");
  }
  return out;
}

}  // namespace lqsd
