// server/request_input.h — a request's input members, and lqsd's one reader
// of request JSON (simdjson's DOM parser).
//
// Every request reaches its handler as an AWS JSON 1.0 input object
// (docs/sqs-reference.md §12): a JSON-protocol body as it came; a query-
// protocol request as the JSON its decoder writes from the action model
// (sqs_query.h); an in-process call (local_caller.h) as the body it was
// given. Handlers (actions.cc) read the members from root().
//
// Reading rules (Parse):
// - an empty or all-whitespace body is the empty object {};
// - a UTF-8 byte order mark before the document is skipped (a mark with
//   nothing but whitespace after it is no document);
// - anything but one JSON object (after optional whitespace, before
//   optional trailing whitespace) is refused: invalid syntax, malformed
//   UTF-8, integers outside [-2^63, 2^64), numbers that overflow a double,
//   nesting deeper than kMaxDepth, an object with more than kMaxMembers
//   members (a hostile body is refused before any handler walks it);
// - JSON's grammar allows a \u escape of a lone UTF-16 surrogate, and SQS
//   reads such a document, then refuses the character where it checks
//   characters (InvalidMessageContents in a MessageBody,
//   InvalidParameterValue elsewhere). Each such escape is read as U+FFFF, a
//   code point SQS refuses wherever it refuses a surrogate, so the request
//   gets AWS's error.
// A refusal is SerializationException, as SQS answers a body it cannot read.
//
// Reading members (Find): a member whose value is null is absent; of
// repeated members the last one counts (as AWS's JSON readers do).
//
// Ownership: a RequestInput owns its parsed document; root() and every
// element read from it stay valid while the RequestInput lives (moving it
// keeps them valid too).
//
// Thread safety: Parse may run concurrently on different objects (the
// parser's scratch space is per thread); one object is not shared.

#ifndef LQS_SERVER_REQUEST_INPUT_H_
#define LQS_SERVER_REQUEST_INPUT_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>

#include <simdjson.h>

#include "server/error_map.h"

namespace lqsd {

class RequestInput {
 public:
  // SQS inputs nest at most 4 levels (Entries[].MessageAttributes.x.Value)
  // and no object of theirs has more than a few dozen members.
  static constexpr int kMaxDepth = 32;
  static constexpr size_t kMaxMembers = 1000;

  // The empty object {}.
  RequestInput();

  // Reads `body` (rules above). On success replaces this input and returns
  // nullopt; otherwise returns a SerializationException and leaves it
  // alone. May throw std::bad_alloc.
  std::optional<SqsError> Parse(std::string_view body);

  simdjson::dom::object root() const { return root_; }

  // The last member of `object` called `name` whose value is not null.
  static std::optional<simdjson::dom::element> Find(simdjson::dom::object object,
                                                    std::string_view name);

 private:
  std::unique_ptr<simdjson::dom::document> document_;  // null: root_ is the shared {}
  simdjson::dom::object root_;
};

}  // namespace lqsd

#endif  // LQS_SERVER_REQUEST_INPUT_H_
