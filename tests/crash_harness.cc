#include "tests/crash_harness.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <utility>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/testutil.h"

extern char** environ;

namespace lqs::testing {

int CrashRoundsFromEnv(const char* env_var, int default_rounds, int divisor) {
  const char* v = std::getenv(env_var);
  const int n = v == nullptr ? 0 : std::atoi(v);
  return std::max(1, (n > 0 ? n : default_rounds) / divisor);
}

// ---- ChildProcess -----------------------------------------------------------------

ChildProcess::ChildProcess(std::string program) : program_(std::move(program)) {}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) Kill();
  if (out_fd_ >= 0) ::close(out_fd_);
}

bool ChildProcess::Start(const std::vector<std::string>& args, std::string* error,
                         const std::vector<std::string>& extra_env) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    *error = std::string("pipe2: ") + std::strerror(errno);
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  std::vector<std::string> argv_storage = args;
  argv_storage.insert(argv_storage.begin(), program_);
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_storage = extra_env;
  std::vector<char*> envp;
  for (auto& e : env_storage) envp.push_back(e.data());
  for (char** e = environ; *e != nullptr; ++e) envp.push_back(*e);
  envp.push_back(nullptr);
  const int rc =
      ::posix_spawn(&pid_, program_.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  out_fd_ = fds[0];
  if (rc != 0) {
    pid_ = -1;
    *error = "posix_spawn " + program_ + ": " + std::strerror(rc);
    return false;
  }
  return true;
}

bool ChildProcess::WaitReady(std::chrono::milliseconds timeout, std::string* error) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string seen;
  while (seen.find("ready\n") == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      *error = "the child did not print \"ready\" in time";
      return false;
    }
    pollfd p{out_fd_, POLLIN, 0};
    const int n = ::poll(&p, 1, static_cast<int>(left.count()));
    if (n <= 0) continue;  // timed out (checked above) or EINTR
    char buf[256];
    const ssize_t got = ::read(out_fd_, buf, sizeof(buf));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      *error = "the child exited before \"ready\" (" + Reap() + "); see its stderr above";
      return false;
    }
    seen.append(buf, static_cast<size_t>(got));
  }
  return true;
}

std::string ChildProcess::Kill() {
  if (pid_ <= 0) return "not running";
  ::kill(pid_, SIGKILL);
  return Reap();
}

std::string ChildProcess::Reap() {
  int status = 0;
  pid_t r;
  do {
    r = ::waitpid(pid_, &status, 0);
  } while (r < 0 && errno == EINTR);
  pid_ = -1;
  if (r < 0) return std::string("waitpid: ") + std::strerror(errno);
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended with wait status " + std::to_string(status);
}

void RunChildAndKill(const std::string& program, const std::vector<std::string>& args,
                     std::chrono::milliseconds run_for, const std::vector<std::string>& extra_env) {
  ChildProcess child(program);
  std::string error;
  ASSERT_TRUE(child.Start(args, &error, extra_env)) << error;
  ASSERT_TRUE(child.WaitReady(std::chrono::seconds(20), &error)) << error;
  std::this_thread::sleep_for(run_for);
  ASSERT_EQ(child.Kill(), "killed by signal 9") << "the child died before the SIGKILL";
}

// ---- The oracle and the database ----------------------------------------------------

void ReadOracleEvents(
    const std::string& dir,
    const std::function<void(const std::string& file_name, const std::string& event,
                             const std::string& value)>& on_event) {
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string file_name = entry.path().filename().string();
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      const size_t space = line.find(' ');
      if (space == std::string::npos || in.eof()) continue;  // eof: no '\n' after it
      on_event(file_name, line.substr(0, space), line.substr(space + 1));
    }
  }
}

StatusOr<std::unique_ptr<Broker>> OpenToCheck(const std::string& path, Durability durability,
                                              std::shared_ptr<Clock> clock) {
  Options o = TestProfileOptions();
  o.path = path;
  o.durability = durability;
  if (clock) o.clock = std::move(clock);
  o.background_maintenance = false;
  return Broker::Open(o);
}

void ExpectVerifyClean(Broker& broker, const std::string& what) {
  auto problems = broker.Verify();
  ASSERT_OK(problems);
  std::string listed;
  for (size_t i = 0; i < problems->size() && i < 10; ++i) listed += "\n  " + (*problems)[i];
  EXPECT_TRUE(problems->empty()) << what << ": Verify() found " << problems->size()
                                 << " problems, among them:" << listed;
}

}  // namespace lqs::testing
