#include "tests/faulty_broker.h"

#include <utility>

#include <rocksdb/file_system.h>

#include "lib/engine/open.h"

namespace lqs::testing {

StatusOr<FaultyBroker> OpenFaultyBroker(const Options& options, const std::string& journal) {
  FaultyBroker out;
  out.fs = std::make_unique<FaultFileSystem>(rocksdb::FileSystem::Default(), journal);
  out.env = out.fs->NewEnv();
  auto opened = engine::OpenBroker(options, out.env.get());
  if (!opened.ok()) return opened.status();
  out.broker = std::move(opened).value();
  return out;
}

}  // namespace lqs::testing
