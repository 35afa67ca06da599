// Unit tests of an I/O thread's loop (server/io_loop.h): the adaptive
// busy-polling window, and that the loop runs every handler and returns
// when its context is stopped or out of work.

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <gtest/gtest.h>

#include "server/endpoint.h"
#include "server/io_loop.h"

namespace lqsd {
namespace {

using std::chrono::microseconds;
using std::chrono::nanoseconds;

TEST(IoLoop, PollWindowGrowsWhileGapsAreShortAndStopsPollingWhenTheyAreLong) {
  PollWindow w(microseconds(50));
  EXPECT_EQ(w.window(), nanoseconds(0));  // sleeps at once until it has seen a short gap

  w.Observe(microseconds(5000), false);  // a long gap changes nothing
  EXPECT_EQ(w.window(), nanoseconds(0));

  w.Observe(microseconds(30), false);  // slept through a gap polling could have caught
  EXPECT_EQ(w.window(), PollWindow::kGrowStart);
  w.Observe(microseconds(30), false);
  EXPECT_EQ(w.window(), microseconds(20));
  w.Observe(microseconds(30), false);
  EXPECT_EQ(w.window(), microseconds(40));
  w.Observe(microseconds(45), false);
  EXPECT_EQ(w.window(), microseconds(50));  // capped
  w.Observe(microseconds(50), false);
  EXPECT_EQ(w.window(), microseconds(50));

  w.Observe(microseconds(12), true);  // found by polling: kept
  EXPECT_EQ(w.window(), microseconds(50));

  w.Observe(microseconds(51), false);  // longer than the limit: halved
  EXPECT_EQ(w.window(), microseconds(25));
  w.Observe(microseconds(900), false);
  EXPECT_EQ(w.window(), nanoseconds(12500));
  w.Observe(microseconds(900), false);  // under kGrowStart: off
  EXPECT_EQ(w.window(), nanoseconds(0));
}

TEST(IoLoop, AZeroLimitNeverPolls) {
  PollWindow w(nanoseconds(0));
  w.Observe(microseconds(1), false);
  w.Observe(nanoseconds(0), false);
  EXPECT_EQ(w.window(), nanoseconds(0));
  PollWindow negative(microseconds(-3));
  negative.Observe(microseconds(1), false);
  EXPECT_EQ(negative.window(), nanoseconds(0));
}

TEST(IoLoop, DefaultBusyPollLeavesTheLastCoreToClients) {
  EXPECT_EQ(DefaultBusyPollMicros(0, 1), 0);  // cores unknown
  EXPECT_EQ(DefaultBusyPollMicros(1, 1), 0);
  EXPECT_EQ(DefaultBusyPollMicros(2, 1), kDefaultBusyPollMicros);
  EXPECT_EQ(DefaultBusyPollMicros(2, 2), 0);
  EXPECT_EQ(DefaultBusyPollMicros(4, 8), 0);
  EXPECT_EQ(DefaultBusyPollMicros(8, DefaultIoThreads(8)), kDefaultBusyPollMicros);
}

// Handlers posted from another thread all run, on the loop's thread, whether
// they find it polling or asleep (the window starts at 0, so it sleeps until
// it has seen short gaps); stop() ends it.
TEST(IoLoop, RunsEveryHandlerAndReturnsWhenStopped) {
  for (const auto limit : {microseconds(0), microseconds(50), microseconds(10000)}) {
    boost::asio::io_context context(1);
    auto guard = boost::asio::make_work_guard(context);
    std::atomic<std::thread::id> loop_thread{};
    std::thread runner([&] {
      loop_thread = std::this_thread::get_id();
      RunIoLoop(context, limit);
    });
    int ran = 0;  // touched on the loop's thread only
    for (int i = 0; i < 200; ++i) {
      std::promise<bool> done;
      boost::asio::post(context, [&] {
        ++ran;
        // A handler that posts another: both run before the loop goes idle.
        boost::asio::post(context,
                          [&] { done.set_value(std::this_thread::get_id() == loop_thread); });
      });
      ASSERT_TRUE(done.get_future().get()) << "limit " << limit.count() << " us";
    }
    EXPECT_EQ(ran, 200);
    context.stop();
    runner.join();
    EXPECT_TRUE(context.stopped());
  }
}

TEST(IoLoop, ReturnsWhenTheContextRunsOutOfWork) {
  boost::asio::io_context context(1);
  int ran = 0;
  for (int i = 0; i < 3; ++i) boost::asio::post(context, [&] { ++ran; });
  RunIoLoop(context, microseconds(50));
  EXPECT_EQ(ran, 3);
}

}  // namespace
}  // namespace lqsd
