// tests/faulty_broker.h — a Broker opened over a FaultFileSystem
// (tests/fault_fs.h), for the tests that fail its disk (disk_fault_test,
// lqsd_disk_fault_test, transaction_group_commit_test) and the crash
// children that journal it for a power cut (crash_child_support).
//
// Ownership: FaultyBroker owns all three; its members are destroyed broker
// first, so the database closes before its file system goes. Thread safety:
// that of Broker and FaultFileSystem.

#ifndef LQS_TESTS_FAULTY_BROKER_H_
#define LQS_TESTS_FAULTY_BROKER_H_

#include <memory>
#include <string>

#include <rocksdb/env.h>

#include "tests/fault_fs.h"

#include "lqs/lqs.h"

namespace lqs::testing {

struct FaultyBroker {
  std::unique_ptr<FaultFileSystem> fs;
  std::unique_ptr<rocksdb::Env> env;
  std::unique_ptr<Broker> broker;  // declared last: destroyed first
};

// Opens `options.path` on a new FaultFileSystem over the real one; with a
// non-empty `journal`, that file system journals what is synced there (for
// ApplyPowerCut, tests/power_cut.h). Returns the open's error, if any.
StatusOr<FaultyBroker> OpenFaultyBroker(const Options& options, const std::string& journal = "");

}  // namespace lqs::testing

#endif  // LQS_TESTS_FAULTY_BROKER_H_
