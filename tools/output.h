// tools/output.h — how the lqs CLI prints: aligned tables and plain text on
// stdout, JSON with --json, errors on stderr (and as JSON on stdout with
// --json), and progress bars on stderr only when stderr is a terminal.

#ifndef LQS_TOOLS_OUTPUT_H_
#define LQS_TOOLS_OUTPUT_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lqs/status.h"

namespace lqs_cli {

using Json = nlohmann::ordered_json;

// Exit codes (documented in docs/cli.md and `lqs --help`).
enum Exit : int {
  kExitOk = 0,
  kExitUsage = 1,         // bad command line or malformed input (a JSON line, a file)
  kExitSqsError = 2,      // the library or the server refused: an SQS error code
  kExitIoError = 3,       // I/O, database locked, corruption, server unreachable
  kExitVerifyFailed = 4,  // `verify` found problems
  kExitPartial = 5,       // some entries of a batch operation failed (the rest succeeded)
};

// The exit code for a failed status.
int ExitCodeFor(const lqs::Status& status);

// The code of a server's 4xx error that lqs::ErrorCode has no enumerator for
// (lqsd's SigV4 refusals MissingAuthenticationToken, IncompleteSignature,
// InvalidClientTokenId and SignatureDoesNotMatch, or a code of a newer SQS).
// Such a Status's message is "<Code>: <text>";
// Output::Error prints <Code> as the error's code, and it exits 2 as SQS
// errors do.
inline constexpr lqs::ErrorCode kServerErrorCode = static_cast<lqs::ErrorCode>(1000);

struct OutputOptions {
  bool json = false;
  bool quiet = false;  // no progress bars, no informational lines
};

class Output {
 public:
  explicit Output(OutputOptions options);

  bool json() const { return options_.json; }
  bool quiet() const { return options_.quiet; }
  // True when stdout / stderr are terminals.
  bool stdout_tty() const { return stdout_tty_; }
  bool stderr_tty() const { return stderr_tty_; }

  // Pretty JSON document on stdout.
  void PrintJson(const Json& j) const;
  // One compact JSON line on stdout (streams, --watch).
  void PrintJsonLine(const Json& j) const;
  // A line on stdout (text mode).
  void Line(const std::string& text) const;
  // An informational line on stderr, unless quiet.
  void Info(const std::string& text) const;

  // A command's output: `j` with --json, otherwise each of `lines` on stdout.
  // Returns kExitOk.
  int Result(const Json& j, const std::vector<std::string>& lines) const;
  // A command's acknowledgement: `j` with --json, otherwise `info` on stderr
  // (unless quiet). Returns kExitOk.
  int Done(const Json& j, const std::string& info) const;

  // Prints the error ("lqs: error: QueueDoesNotExist: ...") and returns its
  // exit code. With --json also {"error": {"code", "message", "exit"}} on stdout.
  int Error(const lqs::Status& status, const std::string& context = "") const;
  // A usage error (exit 1).
  int Usage(const std::string& message) const;

 private:
  OutputOptions options_;
  bool stdout_tty_;
  bool stderr_tty_;
};

// Left-aligned text columns, right-aligned numeric columns.
class Table {
 public:
  explicit Table(std::vector<std::string> headers);
  void AddRow(std::vector<std::string> cells);
  std::string Render() const;
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

// "[#########.........]  45%  450/1000  120/s  ETA 5s" on stderr, redrawn at
// most 10 times a second; silent unless enabled (stderr is a TTY and not
// --quiet/--json-only pipes). total <= 0: a counter without a bar.
class Progress {
 public:
  Progress(const Output& out, std::string label, int64_t total);
  ~Progress();
  void Update(int64_t done, bool force = false);
  void SetTotal(int64_t total) { total_ = total; }
  void Finish();

 private:
  void Draw(int64_t done);

  bool enabled_;
  std::string label_;
  int64_t total_;
  int64_t done_ = 0;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

// "3m12s", "45s", "2h05m", "1d03h".
std::string FormatAge(int64_t seconds);
// ISO-8601 UTC from epoch milliseconds.
std::string FormatTimestampMs(int64_t ms);

}  // namespace lqs_cli

#endif  // LQS_TOOLS_OUTPUT_H_
