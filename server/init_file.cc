// server/init_file.cc — lqsd --init FILE (init_file.h).

#include "server/init_file.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "lib/api/queue_config.h"

namespace lqsd {

namespace {

using InitJson = nlohmann::json;
using lqs::ErrorCode;
using lqs::Status;
using lqs::StatusOr;

constexpr std::string_view kFifoSuffix = ".fifo";

bool EndsWithFifo(const std::string& name) {
  return name.size() >= kFifoSuffix.size() &&
         name.compare(name.size() - kFifoSuffix.size(), kFifoSuffix.size(), kFifoSuffix) == 0;
}

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

std::string ArnOf(const std::string& region, const std::string& account, const std::string& name) {
  return "arn:aws:sqs:" + region + ":" + account + ":" + name;
}

// The errors of one file: "FILE: queue "NAME": WHAT".
class Errors {
 public:
  explicit Errors(std::string path) : path_(std::move(path)) {}
  Status File(const std::string& what) const {
    return Status(ErrorCode::kInvalidParameterValue, path_ + ": " + what);
  }
  Status Queue(const std::string& queue, const std::string& what) const {
    return File("queue " + Quoted(queue) + ": " + what);
  }
  // A library error about `parameter` of `queue`, with its SQS code.
  Status Library(const std::string& queue, const std::string& parameter, const Status& s) const {
    return Queue(queue,
                 parameter + ": " + std::string(lqs::ErrorCodeName(s.code())) + ": " + s.message());
  }

 private:
  std::string path_;
};

// An attribute value as CreateQueue takes it: strings as they are, numbers
// and booleans written out, objects (the policies) as JSON text.
bool AttributeText(const std::string& name, const InitJson& value, std::string* out) {
  if (value.is_string()) {
    *out = value.get<std::string>();
  } else if (value.is_boolean()) {
    *out = value.get<bool>() ? "true" : "false";
  } else if (value.is_number_integer()) {
    *out = value.dump();
  } else if (value.is_object() &&
             (name == "RedrivePolicy" || name == "RedriveAllowPolicy" || name == "Policy")) {
    *out = value.dump();
  } else {
    return false;
  }
  return true;
}

// Rewrites a RedrivePolicy naming its target by deadLetterTargetQueue into
// SQS's form, and returns the target's name in *dlq.
Status ResolveRedrivePolicy(const Errors& errors, const std::string& queue,
                            const std::string& region, const std::string& account,
                            std::string* policy, std::string* dlq) {
  const std::string where = "attributes.RedrivePolicy";
  InitJson j = InitJson::parse(*policy, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return errors.Queue(queue, where + ": must be a JSON object, got " + *policy);
  }
  for (const auto& [key, value] : j.items()) {
    if (key != "deadLetterTargetQueue" && key != "deadLetterTargetArn" &&
        key != "maxReceiveCount") {
      return errors.Queue(queue, where + ": unknown key " + Quoted(key) +
                                     " (deadLetterTargetQueue or deadLetterTargetArn, and "
                                     "maxReceiveCount)");
    }
  }
  const bool by_name = j.contains("deadLetterTargetQueue");
  const bool by_arn = j.contains("deadLetterTargetArn");
  if (by_name == by_arn) {
    return errors.Queue(queue, where +
                                   ": give the dead-letter queue as deadLetterTargetQueue (its "
                                   "name) or deadLetterTargetArn, one of them");
  }
  const InitJson& target = j[by_name ? "deadLetterTargetQueue" : "deadLetterTargetArn"];
  if (!target.is_string()) {
    return errors.Queue(queue, where + "." +
                                   (by_name ? "deadLetterTargetQueue" : "deadLetterTargetArn") +
                                   ": must be a string");
  }
  if (by_name) {
    *dlq = target.get<std::string>();
    j.erase("deadLetterTargetQueue");
    j["deadLetterTargetArn"] = ArnOf(region, account, *dlq);
  } else {
    const std::string arn = target.get<std::string>();
    const std::string prefix = ArnOf(region, account, "");
    if (arn.compare(0, prefix.size(), prefix) != 0 || arn.size() == prefix.size()) {
      return errors.Queue(queue, where + ".deadLetterTargetArn: " + Quoted(arn) +
                                     " is not a queue of lqsd's default region and account (" +
                                     prefix + "NAME); --init creates queues there only");
    }
    *dlq = arn.substr(prefix.size());
  }
  *policy = j.dump();
  return Status::OK();
}

StatusOr<InitQueue> ParseQueue(const Errors& errors, const InitJson& entry, size_t index,
                               const std::string& region, const std::string& account) {
  const std::string position = "queues[" + std::to_string(index) + "]";
  if (!entry.is_object()) return errors.File(position + ": must be an object with \"name\"");
  const auto name_it = entry.find("name");
  if (name_it == entry.end() || !name_it->is_string()) {
    return errors.File(position + ": needs \"name\", a string");
  }
  InitQueue q;
  q.name = name_it->get<std::string>();
  for (const auto& [key, value] : entry.items()) {
    if (key != "name" && key != "attributes" && key != "tags") {
      return errors.Queue(q.name, "unknown key " + Quoted(key) + " (name, attributes, tags)");
    }
    if (key != "name" && !value.is_object()) {
      return errors.Queue(q.name, key + ": must be an object");
    }
  }
  if (const auto it = entry.find("attributes"); it != entry.end()) {
    for (const auto& [key, value] : it->items()) {
      std::string text;
      if (!AttributeText(key, value, &text)) {
        return errors.Queue(q.name,
                            "attributes." + key + ": " +
                                std::string(lqs::ErrorCodeName(ErrorCode::kInvalidAttributeValue)) +
                                ": must be a string, an integer or a boolean, got " + value.dump());
      }
      q.attributes[key] = std::move(text);
    }
  }
  if (EndsWithFifo(q.name) && q.attributes.count("FifoQueue") == 0) {
    q.attributes["FifoQueue"] = "true";
  }
  q.fifo = lqs::api::RequestsFifo(q.attributes);
  if (Status s = lqs::api::ValidateQueueName(q.name, q.fifo); !s.ok()) {
    return errors.Library(q.name, "name", s);
  }
  if (auto it = q.attributes.find("RedrivePolicy");
      it != q.attributes.end() && !it->second.empty()) {
    Status s =
        ResolveRedrivePolicy(errors, q.name, region, account, &it->second, &q.dead_letter_queue);
    if (!s.ok()) return s;
  }
  lqs::api::QueueConfig config;
  config.fifo = q.fifo;
  if (Status s = lqs::api::ApplyQueueAttributes(q.attributes, /*creating=*/true, &config);
      !s.ok()) {
    return errors.Library(q.name, "attributes", s);
  }
  if (Status s = lqs::api::CheckPolicyLimits(q.attributes); !s.ok()) {
    return errors.Library(q.name, "attributes.Policy", s);
  }
  if (const auto it = entry.find("tags"); it != entry.end()) {
    for (const auto& [key, value] : it->items()) {
      if (!value.is_string()) {
        return errors.Queue(q.name, "tags." + key + ": must be a string");
      }
      q.tags[key] = value.get<std::string>();
    }
    if (Status s = lqs::api::ValidateTags({}, q.tags, q.name); !s.ok()) {
      return errors.Library(q.name, "tags", s);
    }
  }
  return q;
}

// "line L, column C" of byte `offset` of `text`.
std::string LineColumn(const std::string& text, size_t offset) {
  size_t line = 1;
  size_t column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// The RedriveAllowPolicy a dead-letter queue will have: the file's, else
// the database's. nullopt: none (every source allowed).
StatusOr<std::optional<lqs::api::RedriveAllowPolicy>> AllowPolicy(const InitQueue* in_file,
                                                                  lqs::Queue* existing) {
  lqs::api::QueueConfig config;
  if (in_file != nullptr && in_file->attributes.count("RedriveAllowPolicy") != 0) {
    config.fifo = in_file->fifo;
    Status s = lqs::api::ApplyQueueAttributes(
        {{"RedriveAllowPolicy", in_file->attributes.at("RedriveAllowPolicy")}}, true, &config);
    if (!s.ok()) return s;
  } else if (existing != nullptr) {
    auto attrs = existing->GetAttributes({"RedriveAllowPolicy"});
    if (!attrs.ok()) return attrs.status();
    if (!attrs->empty()) {
      config.fifo = existing->is_fifo();
      Status s = lqs::api::ApplyQueueAttributes(*attrs, true, &config);
      if (!s.ok()) return s;
    }
  }
  return config.redrive_allow_policy;
}

}  // namespace

StatusOr<InitPlan> ParseInitFile(const std::string& path, const std::string& text,
                                 const std::string& region, const std::string& account_id) {
  const Errors errors(path);
  InitJson doc;
  try {
    doc = InitJson::parse(text);
  } catch (const InitJson::parse_error& e) {
    // nlohmann's text: "[json.exception.parse_error.101] parse error at line
    // 3, column 5: syntax error ...": keep what follows the tag, and say
    // where when it does not.
    std::string what = e.what();
    if (const size_t tag = what.find("] "); tag != std::string::npos) what.erase(0, tag + 2);
    if (what.find("line ") == std::string::npos) what += " (at " + LineColumn(text, e.byte) + ")";
    return errors.File("not valid JSON: " + what);
  }
  if (!doc.is_object()) return errors.File("must be a JSON object with \"queues\"");
  for (const auto& [key, value] : doc.items()) {
    if (key != "queues") return errors.File("unknown key " + Quoted(key) + " (queues)");
  }
  const auto queues = doc.find("queues");
  if (queues == doc.end() || !queues->is_array()) {
    return errors.File("needs \"queues\", a list of queues");
  }
  std::vector<InitQueue> parsed;
  std::map<std::string, size_t> index_of;
  for (size_t i = 0; i < queues->size(); ++i) {
    auto q = ParseQueue(errors, (*queues)[i], i, region, account_id);
    if (!q.ok()) return q.status();
    if (!index_of.emplace(q->name, parsed.size()).second) {
      return errors.Queue(q->name, "appears twice in the file");
    }
    parsed.push_back(std::move(*q));
  }
  // Creation order: depth first along the redrive policies, each
  // dead-letter queue before its sources; a queue met again on its own path
  // closes a cycle.
  InitPlan plan;
  plan.path_ = path;
  plan.region_ = region;
  plan.account_id_ = account_id;
  enum class Mark { kNone, kOnPath, kDone };
  std::vector<Mark> marks(parsed.size(), Mark::kNone);
  for (size_t start = 0; start < parsed.size(); ++start) {
    std::vector<size_t> path_indexes;
    size_t at = start;
    while (marks[at] == Mark::kNone) {
      marks[at] = Mark::kOnPath;
      path_indexes.push_back(at);
      const auto next = index_of.find(parsed[at].dead_letter_queue);
      if (next == index_of.end()) break;
      if (marks[next->second] == Mark::kOnPath) {
        std::string cycle;
        bool in_cycle = false;
        for (size_t i : path_indexes) {
          in_cycle = in_cycle || i == next->second;
          if (in_cycle) cycle += parsed[i].name + " -> ";
        }
        cycle += parsed[next->second].name;
        return errors.Queue(
            parsed[start].name,
            "attributes.RedrivePolicy: the dead-letter queues form a cycle (" + cycle + ")");
      }
      at = next->second;
    }
    for (auto it = path_indexes.rbegin(); it != path_indexes.rend(); ++it) {
      marks[*it] = Mark::kDone;
      plan.queues_.push_back(parsed[*it]);
    }
  }
  return plan;
}

StatusOr<InitPlan> ReadInitFile(const std::string& path, const std::string& region,
                                const std::string& account_id) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof()) {
    return Status(ErrorCode::kIOError, path + ": cannot read the file");
  }
  if (!in.is_open()) return Status(ErrorCode::kIOError, path + ": cannot open the file");
  return ParseInitFile(path, text.str(), region, account_id);
}

Status InitPlan::Check(lqs::Broker* broker) const {
  const Errors errors(path_);
  std::map<std::string, const InitQueue*> in_file;
  for (const InitQueue& q : queues_) in_file[q.name] = &q;
  for (const InitQueue& q : queues_) {
    auto existing = broker->GetQueue(q.name);
    if (existing.ok() && !q.tags.empty()) {
      auto tags = (*existing)->ListQueueTags();
      if (!tags.ok()) return errors.Library(q.name, "tags", tags.status());
      if (Status s = lqs::api::ValidateTags(*tags, q.tags, q.name); !s.ok()) {
        return errors.Library(q.name, "tags", s);
      }
    }
    if (q.dead_letter_queue.empty()) continue;
    const std::string where =
        "attributes.RedrivePolicy: dead-letter queue " + Quoted(q.dead_letter_queue);
    const auto file_dlq = in_file.find(q.dead_letter_queue);
    const InitQueue* dlq_in_file = file_dlq == in_file.end() ? nullptr : file_dlq->second;
    std::shared_ptr<lqs::Queue> dlq;
    if (auto found = broker->GetQueue(q.dead_letter_queue); found.ok()) dlq = *found;
    if (dlq_in_file == nullptr && dlq == nullptr) {
      return errors.Queue(q.name,
                          where + " is neither in the file nor in the database (" +
                              std::string(lqs::ErrorCodeName(ErrorCode::kQueueDoesNotExist)) + ")");
    }
    const bool dlq_fifo = dlq_in_file != nullptr ? dlq_in_file->fifo : dlq->is_fifo();
    if (dlq_fifo != q.fifo) {
      return errors.Queue(q.name, where +
                                      " must be the same type of queue as the source queue (FIFO "
                                      "or standard) (InvalidParameterValue)");
    }
    auto allow = AllowPolicy(dlq_in_file, dlq.get());
    if (!allow.ok())
      return errors.Library(q.dead_letter_queue, "RedriveAllowPolicy", allow.status());
    if (allow->has_value()) {
      const auto& policy = **allow;
      const std::string source_arn = ArnOf(region_, account_id_, q.name);
      const bool allowed =
          policy.redrive_permission == "allowAll" ||
          (policy.redrive_permission == "byQueue" &&
           std::find(policy.source_queue_arns.begin(), policy.source_queue_arns.end(),
                     source_arn) != policy.source_queue_arns.end());
      if (!allowed) {
        return errors.Queue(q.name, where +
                                        " does not allow this queue as a source (its "
                                        "RedriveAllowPolicy) (InvalidParameterValue)");
      }
    }
  }
  return Status::OK();
}

Status InitPlan::Apply(lqs::Broker* broker,
                       const std::function<void(const std::string&)>& log) const {
  const Errors errors(path_);
  for (const InitQueue& q : queues_) {
    const bool existed = broker->GetQueue(q.name).ok();
    auto created = broker->CreateQueue(q.name, q.attributes, q.tags);
    std::shared_ptr<lqs::Queue> queue;
    if (created.ok()) {
      queue = *created;
      if (!existed) {
        log("--init: queue " + q.name + " created");
        continue;
      }
    } else if (created.status().code() == ErrorCode::kQueueNameExists) {
      auto found = broker->GetQueue(q.name);
      if (!found.ok()) return errors.Library(q.name, "name", found.status());
      queue = *found;
      if (Status s = queue->SetAttributes(q.attributes); !s.ok()) {
        return errors.Library(q.name, "attributes", s);
      }
      log("--init: queue " + q.name + " existed with other attributes: set to the file's");
    } else {
      return errors.Library(q.name, "CreateQueue", created.status());
    }
    if (q.tags.empty()) continue;
    auto tags = queue->ListQueueTags();
    if (!tags.ok()) return errors.Library(q.name, "tags", tags.status());
    bool same = true;
    for (const auto& [k, v] : q.tags) {
      const auto it = tags->find(k);
      same = same && it != tags->end() && it->second == v;
    }
    if (same) continue;
    if (Status s = queue->TagQueue(q.tags); !s.ok()) return errors.Library(q.name, "tags", s);
    log("--init: queue " + q.name + ": tags set from the file");
  }
  return Status::OK();
}

}  // namespace lqsd
