// HTTP/1 request parsing for the sessions: HttpFieldFilter and
// HttpRequestReader (see http_server.h), over Beast's basic_parser.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "server/http_server.h"

namespace lqsd {

namespace beast = boost::beast;
namespace http = beast::http;

namespace {

bool IsHttpParseError(const beast::error_code& ec) {
  return ec.category() == http::make_error_code(http::error::bad_method).category() &&
         ec != http::error::end_of_stream && ec != http::error::partial_message &&
         ec != http::error::need_more && ec != http::error::need_buffer;
}

}  // namespace

// Beast's HTTP/1 request parser writing straight into an HttpRequest the
// session reuses from request to request (its strings keep their capacity):
// no http::fields container, and only the header fields the handler reads
// are copied. Otherwise it behaves as http::request_parser<string_body>:
// method, target and the body as received, fields (trailers included) in
// arrival order with lower-cased names, and the Expect and keep-alive
// answers a message would give (the first Expect and Connection fields).
// One difference: a request whose Transfer-Encoding does not end in chunked
// is malformed (RFC 9112 §6.3: its body length cannot be determined), where
// Beast would read it as having no body and the rest as the next request.
class RequestParser final : public http::basic_parser<true> {
 public:
  // `keep`: the fields to copy.
  RequestParser(HttpRequest* out, const HttpFieldFilter* keep) : out_(out), keep_(keep) {
    out_->method.clear();
    out_->target.clear();
    if (out_->body.capacity() > kKeepBodyCapacity) {
      std::string().swap(out_->body);  // an idle connection keeps no large buffer
    } else {
      out_->body.clear();
    }
  }

  // Drops the slots of fields not used by this request; call before the
  // request is handed on.
  void FinishFields() { out_->headers.resize(used_); }

  unsigned version() const { return version_; }
  // As message::keep_alive(): HTTP/1.1 unless "Connection: close",
  // HTTP/1.0 only with "Connection: keep-alive".
  bool message_keep_alive() const {
    if (version_ < 11) return connection_seen_ && connection_keep_alive_;
    return !(connection_seen_ && connection_close_);
  }
  // The first Expect field says "100-continue".
  bool expect_continue() const { return expect_continue_; }

 private:
  static constexpr size_t kKeepBodyCapacity = 64 << 10;

  void on_request_impl(http::verb, beast::string_view method, beast::string_view target,
                       int version, beast::error_code&) override {
    // Beast names known verbs by their exact text, so method_str is what
    // message::method_string() would return.
    out_->method.assign(method.data(), method.size());
    out_->target.assign(target.data(), target.size());
    version_ = static_cast<unsigned>(version);
  }

  void on_response_impl(int, beast::string_view, int, beast::error_code& ec) override {
    ec = http::error::bad_version;  // never called: a request parser
  }

  void on_field_impl(http::field name, beast::string_view name_string, beast::string_view value,
                     beast::error_code&) override {
    if (name == http::field::connection && !connection_seen_) {
      connection_seen_ = true;
      http::token_list tokens{value};
      connection_close_ = tokens.exists("close");
      connection_keep_alive_ = tokens.exists("keep-alive");
    } else if (name == http::field::expect && !expect_seen_) {
      expect_seen_ = true;
      expect_continue_ = beast::iequals(value, "100-continue");
    } else if (name == http::field::transfer_encoding) {
      transfer_encoding_seen_ = true;
    }
    const std::string* kept_name = nullptr;
    if (!keep_->all()) {
      kept_name = Kept(name, name_string);
      if (kept_name == nullptr) return;
    }
    if (used_ == out_->headers.size()) out_->headers.emplace_back();
    auto& [lower, text] = out_->headers[used_++];
    if (kept_name != nullptr) {
      lower.assign(*kept_name);  // the same name, lower-cased
    } else {
      lower.assign(name_string.data(), name_string.size());
      for (char& c : lower) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      }
    }
    text.assign(value.data(), value.size());
  }

  // The lower-case name of a field to keep, or nullptr. (Beast's field enum
  // is matched case-insensitively, like the names.)
  const std::string* Kept(http::field name, beast::string_view name_string) const {
    for (const HttpFieldFilter::Field& k : keep_->fields()) {
      if (static_cast<http::field>(k.known) != http::field::unknown) {
        if (name == static_cast<http::field>(k.known)) return &k.name;
      } else if (k.name.size() == name_string.size() &&
                 beast::iequals(name_string, beast::string_view(k.name.data(), k.name.size()))) {
        return &k.name;
      }
    }
    return nullptr;
  }

  void on_header_impl(beast::error_code& ec) override {
    ec = transfer_encoding_seen_ && !chunked() ? http::error::bad_transfer_encoding
                                               : beast::error_code{};
  }

  // As string_body's reader.
  void on_body_init_impl(const boost::optional<std::uint64_t>& length,
                         beast::error_code& ec) override {
    if (length) {
      if (*length > out_->body.max_size()) {
        ec = http::error::buffer_overflow;
        return;
      }
      out_->body.reserve(beast::detail::clamp(*length));
    }
    ec = {};
  }

  std::size_t on_body_impl(beast::string_view body, beast::error_code& ec) override {
    if (body.size() > out_->body.max_size() - out_->body.size()) {
      ec = http::error::buffer_overflow;
      return 0;
    }
    out_->body.append(body.data(), body.size());
    ec = {};
    return body.size();
  }

  void on_chunk_header_impl(std::uint64_t, beast::string_view, beast::error_code&) override {}

  std::size_t on_chunk_body_impl(std::uint64_t, beast::string_view body,
                                 beast::error_code& ec) override {
    return on_body_impl(body, ec);
  }

  void on_finish_impl(beast::error_code& ec) override { ec = {}; }

  HttpRequest* out_;
  const HttpFieldFilter* keep_;
  size_t used_ = 0;  // header slots filled
  unsigned version_ = 11;
  bool connection_seen_ = false;
  bool connection_close_ = false;
  bool connection_keep_alive_ = false;
  bool expect_seen_ = false;
  bool expect_continue_ = false;
  bool transfer_encoding_seen_ = false;
};

// ---- HttpRequestReader ----
// What http::async_read_header and then http::async_read did, without their
// composed-operation layers: parse what the buffer holds, read more while the
// parser needs more; the header with eager(false), as async_read_header, and
// the body with eager(true), as async_read.

namespace {
constexpr size_t kMaxReceive = 64 << 10;  // bytes asked of one receive
}  // namespace

HttpFieldFilter::HttpFieldFilter(std::vector<std::string> lower_names) : all_(lower_names.empty()) {
  for (std::string& name : lower_names) {
    const http::field known = http::string_to_field(beast::string_view(name.data(), name.size()));
    fields_.push_back(Field{static_cast<int>(known), std::move(name)});
  }
}

struct HttpRequestReader::Impl {
  enum class Phase { kHeader, kBody };

  Impl(const HttpServer::Limits* l, const HttpFieldFilter* f) : limits(l), filter(f) {}

  bool PhaseDone() const {
    return phase == Phase::kHeader ? parser->is_header_done() : parser->is_done();
  }

  const HttpServer::Limits* limits;
  const HttpFieldFilter* filter;
  beast::flat_buffer buffer;
  std::optional<RequestParser> parser;
  HttpRequest* request = nullptr;
  Phase phase = Phase::kHeader;
  size_t header_bytes = 0;  // of the request's header parsed so far
  size_t offered = 0;       // the room Prepare() offered
};

HttpRequestReader::HttpRequestReader(const HttpServer::Limits* limits,
                                     const HttpFieldFilter* filter)
    : impl_(std::make_unique<Impl>(limits, filter)) {}

HttpRequestReader::~HttpRequestReader() = default;

void HttpRequestReader::Begin(HttpRequest* request) {
  Impl& m = *impl_;
  m.request = request;
  m.parser.emplace(request, m.filter);
  m.parser->header_limit(static_cast<std::uint32_t>(m.limits->max_header_bytes));
  m.parser->body_limit(m.limits->max_body_bytes);
  m.parser->eager(false);  // as async_read_header
  m.phase = Impl::Phase::kHeader;
  m.header_bytes = 0;
  reject_status_ = 0;
}

// A parse or read error: the request is rejected (an HTTP error) or the
// connection closed (end of stream, a message cut short).
static HttpRequestReader::Step FailRead(const beast::error_code& ec, RequestParser* parser,
                                        HttpRequest* request, int* reject_status) {
  int status = 0;
  if (ec == http::error::body_limit) {
    status = 413;
  } else if (ec == http::error::header_limit) {
    status = 431;
  } else if (IsHttpParseError(ec)) {
    status = 400;
  }
  if (status == 0) return HttpRequestReader::Step::kClose;
  // Fields parsed so far (a body_limit error comes before "header done");
  // the body is not part of the head.
  parser->FinishFields();
  request->body.clear();
  *reject_status = status;
  return HttpRequestReader::Step::kReject;
}

HttpRequestReader::Step HttpRequestReader::Parse() {
  Impl& m = *impl_;
  beast::error_code ec;
  while (!m.PhaseDone() && m.buffer.size() > 0) {
    const size_t used = m.parser->put(m.buffer.data(), ec);
    m.buffer.consume(used);
    if (m.phase == Impl::Phase::kHeader) {
      // Beast's header_limit leaves out the request line when the fields
      // came with it in one put: a header of up to twice the limit would
      // pass (or get a 413 for its Content-Length).
      m.header_bytes += used;
      if (m.header_bytes > m.limits->max_header_bytes) {
        return FailRead(http::error::header_limit, &*m.parser, m.request, &reject_status_);
      }
    }
    if (ec == http::error::need_more) {
      ec = {};
      break;
    }
    if (ec) return FailRead(ec, &*m.parser, m.request, &reject_status_);
    if (used == 0) break;
  }
  if (!m.PhaseDone()) return Step::kRead;
  if (m.phase == Impl::Phase::kHeader) return Step::kHeader;
  m.parser->FinishFields();
  return Step::kMessage;
}

HttpRequestReader::Step HttpRequestReader::ReadBody() {
  impl_->parser->eager(true);  // as async_read
  impl_->phase = Impl::Phase::kBody;
  return Parse();
}

HttpRequestReader::Step HttpRequestReader::Prepare(char** data, size_t* size) {
  Impl& m = *impl_;
  const size_t room = beast::read_size(m.buffer, kMaxReceive);
  if (room == 0) {
    return FailRead(http::error::buffer_overflow, &*m.parser, m.request, &reject_status_);
  }
  try {
    *data = static_cast<char*>(m.buffer.prepare(room).data());
  } catch (const std::length_error&) {
    return FailRead(http::error::buffer_overflow, &*m.parser, m.request, &reject_status_);
  }
  *size = room;
  m.offered = room;
  return Step::kRead;
}

// A receive that filled the room offered doubles it (up to kMaxReceive): the
// parser consumes what it is given, so the buffer would otherwise stay at its
// first 512 bytes and a 3 KB batch would take six receives.
HttpRequestReader::Step HttpRequestReader::Received(size_t n) {
  Impl& m = *impl_;
  m.buffer.commit(n);
  if (n == m.offered && m.buffer.capacity() < kMaxReceive) {
    m.buffer.reserve(std::min(2 * m.buffer.capacity(), kMaxReceive));
  }
  return Parse();
}

HttpRequestReader::Step HttpRequestReader::EndOfStream() {
  Impl& m = *impl_;
  if (!m.parser->got_some()) return Step::kClose;
  // The message ends with the stream (never a complete request: an error).
  beast::error_code ec;
  m.parser->put_eof(ec);
  if (ec) return FailRead(ec, &*m.parser, m.request, &reject_status_);
  if (m.phase == Impl::Phase::kHeader) return Step::kHeader;
  m.parser->FinishFields();
  return Step::kMessage;
}

size_t HttpRequestReader::buffered() const { return impl_->buffer.size(); }

unsigned HttpRequestReader::version() const { return impl_->parser->version(); }

bool HttpRequestReader::expect_continue() const {
  return impl_->parser->expect_continue() && !impl_->parser->is_done();
}

bool HttpRequestReader::keep_alive() const { return impl_->parser->message_keep_alive(); }

}  // namespace lqsd
