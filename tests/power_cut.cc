#include "tests/power_cut.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <vector>

namespace lqs::testing {
namespace {

namespace fs = std::filesystem;

std::string DirOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

// A directory entry changed since the directory's last sync.
struct EntryChange {
  enum Kind { kCreated, kRenamed } kind;
  std::string path;           // the entry that is not durable
  std::string from;           // kRenamed: the name the file had
  bool from_durable = false;  // kRenamed: `from` was a durable entry
  std::string backup;         // kRenamed: the replaced file's bytes, or "-"
};

struct FileState {
  bool tracked = false;  // written since the journal began
  uint64_t synced = 0;   // bytes a power cut keeps
};

class Replay {
 public:
  bool Line(const std::string& line, std::string* error) {
    std::istringstream in(line);
    std::string op, a, b, c;
    in >> op >> a;
    if (op == "create") {
      files_[a] = {true, 0};
      changes_[DirOf(a)].push_back({EntryChange::kCreated, a, "", false, "-"});
    } else if (op == "open") {
      files_[a] = {true, 0};
    } else if (op == "reopen") {
      in >> b;
      if (!files_[a].tracked) files_[a] = {true, std::stoull(b)};
    } else if (op == "sync") {
      in >> b;
      files_[a] = {true, std::stoull(b)};
    } else if (op == "dirsync") {
      changes_[a].clear();
    } else if (op == "delete") {
      files_.erase(a);
      ForgetCreated(a);
    } else if (op == "rename") {
      in >> b >> c;
      if (b.empty() || c.empty()) {
        *error = "malformed journal line: " + line;
        return false;
      }
      const bool from_durable = !ForgetCreated(a);
      auto it = files_.find(a);
      FileState moved = it == files_.end() ? FileState{} : it->second;
      if (it != files_.end()) files_.erase(it);
      files_[b] = moved;
      changes_[DirOf(b)].push_back({EntryChange::kRenamed, b, a, from_durable, c});
    } else {
      *error = "unknown journal line: " + line;
      return false;
    }
    return true;
  }

  bool Apply(uint64_t seed, bool torn_tails, PowerCutStats* stats, std::string* error) {
    std::mt19937_64 rng(seed);
    // Contents first, under the names the files have now.
    for (const auto& [path, state] : files_) {
      if (!state.tracked) continue;
      std::error_code ec;
      const uint64_t size = fs::file_size(path, ec);
      if (ec || size <= state.synced) continue;
      uint64_t keep = state.synced;
      if (torn_tails && rng() % 2 == 0) keep += rng() % (size - state.synced + 1);
      if (keep == size) continue;
      fs::resize_file(path, keep, ec);
      if (ec) {
        *error = "cannot truncate " + path + ": " + ec.message();
        return false;
      }
      ++stats->files_truncated;
      stats->bytes_dropped += static_cast<int64_t>(size - keep);
    }
    // Then the directory entries, newest change first.
    for (auto& [dir, changes] : changes_) {
      for (auto it = changes.rbegin(); it != changes.rend(); ++it) {
        std::error_code ec;
        if (it->kind == EntryChange::kCreated) {
          if (fs::remove(it->path, ec)) ++stats->files_removed;
          continue;
        }
        if (it->from_durable && fs::exists(it->path)) {
          fs::rename(it->path, it->from, ec);
        } else {
          fs::remove(it->path, ec);
        }
        if (!ec && it->backup != "-") {
          fs::copy_file(it->backup, it->path, fs::copy_options::overwrite_existing, ec);
        }
        if (ec) {
          *error = "cannot undo the rename to " + it->path + ": " + ec.message();
          return false;
        }
        ++stats->renames_undone;
      }
    }
    return true;
  }

 private:
  // Drops the pending creation of `path`; true if there was one.
  bool ForgetCreated(const std::string& path) {
    auto& list = changes_[DirOf(path)];
    for (auto it = list.begin(); it != list.end(); ++it) {
      if (it->kind == EntryChange::kCreated && it->path == path) {
        list.erase(it);
        return true;
      }
    }
    return false;
  }

  std::map<std::string, FileState> files_;
  std::map<std::string, std::vector<EntryChange>> changes_;
};

}  // namespace

bool ApplyPowerCut(const std::string& journal_path, uint64_t seed, bool torn_tails,
                   PowerCutStats* stats, std::string* error) {
  Replay replay;
  {
    std::ifstream in(journal_path);
    if (!in) {
      *error = "cannot read the journal " + journal_path;
      return false;
    }
    std::string line;
    // A last line without '\n' was torn by the kill: its operation is
    // unjournaled, which the model allows (see fault_fs.h).
    while (std::getline(in, line)) {
      if (in.eof()) break;
      if (!line.empty() && !replay.Line(line, error)) return false;
    }
  }
  if (!replay.Apply(seed, torn_tails, stats, error)) return false;
  std::error_code ec;
  fs::remove(journal_path, ec);
  fs::remove_all(journal_path + ".backup", ec);
  return true;
}

}  // namespace lqs::testing
