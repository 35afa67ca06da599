// bench/enum_names.h — names of enum values for lqs_bench's reports, kept as
// tables of {value, name} pairs beside the enums they name.
//
// Thread safety: pure function over constant tables.

#ifndef LQS_BENCH_ENUM_NAMES_H_
#define LQS_BENCH_ENUM_NAMES_H_

#include <cstddef>
#include <utility>

namespace lqs::bench {

// The name of `e` in `names`, "?" when it is not there.
template <typename E, size_t N>
const char* NameIn(const std::pair<E, const char*> (&names)[N], E e) {
  for (const auto& [value, name] : names) {
    if (value == e) return name;
  }
  return "?";
}

}  // namespace lqs::bench

#endif  // LQS_BENCH_ENUM_NAMES_H_
