// server/clock_endpoint.h — the manual clock over HTTP (lqsd --manual-clock,
// lqs.Server(manual_clock=True)): tests move lqsd's time forward instead of
// sleeping, from any process and any language.
//
// With a manual clock every region's Broker reads its time from one
// lqs::ManualClock (lqs/clock.h), which starts at the real time lqsd started
// at and then moves only when told to (--manual-clock, frozen) or also with
// real time (--manual-clock=running). Requests:
//   GET  /_lqs/clock                      the current time;
//   POST /_lqs/clock/advance              moves it forward by `seconds`:
//        a JSON body {"seconds": N}, a form body seconds=N, or a query
//        parameter ?seconds=N (the query parameter wins). N is a number of
//        seconds >= 0, with a fraction for milliseconds (0.25; rounded to
//        the nearest millisecond), at most kMaxAdvanceSeconds.
// Both answer 200, application/json:
//   {"now_millis": 1767225600000, "now": "2026-01-01T00:00:00.000Z",
//    "running": false}
// (the advance also "advanced_millis": the step). Advancing wakes parked long
// polls (the Brokers listen to the clock), so a long poll whose
// WaitTimeSeconds has passed ends empty, and visibility timeouts, delays and
// retention periods that have passed have expired for the next request.
//
// Errors, application/json {"code": CODE, "message": TEXT}:
//   400 MissingParameter       no `seconds`;
//   400 InvalidParameterValue  `seconds` negative, not a number, too large,
//                              or a body that cannot be read;
//   405 (with Allow)           another method (GET on /advance, ...).
// A request is a clock request only when its path is exactly one of the two,
// it has no X-Amz-Target header and no Action query parameter (an SQS
// request stays one). Without a manual clock the router answers clock
// requests as it answers a GET of an unknown path: 404 UnknownOperation.
// With --auth-file they need a valid SigV4 signature like every request
// (router.h); the unauthenticated --metrics-listen never serves them.
//
// Thread safety: pure functions; Serve() calls the clock, which is
// thread-safe.

#ifndef LQS_SERVER_CLOCK_ENDPOINT_H_
#define LQS_SERVER_CLOCK_ENDPOINT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "server/http_types.h"

#include "lqs/clock.h"

namespace lqsd::clock_endpoint {

inline constexpr std::string_view kPath = "/_lqs/clock";
inline constexpr std::string_view kAdvancePath = "/_lqs/clock/advance";
// Ten years: far beyond any SQS time rule (14 days of retention).
inline constexpr int64_t kMaxAdvanceSeconds = 315360000;

// See above: path kPath or kAdvancePath, any method, not an SQS request.
bool IsClockRequest(const HttpRequest& request);

// Answers a request IsClockRequest accepted, on `clock`.
HttpResponse Serve(const HttpRequest& request, lqs::ManualClock& clock);

// Reads a `seconds` value given as text ("30", "0.25") into milliseconds;
// nullopt with *error (naming the parameter) when it is negative, not a
// plain decimal number, or above kMaxAdvanceSeconds. Exposed for tests.
std::optional<int64_t> ParseSeconds(std::string_view text, std::string* error);

// "2026-01-01T00:00:00.000Z" for a time in milliseconds since the epoch.
std::string Iso8601(int64_t millis);

}  // namespace lqsd::clock_endpoint

#endif  // LQS_SERVER_CLOCK_ENDPOINT_H_
