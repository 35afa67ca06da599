// lib/bridge/credentials.cc — ResolveCredentials and RegionOfQueueUrl
// (lqs/bridge.h): where the AWS SDKs find an access key, and the region of
// an Amazon SQS queue URL.

#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "lqs/bridge.h"

namespace lqs {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

std::string_view Trim(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  const size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

Status Incomplete(const std::string& source) {
  return Status(ErrorCode::kInvalidParameterValue,
                "the credentials of " + source +
                    " have an access key id without a secret access key (or the other way round)");
}

// Reads [profile] of an INI-style shared credentials file. Absent file:
// found = false, OK.
Status ReadProfile(const std::string& path, const std::string& profile, RemoteCredentials* out,
                   bool* found) {
  *found = false;
  std::ifstream in(path);
  if (!in) return Status::OK();
  std::string line;
  bool in_profile = false;
  while (std::getline(in, line)) {
    std::string_view l = Trim(line);
    if (l.empty() || l[0] == '#' || l[0] == ';') continue;
    if (l.front() == '[' && l.back() == ']') {
      in_profile = Trim(l.substr(1, l.size() - 2)) == profile;
      *found = *found || in_profile;
      continue;
    }
    if (!in_profile) continue;
    const size_t eq = l.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = Trim(l.substr(0, eq));
    const std::string value(Trim(l.substr(eq + 1)));
    if (key == "aws_access_key_id") out->access_key_id = value;
    if (key == "aws_secret_access_key") out->secret_access_key = value;
    if (key == "aws_session_token") out->session_token = value;
  }
  return Status::OK();
}

}  // namespace

StatusOr<RemoteCredentials> ResolveCredentials(const RemoteCredentials& explicit_key,
                                               const std::string& profile) {
  auto complete = [](const RemoteCredentials& c) {
    return c.access_key_id.empty() == c.secret_access_key.empty();
  };
  if (!explicit_key.access_key_id.empty() || !explicit_key.secret_access_key.empty()) {
    RemoteCredentials c = explicit_key;
    if (c.source.empty()) c.source = "the command line";
    if (!complete(c)) return Incomplete(c.source);
    return c;
  }
  RemoteCredentials env;
  env.access_key_id = Env("AWS_ACCESS_KEY_ID");
  env.secret_access_key = Env("AWS_SECRET_ACCESS_KEY");
  env.session_token = Env("AWS_SESSION_TOKEN");
  env.source = "the environment (AWS_ACCESS_KEY_ID)";
  if (!env.access_key_id.empty() || !env.secret_access_key.empty()) {
    if (!complete(env)) return Incomplete(env.source);
    return env;
  }
  std::string path = Env("AWS_SHARED_CREDENTIALS_FILE");
  if (path.empty()) {
    const std::string home = Env("HOME");
    if (!home.empty()) path = home + "/.aws/credentials";
  }
  std::string name = profile;
  if (name.empty()) name = Env("AWS_PROFILE");
  const bool named = !name.empty();
  if (name.empty()) name = "default";
  RemoteCredentials file;
  bool found = false;
  if (!path.empty()) {
    if (Status st = ReadProfile(path, name, &file, &found); !st.ok()) return st;
  }
  if (!found) {
    if (named) {
      return Status(ErrorCode::kInvalidParameterValue,
                    "profile \"" + name + "\" is not in " +
                        (path.empty() ? std::string("the shared credentials file") : path));
    }
    return RemoteCredentials{};  // unsigned
  }
  file.source = path + " [" + name + "]";
  if (!complete(file)) return Incomplete(file.source);
  return file;
}

std::string RegionOfQueueUrl(std::string_view url) {
  // https://sqs.<region>.amazonaws.com[.cn]/... (also <region>.queue.amazonaws.com)
  const size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return {};
  std::string_view host = url.substr(scheme + 3);
  host = host.substr(0, host.find_first_of(":/"));
  if (host.find(".amazonaws.com") == std::string_view::npos) return {};
  if (host.substr(0, 4) == "sqs.") {
    host = host.substr(4);
    return std::string(host.substr(0, host.find('.')));
  }
  if (const size_t q = host.find(".queue."); q != std::string_view::npos) {
    return std::string(host.substr(0, q));
  }
  return {};
}

}  // namespace lqs
