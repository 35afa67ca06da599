// lib/engine/ids.h — identifiers lqs makes up: MessageIds and task ids are
// random (version 4) UUIDs, valid SQS batch entry ids as clients expect.
//
// Thread safety: thread-safe (a per-thread generator).

#ifndef LQS_LIB_ENGINE_IDS_H_
#define LQS_LIB_ENGINE_IDS_H_

#include <string>

namespace lqs::engine {

// "5fea7756-0ea4-451a-a703-a558b933e274"
std::string NewMessageId();

// `n` random bytes from the operating system (for the database secret).
std::string RandomBytes(size_t n);

}  // namespace lqs::engine

#endif  // LQS_LIB_ENGINE_IDS_H_
