// The C API's tables and transactions (include/lqs/c_transaction.h):
// lqs::Transaction and the broker's table reads behind opaque handles. Keys,
// values and prefixes arrive as pointer + length and leave as malloc'd or
// borrowed NUL-terminated copies, so that NUL bytes survive both ways. Every
// entry point catches all exceptions.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/c_internal.h"

#include "lqs/c.h"
#include "lqs/lqs.h"

struct lqs_table_entries_t {
  std::vector<lqs::TableEntry> rep;
};

struct lqs_transaction_result_t {
  std::vector<lqs_send_result_t> sent;
};

namespace {

// Bytes the caller passed as pointer + length: NULL is allowed only with
// length 0. Fails (returns false) with `what` naming the parameter.
bool Bytes(const void* p, size_t len, std::string_view* out) {
  if (p == nullptr && len != 0) return false;
  *out = p == nullptr ? std::string_view() : std::string_view(static_cast<const char*>(p), len);
  return true;
}

// The end of a get: *value is a malloc'd copy of the value (or NULL when
// absent) and *value_len its length.
int SaveValue(lqs::StatusOr<std::optional<std::string>> got, char** value, size_t* value_len,
              char** errptr) {
  if (!got.ok()) return SaveError(got.status(), errptr);
  if (!got->has_value()) {
    *value = nullptr;
    if (value_len != nullptr) *value_len = 0;
    return LQS_OK;
  }
  *value = CopyString(**got);
  if (value_len != nullptr) *value_len = (*got)->size();
  return LQS_OK;
}

int SaveEntries(lqs::StatusOr<std::vector<lqs::TableEntry>> got, lqs_table_entries_t** entries,
                char** errptr) {
  return SaveResult(std::move(got), entries, errptr, [](std::vector<lqs::TableEntry> e) {
    return new lqs_table_entries_t{std::move(e)};
  });
}

const char* Field(const std::string& s, size_t* len) {
  if (len != nullptr) *len = s.size();
  return s.c_str();
}

// The transaction a handle stands for: the worker's one it lends, or its
// own (NULL once rolled back).
lqs::Transaction* Rep(lqs_transaction_t* tx) {
  return tx->lent != nullptr ? tx->lent : tx->rep.get();
}

}  // namespace

// Inside a Guard: the transaction (not NULL, not rolled back) as `tx_rep`.
#define LQS_TX(tx)                                                                               \
  LQS_REQUIRE((tx) != nullptr, "transaction must not be NULL");                                  \
  if (Rep(tx) == nullptr) {                                                                      \
    return ::lqs::c_internal::Fail(LQS_INVALID_PARAMETER_VALUE,                                  \
                                   "The transaction was rolled back; begin a new one.", errptr); \
  }                                                                                              \
  lqs::Transaction& tx_rep = *Rep(tx)

// Inside a Guard: `name` (pointer + length) as a string_view `var`, or the
// error naming it.
#define LQS_BYTES(var, p, len, name) \
  std::string_view var;              \
  LQS_REQUIRE(Bytes((p), (len), &var), name " must not be NULL when " name "_len is not 0")

extern "C" {

// ---- Table entries ------------------------------------------------------------------------

size_t lqs_table_entries_count(const lqs_table_entries_t* e) { return e->rep.size(); }
const char* lqs_table_entries_key(const lqs_table_entries_t* e, size_t i, size_t* len) {
  return Field(e->rep[i].key, len);
}
const char* lqs_table_entries_value(const lqs_table_entries_t* e, size_t i, size_t* len) {
  return Field(e->rep[i].value, len);
}
void lqs_table_entries_destroy(lqs_table_entries_t* e) { delete e; }

// ---- Committed reads ----------------------------------------------------------------------

int lqs_table_get(lqs_broker_t* broker, const char* table, const void* key, size_t key_len,
                  char** value, size_t* value_len, char** errptr) {
  return Guard(errptr, [&]() -> int {
    LQS_REQUIRE(broker != nullptr && broker->rep != nullptr, "broker must not be NULL");
    LQS_REQUIRE(table != nullptr, "table must not be NULL");
    LQS_BYTES(k, key, key_len, "key");
    LQS_REQUIRE(value != nullptr, "value must not be NULL");
    return SaveValue(broker->rep->Get(table, k), value, value_len, errptr);
  });
}

int lqs_table_scan(lqs_broker_t* broker, const char* table, const void* prefix, size_t prefix_len,
                   lqs_table_entries_t** entries, char** errptr) {
  return Guard(errptr, [&]() -> int {
    LQS_REQUIRE(broker != nullptr && broker->rep != nullptr, "broker must not be NULL");
    LQS_REQUIRE(table != nullptr, "table must not be NULL");
    LQS_BYTES(p, prefix, prefix_len, "prefix");
    LQS_REQUIRE(entries != nullptr, "entries must not be NULL");
    return SaveEntries(broker->rep->Scan(table, p), entries, errptr);
  });
}

int lqs_list_tables(lqs_broker_t* broker, lqs_strlist_t** tables, char** errptr) {
  return Guard(errptr, [&]() -> int {
    LQS_REQUIRE(broker != nullptr && broker->rep != nullptr, "broker must not be NULL");
    LQS_REQUIRE(tables != nullptr, "tables must not be NULL");
    return SaveResult(
        broker->rep->ListTables(), tables, errptr,
        [](std::vector<std::string> names) { return new lqs_strlist_t{std::move(names)}; });
  });
}

// ---- Transactions -------------------------------------------------------------------------

int lqs_begin_transaction(lqs_broker_t* broker, lqs_transaction_t** transaction, char** errptr) {
  return Guard(errptr, [&]() -> int {
    LQS_REQUIRE(broker != nullptr && broker->rep != nullptr, "broker must not be NULL");
    LQS_REQUIRE(transaction != nullptr, "transaction must not be NULL");
    auto out = std::make_unique<lqs_transaction_t>();
    out->broker = broker->rep;
    out->rep = broker->rep->BeginTransaction();
    *transaction = out.release();
    return LQS_OK;
  });
}

int lqs_transaction_put(lqs_transaction_t* tx, const char* table, const void* key, size_t key_len,
                        const void* value, size_t value_len, char** errptr) {
  return Guard(errptr, [&]() -> int {
    LQS_TX(tx);
    LQS_REQUIRE(table != nullptr, "table must not be NULL");
    LQS_BYTES(k, key, key_len, "key");
    LQS_BYTES(v, value, value_len, "value");
    return SaveError(tx_rep.Put(table, k, v), errptr);
  });
}

int lqs_transaction_get(lqs_transaction_t* tx, const char* table, const void* key, size_t key_len,
                        char** value, size_t* value_len, char** errptr) {
  return Guard(errptr, [&]() -> int {
    LQS_TX(tx);
    LQS_REQUIRE(table != nullptr, "table must not be NULL");
    LQS_BYTES(k, key, key_len, "key");
    LQS_REQUIRE(value != nullptr, "value must not be NULL");
    return SaveValue(tx_rep.Get(table, k), value, value_len, errptr);
  });
}

int lqs_transaction_delete(lqs_transaction_t* tx, const char* table, const void* key,
                           size_t key_len, char** errptr) {
  return Guard(errptr, [&]() -> int {
    LQS_TX(tx);
    LQS_REQUIRE(table != nullptr, "table must not be NULL");
    LQS_BYTES(k, key, key_len, "key");
    return SaveError(tx_rep.Delete(table, k), errptr);
  });
}

int lqs_transaction_scan(lqs_transaction_t* tx, const char* table, const void* prefix,
                         size_t prefix_len, lqs_table_entries_t** entries, char** errptr) {
  return Guard(errptr, [&]() -> int {
    LQS_TX(tx);
    LQS_REQUIRE(table != nullptr, "table must not be NULL");
    LQS_BYTES(p, prefix, prefix_len, "prefix");
    LQS_REQUIRE(entries != nullptr, "entries must not be NULL");
    return SaveEntries(tx_rep.Scan(table, p), entries, errptr);
  });
}

int lqs_transaction_send_message(lqs_transaction_t* tx, const char* queue_name,
                                 const lqs_send_request_t* send, char** errptr) {
  return Guard(errptr, [&]() -> int {
    LQS_TX(tx);
    LQS_REQUIRE(queue_name != nullptr, "queue_name must not be NULL");
    LQS_REQUIRE(send != nullptr, "send must not be NULL");
    return SaveError(tx_rep.SendMessage(queue_name, send->rep), errptr);
  });
}

int lqs_transaction_send_message_batch(lqs_transaction_t* tx, const char* queue_name,
                                       const lqs_send_batch_request_t* batch, char** errptr) {
  return Guard(errptr, [&]() -> int {
    LQS_TX(tx);
    LQS_REQUIRE(queue_name != nullptr, "queue_name must not be NULL");
    LQS_REQUIRE(batch != nullptr, "batch must not be NULL");
    return SaveError(tx_rep.SendMessageBatch(queue_name, batch->rep), errptr);
  });
}

int lqs_transaction_delete_message(lqs_transaction_t* tx, const char* queue_name,
                                   const char* receipt_handle, char** errptr) {
  return Guard(errptr, [&]() -> int {
    LQS_TX(tx);
    LQS_REQUIRE(queue_name != nullptr, "queue_name must not be NULL");
    LQS_REQUIRE(receipt_handle != nullptr, "receipt_handle must not be NULL");
    return SaveError(tx_rep.DeleteMessage(queue_name, receipt_handle), errptr);
  });
}

int lqs_transaction_change_message_visibility(lqs_transaction_t* tx, const char* queue_name,
                                              const char* receipt_handle, int visibility_timeout,
                                              char** errptr) {
  return Guard(errptr, [&]() -> int {
    LQS_TX(tx);
    LQS_REQUIRE(queue_name != nullptr, "queue_name must not be NULL");
    LQS_REQUIRE(receipt_handle != nullptr, "receipt_handle must not be NULL");
    return SaveError(tx_rep.ChangeMessageVisibility(queue_name, receipt_handle, visibility_timeout),
                     errptr);
  });
}

int lqs_transaction_commit(lqs_transaction_t* tx, lqs_transaction_result_t** result,
                           char** errptr) {
  return Guard(errptr, [&]() -> int {
    if (tx != nullptr && tx->lent != nullptr) {
      return ::lqs::c_internal::Fail(
          LQS_INVALID_PARAMETER_VALUE,
          "The worker commits its handler's transaction with the message's delete; "
          "the handler cannot commit it (return LQS_WORKER_RETRY to roll it back).",
          errptr);
    }
    LQS_TX(tx);
    return SaveResult(tx_rep.Commit(), result, errptr, [](lqs::TransactionResult r) {
      auto out = std::make_unique<lqs_transaction_result_t>();
      out->sent.reserve(r.sent.size());
      for (auto& s : r.sent) out->sent.push_back(lqs_send_result_t{std::move(s)});
      return out.release();
    });
  });
}

void lqs_transaction_rollback(lqs_transaction_t* tx) {
  if (tx == nullptr || tx->lent != nullptr) return;  // the worker's: it decides
  IgnoreErrors([&] { tx->rep.reset(); });
}

void lqs_transaction_destroy(lqs_transaction_t* tx) {
  if (tx == nullptr || tx->lent != nullptr) return;  // the worker's: on its stack
  delete tx;
}

// ---- Commit results -----------------------------------------------------------------------

size_t lqs_transaction_result_sent_count(const lqs_transaction_result_t* r) {
  return r->sent.size();
}
const lqs_send_result_t* lqs_transaction_result_sent(const lqs_transaction_result_t* r, size_t i) {
  return &r->sent[i];
}
void lqs_transaction_result_destroy(lqs_transaction_result_t* r) { delete r; }

}  // extern "C"
