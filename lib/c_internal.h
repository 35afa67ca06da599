// lib/c_internal.h — what the C API's implementation files (lib/c.cc,
// lib/c_broker.cc, lib/c_messages.cc, lib/c_queue.cc, lib/c_worker.cc,
// lib/c_bridge.cc, lib/c_transaction.cc) share: the handles more than one of
// them opens, the error helpers every entry point goes through, and the
// conversions of C arrays.
// Not installed.

#ifndef LQS_LIB_C_INTERNAL_H_
#define LQS_LIB_C_INTERNAL_H_

#include <cstddef>
#include <exception>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lqs/c.h"
#include "lqs/lqs.h"

struct lqs_queue_t {
  std::shared_ptr<lqs::Broker> broker;  // keeps the Broker's memory alive
  std::shared_ptr<lqs::Queue> rep;
};

struct lqs_strmap_t {
  std::vector<std::pair<std::string, std::string>> rep;
};

struct lqs_options_t {
  lqs::Options rep;
  int durability = 1;
};

struct lqs_broker_t {
  std::shared_ptr<lqs::Broker> rep;
};

struct lqs_strlist_t {
  std::vector<std::string> rep;
};

struct lqs_send_result_t {
  lqs::SendMessageResult rep;
};

// Defined here, not in lib/c_messages.cc, because transactions
// (lib/c_transaction.cc) send them too.
struct lqs_send_request_t {
  lqs::SendMessageRequest rep;
};

struct lqs_send_batch_request_t {
  std::vector<lqs::SendMessageBatchEntry> rep;
};

// Defined here, not in lib/c_transaction.cc, because the worker
// (lib/c_worker.cc) lends one to a transactional handler.
struct lqs_transaction_t {
  std::shared_ptr<lqs::Broker> broker;    // keeps the Broker's memory alive
  std::unique_ptr<lqs::Transaction> rep;  // NULL once rolled back
  // A worker's transaction lent to its handler for one call (rep is NULL):
  // usable, but not committed, rolled back or freed through the C API.
  lqs::Transaction* lent = nullptr;
};

struct lqs_batch_result_t {
  std::vector<std::string> successful_ids;
  std::vector<lqs_send_result_t> successful_sends;  // send batches only
  std::vector<lqs::BatchResultError> failed;
};

namespace lqs::c_internal {

// Replaces *errptr (when errptr is not NULL) with a malloc'd copy of
// `message`, freeing the message that was there.
void SetError(char** errptr, const std::string& message);

// LQS_OK for an OK status; otherwise stores its message (or its code's name)
// in *errptr and returns its code.
int SaveError(const Status& status, char** errptr);

// Stores `message` in *errptr and returns `code`.
int Fail(int code, const char* message, char** errptr);

// Runs `fn` (returning int), turning any exception into LQS_INTERNAL.
template <typename Fn>
int Guard(char** errptr, Fn&& fn) {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return Fail(LQS_INTERNAL, "out of memory", errptr);
  } catch (const std::exception& e) {
    return Fail(LQS_INTERNAL, e.what(), errptr);
  } catch (...) {
    return Fail(LQS_INTERNAL, "unknown C++ exception", errptr);
  }
}

// The end of a call that hands out a value: the error of a failed `result`
// (SaveError), or LQS_OK with *out, when `out` is not NULL, set to
// make(value) (the value is moved from when `result` is an rvalue).
// Exceptions from `make` propagate to the entry point's Guard.
template <typename Result, typename Out, typename Make>
int SaveResult(Result&& result, Out* out, char** errptr, Make&& make) {
  if (!result.ok()) return SaveError(result.status(), errptr);
  if (out != nullptr) *out = make(std::forward<Result>(result).value());
  return LQS_OK;
}

// h->rep, or the rep of a default-constructed Handle when h is NULL (the C
// API's optional request handles).
template <typename Handle>
const auto& RepOrDefault(const Handle* h) {
  static const Handle kDefault;
  return h != nullptr ? h->rep : kDefault.rep;
}

inline std::string Str(const char* s) { return s == nullptr ? std::string() : std::string(s); }

// For the entry points with no errptr to report to: returns what `fn` returns,
// or `fallback` when it throws.
template <typename T, typename Fn>
T OrElse(T fallback, Fn&& fn) noexcept {
  try {
    return fn();
  } catch (...) {
    return fallback;
  }
}

// Runs `fn` (returning void), dropping any exception it throws.
template <typename Fn>
void IgnoreErrors(Fn&& fn) noexcept {
  try {
    fn();
  } catch (...) {
  }
}

// A default-constructed `new T` for the *_create entry points; NULL when out
// of memory.
template <typename T>
T* NewOrNull() noexcept {
  return OrElse<T*>(nullptr, [] { return new T; });
}

// Sets `*out` to a copy of `s`, or to "" when copying fails (out of memory).
inline void AssignOrClear(std::string* out, const char* s) noexcept {
  try {
    *out = Str(s);
  } catch (...) {
    out->clear();
  }
}

// Sets `*out` to `s`, or clears it when `s` is NULL. Throws std::bad_alloc.
inline void SetOptional(std::optional<std::string>* out, const char* s) {
  if (s == nullptr) {
    out->reset();
  } else {
    *out = s;
  }
}

inline const char* OptStr(const std::optional<std::string>& s) {
  return s.has_value() ? s->c_str() : nullptr;
}

// A malloc'd NUL-terminated copy of `s` (freed with lqs_free). Throws
// std::bad_alloc.
char* CopyString(const std::string& s);

// n keys and n values (parallel arrays; NULL entries are "") as a map.
std::map<std::string, std::string> MakeMap(const char* const* keys, const char* const* values,
                                           size_t n);

// n strings (NULL entries are "").
std::vector<std::string> MakeList(const char* const* items, size_t n);

// A new lqs_strmap_t holding `m` in key order (the caller owns it).
lqs_strmap_t* NewMap(const std::map<std::string, std::string>& m);

// A message's user attributes in name order, for the index-based accessors
// (lqs_message_attribute_*, lqs_worker_message_attribute_*). The pointers
// borrow from the map.
using AttributeIndex = std::vector<const MessageAttributeMap::value_type*>;
AttributeIndex IndexAttributes(const MessageAttributeMap& attributes);

}  // namespace lqs::c_internal

// Every C API implementation file calls the helpers above unqualified. The
// using-declarations stand here once, instead of a copy of the list atop each
// file; only lib/c*.cc include this header.
using lqs::c_internal::AssignOrClear;
using lqs::c_internal::CopyString;
using lqs::c_internal::Guard;
using lqs::c_internal::IgnoreErrors;
using lqs::c_internal::MakeList;
using lqs::c_internal::MakeMap;
using lqs::c_internal::NewMap;
using lqs::c_internal::NewOrNull;
using lqs::c_internal::OptStr;
using lqs::c_internal::OrElse;
using lqs::c_internal::RepOrDefault;
using lqs::c_internal::SaveError;
using lqs::c_internal::SaveResult;
using lqs::c_internal::SetOptional;
using lqs::c_internal::Str;

// Inside a Guard: fails the call with LQS_INVALID_PARAMETER_VALUE and `what`
// unless `cond` holds. Needs `errptr` in scope.
#define LQS_REQUIRE(cond, what)                                                             \
  do {                                                                                      \
    if (!(cond)) return ::lqs::c_internal::Fail(LQS_INVALID_PARAMETER_VALUE, what, errptr); \
  } while (0)

// The plain setters of the handles that wrap a request or options struct in
// `rep`: each defines the C API function <type>_set_<field>, declared in
// lqs/c.h or lqs/c_bridge.h, that stores its argument in o->rep.<field>:
// - LQS_C_SETTER: as given (T, the declared parameter type);
// - LQS_C_FLAG_SETTER: an int, nonzero meaning true, into a bool;
// - LQS_C_STRING_SETTER: a copy of a C string (NULL: ""; out of memory: "",
//   see AssignOrClear);
// - LQS_C_OPTIONAL_SETTER: a copy of a C string, NULL unsetting it (see
//   SetOptional).
#define LQS_C_SETTER(type, field, T) \
  void type##_set_##field(type##_t* o, T v) { o->rep.field = v; }
#define LQS_C_FLAG_SETTER(type, field) \
  void type##_set_##field(type##_t* o, int v) { o->rep.field = v != 0; }
#define LQS_C_STRING_SETTER(type, field) \
  void type##_set_##field(type##_t* o, const char* s) { AssignOrClear(&o->rep.field, s); }
#define LQS_C_OPTIONAL_SETTER(type, field) \
  void type##_set_##field(type##_t* o, const char* s) { SetOptional(&o->rep.field, s); }

// The index-based accessors of a message's user attributes (in name order),
// for a handle `<type>_t` with an AttributeIndex `attrs`: defines the C API
// functions <type>_attribute_count, _name, _data_type, _is_binary,
// _string_value and _binary_value (lqs_message_*, lqs_worker_message_*).
#define LQS_C_ATTRIBUTE_ACCESSORS(type)                                                 \
  size_t type##_attribute_count(const type##_t* m) { return m->attrs.size(); }          \
  const char* type##_attribute_name(const type##_t* m, size_t i) {                      \
    return m->attrs[i]->first.c_str();                                                  \
  }                                                                                     \
  const char* type##_attribute_data_type(const type##_t* m, size_t i) {                 \
    return m->attrs[i]->second.data_type.c_str();                                       \
  }                                                                                     \
  int type##_attribute_is_binary(const type##_t* m, size_t i) {                         \
    return m->attrs[i]->second.IsBinary() ? 1 : 0;                                      \
  }                                                                                     \
  const char* type##_attribute_string_value(const type##_t* m, size_t i) {              \
    return m->attrs[i]->second.string_value.c_str();                                    \
  }                                                                                     \
  const void* type##_attribute_binary_value(const type##_t* m, size_t i, size_t* len) { \
    const std::string& v = m->attrs[i]->second.binary_value;                            \
    if (len != nullptr) *len = v.size();                                                \
    return v.data();                                                                    \
  }

#endif  // LQS_LIB_C_INTERNAL_H_
