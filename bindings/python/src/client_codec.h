// bindings/python/src/client_codec.h — lqs.client()'s fast codec: a call's
// keyword arguments straight to the AWS JSON 1.0 request body, and the JSON
// answer straight to Python values, without Python's json module or its
// per-member parameter checks.
//
// EncodeInput accepts only what lqs/_client.py's _validate accepts and
// writes what _client.py's own encoder (_wire_in, then json) would send, the
// same JSON values: it checks every member against lqsd's action model
// (server/action_model.h) as _validate does, and encodes BinaryValue and
// BinaryListValues as base64. Whatever it is unsure of (a value of another
// type, a lone surrogate, an integer beyond 64 bits, a blob that is neither
// str nor bytes), it declines, and the client takes its Python path, which
// raises botocore's ParamValidationError with botocore's text or sends what
// it accepts. So the fast path changes no answer, only its cost.
//
// Thread safety: both functions need the GIL.

#ifndef LQS_BINDINGS_PYTHON_CLIENT_CODEC_H_
#define LQS_BINDINGS_PYTHON_CLIENT_CODEC_H_

#include <optional>
#include <string>
#include <string_view>

#include <pybind11/pybind11.h>

#include "server/action_model.h"

namespace lqs_py::client_codec {

namespace py = pybind11;

// The JSON request body for `action` with input `params` (a dict of the
// call's keyword arguments), or nullopt when the Python path must judge it.
// Never raises.
std::optional<std::string> EncodeInput(const lqsd::action_model::Action& action, py::handle params);

// `json` (an lqsd answer's body) as Python values, as json.loads reads it.
// Raises ValueError when it is not JSON.
py::object DecodeOutput(std::string_view json);

}  // namespace lqs_py::client_codec

#endif  // LQS_BINDINGS_PYTHON_CLIENT_CODEC_H_
