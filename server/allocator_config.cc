// server/allocator_config.cc — how jemalloc runs inside lqs's long-running
// programs, lqsd and the lqs CLI (whose forward and pull bridges run for
// days); linked only into a program built with jemalloc (lqs_add_program's
// JEMALLOC, top-level CMakeLists.txt).
//
// jemalloc reads this string at its first allocation (MALLOC_CONF in the
// environment is applied after it, so an operator can still override it).
// background_thread: a jemalloc thread returns dirty pages to the system
// when they have been unused for the decay time (10 s), also while the
// program is idle. Without it pages are purged only during later
// allocations, so an idle lqsd (an edge device between bursts) kept its peak
// footprint: 127 MB resident after a 200,000-message load and still 122 MB
// 12 s later, against 88 MB with this setting (docs/performance.md).
extern "C" {
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): jemalloc's ABI
const char* malloc_conf = "background_thread:true";
}
