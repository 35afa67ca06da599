#include "tools/stop_signal.h"

#include <atomic>
#include <csignal>

namespace lqs_cli {
namespace {

std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void OnStopSignal(int) { g_stop.store(true); }

}  // namespace

void CatchStopSignals() {
  std::signal(SIGINT, OnStopSignal);
  std::signal(SIGTERM, OnStopSignal);
}

bool StopRequested() { return g_stop.load(); }

void RequestStop() { g_stop.store(true); }

}  // namespace lqs_cli
