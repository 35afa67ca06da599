// tools/output.cc — see output.h.

#include "tools/output.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <sstream>

#include <unistd.h>

namespace lqs_cli {

using lqs::ErrorCode;

int ExitCodeFor(const lqs::Status& status) {
  switch (status.code()) {
    case ErrorCode::kOk:
      return kExitOk;
    case ErrorCode::kIOError:
    case ErrorCode::kCorruption:
    case ErrorCode::kDatabaseLocked:
    case ErrorCode::kClosed:
    case ErrorCode::kInternal:
    case ErrorCode::kOverStorageBudget:
      return kExitIoError;
    default:
      return kExitSqsError;
  }
}

Output::Output(OutputOptions options)
    : options_(options), stdout_tty_(isatty(1) != 0), stderr_tty_(isatty(2) != 0) {}

void Output::PrintJson(const Json& j) const { std::cout << j.dump(2) << "\n" << std::flush; }
void Output::PrintJsonLine(const Json& j) const { std::cout << j.dump() << "\n" << std::flush; }
void Output::Line(const std::string& text) const { std::cout << text << "\n"; }
void Output::Info(const std::string& text) const {
  if (!options_.quiet) std::cerr << text << "\n";
}

int Output::Result(const Json& j, const std::vector<std::string>& lines) const {
  if (json()) {
    PrintJson(j);
  } else {
    for (const auto& line : lines) Line(line);
  }
  return kExitOk;
}

int Output::Done(const Json& j, const std::string& info) const {
  if (json()) {
    PrintJson(j);
  } else {
    Info(info);
  }
  return kExitOk;
}

int Output::Error(const lqs::Status& status, const std::string& context) const {
  const int code = ExitCodeFor(status);
  std::string name(lqs::ErrorCodeName(status.code()));
  std::string message = status.message();
  if (status.code() == kServerErrorCode) {
    const size_t colon = message.find(": ");
    name = message.substr(0, colon);
    message = colon == std::string::npos ? std::string() : message.substr(colon + 2);
  }
  std::cout << std::flush;
  std::cerr << "lqs: error: " << (context.empty() ? "" : context + ": ") << name
            << (message.empty() ? "" : ": " + message) << "\n";
  if (options_.json) {
    Json j;
    j["error"] = {{"code", name}, {"message", message}, {"exit", code}};
    if (!context.empty()) j["error"]["context"] = context;
    PrintJson(j);
  }
  return code;
}

int Output::Usage(const std::string& message) const {
  std::cout << std::flush;
  std::cerr << "lqs: usage error: " << message << "\n";
  if (options_.json) {
    PrintJson(Json{{"error", {{"code", "Usage"}, {"message", message}, {"exit", kExitUsage}}}});
  }
  return kExitUsage;
}

// ---- Table ---------------------------------------------------------------------------

Table::Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}

void Table::AddRow(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

std::string Table::Render() const {
  const size_t n = headers_.size();
  std::vector<size_t> width(n);
  std::vector<bool> numeric(n, true);
  for (size_t c = 0; c < n; ++c) {
    width[c] = headers_[c].size();
    bool any = false;
    for (const auto& row : rows_) {
      width[c] = std::max(width[c], row[c].size());
      if (row[c].empty() || row[c] == "-") continue;
      any = true;
      if (row[c].find_first_not_of("0123456789.,%") != std::string::npos) numeric[c] = false;
    }
    if (!any) numeric[c] = false;
  }
  std::ostringstream os;
  auto emit = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t c = 0; c < n; ++c) {
      const std::string& cell = cells[c];
      const std::string pad(width[c] - std::min(width[c], cell.size()), ' ');
      if (c > 0) line += "  ";
      line += numeric[c] ? pad + cell : (c + 1 == n ? cell : cell + pad);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    os << line << "\n";
  };
  emit(headers_);
  for (const auto& row : rows_) emit(row);
  return os.str();
}

// ---- Progress ------------------------------------------------------------------------

Progress::Progress(const Output& out, std::string label, int64_t total)
    : enabled_(out.stderr_tty() && !out.quiet()),
      label_(std::move(label)),
      total_(total),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_ - std::chrono::seconds(1)) {}

Progress::~Progress() { Finish(); }

void Progress::Update(int64_t done, bool force) {
  done_ = done;
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  Draw(done);
}

void Progress::Draw(int64_t done) {
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = secs > 0 ? static_cast<double>(done) / secs : 0;
  std::ostringstream os;
  os << "\r" << label_ << " ";
  if (total_ > 0) {
    constexpr int kWidth = 30;
    const double frac = std::min(1.0, static_cast<double>(done) / static_cast<double>(total_));
    const int filled = static_cast<int>(frac * kWidth);
    os << "[" << std::string(filled, '#') << std::string(kWidth - filled, '.') << "] ";
    char pct[16];
    std::snprintf(pct, sizeof(pct), "%3d%%", static_cast<int>(frac * 100));
    os << pct << "  " << done << "/" << total_;
    if (rate > 0 && done < total_) {
      os << "  ETA " << FormatAge(static_cast<int64_t>((total_ - done) / rate));
    }
  } else {
    os << done;
  }
  char r[32];
  std::snprintf(r, sizeof(r), "  %.0f/s", rate);
  os << r << "\x1b[K";
  std::cerr << os.str() << std::flush;
}

void Progress::Finish() {
  if (finished_) return;
  finished_ = true;
  if (!enabled_) return;
  Draw(done_);
  std::cerr << "\n" << std::flush;
}

// ---- Formatting ----------------------------------------------------------------------

std::string FormatAge(int64_t s) {
  if (s < 0) s = 0;
  char buf[32];
  if (s < 60) {
    std::snprintf(buf, sizeof(buf), "%llds", static_cast<long long>(s));
  } else if (s < 3600) {
    std::snprintf(buf, sizeof(buf), "%lldm%02llds", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  } else if (s < 86400) {
    std::snprintf(buf, sizeof(buf), "%lldh%02lldm", static_cast<long long>(s / 3600),
                  static_cast<long long>(s % 3600 / 60));
  } else {
    std::snprintf(buf, sizeof(buf), "%lldd%02lldh", static_cast<long long>(s / 86400),
                  static_cast<long long>(s % 86400 / 3600));
  }
  return buf;
}

std::string FormatTimestampMs(int64_t ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof(out), "%s.%03dZ", buf, static_cast<int>(ms % 1000));
  return out;
}

}  // namespace lqs_cli
