// lqs::Options presets and the names of the durability modes (see lqs/options.h).

#include "lqs/options.h"

#include <utility>

namespace lqs {

namespace {

constexpr std::pair<Durability, const char*> kDurabilityNames[] = {
    {Durability::kNone, "none"},
    {Durability::kProcess, "process"},
    {Durability::kFsync, "fsync"},
};

}  // namespace

const char* DurabilityName(Durability durability) {
  for (const auto& [mode, name] : kDurabilityNames) {
    if (mode == durability) return name;
  }
  return "?";
}

std::optional<Durability> ParseDurability(std::string_view name) {
  for (const auto& [mode, mode_name] : kDurabilityNames) {
    if (name == mode_name) return mode;
  }
  return std::nullopt;
}

Options Options::SmallDevice() {
  Options o;
  o.block_cache_bytes = 2 << 20;
  o.write_buffer_bytes = 1 << 20;
  o.max_write_buffers = 2;
  o.memtable_budget_bytes = 6 << 20;
  o.max_background_jobs = 1;
  return o;
}

}  // namespace lqs
