// tests/test_profile.h — the Options every test database starts from.
//
// The defaults, or Options::SmallDevice() when the environment variable
// LQS_TEST_PROFILE is "small", so that a whole suite, crash children
// included, runs under the small-device profile
// (`LQS_TEST_PROFILE=small ctest`). Header-only: the crash children link
// no test library.

#ifndef LQS_TESTS_TEST_PROFILE_H_
#define LQS_TESTS_TEST_PROFILE_H_

#include <cstdlib>
#include <string_view>

#include "lqs/options.h"

namespace lqs::testing {

inline Options TestProfileOptions() {
  const char* profile = std::getenv("LQS_TEST_PROFILE");  // NOLINT(concurrency-mt-unsafe)
  if (profile != nullptr && std::string_view(profile) == "small") return Options::SmallDevice();
  return Options();
}

}  // namespace lqs::testing

#endif  // LQS_TESTS_TEST_PROFILE_H_
