// wire/region_name.h — what lqs takes for a region name: lqsd checks the
// regions requests name before one becomes a database directory
// (server/regions.h), and the `lqs` CLI checks the region it signs for and
// the <region> of a .../regions/<region> database path the same way.
//
// A region name is 1 to 50 characters: lower-case ASCII letters, digits, '-'
// and '_'. That covers every AWS region and names such as "local" or
// "elasticmq" that emulator users configure, and can never be "..", hold a
// '/' or be empty.
//
// Thread safety: a pure function.

#ifndef LQS_WIRE_REGION_NAME_H_
#define LQS_WIRE_REGION_NAME_H_

#include <string_view>

namespace lqs::wire {

// The rule above, for error messages.
inline constexpr std::string_view kRegionNameRule =
    "1 to 50 lower-case letters, digits, '-' and '_'";

inline bool IsRegionName(std::string_view name) {
  if (name.empty() || name.size() > 50) return false;
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    if (!ok) return false;
  }
  return true;
}

}  // namespace lqs::wire

#endif  // LQS_WIRE_REGION_NAME_H_
