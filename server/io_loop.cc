#include "server/io_loop.h"

#include <algorithm>

namespace lqsd {

namespace {

using Clock = std::chrono::steady_clock;

// Set while RunIoLoop's thread sleeps in run_one(); the first
// NoteWorkArrived() after that records when the work came.
thread_local bool tl_asleep = false;
thread_local Clock::time_point tl_arrived;

}  // namespace

void NoteWorkArrived() {
  if (!tl_asleep) return;
  tl_asleep = false;
  tl_arrived = Clock::now();
}

PollWindow::PollWindow(std::chrono::nanoseconds max_poll)
    : max_(std::max(max_poll, std::chrono::nanoseconds(0))) {}

void PollWindow::Observe(std::chrono::nanoseconds gap, bool found_polling) {
  if (found_polling || max_.count() == 0) return;
  if (gap <= max_) {
    window_ = std::min(max_, std::max(kGrowStart, window_ * 2));
  } else {
    window_ /= 2;
    if (window_ < kGrowStart) window_ = std::chrono::nanoseconds(0);
  }
}

void RunIoLoop(boost::asio::io_context& context, std::chrono::nanoseconds max_poll) {
  if (max_poll.count() <= 0) {
    context.run();
    return;
  }
  PollWindow window(max_poll);
  for (;;) {
    // Everything ready, including the handlers that this work posts.
    while (context.poll() > 0) {
    }
    if (context.stopped()) return;
    const Clock::time_point idle_since = Clock::now();
    const Clock::time_point poll_until = idle_since + window.window();
    bool found_polling = false;
    while (Clock::now() < poll_until) {
      if (context.poll_one() > 0) {
        found_polling = true;
        break;
      }
      if (context.stopped()) return;
    }
    Clock::time_point work_came;
    if (found_polling) {
      work_came = Clock::now();
    } else {
      tl_asleep = true;
      const size_t ran = context.run_one();
      // The handler's own run is not part of the gap when it said when it began.
      work_came = tl_asleep ? Clock::now() : tl_arrived;
      tl_asleep = false;
      if (ran == 0) return;  // stopped, or out of work
    }
    window.Observe(work_came - idle_since, found_polling);
  }
}

}  // namespace lqsd
