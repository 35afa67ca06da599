// The C API (include/lqs/c.h): a thin shim over the C++ API. Every handle is
// a struct holding the C++ value; every fallible call funnels its Status
// through SaveError, and every entry point catches all exceptions. This file:
// errors, memory, version, maps and lists, the clock, options, and the helpers
// of lib/c_internal.h. The broker's calls are in lib/c_broker.cc, sending and
// receiving in lib/c_messages.cc, the other queue calls in lib/c_queue.cc, the
// worker in lib/c_worker.cc, the bridges in lib/c_bridge.cc.

#include "lqs/c.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lib/c_internal.h"

#include "lqs/lqs.h"

using lqs::ErrorCode;
using lqs::Status;

struct lqs_clock_t {
  std::shared_ptr<lqs::ManualClock> rep;
};

namespace lqs::c_internal {

void SetError(char** errptr, const std::string& message) {
  if (errptr == nullptr) return;
  char* copy = static_cast<char*>(std::malloc(message.size() + 1));
  if (copy != nullptr) {
    std::memcpy(copy, message.data(), message.size());
    copy[message.size()] = '\0';
  }
  std::free(*errptr);
  *errptr = copy;
}

int SaveError(const Status& status, char** errptr) {
  if (status.ok()) return LQS_OK;
  SetError(errptr,
           status.message().empty() ? std::string(ErrorCodeName(status.code())) : status.message());
  return static_cast<int>(status.code());
}

int Fail(int code, const char* message, char** errptr) {
  SetError(errptr, message);
  return code;
}

AttributeIndex IndexAttributes(const MessageAttributeMap& attributes) {
  AttributeIndex out;
  out.reserve(attributes.size());
  for (const auto& entry : attributes) out.push_back(&entry);
  return out;
}

char* CopyString(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out == nullptr) throw std::bad_alloc();
  std::memcpy(out, s.data(), s.size());
  out[s.size()] = '\0';
  return out;
}

std::map<std::string, std::string> MakeMap(const char* const* keys, const char* const* values,
                                           size_t n) {
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < n; ++i) out[Str(keys[i])] = Str(values[i]);
  return out;
}

std::vector<std::string> MakeList(const char* const* items, size_t n) {
  std::vector<std::string> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(Str(items[i]));
  return out;
}

lqs_strmap_t* NewMap(const std::map<std::string, std::string>& m) {
  auto* out = new lqs_strmap_t;
  out->rep.assign(m.begin(), m.end());
  return out;
}

}  // namespace lqs::c_internal

namespace {

const lqs::ErrorInfo& Info(int code) { return lqs::ErrorInfoFor(static_cast<ErrorCode>(code)); }

// The static NUL-terminated copies of the error table's string_views.
struct ErrorStrings {
  std::string name, query_code, shape;
};
const ErrorStrings& StringsFor(int code) {
  static const auto* table = [] {
    auto* t = new std::map<int, ErrorStrings>;
    for (int c : {0,  1,  2,  3,  4,  5,  6,  7,   8,   9,   10,  11,  12,
                  13, 14, 15, 16, 17, 18, 19, 100, 101, 102, 103, 104, 105}) {
      auto ec = static_cast<ErrorCode>(c);
      (*t)[c] = ErrorStrings{std::string(lqs::ErrorCodeName(ec)),
                             std::string(lqs::ErrorInfoFor(ec).query_code),
                             std::string(lqs::ErrorInfoFor(ec).shape)};
    }
    return t;
  }();
  auto it = table->find(code);
  if (it == table->end()) it = table->find(LQS_INTERNAL);
  return it->second;
}

}  // namespace

extern "C" {

// ---- Errors, memory, version ---------------------------------------------------

const char* lqs_error_name(int code) { return StringsFor(code).name.c_str(); }
const char* lqs_error_query_code(int code) { return StringsFor(code).query_code.c_str(); }
const char* lqs_error_shape(int code) { return StringsFor(code).shape.c_str(); }
int lqs_error_is_sender_fault(int code) { return Info(code).sender_fault ? 1 : 0; }

void lqs_free(void* ptr) { std::free(ptr); }

const char* lqs_version(void) { return lqs::Version(); }
int lqs_version_major(void) { return LQS_VERSION_MAJOR; }
int lqs_version_minor(void) { return LQS_VERSION_MINOR; }
int lqs_version_patch(void) { return LQS_VERSION_PATCH; }
int lqs_c_api_version(void) { return LQS_C_API_VERSION; }

// ---- Maps and lists ---------------------------------------------------------------

size_t lqs_strmap_count(const lqs_strmap_t* map) { return map ? map->rep.size() : 0; }
const char* lqs_strmap_key(const lqs_strmap_t* map, size_t i) { return map->rep[i].first.c_str(); }
const char* lqs_strmap_value(const lqs_strmap_t* map, size_t i) {
  return map->rep[i].second.c_str();
}
const char* lqs_strmap_get(const lqs_strmap_t* map, const char* key) {
  if (map == nullptr || key == nullptr) return nullptr;
  for (const auto& [k, v] : map->rep) {
    if (k == key) return v.c_str();
  }
  return nullptr;
}
void lqs_strmap_destroy(lqs_strmap_t* map) { delete map; }

size_t lqs_strlist_count(const lqs_strlist_t* list) { return list ? list->rep.size() : 0; }
const char* lqs_strlist_get(const lqs_strlist_t* list, size_t i) { return list->rep[i].c_str(); }
void lqs_strlist_destroy(lqs_strlist_t* list) { delete list; }

// ---- Clock ---------------------------------------------------------------------------

lqs_clock_t* lqs_manual_clock_create(int64_t start_ms) {
  return OrElse<lqs_clock_t*>(
      nullptr, [&] { return new lqs_clock_t{std::make_shared<lqs::ManualClock>(start_ms)}; });
}
int64_t lqs_clock_now_millis(lqs_clock_t* clock) { return clock->rep->NowMillis(); }
void lqs_clock_advance_millis(lqs_clock_t* clock, int64_t ms) { clock->rep->AdvanceMillis(ms); }
void lqs_clock_advance_seconds(lqs_clock_t* clock, int64_t s) { clock->rep->AdvanceSeconds(s); }
void lqs_clock_set_millis(lqs_clock_t* clock, int64_t ms) { clock->rep->SetMillis(ms); }
void lqs_clock_destroy(lqs_clock_t* clock) { delete clock; }

// ---- Options ---------------------------------------------------------------------------

lqs_options_t* lqs_options_create(void) { return NewOrNull<lqs_options_t>(); }
void lqs_options_destroy(lqs_options_t* o) { delete o; }
LQS_C_FLAG_SETTER(lqs_options, create_if_missing)
void lqs_options_set_durability(lqs_options_t* o, int durability) { o->durability = durability; }
void lqs_options_set_clock(lqs_options_t* o, lqs_clock_t* clock) {
  if (clock == nullptr) {
    o->rep.clock = lqs::SystemClock::Default();
  } else {
    o->rep.clock = clock->rep;
  }
}
void lqs_options_set_region(lqs_options_t* o, const char* region) { o->rep.region = Str(region); }
void lqs_options_set_account_id(lqs_options_t* o, const char* id) { o->rep.account_id = Str(id); }
void lqs_options_set_sender_id(lqs_options_t* o, const char* id) { o->rep.sender_id = Str(id); }
LQS_C_FLAG_SETTER(lqs_options, enforce_queue_name_reuse_delay)
LQS_C_FLAG_SETTER(lqs_options, enforce_purge_interval)
LQS_C_SETTER(lqs_options, max_inflight_per_queue, int64_t)
LQS_C_FLAG_SETTER(lqs_options, background_maintenance)
LQS_C_SETTER(lqs_options, maintenance_interval_ms, int64_t)
LQS_C_SETTER(lqs_options, block_cache_bytes, int64_t)
LQS_C_SETTER(lqs_options, write_buffer_bytes, int64_t)
LQS_C_SETTER(lqs_options, max_disk_bytes, int64_t)
void lqs_options_use_small_device(lqs_options_t* o) {
  const lqs::Options small = lqs::Options::SmallDevice();
  o->rep.block_cache_bytes = small.block_cache_bytes;
  o->rep.write_buffer_bytes = small.write_buffer_bytes;
  o->rep.max_write_buffers = small.max_write_buffers;
  o->rep.memtable_budget_bytes = small.memtable_budget_bytes;
  o->rep.max_background_jobs = small.max_background_jobs;
}

}  // extern "C"
