// fuzz/fuzz_check.h — the property check every fuzzer makes.

#ifndef LQS_FUZZ_FUZZ_CHECK_H_
#define LQS_FUZZ_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>

namespace lqs::fuzz {

// When `ok` is false: prints "<fuzzer>: property failed: <what>" and aborts,
// so that libFuzzer (or the corpus replay) reports the input.
inline void CheckProperty(const char* fuzzer, bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "%s: property failed: %s\n", fuzzer, what);
    std::abort();
  }
}

}  // namespace lqs::fuzz

#endif  // LQS_FUZZ_FUZZ_CHECK_H_
