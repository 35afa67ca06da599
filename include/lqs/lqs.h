// lqs/lqs.h — the whole public C++ API in one include.
#ifndef LQS_LQS_H_
#define LQS_LQS_H_

#include "lqs/attributes.h"    // IWYU pragma: export
#include "lqs/broker.h"        // IWYU pragma: export
#include "lqs/clock.h"         // IWYU pragma: export
#include "lqs/commit_scope.h"  // IWYU pragma: export
#include "lqs/limits.h"        // IWYU pragma: export
#include "lqs/options.h"       // IWYU pragma: export
#include "lqs/queue.h"         // IWYU pragma: export
#include "lqs/status.h"        // IWYU pragma: export
#include "lqs/transaction.h"   // IWYU pragma: export
#include "lqs/types.h"         // IWYU pragma: export
#include "lqs/version.h"       // IWYU pragma: export
#include "lqs/worker.h"        // IWYU pragma: export

#endif  // LQS_LQS_H_
