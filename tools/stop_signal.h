// tools/stop_signal.h — SIGINT and SIGTERM as a request to stop, for the CLI's
// commands that run until interrupted (forward, pull, stats --watch, and redrive
// start while it waits for its task).
//
// CatchStopSignals() replaces the default action of both signals (ending the
// process) with setting one process-wide flag, which StopRequested() reads and
// RequestStop() sets from code (to end a thread that waits on the flag). The
// flag is never cleared: the CLI runs one command per process.
//
// Thread safety: all three may be called from any thread; the handler only
// stores to a lock-free atomic, so it is async-signal-safe.

#ifndef LQS_TOOLS_STOP_SIGNAL_H_
#define LQS_TOOLS_STOP_SIGNAL_H_

namespace lqs_cli {

void CatchStopSignals();
bool StopRequested();
void RequestStop();

}  // namespace lqs_cli

#endif  // LQS_TOOLS_STOP_SIGNAL_H_
