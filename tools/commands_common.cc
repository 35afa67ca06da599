// tools/commands_common.cc — Env and the helpers the commands share.

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "tools/commands.h"
#include "wire/region_name.h"

#include "lqs/bridge.h"
#include "lqs/clock.h"
#include "lqs/limits.h"

namespace lqs_cli {

using lqs::ErrorCode;
using lqs::Status;

namespace {

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : fallback;
}

}  // namespace

CLI::App* AddCommand(CLI::App& parent, Env& env, const std::string& name, const std::string& help,
                     const char* group, const std::string& footer, std::function<int()> action) {
  CLI::App* c = parent.add_subcommand(name, help);
  c->fallthrough();
  if (group != nullptr) c->group(group);
  c->footer(footer);
  if (action) c->callback([&env, action = std::move(action)] { env.action = action; });
  return c;
}

std::string RegionOfPath(const std::string& path) {
  std::filesystem::path p(path);
  if (!p.has_filename()) p = p.parent_path();  // "db/regions/eu-west-1/"
  const std::string name = p.filename().string();
  const bool in_regions = p.parent_path().filename() == "regions";
  return in_regions && lqs::wire::IsRegionName(name) ? name : std::string();
}

std::optional<lqs::wire::SigningCredentials> RemoteSigning(const std::string& region_flag,
                                                           const std::string& profile,
                                                           std::string* error) {
  // One implementation of where the AWS SDKs find a key, the bridges'.
  auto found = lqs::ResolveCredentials({}, profile);
  if (!found.ok()) {
    *error = found.status().message();
    return std::nullopt;
  }
  lqs::wire::SigningCredentials c;
  c.access_key_id = found->access_key_id;
  c.secret_access_key = found->secret_access_key;
  c.session_token = found->session_token;
  if (c.access_key_id.empty() && region_flag.empty()) return std::nullopt;  // unsigned
  if (c.access_key_id.empty()) {
    c.access_key_id = kPlaceholderAccessKey;  // any key does for an lqsd without --auth-file
    c.secret_access_key = kPlaceholderAccessKey;
  }
  c.region = !region_flag.empty() ? region_flag
                                  : EnvOr("AWS_REGION", EnvOr("AWS_DEFAULT_REGION", "us-east-1"));
  if (!lqs::wire::IsRegionName(c.region)) {
    *error = "region \"" + c.region + "\" is not a region name (" +
             std::string(lqs::wire::kRegionNameRule) + ", as lqsd requires)";
    return std::nullopt;
  }
  return c;
}

void ResolveEndpoint(GlobalFlags* flags) {
  if (!flags->endpoint.empty()) return;
  if (!flags->data.empty()) {
    // An explicit database wins over the AWS SDKs' endpoint variables, which
    // a shell may have set for other tools; LQS_ENDPOINT with it is refused.
    flags->endpoint = EnvOr("LQS_ENDPOINT", "");
    return;
  }
  for (const char* name : {"AWS_ENDPOINT_URL_SQS", "AWS_ENDPOINT_URL", "LQS_ENDPOINT"}) {
    flags->endpoint = EnvOr(name, "");
    if (!flags->endpoint.empty()) return;
  }
}

Backend* Env::Open(bool create, int* exit_code) {
  if (backend_) return backend_.get();
  ResolveEndpoint(&flags);
  if (!flags.data.empty() && !flags.endpoint.empty()) {
    *exit_code = out->Usage("give either --data DIR or --endpoint URL, not both");
    return nullptr;
  }
  if (flags.data.empty() && flags.endpoint.empty()) {
    *exit_code = out->Usage(
        "no database: give --data DIR (a database directory nothing else holds) or "
        "--endpoint URL (a running lqsd), or set LQS_DATA, AWS_ENDPOINT_URL_SQS, "
        "AWS_ENDPOINT_URL or LQS_ENDPOINT");
    return nullptr;
  }
  if (!flags.endpoint.empty() && !flags.account_id.empty()) {
    *exit_code = out->Usage(
        "--account-id is for --data: lqsd answers in the account it was started with "
        "(its --account-id)");
    return nullptr;
  }
  if (!flags.endpoint.empty() && flags.max_disk_bytes != 0) {
    *exit_code = out->Usage(
        "--max-disk-bytes is for --data: lqsd keeps the budget it was started with "
        "(its --max-disk-bytes)");
    return nullptr;
  }
  StatusOr<std::unique_ptr<Backend>> backend = Status(ErrorCode::kInternal, "unset");
  if (!flags.endpoint.empty()) {
    RemoteOptions o;
    o.endpoint = flags.endpoint;
    o.timeout_seconds = flags.timeout_seconds;
    o.ca_file = flags.ca_file;
    std::string error;
    o.signing = RemoteSigning(flags.region, flags.profile, &error);
    if (!error.empty()) {
      *exit_code = out->Usage(error);
      return nullptr;
    }
    backend = OpenRemote(o);
    if (!backend.ok() && backend.status().code() == ErrorCode::kInvalidParameterValue) {
      *exit_code = out->Usage(backend.status().message());
      return nullptr;
    }
  } else {
    std::error_code ec;
    if (!create && !std::filesystem::exists(flags.data, ec)) {
      *exit_code = out->Error(Status(
          ErrorCode::kIOError,
          "no database at " + flags.data + " (`lqs queue create` or `lqs import` creates one)"));
      return nullptr;
    }
    LocalOptions o;
    o.path = flags.data;
    o.create_if_missing = create;
    o.durability = flags.durability;
    o.region = flags.region.empty() ? RegionOfPath(flags.data) : flags.region;
    o.account_id = flags.account_id;
    o.max_disk_bytes = flags.max_disk_bytes;
    backend = OpenLocal(o);
    if (!backend.ok() && backend.status().code() == ErrorCode::kDatabaseLocked) {
      *exit_code =
          out->Error(Status(ErrorCode::kDatabaseLocked,
                            backend.status().message() + " — another process (lqsd?) holds " +
                                flags.data + "; talk to it with --endpoint URL, or stop it first"));
      return nullptr;
    }
  }
  if (!backend.ok()) {
    *exit_code = out->Error(backend.status(),
                            "opening " + (flags.endpoint.empty() ? flags.data : flags.endpoint));
    return nullptr;
  }
  backend_ = std::move(*backend);
  return backend_.get();
}

int Env::WithBackend(bool create, const std::function<int(Backend&)>& run) {
  int rc = 0;
  Backend* b = Open(create, &rc);
  return b ? run(*b) : rc;
}

int Env::Close(int exit_code) {
  if (!backend_) return exit_code;
  Status s = backend_->Close();
  backend_.reset();
  if (!s.ok() && exit_code == kExitOk) return out->Error(s, "closing the database");
  return exit_code;
}

bool ParsePairs(const std::vector<std::string>& pairs, std::map<std::string, std::string>* out,
                std::string* error) {
  for (const auto& p : pairs) {
    const size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0) {
      *error = "expected KEY=VALUE, got \"" + p + "\"";
      return false;
    }
    (*out)[p.substr(0, eq)] = p.substr(eq + 1);
  }
  return true;
}

bool ParseMessageAttributes(const std::vector<std::string>& specs, lqs::MessageAttributeMap* out,
                            std::string* error) {
  for (const auto& spec : specs) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0) {
      *error = "expected NAME=VALUE or NAME:TYPE=VALUE, got \"" + spec + "\"";
      return false;
    }
    std::string name = spec.substr(0, eq);
    std::string type = "String";
    if (const size_t colon = name.find(':'); colon != std::string::npos) {
      type = name.substr(colon + 1);
      name.resize(colon);
    }
    lqs::MessageAttributeValue v;
    v.data_type = type;
    const std::string value = spec.substr(eq + 1);
    if (v.IsBinary()) {
      auto bytes = codec::Base64Decode(value);
      if (!bytes) {
        *error = "attribute " + name + ": a Binary value must be base64";
        return false;
      }
      v.binary_value = std::move(*bytes);
    } else {
      v.string_value = value;
    }
    (*out)[name] = std::move(v);
  }
  return true;
}

std::string QueueNameFromArn(const std::string& arn) {
  const size_t colon = arn.rfind(':');
  return colon == std::string::npos ? arn : arn.substr(colon + 1);
}

lqs::AttributeMap SettableAttributes(const lqs::AttributeMap& all) {
  static const char* const kReadOnly[] = {"ApproximateNumberOfMessages",
                                          "ApproximateNumberOfMessagesNotVisible",
                                          "ApproximateNumberOfMessagesDelayed",
                                          "CreatedTimestamp",
                                          "LastModifiedTimestamp",
                                          "QueueArn"};
  lqs::AttributeMap out;
  for (const auto& [k, v] : all) {
    bool read_only = false;
    for (const char* r : kReadOnly) read_only = read_only || k == r;
    if (!read_only) out[k] = v;
  }
  return out;
}

Json StoredMessageJson(const std::string& queue, const lqs::StoredMessage& m) {
  Json j = Json::object();
  j["type"] = "message";
  j["queue"] = queue;
  j["MessageId"] = m.message_id;
  j["Body"] = m.body;
  if (!m.message_attributes.empty()) {
    j["MessageAttributes"] = codec::MessageAttributesJson(m.message_attributes);
  }
  Json a = Json::object();
  for (const auto& [k, v] : m.attributes) a[k] = v;
  j["Attributes"] = std::move(a);
  j["state"] = m.state;
  j["visible_at_ms"] = m.visible_at_ms;
  return j;
}

Json FailuresJson(const std::vector<lqs::BatchResultError>& failed) {
  Json out = Json::array();
  for (const auto& f : failed) {
    out.push_back(Json{
        {"Id", f.id}, {"Code", f.code}, {"Message", f.message}, {"SenderFault", f.sender_fault}});
  }
  return out;
}

// ---- BatchSender --------------------------------------------------------------------

namespace {
size_t RequestBytes(const lqs::SendMessageRequest& r) {
  size_t n = r.body.size();
  for (const auto& [k, v] : r.message_attributes) {
    n += k.size() + v.data_type.size() + v.string_value.size() + v.binary_value.size();
  }
  return n;
}
}  // namespace

Status BatchSender::Add(lqs::SendMessageRequest request, std::string tag) {
  const size_t bytes = RequestBytes(request);
  if (!pending_.empty() &&
      (pending_.size() == static_cast<size_t>(lqs::limits::kMaxBatchEntries) ||
       pending_bytes_ + bytes > static_cast<size_t>(lqs::limits::kMaxBatchBytes))) {
    Status s = Flush();
    if (!s.ok()) return s;
  }
  lqs::SendMessageBatchEntry e;
  e.id = "m" + std::to_string(next_id_++);
  e.request = std::move(request);
  pending_.push_back(std::move(e));
  tags_.push_back(std::move(tag));
  pending_bytes_ += bytes;
  return Status::OK();
}

Status BatchSender::Flush() {
  if (pending_.empty()) return Status::OK();
  auto r = backend_.SendMessageBatch(queue_, pending_);
  if (!r.ok()) return r.status();
  std::map<std::string, std::string> tag_of;
  for (size_t i = 0; i < pending_.size(); ++i) tag_of[pending_[i].id] = tags_[i];
  for (const auto& s : r->successful) {
    ++sent_;
    if (keep_ids_) ids_.emplace_back(tag_of[s.id], s.result.message_id);
  }
  for (auto f : r->failed) {
    f.id = tag_of[f.id];
    failed_.push_back(std::move(f));
  }
  pending_.clear();
  tags_.clear();
  pending_bytes_ = 0;
  return Status::OK();
}

lqs::StatusOr<lqs::SendMessageRequest> RequestFromJson(const Json& j, bool keep_delay) {
  lqs::SendMessageRequest r;
  if (j.is_string()) {
    r.body = j.get<std::string>();
    return r;
  }
  if (!j.is_object()) {
    return Status(ErrorCode::kInvalidParameterValue,
                  "each line must be a JSON string (the body) or an object with \"Body\"");
  }
  auto body = j.find("Body");
  if (body == j.end()) body = j.find("MessageBody");
  if (body == j.end() || !body->is_string()) {
    return Status(ErrorCode::kInvalidParameterValue, "the object has no string \"Body\"");
  }
  r.body = body->get<std::string>();
  if (auto it = j.find("MessageAttributes"); it != j.end()) {
    auto attrs = codec::DecodeMessageAttributes(*it);
    if (!attrs.ok()) return attrs.status();
    r.message_attributes = std::move(*attrs);
  }
  if (auto it = j.find("DelaySeconds"); it != j.end() && it->is_number_integer()) {
    r.delay_seconds = it->get<int>();
  }
  auto str = [&](const char* key) -> std::optional<std::string> {
    auto it = j.find(key);
    if (it != j.end() && it->is_string()) return it->get<std::string>();
    return std::nullopt;
  };
  r.message_group_id = str("MessageGroupId");
  r.message_deduplication_id = str("MessageDeduplicationId");
  if (auto it = j.find("Attributes"); it != j.end() && it->is_object()) {
    // An exported message: keep its trace header and group id.
    if (auto t = it->find("AWSTraceHeader"); t != it->end() && t->is_string()) {
      lqs::MessageAttributeValue v;
      v.data_type = "String";
      v.string_value = t->get<std::string>();
      r.message_system_attributes["AWSTraceHeader"] = std::move(v);
    }
    if (!r.message_group_id) {
      if (auto g = it->find("MessageGroupId"); g != it->end() && g->is_string()) {
        r.message_group_id = g->get<std::string>();
      }
    }
    if (!r.message_deduplication_id) {
      if (auto d = it->find("MessageDeduplicationId"); d != it->end() && d->is_string()) {
        r.message_deduplication_id = d->get<std::string>();
      }
    }
  }
  if (keep_delay && !r.delay_seconds) {
    auto state = j.find("state");
    auto at = j.find("visible_at_ms");
    if (state != j.end() && *state == "delayed" && at != j.end() && at->is_number()) {
      const int64_t now = lqs::SystemClock::Default()->NowMillis();
      const int64_t left = at->get<int64_t>() - now;
      if (left > 0) {
        r.delay_seconds =
            static_cast<int>(std::min<int64_t>(lqs::limits::kMaxDelaySeconds, (left + 999) / 1000));
      }
    }
  }
  return r;
}

}  // namespace lqs_cli
