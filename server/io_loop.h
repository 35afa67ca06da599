// server/io_loop.h — how an lqsd I/O thread runs its io_context: with
// adaptive busy polling, or plainly.
//
// A thread that runs out of work sleeps in epoll_wait, and the next request
// must wake it through the kernel. On virtual machines that wake-up costs
// more than serving a small request: the sleeping vCPU halts, and waking it
// takes an interrupt and a VM exit. A client that sends its next request a
// few tens of microseconds after its last response (a one-connection
// producer, a consumer loop) then pays that on every call.
//
// RunIoLoop(context, max_poll) polls the context (ready handlers, and an
// epoll_wait that does not block) for up to a window after its work runs out
// before it sleeps. The window adapts to the gaps between bursts of work,
// the way the kernel's haltpoll governor adapts a guest's halt polling:
//  - a poll that found work keeps the window;
//  - a gap that the window missed but that was no longer than max_poll
//    doubles the window (from kGrowStart, up to max_poll);
//  - a longer gap halves it, and below kGrowStart turns polling off until
//    a gap no longer than max_poll comes again.
// So a thread polls at most max_poll per gap, only while its gaps are that
// short; an idle server, or one whose clients pause longer between
// requests (a test suite's boto3 calls are milliseconds apart), sleeps at
// once as before. The gap is measured from the end of the last work to
// NoteWorkArrived() (HttpServer calls it when a connection's bytes arrive),
// or, for a handler that does not call it, to the end of that handler's run:
// then it overstates the gap, and the window errs toward polling less.
//
// max_poll 0 runs the context with run(), as without this file.
//
// Thread safety: PollWindow is one thread's state; RunIoLoop runs on the
// thread that calls it until the context is stopped or runs out of work.

#ifndef LQS_SERVER_IO_LOOP_H_
#define LQS_SERVER_IO_LOOP_H_

#include <chrono>

#include <boost/asio/io_context.hpp>

namespace lqsd {

class PollWindow {
 public:
  static constexpr std::chrono::nanoseconds kGrowStart = std::chrono::microseconds(10);

  explicit PollWindow(std::chrono::nanoseconds max_poll);

  // How long to poll after the work runs out; 0: sleep at once.
  std::chrono::nanoseconds window() const { return window_; }
  // The work ran out and came back `gap` later; `found_polling`: polling
  // found it (gap <= window()), else the thread slept.
  void Observe(std::chrono::nanoseconds gap, bool found_polling);

 private:
  std::chrono::nanoseconds max_;
  std::chrono::nanoseconds window_{0};
};

// Marks the moment work arrived on this I/O thread after it slept, for
// RunIoLoop's measure of the gap. Cheap when the thread did not sleep (a
// thread-local test); elsewhere it does nothing.
void NoteWorkArrived();

// Runs `context` on the calling thread until it is stopped or out of work.
void RunIoLoop(boost::asio::io_context& context, std::chrono::nanoseconds max_poll);

}  // namespace lqsd

#endif  // LQS_SERVER_IO_LOOP_H_
