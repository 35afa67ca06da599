// lib/engine/table_writes_in_flight.h — the table keys that committing
// transactions are writing after they left the broker's transaction mutex.
//
// A commit validates its reads and builds its batch under the transaction
// mutex, then releases it and writes: concurrent commits' writes then meet
// in RocksDB's write group and share one fsync (group commit). A later
// commit must not validate a key that an earlier one is still writing (the
// database does not hold the new value yet), so each commit registers its
// written keys here before releasing the mutex, and a commit waits, before
// validating, until no key it read, scanned or writes is registered.
//
// Thread safety: thread-safe. Its mutex is a leaf: nothing else is taken
// while it is held, so a commit that waits here under the transaction mutex
// cannot block the writer it waits for (which takes only this mutex).

#ifndef LQS_LIB_ENGINE_TABLE_WRITES_IN_FLIGHT_H_
#define LQS_LIB_ENGINE_TABLE_WRITES_IN_FLIGHT_H_

#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lib/notify/mutex.h"

namespace lqs::engine {

class TableWritesInFlight {
 public:
  // Keys registered for the lifetime of this object (a commit's write).
  class Registration {
   public:
    Registration(TableWritesInFlight* owner, std::vector<std::string> keys);
    ~Registration();
    Registration(const Registration&) = delete;
    Registration& operator=(const Registration&) = delete;

   private:
    TableWritesInFlight* const owner_;
    const std::vector<std::string> keys_;
  };

  // Returns once no registered key satisfies `touches` (called with this
  // object's mutex held: it must not block or take locks).
  void WaitUntilNoneTouched(const std::function<bool(const std::string&)>& touches)
      ABSL_LOCKS_EXCLUDED(mu_);

  // Tests: `hook` runs (with the mutex held) each time a caller of
  // WaitUntilNoneTouched is about to wait. Not synchronised: set it before
  // the commits it observes start.
  void SetWaitHookForTest(std::function<void()> hook) { wait_hook_ = std::move(hook); }

 private:
  void Add(const std::vector<std::string>& keys) ABSL_LOCKS_EXCLUDED(mu_);
  void Remove(const std::vector<std::string>& keys) ABSL_LOCKS_EXCLUDED(mu_);

  notify::Mutex mu_;
  notify::CondVar removed_;
  std::multiset<std::string> keys_ ABSL_GUARDED_BY(mu_);
  std::function<void()> wait_hook_;  // SetWaitHookForTest
};

}  // namespace lqs::engine

#endif  // LQS_LIB_ENGINE_TABLE_WRITES_IN_FLIGHT_H_
