// bench/disk_probe.cc — see disk_probe.h.

#include "bench/disk_probe.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <unistd.h>

namespace lqs::bench {

double FdatasyncPerSecond(const std::string& dir, int count) {
  const std::string path = dir + "/fdatasync-probe";
  const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    std::fprintf(stderr, "fdatasync probe: open %s: %s\n", path.c_str(), std::strerror(errno));
    return 0;
  }
  const std::string record(100, 'r');
  bool ok = true;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < count && ok; ++i) {
    ok = ::write(fd, record.data(), record.size()) == static_cast<ssize_t>(record.size()) &&
         ::fdatasync(fd) == 0;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!ok) std::fprintf(stderr, "fdatasync probe: %s\n", std::strerror(errno));
  ::close(fd);
  ::unlink(path.c_str());
  return ok && seconds > 0 ? count / seconds : 0;
}

}  // namespace lqs::bench
