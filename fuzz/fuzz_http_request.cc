// fuzz/fuzz_http_request.cc — lqsd's HTTP/1 request reading
// (server/http_server.h HttpRequestReader: Beast's parser as lqsd's sessions
// configure it, and their receive buffer) on arbitrary byte streams, with
// pipelining and partial reads.
//
// Input: one byte of configuration (the limits: lqsd's defaults or small
// ones that inputs can reach; the header fields kept: every one, as with
// --auth-file, or the router's list, as without), one byte N, N chunk
// lengths (1..256 each, reused in a cycle), then the byte stream a client
// sends on one connection. The stream is read as a session reads it: request
// after request (pipelined requests come out of the same buffer) until one is
// refused, asks to close the connection, or the stream ends.
//
// The stream is read twice: each receive taking all the room the reader
// offers, and each taking at most the next chunk length (receives split
// anywhere, down to single bytes). Properties:
//   - both reads give the same sequence of outcomes (the same requests, byte
//     for byte, from the same stream offsets; the same refusal), so the result
//     does not depend on how the bytes arrive (but for the part of an
//     oversized header parsed before a 431, see Comparable(), and for two
//     kinds of malformed request, see SameReading());
//   - an accepted request is what its bytes say: the stream at its offset
//     starts "<method> <target> HTTP/<d>.<d>\r\n"; the header ends with the
//     first blank line, within max_header_bytes; each field kept has a
//     lower-case name that is in the filter and appears in the header (or
//     the chunked trailer), and a value without CR or LF; with every field
//     kept, none is lost; the body is the Content-Length bytes after the
//     header, or, with any Transfer-Encoding, what a plain de-chunker finds
//     in the chunked encoding, at most max_body_bytes, and the request ends
//     where its body does;
//   - a refusal is 400, 413 or 431 with no body; 431 only when no blank line
//     ends the header within max_header_bytes (or the request line's version
//     field, which Beast reads as 8 bytes at once, passes that limit: see
//     VersionPastLimit); 413 only when the declared
//     Content-Length or chunk sizes exceed max_body_bytes; the router's
//     answer to it (Router::Reject) has its status and closes;
//   - the reader asks for the end of the stream only when every byte was
//     given to it, and never offers more room than 64 KiB.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "server/http_server.h"
#include "server/router.h"

namespace {

using lqsd::HttpRequest;
using lqsd::HttpRequestReader;
using Step = HttpRequestReader::Step;

void Check(bool ok, const char* what) { lqs::fuzz::CheckProperty("fuzz_http_request", ok, what); }

// One request read, or how reading stopped.
struct Outcome {
  enum Kind { kMessage, kReject, kClose } kind = kClose;
  size_t start = 0;  // stream offset of the request's first byte
  size_t end = 0;    // kMessage: offset just past its last byte
  int status = 0;    // kReject
  unsigned version = 0;
  bool expect_continue = false;
  bool keep_alive = false;
  std::string method;
  std::string target;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  bool operator==(const Outcome&) const = default;
};

// Reads `stream` as one connection's session does. `chunks` empty: every
// receive takes all the room offered; else receive i takes at most
// chunks[i % size] bytes.
std::vector<Outcome> ReadAll(std::string_view stream, const std::vector<size_t>& chunks,
                             const lqsd::HttpServer::Limits& limits,
                             const lqsd::HttpFieldFilter& filter) {
  HttpRequestReader reader(&limits, &filter);
  HttpRequest request;
  std::vector<Outcome> out;
  size_t fed = 0;
  size_t receives = 0;
  while (true) {
    reader.Begin(&request);
    Outcome o;
    o.start = fed - reader.buffered();
    Step step = reader.buffered() > 0 ? reader.Parse() : Step::kRead;
    bool header_seen = false;
    while (true) {
      if (step == Step::kRead) {
        if (fed == stream.size()) {
          step = reader.EndOfStream();
          continue;
        }
        char* room = nullptr;
        size_t size = 0;
        step = reader.Prepare(&room, &size);
        if (step != Step::kRead) continue;
        Check(size > 0 && size <= (64 << 10), "room offered");
        size_t n = std::min(size, stream.size() - fed);
        if (!chunks.empty()) n = std::min(n, chunks[receives++ % chunks.size()]);
        std::memcpy(room, stream.data() + fed, n);
        fed += n;
        step = reader.Received(n);
      } else if (step == Step::kHeader) {
        Check(!header_seen, "two headers for one request");
        header_seen = true;
        o.version = reader.version();
        o.expect_continue = reader.expect_continue();
        step = reader.ReadBody();
      } else {
        break;
      }
    }
    o.method = request.method;
    o.target = request.target;
    o.headers = request.headers;
    o.body = request.body;
    if (step == Step::kMessage) {
      Check(header_seen, "a message without a header");
      o.kind = Outcome::kMessage;
      o.end = fed - reader.buffered();
      o.keep_alive = reader.keep_alive();
      out.push_back(std::move(o));
      if (!out.back().keep_alive) break;  // the session closes after answering
      continue;
    }
    if (step == Step::kReject) {
      o.kind = Outcome::kReject;
      o.status = reader.reject_status();
    } else {
      o.kind = Outcome::kClose;
      Check(fed == stream.size(), "closed before the stream ended");
      // An empty stream or the end after the last request: nothing to compare.
      o.method.clear();
      o.target.clear();
      o.headers.clear();
      o.body.clear();
    }
    out.push_back(std::move(o));
    break;
  }
  return out;
}

void Print(const char* label, const std::vector<Outcome>& outcomes) {
  std::fprintf(stderr, "%s:\n", label);
  for (const Outcome& o : outcomes) {
    std::fprintf(stderr,
                 "  kind %d [%zu, %zu) status %d version %u expect %d keep %d method '%s' "
                 "target '%s' fields %zu body %zu\n",
                 static_cast<int>(o.kind), o.start, o.end, o.status, o.version,
                 o.expect_continue ? 1 : 0, o.keep_alive ? 1 : 0, o.method.c_str(),
                 o.target.c_str(), o.headers.size(), o.body.size());
  }
}

// The outcomes with the head of a 431 refusal left out: how much of an
// oversized header Beast parses before it stops depends on how much of it
// had arrived (all of it up to the limit: the request line and the fields
// before the limit; a little at a time: nothing, since Beast parses a
// header only once its end is buffered). The refusal itself does not.
std::vector<Outcome> Comparable(std::vector<Outcome> outcomes) {
  for (Outcome& o : outcomes) {
    if (o.kind == Outcome::kReject && o.status == 431) {
      o.method.clear();
      o.target.clear();
      o.headers.clear();
    }
  }
  return outcomes;
}

bool IsTchar(char c);

// Where the version part of a request line at the start of `s` begins: the
// index just past "<token> <target>" (the space before the version, if
// any); npos when `s` does not start with a token, a space and a target.
size_t AfterTarget(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && IsTchar(s[i])) ++i;
  if (i == 0 || i == s.size() || s[i] != ' ') return std::string_view::npos;
  const size_t target = ++i;
  while (i < s.size() && static_cast<unsigned char>(s[i]) > 0x20 && s[i] != 0x7f) ++i;
  return i == target ? std::string_view::npos : i;
}

// "<token> <target> HTTP/<digit>.<digit>\r\n" at the start of `s`.
bool GoodRequestLine(std::string_view s) {
  const size_t i = AfterTarget(s);
  if (i == std::string_view::npos) return false;
  const std::string_view v = s.substr(i);
  return v.size() >= 11 && v.substr(0, 6) == " HTTP/" && v[6] >= '0' && v[6] <= '9' &&
         v[7] == '.' && v[8] >= '0' && v[8] <= '9' && v.substr(9, 2) == "\r\n";
}

// Whether Beast's request-line parser asks for bytes beyond `limit` before
// it can judge the version: it reads "HTTP/d.d" as 8 bytes at once, so a
// request line whose version field starts within 8 bytes of the header limit
// is refused as too long (431), even when it is malformed and a blank line
// follows within the limit.
bool VersionPastLimit(std::string_view s, size_t limit) {
  const size_t i = AfterTarget(s);
  if (i == std::string_view::npos || i == s.size() || s[i] != ' ') return false;
  return i + 1 + 8 > limit;
}

// The two reads agree: the same outcomes, but for two cases of a malformed
// last request, which is refused (400, 431) or never answered (closed at
// the end of the stream) depending on how its bytes arrived:
//   - Beast parses a header only once its end (a blank line) is buffered,
//     except on the first put of a request, which parses what it holds at
//     once: a header that never ends (within max_header_bytes) is refused as
//     malformed (400) if a bad byte came with the first receive, and is
//     otherwise read on to 431 or to the end of the stream;
//   - Beast reads the version only with 8 bytes buffered from its start: a
//     request line with a short version ("POST / H0\r\n\r\n") is refused
//     when more bytes came with it, and otherwise waits for them.
// A request with a well-formed request line whose header ends is read the
// same however its bytes arrive.
bool SameReading(const std::vector<Outcome>& a, const std::vector<Outcome>& b,
                 std::string_view stream, const lqsd::HttpServer::Limits& limits) {
  if (a == b) return true;
  if (a.size() != b.size() || a.empty()) return false;
  if (!std::equal(a.begin(), a.end() - 1, b.begin())) return false;
  const Outcome& x = a.back();
  const Outcome& y = b.back();
  if (x.start != y.start) return false;
  const std::string_view from = stream.substr(x.start);
  const bool unended =
      from.substr(0, limits.max_header_bytes).find("\r\n\r\n") == std::string_view::npos;
  auto early = [](const Outcome& o) {
    return o.kind == Outcome::kClose || (o.kind == Outcome::kReject && o.status != 413);
  };
  return (unended || !GoodRequestLine(from)) && early(x) && early(y);
}

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string LowerCopy(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = Lower(c);
  return out;
}

std::string_view TrimOws(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

using RawFieldList = std::vector<std::pair<std::string, std::string>>;

// Field lines "name: value" from `lines` (CRLF-terminated), up to a blank
// one. A line that starts with white space continues the field before it
// (obs-fold, RFC 9112 §5.2): its text joins the value after one space.
void AddFields(std::string_view lines, RawFieldList* out) {
  size_t pos = 0;
  while (true) {
    const size_t eol = lines.find("\r\n", pos);
    if (eol == std::string_view::npos || eol == pos) return;
    const std::string_view line = lines.substr(pos, eol - pos);
    const size_t colon = line.find(':');
    if ((line[0] == ' ' || line[0] == '\t') && !out->empty()) {
      const std::string_view more = TrimOws(line);
      std::string& value = out->back().second;
      if (!more.empty()) value += (value.empty() ? "" : " ") + std::string(more);
    } else if (colon != std::string_view::npos) {
      out->emplace_back(LowerCopy(line.substr(0, colon)),
                        std::string(TrimOws(line.substr(colon + 1))));
    }
    pos = eol + 2;
  }
}

// The raw header fields of a request head (after the request line).
RawFieldList RawFields(std::string_view head) {
  RawFieldList out;
  const size_t eol = head.find("\r\n");
  if (eol != std::string_view::npos) AddFields(head.substr(eol + 2), &out);
  return out;
}

bool ParseDecimal(std::string_view s, uint64_t* v) {
  if (s.empty()) return false;
  uint64_t n = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
    if (n > (UINT64_MAX - 9) / 10) return false;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  *v = n;
  return true;
}

// A plain chunked-encoding reader (RFC 9112 §7.1) for what follows a
// header: the body, the length of the encoding (through the trailer's blank
// line) and the sum of the chunk sizes declared on the way (even if the
// encoding is cut short or malformed after them).
struct Dechunked {
  bool complete = false;
  std::string body;
  size_t length = 0;
  uint64_t declared = 0;
  std::string_view trailer;  // the trailer's field lines and blank line
};

Dechunked Dechunk(std::string_view s) {
  Dechunked d;
  size_t pos = 0;
  while (true) {
    const size_t eol = s.find("\r\n", pos);
    if (eol == std::string_view::npos) return d;
    std::string_view line = s.substr(pos, eol - pos);
    // The size's hex digits (counted as declared before the rest of the
    // line is checked, as Beast checks the body limit), then OWS and an
    // optional extension.
    uint64_t size = 0;
    size_t digits = 0;
    bool too_big = false;
    for (; digits < line.size(); ++digits) {
      const char c = line[digits];
      int digit = -1;
      if (c >= '0' && c <= '9') digit = c - '0';
      if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
      if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
      if (digit < 0) break;
      if (size > (UINT64_MAX >> 4)) too_big = true;
      size = too_big ? UINT64_MAX : size * 16 + static_cast<uint64_t>(digit);
    }
    if (digits == 0) return d;
    d.declared = size > UINT64_MAX - d.declared ? UINT64_MAX : d.declared + size;
    const std::string_view after = TrimOws(line.substr(digits));
    if (too_big || (!after.empty() && after[0] != ';')) return d;
    pos = eol + 2;
    if (size == 0) break;
    if (size > s.size() - pos || s.size() - pos - size < 2) return d;
    d.body.append(s.substr(pos, size));
    pos += size;
    if (s.substr(pos, 2) != "\r\n") return d;
    pos += 2;
  }
  // Trailer fields, then a blank line.
  const size_t trailer = pos;
  while (true) {
    const size_t eol = s.find("\r\n", pos);
    if (eol == std::string_view::npos) return d;
    const bool blank = eol == pos;
    pos = eol + 2;
    if (blank) break;
  }
  d.complete = true;
  d.length = pos;
  d.trailer = s.substr(trailer, pos - trailer);
  return d;
}

bool IsTchar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

bool IsChunked(const RawFieldList& fields) {
  for (const auto& [name, value] : fields) {
    if (name == "transfer-encoding") return true;
  }
  return false;
}

std::optional<uint64_t> ContentLength(const RawFieldList& fields) {
  for (const auto& [name, value] : fields) {
    uint64_t v = 0;
    if (name == "content-length" && ParseDecimal(value, &v)) return v;
  }
  return std::nullopt;
}

void CheckMessage(std::string_view stream, const Outcome& o, const lqsd::HttpServer::Limits& limits,
                  const lqsd::HttpFieldFilter& filter) {
  Check(o.start < o.end && o.end <= stream.size(), "request bounds");
  const std::string_view bytes = stream.substr(o.start, o.end - o.start);
  // The request line.
  Check(!o.method.empty() && std::all_of(o.method.begin(), o.method.end(), IsTchar),
        "method is a token");
  Check(!o.target.empty(), "target is empty");
  for (const char c : o.target) {
    Check(static_cast<unsigned char>(c) > 0x20 && c != 0x7f, "target has a space or control");
  }
  const std::string line = o.method + " " + o.target + " HTTP/" + std::to_string(o.version / 10) +
                           "." + std::to_string(o.version % 10) + "\r\n";
  Check(o.version < 100, "version");
  Check(bytes.substr(0, line.size()) == line, "request line differs from the bytes");
  // The header.
  const size_t blank = bytes.find("\r\n\r\n");
  Check(blank != std::string_view::npos, "no blank line after the header");
  const size_t head_end = blank + 4;
  Check(head_end <= limits.max_header_bytes, "header over max_header_bytes accepted");
  const std::string_view head = bytes.substr(0, head_end);
  RawFieldList raw = RawFields(head);
  const std::string_view rest = bytes.substr(head_end);
  const bool chunked = IsChunked(raw);
  const Dechunked dechunked = chunked ? Dechunk(rest) : Dechunked{};
  AddFields(dechunked.trailer, &raw);  // Beast reports trailer fields as fields
  Check(o.headers.size() <= raw.size(), "more fields than header lines");
  for (const auto& [name, value] : o.headers) {
    Check(!name.empty() && std::all_of(name.begin(), name.end(), IsTchar), "field name");
    Check(LowerCopy(name) == name, "field name not lower-case");
    Check(value.find('\r') == std::string::npos && value.find('\n') == std::string::npos,
          "field value with CR or LF");
    bool in_filter = filter.all();
    for (const auto& f : filter.fields()) in_filter = in_filter || f.name == name;
    Check(in_filter, "a field outside the filter was kept");
    bool in_head = false;
    for (const auto& [raw_name, raw_value] : raw) {
      in_head = in_head || (raw_name == name && raw_value == value);
    }
    Check(in_head, "a field (name and value) that is not in the header");
  }
  if (filter.all()) Check(o.headers.size() == raw.size(), "a field lost");
  // The body.
  Check(o.body.size() <= limits.max_body_bytes, "body over max_body_bytes accepted");
  if (chunked) {
    const Dechunked& d = dechunked;
    Check(d.complete, "accepted a chunked body the de-chunker cannot read");
    Check(d.body == o.body, "chunked body differs from the de-chunked bytes");
    Check(d.length == rest.size(), "chunked request ends elsewhere");
  } else {
    const std::optional<uint64_t> length = ContentLength(raw);
    Check(o.body.size() == length.value_or(0), "body size is not the Content-Length");
    Check(rest == o.body, "body differs from the bytes after the header");
  }
}

void CheckReject(std::string_view stream, const Outcome& o,
                 const lqsd::HttpServer::Limits& limits) {
  Check(o.status == 400 || o.status == 413 || o.status == 431, "reject status");
  Check(o.body.empty(), "a refused request keeps its body");
  const std::string_view from = stream.substr(o.start);
  if (o.status == 431) {
    Check(from.substr(0, limits.max_header_bytes).find("\r\n\r\n") == std::string_view::npos ||
              VersionPastLimit(from, limits.max_header_bytes),
          "431 for a header within max_header_bytes");
  }
  if (o.status == 413) {
    const size_t blank = from.find("\r\n\r\n");
    Check(blank != std::string_view::npos, "413 before the header ended");
    const auto raw = RawFields(from.substr(0, blank + 4));
    // A Content-Length over the limit is refused as soon as the header ends,
    // before a Transfer-Encoding that is not chunked is (a request with both
    // is malformed anyway).
    const std::optional<uint64_t> length = ContentLength(raw);
    const bool length_over = length.has_value() && *length > limits.max_body_bytes;
    if (IsChunked(raw) && !length_over) {
      Check(Dechunk(from.substr(blank + 4)).declared > limits.max_body_bytes,
            "413 for chunks within max_body_bytes");
    } else {
      Check(length_over, "413 for a Content-Length within max_body_bytes");
    }
  }
}

// The router's answers to refused requests, as lqsd's rejecter gives them.
const lqsd::Router& RejectingRouter() {
  static const lqsd::Router router(nullptr, lqsd::RouterConfig{});
  return router;
}

HttpRequest Head(const Outcome& o) {
  HttpRequest r;
  r.method = o.method;
  r.target = o.target;
  r.headers = o.headers;
  r.body = o.body;
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint8_t config = data[0];
  const size_t n_chunks = std::min<size_t>(data[1], size - 2);
  std::vector<size_t> chunks;
  for (size_t i = 0; i < n_chunks; ++i) chunks.push_back(size_t{data[2 + i]} + 1);
  if (chunks.empty()) chunks.push_back(1);  // byte by byte
  const std::string_view stream(reinterpret_cast<const char*>(data) + 2 + n_chunks,
                                size - 2 - n_chunks);

  lqsd::HttpServer::Limits limits;  // lqsd's defaults
  if ((config & 1) != 0) {          // small enough for inputs to reach
    limits.max_header_bytes = size_t{128} << ((config >> 2) & 3);
    static constexpr size_t kBodies[] = {0, 16, 64, 1024};
    limits.max_body_bytes = kBodies[(config >> 4) & 3];
  }
  // Every field (lqsd with --auth-file) or the router's list (without).
  static const lqsd::HttpFieldFilter kAll;
  static const lqsd::HttpFieldFilter kRouter(lqsd::Router::HeadersRead(lqsd::RouterConfig{}));
  const lqsd::HttpFieldFilter& filter = (config & 2) != 0 ? kRouter : kAll;

  const std::vector<Outcome> whole = ReadAll(stream, {}, limits, filter);
  const std::vector<Outcome> split = ReadAll(stream, chunks, limits, filter);
  if (!SameReading(Comparable(whole), Comparable(split), stream, limits)) {
    Print("all the room", whole);
    Print("split", split);
    Check(false, "split receives read differently");
  }

  size_t next = 0;
  for (const Outcome& o : whole) {
    Check(o.start == next, "a request does not start where the last ended");
    if (o.kind == Outcome::kMessage) {
      CheckMessage(stream, o, limits, filter);
      const HttpRequest request = Head(o);
      (void)lqsd::DetectProtocol(request);
      next = o.end;
    } else if (o.kind == Outcome::kReject) {
      CheckReject(stream, o, limits);
      const lqsd::HttpResponse r =
          RejectingRouter().Reject(Head(o), o.status, limits.max_body_bytes);
      Check(r.close && r.status == o.status, "the router's answer to a refused request");
    }
  }
  return 0;
}
