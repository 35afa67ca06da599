// lqs/version.h — the library version, at compile time and at run time.
#ifndef LQS_VERSION_H_
#define LQS_VERSION_H_

#define LQS_VERSION_MAJOR 0
#define LQS_VERSION_MINOR 1
#define LQS_VERSION_PATCH 0
#define LQS_VERSION_STRING "0.1.0"

namespace lqs {
// The version of the library linked at run time ("0.1.0").
const char* Version();
}  // namespace lqs

#endif  // LQS_VERSION_H_
