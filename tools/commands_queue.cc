// tools/commands_queue.cc — `lqs queue ...`: create, list, delete, get, set,
// tag, untag, tags, dlq-sources.

#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tools/commands.h"

#include "lqs/limits.h"

namespace lqs_cli {
namespace {

struct QueueFlags {
  std::string name;
  std::vector<std::string> attrs;
  std::vector<std::string> tags;
  std::vector<std::string> names;
  std::string prefix;
  bool long_format = false;
};

int RunCreate(Env& env, const QueueFlags& f) {
  lqs::AttributeMap attrs;
  lqs::TagMap tags;
  std::string error;
  if (!ParsePairs(f.attrs, &attrs, &error) || !ParsePairs(f.tags, &tags, &error)) {
    return env.out->Usage(error);
  }
  return env.WithBackend(/*create=*/true, [&](Backend& b) -> int {
    auto r = b.CreateQueue(f.name, attrs, tags);
    if (!r.ok()) return env.out->Error(r.status(), "create " + f.name);
    Json j{{"queue", f.name}};
    if (b.IsRemote()) j["url"] = *r;
    return env.out->Result(j, {*r});
  });
}

int RunList(Env& env, Backend& b, const QueueFlags& f) {
  auto names = ListAllQueues(b, f.prefix);
  if (!names.ok()) return env.out->Error(names.status(), "list");
  if (!f.long_format) return env.out->Result(Json{{"queues", *names}}, *names);
  Table t({"QUEUE", "MESSAGES", "IN_FLIGHT", "DELAYED", "VISIBILITY", "RETENTION", "DLQ"});
  Json arr = Json::array();
  for (const auto& n : *names) {
    auto a = b.GetAttributes(n, {"All"});
    if (!a.ok()) return env.out->Error(a.status(), n);
    std::string dlq = "-";
    if (auto it = a->find("RedrivePolicy"); it != a->end() && !it->second.empty()) {
      Json p = Json::parse(it->second, nullptr, false);
      if (p.is_object() && p.contains("deadLetterTargetArn")) {
        dlq = QueueNameFromArn(p["deadLetterTargetArn"].get<std::string>());
      }
    }
    auto get = [&](const char* k) {
      auto it = a->find(k);
      return it == a->end() ? std::string("-") : it->second;
    };
    t.AddRow({n, get("ApproximateNumberOfMessages"), get("ApproximateNumberOfMessagesNotVisible"),
              get("ApproximateNumberOfMessagesDelayed"), get("VisibilityTimeout"),
              get("MessageRetentionPeriod"), dlq});
    Json j{{"queue", n}, {"attributes", Json::object()}};
    for (const auto& [k, v] : *a) j["attributes"][k] = v;
    arr.push_back(std::move(j));
  }
  if (env.out->json()) {
    env.out->PrintJson(Json{{"queues", arr}});
  } else {
    std::cout << t.Render();
  }
  return kExitOk;
}

int RunDelete(Env& env, Backend& b, const QueueFlags& f) {
  Status s = b.DeleteQueue(f.name);
  if (!s.ok()) return env.out->Error(s, "delete " + f.name);
  return env.out->Done(Json{{"deleted", f.name}}, "deleted queue " + f.name);
}

int PrintMap(Env& env, const std::map<std::string, std::string>& m, const char* key_header,
             const char* json_key, const std::string& queue) {
  if (env.out->json()) {
    Json j = Json::object();
    for (const auto& [k, v] : m) j[k] = v;
    env.out->PrintJson(Json{{"queue", queue}, {json_key, j}});
    return kExitOk;
  }
  Table t({key_header, "VALUE"});
  for (const auto& [k, v] : m) t.AddRow({k, v});
  std::cout << t.Render();
  return kExitOk;
}

int RunGet(Env& env, Backend& b, const QueueFlags& f) {
  std::vector<std::string> names = f.names;
  if (names.empty()) names.push_back("All");
  auto a = b.GetAttributes(f.name, names);
  if (!a.ok()) return env.out->Error(a.status(), f.name);
  return PrintMap(env, *a, "ATTRIBUTE", "attributes", f.name);
}

// Parses `pairs` (NAME=VALUE), then runs `apply(backend, parsed)` on the
// database or endpoint; a malformed pair is a usage error, reported before
// anything is opened.
template <typename Apply>
int WithPairs(Env& env, const std::vector<std::string>& pairs, Apply apply) {
  std::map<std::string, std::string> parsed;
  std::string error;
  if (!ParsePairs(pairs, &parsed, &error)) return env.out->Usage(error);
  return env.WithBackend(/*create=*/false, [&](Backend& b) -> int { return apply(b, parsed); });
}

int RunSet(Env& env, const QueueFlags& f) {
  return WithPairs(env, f.attrs, [&](Backend& b, const lqs::AttributeMap& attrs) -> int {
    Status s = b.SetAttributes(f.name, attrs);
    if (!s.ok()) return env.out->Error(s, f.name);
    return env.out->Done(Json{{"queue", f.name}, {"set", attrs}},
                         "set " + std::to_string(attrs.size()) + " attribute(s) of " + f.name);
  });
}

int RunTag(Env& env, const QueueFlags& f) {
  return WithPairs(env, f.tags, [&](Backend& b, const lqs::TagMap& tags) -> int {
    Status s = b.TagQueue(f.name, tags);
    if (!s.ok()) return env.out->Error(s, f.name);
    if (env.out->json()) env.out->PrintJson(Json{{"queue", f.name}, {"tagged", tags.size()}});
    return kExitOk;
  });
}

int RunUntag(Env& env, Backend& b, const QueueFlags& f) {
  Status s = b.UntagQueue(f.name, f.names);
  if (!s.ok()) return env.out->Error(s, f.name);
  if (env.out->json()) env.out->PrintJson(Json{{"queue", f.name}, {"untagged", f.names}});
  return kExitOk;
}

int RunTags(Env& env, Backend& b, const QueueFlags& f) {
  auto t = b.ListQueueTags(f.name);
  if (!t.ok()) return env.out->Error(t.status(), f.name);
  return PrintMap(env, *t, "TAG", "tags", f.name);
}

int RunDlqSources(Env& env, Backend& b, const QueueFlags& f) {
  std::vector<std::string> names;
  lqs::ListQueuesRequest req;
  req.max_results = lqs::limits::kMaxListQueuesResults;
  while (true) {
    auto page = b.ListDeadLetterSourceQueues(f.name, req);
    if (!page.ok()) return env.out->Error(page.status(), f.name);
    names.insert(names.end(), page->queue_names.begin(), page->queue_names.end());
    if (page->next_token.empty()) break;
    req.next_token = page->next_token;
  }
  return env.out->Result(Json{{"queue", f.name}, {"sources", names}}, names);
}

}  // namespace

void RegisterQueueCommands(CLI::App& app, Env& env) {
  auto f = std::make_shared<QueueFlags>();
  CLI::App* q = AddCommand(app, env, "queue", "Create, list, delete and configure queues", "Queues",
                           R"(Examples:
  lqs -d ./db queue create jobs -a VisibilityTimeout=60
  lqs -d ./db queue create jobs-dlq
  lqs -d ./db queue set jobs 'RedrivePolicy={"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:jobs-dlq","maxReceiveCount":"5"}'
  lqs -d ./db queue list -l
  lqs --endpoint http://127.0.0.1:9324 queue get jobs VisibilityTimeout)");
  q->require_subcommand(1);

  auto add = [&](const char* name, const char* help, const char* footer, auto run) {
    return AddCommand(*q, env, name, help, nullptr, footer, Action(env, f, run));
  };

  CLI::App* c = add("create", "Create a queue (or return it if it exists with the same attributes)",
                    R"(Examples:
  lqs -d ./db queue create jobs
  lqs -d ./db queue create jobs -a VisibilityTimeout=60 -a DelaySeconds=5 -t team=media
Prints the queue's name (local) or URL (--endpoint).)",
                    RunCreate);
  c->add_option(
       "name", f->name,
       "Queue name ([A-Za-z0-9_-]{1," + std::to_string(lqs::limits::kMaxQueueNameLength) + "})")
      ->required();
  c->add_option("-a,--attr", f->attrs,
                "Attribute NAME=VALUE (repeatable), e.g. VisibilityTimeout=60");
  c->add_option("-t,--tag", f->tags, "Tag KEY=VALUE (repeatable)");

  c = add("list", "List queues (name order)",
          R"(Examples:
  lqs -d ./db queue list
  lqs -d ./db queue list --prefix jobs -l
  lqs -d ./db --json queue list)",
          RunList);
  c->alias("ls");
  c->add_option("-p,--prefix", f->prefix, "Only queues whose name starts with this");
  c->add_flag("-l,--long", f->long_format, "A table with message counts and main attributes");

  c = add("delete", "Delete a queue and all its messages",
          R"(Example:
  lqs -d ./db queue delete jobs
The name cannot be re-created for 60 seconds (SQS's rule).)",
          RunDelete);
  c->add_option("name", f->name, "Queue name")->required();

  c = add("get", "Show a queue's attributes",
          R"(Examples:
  lqs -d ./db queue get jobs
  lqs -d ./db queue get jobs VisibilityTimeout RedrivePolicy)",
          RunGet);
  c->add_option("name", f->name, "Queue name")->required();
  c->add_option("attributes", f->names, "Attribute names (default: All)");

  c = add("set", "Set queue attributes",
          R"(Examples:
  lqs -d ./db queue set jobs VisibilityTimeout=120 DelaySeconds=0
  lqs -d ./db queue set jobs RedrivePolicy=  # removes the redrive policy)",
          RunSet);
  c->add_option("name", f->name, "Queue name")->required();
  c->add_option("attributes", f->attrs, "NAME=VALUE pairs")->required();

  c = add("tag", "Add or overwrite tags",
          "Example:\n  lqs -d ./db queue tag jobs team=media env=prod", RunTag);
  c->add_option("name", f->name, "Queue name")->required();
  c->add_option("tags", f->tags, "KEY=VALUE pairs")->required();

  c = add("untag", "Remove tags (unknown keys are ignored)",
          "Example:\n  lqs -d ./db queue untag jobs env", RunUntag);
  c->add_option("name", f->name, "Queue name")->required();
  c->add_option("keys", f->names, "Tag keys")->required();

  c = add("tags", "List a queue's tags", "Example:\n  lqs -d ./db queue tags jobs", RunTags);
  c->add_option("name", f->name, "Queue name")->required();

  c = add("dlq-sources", "List the queues whose RedrivePolicy targets this dead-letter queue",
          "Example:\n  lqs -d ./db queue dlq-sources jobs-dlq", RunDlqSources);
  c->add_option("name", f->name, "Dead-letter queue name")->required();
}

}  // namespace lqs_cli
