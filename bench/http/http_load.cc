// lqs_http_load: the C++ twin of bench/http/load.js. Same command line, same
// modes, same request bodies and the same JSON on stdout (plus "client":
// "c++"), so bench/http/table.js reads either. Drives an SQS-compatible
// endpoint (lqsd, fauxqs) over keep-alive loopback HTTP speaking AWS JSON 1.0
// (POST / with X-Amz-Target: AmazonSQS.<Action>).
//
//   lqs_http_load --endpoint http://127.0.0.1:PORT --pid SERVER_PID --name lqsd
//       [--n1 10000] [--n10 20000] [--nmixed 20000] [--nlife 20000]
//       [--concurrency 4] [--body 100] [--modes send1,recv10] [--region R]
//
// Modes: load.js's send1, send10, recv1, recv10, mixed and life (the
// default: all six), and lifeN (not in load.js, by name only): life's round
// on every connection at once (bench/http/sweep.py's lifecycle).
//
// --region R (not in load.js): every request carries a SigV4 Authorization
// header scoped to region R, with a dummy signature, so an lqsd without
// --auth-file serves it from that region's database.
//
// Why: load.js costs ~40-50 us of client CPU per request, as much as lqsd on a
// 2-core box, so the client was the bottleneck. This one is a single thread
// on epoll: non-blocking TCP_NODELAY sockets, one request in flight per
// connection, every request one send() of a preformatted head plus body,
// responses framed by Content-Length (or chunked), and only the few response
// fields the modes need are picked out of the JSON by a small scanner
// (strings are kept as their raw escaped JSON text and pasted back verbatim).
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

namespace {

using Json = nlohmann::ordered_json;

[[noreturn]] void Fail(const std::string& msg) {
  std::fprintf(stderr, "Error: %s\n", msg.c_str());
  std::exit(1);
}

double NowMs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

int64_t WallMs() {  // Date.now()
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

void AppendInt(std::string& s, int64_t v) {
  char b[24];
  auto r = std::to_chars(b, b + sizeof b, v);
  s.append(b, r.ptr);
}

// Math.round(x * 1000) / 1000
double Round3(double x) { return std::floor(x * 1000 + 0.5) / 1000; }

// A number as JSON.stringify would print it: integral values without ".0",
// NaN/Infinity as null.
Json Num(double x) {
  if (!std::isfinite(x)) return nullptr;
  if (x == std::floor(x) && std::fabs(x) < 9e15) return static_cast<int64_t>(x);
  return x;
}

// A number as JS's String(x) would print it (shortest round trip).
std::string JsNum(const Json& j) {
  if (j.is_null()) return "null";
  if (j.is_number_integer()) return std::to_string(j.get<int64_t>());
  char b[64];
  auto r = std::to_chars(b, b + sizeof b, j.get<double>());
  return std::string(b, r.ptr);
}

void AppendJsonEscaped(std::string& out, std::string_view s) {
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      out += b;
    } else {
      out += ch;
    }
  }
}

// ---- Arguments (as load.js: --key value pairs) ------------------------------

struct Args {
  std::string endpoint;
  std::string name;
  bool has_name = false;
  int64_t pid = 0;
  int64_t n1 = 10000, n10 = 20000, nmixed = 20000, nlife = 20000;
  int64_t concurrency = 4, body = 100;
  std::string modes;
  std::string region;
};

int64_t ParseCount(const std::string& k, const std::string& v) {
  int64_t x = 0;
  auto r = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || r.ec != std::errc() || r.ptr != v.data() + v.size() || x < 0)
    Fail("--" + k + " needs a non-negative integer, got '" + v + "'");
  return x;
}

Args ParseArgs(int argc, char** argv) {
  static constexpr std::pair<std::string_view, std::string Args::*> kTextOptions[] = {
      {"endpoint", &Args::endpoint},
      {"name", &Args::name},
      {"modes", &Args::modes},
      {"region", &Args::region},
  };
  static constexpr std::pair<std::string_view, int64_t Args::*> kCountOptions[] = {
      {"pid", &Args::pid},       {"n1", &Args::n1},       {"n10", &Args::n10},
      {"nmixed", &Args::nmixed}, {"nlife", &Args::nlife}, {"concurrency", &Args::concurrency},
      {"body", &Args::body},
  };
  Args a;
  bool has_pid = false;
  for (int i = 1; i < argc; i += 2) {
    std::string k = argv[i];
    while (!k.empty() && k[0] == '-') k.erase(0, 1);
    std::string v = i + 1 < argc ? argv[i + 1] : "";
    // load.js accepts (and ignores) any other key too.
    for (const auto& [key, member] : kTextOptions) {
      if (k == key) a.*member = v;
    }
    for (const auto& [key, member] : kCountOptions) {
      if (k == key) a.*member = ParseCount(k, v);
    }
    if (k == "name") a.has_name = true;
    if (k == "pid") has_pid = true;
  }
  if (a.endpoint.empty() || !has_pid) Fail("need --endpoint and --pid");
  if (a.concurrency < 1) a.concurrency = 1;
  return a;
}

// ---- CPU accounting -----------------------------------------------------------

double ServerCpuSeconds(int64_t pid) {
  std::string path = "/proc/" + std::to_string(pid) + "/stat";
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) Fail("cannot open " + path + ": " + std::strerror(errno));
  char buf[4096];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) Fail("cannot read " + path);
  buf[n] = 0;
  std::string_view s(buf, static_cast<size_t>(n));
  size_t rp = s.rfind(')');
  if (rp == std::string_view::npos || rp + 2 > s.size()) Fail("bad " + path);
  // Fields after ") ": index 0 is field 3 (state); utime = index 11, stime = 12.
  const char* p = buf + rp + 2;
  const char* e = buf + n;
  uint64_t v[13] = {};
  for (int f = 0; f <= 12 && p < e; ++f) {
    const char* sp = static_cast<const char*>(std::memchr(p, ' ', static_cast<size_t>(e - p)));
    if (!sp) sp = e;
    if (f >= 11) std::from_chars(p, sp, v[f]);
    p = sp + 1;
  }
  static const double clk_tck = static_cast<double>(sysconf(_SC_CLK_TCK));
  return static_cast<double>(v[11] + v[12]) / clk_tck;
}

double ClientCpuSeconds() {
  rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  auto tv = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return tv(ru.ru_utime) + tv(ru.ru_stime);
}

// ---- Minimal JSON scanning -----------------------------------------------------
// Works on the raw response text; strings come back as their raw (still
// escaped) JSON text. Every function returns the position after what it
// consumed, or nullptr on malformed input.

const char* SkipWs(const char* p, const char* e) {
  while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) ++p;
  return p;
}

// p at the opening quote.
const char* ScanString(const char* p, const char* e, std::string_view* raw) {
  const char* s = ++p;
  for (;;) {
    const char* q = static_cast<const char*>(std::memchr(p, '"', static_cast<size_t>(e - p)));
    if (!q) return nullptr;
    const char* b = q;
    while (b > s && b[-1] == '\\') --b;
    if (((q - b) & 1) == 0) {  // not escaped
      if (raw) *raw = std::string_view(s, static_cast<size_t>(q - s));
      return q + 1;
    }
    p = q + 1;
  }
}

const char* SkipValue(const char* p, const char* e, int depth = 0);

// The items of a JSON container that opens with `open` and closes with
// `close`: `item(p)` reads the one at p (not white space, before e) and
// returns where it ends, nullptr when it is malformed. Returns where the
// container ends, nullptr when it is malformed.
template <class F>
const char* ForEachItem(const char* p, const char* e, char open, char close, F&& item) {
  if (p >= e || *p != open) return nullptr;
  p = SkipWs(p + 1, e);
  if (p < e && *p == close) return p + 1;
  for (;;) {
    if (p >= e || !(p = item(p))) return nullptr;
    p = SkipWs(p, e);
    if (p >= e) return nullptr;
    if (*p == close) return p + 1;
    if (*p != ',') return nullptr;
    p = SkipWs(p + 1, e);
  }
}

// An object's members: `f(key, p)` reads the value at p as ForEachItem's
// `item` does.
template <class F>
const char* ForEachMember(const char* p, const char* e, F&& f) {
  return ForEachItem(p, e, '{', '}', [e, &f](const char* q) -> const char* {
    std::string_view key;
    if (*q != '"') return nullptr;
    if (!(q = ScanString(q, e, &key))) return nullptr;
    q = SkipWs(q, e);
    if (q >= e || *q != ':') return nullptr;
    q = SkipWs(q + 1, e);
    if (q >= e) return nullptr;
    return f(key, q);
  });
}

// An array's elements, each read by `f` as ForEachItem's `item` does.
template <class F>
const char* ForEachElement(const char* p, const char* e, F&& f) {
  return ForEachItem(p, e, '[', ']', f);
}

const char* SkipValue(const char* p, const char* e, int depth) {
  if (p >= e || depth > 64) return nullptr;
  switch (*p) {
    case '"':
      return ScanString(p, e, nullptr);
    case '{':
      return ForEachMember(
          p, e, [&](std::string_view, const char* v) { return SkipValue(v, e, depth + 1); });
    case '[':
      return ForEachElement(p, e, [&](const char* v) { return SkipValue(v, e, depth + 1); });
    default: {
      const char* s = p;
      while (p < e && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\t' &&
             *p != '\n' && *p != '\r')
        ++p;
      return p == s ? nullptr : p;
    }
  }
}

struct Msg {
  std::string_view handle;  // raw JSON string text
  std::string_view body;
};

struct Parsed {
  std::string_view queue_url;
  bool has_queue_url = false;
  std::vector<Msg> msgs;
  bool failed = false;  // non-empty "Failed"
  std::string_view failed_first;
};

// Picks QueueUrl, Messages[].{ReceiptHandle,Body} and a non-empty Failed out of
// a response body; views point into `body`.
void ParseResponse(std::string_view body, Parsed* out) {
  out->has_queue_url = false;
  out->msgs.clear();
  out->failed = false;
  const char* e = body.data() + body.size();
  const char* p = SkipWs(body.data(), e);
  if (p == e) return;  // empty body: {}
  const char* end = ForEachMember(p, e, [&](std::string_view key, const char* v) -> const char* {
    if (key == "QueueUrl" && *v == '"') {
      out->has_queue_url = true;
      return ScanString(v, e, &out->queue_url);
    }
    if (key == "Messages" && *v == '[') {
      return ForEachElement(v, e, [&](const char* m) -> const char* {
        Msg msg;
        const char* r = ForEachMember(m, e, [&](std::string_view k, const char* mv) {
          if (k == "ReceiptHandle" && *mv == '"') return ScanString(mv, e, &msg.handle);
          if (k == "Body" && *mv == '"') return ScanString(mv, e, &msg.body);
          return SkipValue(mv, e);
        });
        if (r) out->msgs.push_back(msg);
        return r;
      });
    }
    if (key == "Failed" && *v == '[') {
      const char* a = SkipWs(v + 1, e);
      if (a < e && *a != ']') {
        out->failed = true;
        const char* ae = SkipValue(a, e);
        if (ae) out->failed_first = std::string_view(a, static_cast<size_t>(ae - a));
      }
    }
    return SkipValue(v, e);
  });
  if (!end) Fail("malformed JSON response: " + std::string(body.substr(0, 300)));
}

// ---- HTTP client: one thread, epoll, one request in flight per connection -------

enum Action {
  kCreateQueue,
  kSendMessage,
  kSendMessageBatch,
  kReceiveMessage,
  kDeleteMessage,
  kDeleteMessageBatch,
  kActionCount
};
const char* const kActionNames[kActionCount] = {"CreateQueue",      "SendMessage",
                                                "SendMessageBatch", "ReceiveMessage",
                                                "DeleteMessage",    "DeleteMessageBatch"};

// One call: the request bytes and what to do with the response.
class Caller {
 public:
  virtual ~Caller() = default;
  // body is valid only during the call.
  virtual void OnResponse(std::string_view body) = 0;
  std::string json;  // request body, built by the caller
  std::string out;   // head + body, built by Client::Prepare
  Action action = kCreateQueue;
};

struct Conn {
  int fd = -1;
  std::vector<char> buf = std::vector<char>(64 * 1024);
  size_t beg = 0, end = 0;
  Caller* owner = nullptr;
  std::string pending;  // unsent tail of a request after a short write
  size_t pending_off = 0;
  std::string dechunked;
  bool until_eof = false;  // response without Content-Length or chunking: body runs to EOF
  size_t eof_head_len = 0;
  int eof_status = 0;
  bool dead = false;
};

class Client {
 public:
  Client(const std::string& endpoint, const std::string& region) {
    std::string_view u = endpoint;
    if (u.substr(0, 7) != "http://") Fail("endpoint must be http://HOST:PORT");
    u.remove_prefix(7);
    u = u.substr(0, u.find('/'));
    std::string_view host = u, port = "80";
    size_t colon = u.rfind(':');
    if (colon != std::string_view::npos && u.find(']', colon) == std::string_view::npos) {
      host = u.substr(0, colon);
      port = u.substr(colon + 1);
    }
    host_header_ = std::string(u);
    host_ = std::string(host);
    if (host_.size() > 1 && host_.front() == '[') host_ = host_.substr(1, host_.size() - 2);
    port_ = std::string(port);
    const std::string auth =
        region.empty() ? std::string()
                       : "Authorization: AWS4-HMAC-SHA256 Credential=bench/20260101/" + region +
                             "/sqs/aws4_request, SignedHeaders=host, Signature=00\r\n";
    for (int a = 0; a < kActionCount; ++a) {
      prefix_[a] = "POST / HTTP/1.1\r\nHost: " + host_header_ +
                   "\r\nContent-Type: application/x-amz-json-1.0\r\nX-Amz-Target: AmazonSQS." +
                   kActionNames[a] + "\r\n" + auth + "Content-Length: ";
    }
    ep_ = epoll_create1(EPOLL_CLOEXEC);
    if (ep_ < 0) Fail(std::string("epoll_create1: ") + std::strerror(errno));
  }

  ~Client() {
    for (auto& c : conns_)
      if (c->fd >= 0) close(c->fd);
    close(ep_);
  }

  uint64_t requests() const { return requests_; }

  // Builds c->out (head + c->json) for action a.
  void Prepare(Caller* c, Action a) const {
    c->action = a;
    c->out.clear();
    c->out.append(prefix_[a]);
    AppendInt(c->out, static_cast<int64_t>(c->json.size()));
    c->out.append("\r\nConnection: keep-alive\r\n\r\n");
    c->out.append(c->json);
  }

  void Send(Caller* c) {
    ++requests_;
    Conn* conn = nullptr;
    if (!free_.empty()) {
      conn = free_.back();
      free_.pop_back();
    } else if (nconns_ < kMaxConns) {
      conn = NewConn();
    } else {
      waiters_.push_back(c);
      return;
    }
    Write(conn, c);
  }

  // Waits for and handles one batch of socket events.
  void Poll() {
    epoll_event ev[64];
    int n = epoll_wait(ep_, ev, 64, -1);
    if (n < 0) {
      if (errno == EINTR) return;
      Fail(std::string("epoll_wait: ") + std::strerror(errno));
    }
    for (int i = 0; i < n; ++i) {
      auto* conn = static_cast<Conn*>(ev[i].data.ptr);
      if (conn->dead) continue;
      if (ev[i].events & EPOLLOUT) Flush(conn);
      if (ev[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) OnReadable(conn);
    }
  }

 private:
  static constexpr int kMaxConns = 64;

  Conn* NewConn() {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    int rc = getaddrinfo(host_.c_str(), port_.c_str(), &hints, &res);
    if (rc != 0) Fail("getaddrinfo " + host_ + ": " + gai_strerror(rc));
    int fd = -1;
    int err = 0;
    for (addrinfo* ai = res; ai; ai = ai->ai_next) {
      fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
      if (fd < 0) continue;
      if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) break;
      err = errno;
      close(fd);
      fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) Fail("connect " + host_header_ + ": " + std::strerror(err));
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    auto conn = std::make_unique<Conn>();
    conn->fd = fd;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = conn.get();
    if (epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &ev) != 0)
      Fail(std::string("epoll_ctl: ") + std::strerror(errno));
    conns_.push_back(std::move(conn));
    ++nconns_;
    return conns_.back().get();
  }

  void SetWantOut(Conn* conn, bool on) {
    epoll_event ev{};
    ev.events = EPOLLIN | (on ? EPOLLOUT : 0u);
    ev.data.ptr = conn;
    epoll_ctl(ep_, EPOLL_CTL_MOD, conn->fd, &ev);
  }

  void Write(Conn* conn, Caller* c) {
    conn->owner = c;
    ssize_t w = send(conn->fd, c->out.data(), c->out.size(), MSG_NOSIGNAL);
    if (w == static_cast<ssize_t>(c->out.size())) return;
    if (w < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK)
        Fail(std::string("send: ") + std::strerror(errno));
      w = 0;
    }
    conn->pending.assign(c->out, static_cast<size_t>(w));
    conn->pending_off = 0;
    SetWantOut(conn, true);
  }

  void Flush(Conn* conn) {
    while (conn->pending_off < conn->pending.size()) {
      ssize_t w = send(conn->fd, conn->pending.data() + conn->pending_off,
                       conn->pending.size() - conn->pending_off, MSG_NOSIGNAL);
      if (w < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        Fail(std::string("send: ") + std::strerror(errno));
      }
      conn->pending_off += static_cast<size_t>(w);
    }
    conn->pending.clear();
    conn->pending_off = 0;
    SetWantOut(conn, false);
  }

  void Release(Conn* conn) {
    if (conn->dead) return;
    if (!waiters_.empty()) {
      Caller* c = waiters_.front();
      waiters_.pop_front();
      Write(conn, c);
    } else {
      free_.push_back(conn);
    }
  }

  // Makes room for `need` bytes of unconsumed data plus a read's worth.
  void Reserve(Conn* conn, size_t need) {
    if (conn->beg == conn->end) conn->beg = conn->end = 0;
    if (conn->buf.size() - conn->end >= 16 * 1024 && conn->buf.size() - conn->beg >= need) return;
    if (conn->beg > 0) {
      std::memmove(conn->buf.data(), conn->buf.data() + conn->beg, conn->end - conn->beg);
      conn->end -= conn->beg;
      conn->beg = 0;
    }
    size_t want = std::max(need, conn->end + 16 * 1024);
    if (conn->buf.size() < want) conn->buf.resize(std::max(want, conn->buf.size() * 2));
  }

  void OnReadable(Conn* conn) {
    Reserve(conn, 0);
    ssize_t n = read(conn->fd, conn->buf.data() + conn->end, conn->buf.size() - conn->end);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return;
      Fail(std::string("read: ") + std::strerror(errno));
    }
    if (n == 0) {
      if (conn->owner && conn->until_eof) {
        size_t total = conn->end - conn->beg;
        DeliverBody(conn, total, conn->eof_status,
                    std::string_view(conn->buf.data() + conn->beg + conn->eof_head_len,
                                     total - conn->eof_head_len),
                    /*reuse=*/false);
        return;
      }
      if (conn->owner) Fail("connection closed");
      Kill(conn);  // idle keep-alive connection closed by the server
      return;
    }
    conn->end += static_cast<size_t>(n);
    while (conn->owner && !conn->dead && TryDeliver(conn)) {
    }
    if (!conn->owner && !conn->dead && conn->end > conn->beg)
      Fail("unexpected data from the server: " +
           std::string(conn->buf.data() + conn->beg, std::min<size_t>(conn->end - conn->beg, 300)));
  }

  void Kill(Conn* conn) {
    epoll_ctl(ep_, EPOLL_CTL_DEL, conn->fd, nullptr);
    close(conn->fd);
    conn->fd = -1;
    conn->dead = true;
    --nconns_;
    free_.erase(std::remove(free_.begin(), free_.end(), conn), free_.end());
  }

  // Parses one complete response at conn->beg and hands it to its caller.
  bool TryDeliver(Conn* conn) {
    const char* d = conn->buf.data() + conn->beg;
    size_t len = conn->end - conn->beg;
    const char* he = static_cast<const char*>(memmem(d, len, "\r\n\r\n", 4));
    if (!he) {
      if (len > 1024 * 1024) Fail("response head too large");
      return false;
    }
    size_t head_len = static_cast<size_t>(he - d) + 4;
    if (len < 12 || std::memcmp(d, "HTTP/1.", 7) != 0)
      Fail("bad response: " + std::string(d, std::min<size_t>(len, 300)));
    int status = 0;
    std::from_chars(d + 9, d + 12, status);
    if (status >= 100 && status < 200) {  // interim response: skip it
      conn->beg += head_len;
      return true;
    }
    // Headers: Content-Length / Transfer-Encoding, case-insensitively.
    int64_t clen = -1;
    bool chunked = false;
    bool close_after = false;  // "Connection: close": don't reuse the connection
    const char* line = static_cast<const char*>(std::memchr(d, '\n', head_len)) + 1;
    const char* hend = he + 2;
    while (line < hend) {
      const char* eol = static_cast<const char*>(std::memchr(line, '\n', hend - line));
      size_t ll = static_cast<size_t>(eol - line);
      if (ll > 15 && strncasecmp(line, "content-length:", 15) == 0) {
        const char* v = line + 15;
        while (*v == ' ' || *v == '\t') ++v;
        std::from_chars(v, eol, clen);
      } else if (ll > 18 && strncasecmp(line, "transfer-encoding:", 18) == 0) {
        std::string_view v(line + 18, ll - 18);
        for (size_t i = 0; i + 7 <= v.size(); ++i)
          if (strncasecmp(v.data() + i, "chunked", 7) == 0) chunked = true;
      } else if (ll > 11 && strncasecmp(line, "connection:", 11) == 0) {
        std::string_view v(line + 11, ll - 11);
        for (size_t i = 0; i + 5 <= v.size(); ++i)
          if (strncasecmp(v.data() + i, "close", 5) == 0) close_after = true;
      }
      line = eol + 1;
    }
    if (chunked) {
      size_t total = 0;
      if (!Dechunk(conn, d + head_len, len - head_len, &total)) {
        Reserve(conn, len + 16 * 1024);
        return false;
      }
      DeliverBody(conn, head_len + total, status, conn->dechunked, !close_after);
      return true;
    }
    if (clen < 0) {
      if (status == 204 || status == 304)
        clen = 0;
      else {
        conn->until_eof = true;
        conn->eof_head_len = head_len;
        conn->eof_status = status;
        return false;
      }
    }
    size_t total = head_len + static_cast<size_t>(clen);
    if (len < total) {
      Reserve(conn, total);
      return false;
    }
    DeliverBody(conn, total, status, std::string_view(d + head_len, static_cast<size_t>(clen)),
                !close_after);
    return true;
  }

  // Decodes a complete chunked body into conn->dechunked; *total = encoded size.
  static bool Dechunk(Conn* conn, const char* p, size_t n, size_t* total) {
    conn->dechunked.clear();
    size_t i = 0;
    for (;;) {
      const char* eol = static_cast<const char*>(std::memchr(p + i, '\n', n - i));
      if (!eol) return false;
      size_t sz = 0;
      auto r = std::from_chars(p + i, eol, sz, 16);
      if (r.ec != std::errc()) Fail("bad chunk size");
      i = static_cast<size_t>(eol - p) + 1;
      if (sz == 0) {  // trailers until an empty line
        for (;;) {
          const char* tl = static_cast<const char*>(std::memchr(p + i, '\n', n - i));
          if (!tl) return false;
          bool empty = tl == p + i || (tl == p + i + 1 && p[i] == '\r');
          i = static_cast<size_t>(tl - p) + 1;
          if (empty) {
            *total = i;
            return true;
          }
        }
      }
      if (n - i < sz + 2) return false;
      conn->dechunked.append(p + i, sz);
      i += sz + 2;  // data + CRLF
    }
  }

  // reuse: false when the response ran to EOF or said "Connection: close".
  void DeliverBody(Conn* conn, size_t total, int status, std::string_view body, bool reuse) {
    Caller* c = conn->owner;
    conn->owner = nullptr;
    conn->until_eof = false;
    if (status != 200)
      Fail(std::string(kActionNames[c->action]) + ": HTTP " + std::to_string(status) + ": " +
           std::string(body.substr(0, 300)));
    if (reuse) {
      Release(conn);  // as load.js: the connection is free before the callback runs
    } else {
      Kill(conn);  // closes the fd; the buffer (and `body`) stays valid
    }
    c->OnResponse(body);
    conn->beg += total;  // the callback only writes, so `body` stayed valid
    if (conn->beg >= conn->end) conn->beg = conn->end = 0;
  }

  std::string host_, port_, host_header_;
  std::string prefix_[kActionCount];
  int ep_ = -1;
  uint64_t requests_ = 0;
  int nconns_ = 0;
  std::vector<std::unique_ptr<Conn>> conns_;
  std::vector<Conn*> free_;
  std::deque<Caller*> waiters_;
};

// ---- The modes (as load.js) ------------------------------------------------------

struct Ctx {
  explicit Ctx(const Args& a)
      : args(a),
        client(a.endpoint, a.region),
        filler(static_cast<size_t>(std::max<int64_t>(0, a.body - 20)), 'x') {}
  const Args& args;
  Client client;
  std::string filler;
  int active = 0;  // running workers
};

// `${Date.now()}|${i}|${filler}`: send time first, for the mixed mode's
// end-to-end latency.
void AppendMessageBody(Ctx& ctx, std::string& s, int64_t i, int64_t ms) {
  AppendInt(s, ms);
  s += '|';
  AppendInt(s, i);
  s += '|';
  s += ctx.filler;
}

// {"QueueUrl":q,"MessageBody":...}
void BuildSend(Ctx& ctx, std::string& s, const std::string& q, int64_t i) {
  s.clear();
  s += "{\"QueueUrl\":\"";
  s += q;
  s += "\",\"MessageBody\":\"";
  AppendMessageBody(ctx, s, i, WallMs());
  s += "\"}";
}

// {"QueueUrl":q,"Entries":[{"Id":"0","MessageBody":...},...]}
void BuildSendBatch(Ctx& ctx, std::string& s, const std::string& q, int64_t base, int64_t k) {
  int64_t ms = WallMs();
  s.clear();
  s += "{\"QueueUrl\":\"";
  s += q;
  s += "\",\"Entries\":[";
  for (int64_t j = 0; j < k; ++j) {
    if (j) s += ',';
    s += "{\"Id\":\"";
    AppendInt(s, j);
    s += "\",\"MessageBody\":\"";
    AppendMessageBody(ctx, s, base + j, ms);
    s += "\"}";
  }
  s += "]}";
}

void BuildReceive(std::string& s, const std::string& q, int64_t max, int wait) {
  s.clear();
  s += "{\"QueueUrl\":\"";
  s += q;
  s += "\",\"MaxNumberOfMessages\":";
  AppendInt(s, max);
  s += ",\"WaitTimeSeconds\":";
  AppendInt(s, wait);
  s += '}';
}

// Receipt handles are pasted back as the raw JSON string text they came in.
void BuildDelete(std::string& s, const std::string& q, std::string_view handle) {
  s.clear();
  s += "{\"QueueUrl\":\"";
  s += q;
  s += "\",\"ReceiptHandle\":\"";
  s += handle;
  s += "\"}";
}

void BuildDeleteBatch(std::string& s, const std::string& q, const std::vector<Msg>& msgs) {
  s.clear();
  s += "{\"QueueUrl\":\"";
  s += q;
  s += "\",\"Entries\":[";
  for (size_t j = 0; j < msgs.size(); ++j) {
    if (j) s += ',';
    s += "{\"Id\":\"";
    AppendInt(s, static_cast<int64_t>(j));
    s += "\",\"ReceiptHandle\":\"";
    s += msgs[j].handle;
    s += "\"}";
  }
  s += "]}";
}

void CheckFailed(const Parsed& r, const char* what) {
  if (r.failed) Fail(std::string(what) + " failed: " + std::string(r.failed_first));
}

// A state machine on one connection at a time (acquired per call, as load.js).
class Worker : public Caller {
 public:
  explicit Worker(Ctx& ctx) : ctx_(ctx) {}
  virtual void Start() = 0;

 protected:
  void Call(Action a) {
    ctx_.client.Prepare(this, a);
    ctx_.client.Send(this);
  }
  void Finish() { --ctx_.active; }
  Ctx& ctx_;
  Parsed parsed_;
};

void RunWorkers(Ctx& ctx, std::vector<std::unique_ptr<Worker>>& workers) {
  ctx.active = static_cast<int>(workers.size());
  for (auto& w : workers) w->Start();
  while (ctx.active > 0) ctx.client.Poll();
}

// One call at a time, waited for.
class SyncCaller : public Caller {
 public:
  void OnResponse(std::string_view body) override {
    resp.assign(body);
    done = true;
  }
  std::string resp;
  bool done = false;
};

const std::string& CallSync(Ctx& ctx, SyncCaller& sc, Action a) {
  sc.done = false;
  ctx.client.Prepare(&sc, a);
  ctx.client.Send(&sc);
  while (!sc.done) ctx.client.Poll();
  return sc.resp;
}

// send1 / send10 / prefill: workers share `next` and claim batches from it.
struct SendShared {
  std::string q;
  int64_t n = 0;
  int64_t next = 0;
  std::vector<double> lat;
};

class SendWorker : public Worker {
 public:
  SendWorker(Ctx& ctx, SendShared& s, int batch, bool record, const char* what)
      : Worker(ctx), s_(s), batch_(batch), record_(record), what_(what) {}
  void Start() override { Next(); }
  void OnResponse(std::string_view body) override {
    if (batch_ != 1) {
      ParseResponse(body, &parsed_);
      CheckFailed(parsed_, what_);
    }
    if (record_) s_.lat.push_back(NowMs() - t_);
    Next();
  }

 private:
  void Next() {
    if (s_.next >= s_.n) return Finish();
    int64_t base = s_.next;
    int64_t k = std::min<int64_t>(batch_, s_.n - base);
    s_.next += k;
    t_ = NowMs();
    if (batch_ == 1) {
      BuildSend(ctx_, json, s_.q, base);
      Call(kSendMessage);
    } else {
      BuildSendBatch(ctx_, json, s_.q, base, k);
      Call(kSendMessageBatch);
    }
  }
  SendShared& s_;
  int batch_;
  bool record_;
  const char* what_;
  double t_ = 0;
};

// recv1 / recv10: ReceiveMessage (no wait) then DeleteMessage(Batch), until
// the shared `done` reaches n.
struct RecvShared {
  std::string q;
  int64_t n = 0;
  int64_t done = 0;
  int64_t empties = 0;
  std::vector<double> lat;
};

// ReceiveMessage (up to `max`, long poll `wait` seconds), then DeleteMessage
// (max 1) or DeleteMessageBatch of what came, until `count` reaches `n`; each
// receive+delete round's time goes to `lat`. A mode adds what it does on an
// empty receive (OnEmpty) or with the messages (OnReceived).
class ReceiveDeleteWorker : public Worker {
 public:
  ReceiveDeleteWorker(Ctx& ctx, const std::string& q, int64_t n, int64_t& count,
                      std::vector<double>& lat, int max, int wait)
      : Worker(ctx), q_(q), n_(n), count_(count), lat_(lat), max_(max), wait_(wait) {}
  void Start() override { Next(); }
  void OnResponse(std::string_view body) override {
    if (!deleting_) {
      ParseResponse(body, &parsed_);
      if (parsed_.msgs.empty()) {
        OnEmpty();
        return Next();
      }
      OnReceived(parsed_.msgs);
      got_ = static_cast<int64_t>(parsed_.msgs.size());
      deleting_ = true;
      if (max_ == 1) {
        BuildDelete(json, q_, parsed_.msgs[0].handle);
        Call(kDeleteMessage);
      } else {
        BuildDeleteBatch(json, q_, parsed_.msgs);
        Call(kDeleteMessageBatch);
      }
      return;
    }
    deleting_ = false;
    if (max_ != 1) {
      ParseResponse(body, &parsed_);
      CheckFailed(parsed_, "delete");
    }
    lat_.push_back(NowMs() - t_);
    count_ += got_;
    Next();
  }

 protected:
  virtual void OnEmpty() {}
  virtual void OnReceived(const std::vector<Msg>& /*msgs*/) {}

 private:
  void Next() {
    if (count_ >= n_) return Finish();
    t_ = NowMs();
    BuildReceive(json, q_, max_, wait_);
    Call(kReceiveMessage);
  }
  const std::string& q_;
  const int64_t n_;
  int64_t& count_;
  std::vector<double>& lat_;
  const int max_;
  const int wait_;
  bool deleting_ = false;
  int64_t got_ = 0;
  double t_ = 0;
};

class RecvWorker : public ReceiveDeleteWorker {
 public:
  RecvWorker(Ctx& ctx, RecvShared& s, int batch)
      : ReceiveDeleteWorker(ctx, s.q, s.n, s.done, s.lat, batch, 0), s_(s) {}

 private:
  void OnEmpty() override {
    if (++s_.empties > 1000) Fail("queue ran dry before all messages were received");
  }
  RecvShared& s_;
};

// mixed: one producer (SendMessageBatch of 10) and one consumer
// (ReceiveMessage max 10, wait 1 s, + DeleteMessageBatch).
struct MixedShared {
  std::string q;
  int64_t n = 0;
  int64_t consumed = 0;
  std::vector<double> send_lat, recv_lat, e2e;
};

class Producer : public Worker {
 public:
  Producer(Ctx& ctx, MixedShared& s) : Worker(ctx), s_(s) {}
  void Start() override { Next(); }
  void OnResponse(std::string_view body) override {
    ParseResponse(body, &parsed_);
    CheckFailed(parsed_, "send");
    s_.send_lat.push_back(NowMs() - t_);
    base_ += 10;
    Next();
  }

 private:
  void Next() {
    if (base_ >= s_.n) return Finish();
    BuildSendBatch(ctx_, json, s_.q, base_, std::min<int64_t>(10, s_.n - base_));
    t_ = NowMs();
    Call(kSendMessageBatch);
  }
  MixedShared& s_;
  int64_t base_ = 0;
  double t_ = 0;
};

class Consumer : public ReceiveDeleteWorker {
 public:
  Consumer(Ctx& ctx, MixedShared& s)
      : ReceiveDeleteWorker(ctx, s.q, s.n, s.consumed, s.recv_lat, 10, 1), s_(s) {}

 private:
  void OnReceived(const std::vector<Msg>& msgs) override {
    int64_t wall = WallMs();
    for (const Msg& m : msgs) {
      int64_t sent = 0;
      std::from_chars(m.body.data(), m.body.data() + m.body.size(), sent);
      s_.e2e.push_back(static_cast<double>(wall - sent));
    }
  }
  MixedShared& s_;
};

// lifeN (not in load.js): `life`'s round on every connection at once, on one
// queue with a standing backlog of 1,000, until the shared rounds are
// claimed. A round is SendMessageBatch(10), then ReceiveMessage (up to what
// the round still owes, no wait) and DeleteMessageBatch of what came, until
// 10 arrived; a receive may take another connection's messages.
struct LifeShared {
  std::string q;
  int64_t rounds = 0;
  int64_t claimed = 0;
  int64_t empties = 0;
  std::vector<double> lat;
};

class LifeWorker : public Worker {
 public:
  LifeWorker(Ctx& ctx, LifeShared& s) : Worker(ctx), s_(s) {}
  void Start() override { NextRound(); }
  void OnResponse(std::string_view body) override {
    ParseResponse(body, &parsed_);
    switch (step_) {
      case Step::kSend:
        CheckFailed(parsed_, "send");
        return Receive();
      case Step::kReceive:
        if (parsed_.msgs.empty()) {
          if (++s_.empties > 1000) Fail("lifeN: nothing receivable");
          return Receive();
        }
        owed_ -= static_cast<int64_t>(parsed_.msgs.size());
        step_ = Step::kDelete;
        BuildDeleteBatch(json, s_.q, parsed_.msgs);  // handles point into `body`
        return Call(kDeleteMessageBatch);
      case Step::kDelete:
        CheckFailed(parsed_, "delete");
        if (owed_ > 0) return Receive();
        s_.lat.push_back(NowMs() - t_);
        return NextRound();
    }
  }

 private:
  enum class Step { kSend, kReceive, kDelete };
  void NextRound() {
    if (s_.claimed >= s_.rounds) return Finish();
    const int64_t base = s_.claimed * 10;
    ++s_.claimed;
    owed_ = 10;
    t_ = NowMs();
    step_ = Step::kSend;
    BuildSendBatch(ctx_, json, s_.q, base, 10);
    Call(kSendMessageBatch);
  }
  void Receive() {
    step_ = Step::kReceive;
    BuildReceive(json, s_.q, owed_, 0);
    Call(kReceiveMessage);
  }
  LifeShared& s_;
  Step step_ = Step::kSend;
  int64_t owed_ = 0;
  double t_ = 0;
};

Json Summarize(std::vector<double> lat) {
  std::sort(lat.begin(), lat.end());
  auto n = static_cast<int64_t>(lat.size());
  auto pct = [&](double p) -> Json {
    if (!n) return nullptr;
    auto idx = std::min<int64_t>(n - 1, static_cast<int64_t>(std::ceil((p / 100) * n)) - 1);
    return Num(Round3(lat[static_cast<size_t>(std::max<int64_t>(0, idx))]));
  };
  Json j;
  j["count"] = n;
  j["p50_ms"] = pct(50);
  j["p99_ms"] = pct(99);
  j["max_ms"] = n ? Num(Round3(lat.back())) : Json(nullptr);
  return j;
}

class Bench {
 public:
  explicit Bench(const Args& a) : args_(a), ctx_(a) {}

  int Run() {
    std::vector<std::string> modes;
    // The default is load.js's six; lifeN is asked for by name.
    const char* all[] = {"send1", "send10", "recv1", "recv10", "mixed", "life", "lifeN"};
    if (args_.modes.empty()) {
      modes.assign(std::begin(all), std::end(all) - 1);
    } else {
      std::string_view m = args_.modes;
      for (;;) {
        size_t c = m.find(',');
        modes.emplace_back(m.substr(0, c));
        if (c == std::string_view::npos) break;
        m.remove_prefix(c + 1);
      }
      for (const auto& mode : modes)
        if (std::find(std::begin(all), std::end(all), mode) == std::end(all))
          Fail("unknown mode '" + mode + "'");
    }
    // Warm-up: connection, queue creation path.
    std::string wq = NewQueue("warm");
    for (int i = 0; i < 200; ++i) {
      BuildSend(ctx_, sync_.json, wq, i);
      CallSync(ctx_, sync_, kSendMessage);
    }
    Json out;
    if (args_.has_name) out["name"] = args_.name;
    out["endpoint"] = args_.endpoint;
    out["concurrency"] = args_.concurrency;
    out["body_bytes"] = args_.body;
    out["client"] = "c++";
    out["modes"] = Json::object();
    for (const auto& mode : modes) {
      Json r;
      if (mode == "send1") r = ModeSend(1, args_.n1);
      if (mode == "send10") r = ModeSend(10, args_.n10);
      if (mode == "recv1") r = ModeRecv(1, args_.n1);
      if (mode == "recv10") r = ModeRecv(10, args_.n10);
      if (mode == "mixed") r = ModeMixed(args_.nmixed);
      if (mode == "life") r = ModeLife(args_.nlife, false);
      if (mode == "lifeN") r = ModeLife(args_.nlife, true);
      out["modes"][mode] = r;
      std::fprintf(stderr, "%s %s: %s msg/s, p50 %s ms, p99 %s ms, %s us server CPU/request\n",
                   args_.has_name ? args_.name.c_str() : "undefined", mode.c_str(),
                   JsNum(r["msgs_per_s"]).c_str(), JsNum(r["latency"]["p50_ms"]).c_str(),
                   JsNum(r["latency"]["p99_ms"]).c_str(),
                   JsNum(r["server_cpu_us_per_request"]).c_str());
    }
    std::string s = out.dump(2);
    s += '\n';
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fflush(stdout);
    return 0;
  }

 private:
  std::string NewQueue(const std::string& mode) {
    std::string name = "bench-" + (args_.has_name && !args_.name.empty() ? args_.name : "x") + "-" +
                       mode + "-" + std::to_string(getpid()) + "-" + std::to_string(qseq_++);
    sync_.json = "{\"QueueName\":\"";
    AppendJsonEscaped(sync_.json, name);
    sync_.json += "\"}";
    const std::string& resp = CallSync(ctx_, sync_, kCreateQueue);
    Parsed p;
    ParseResponse(resp, &p);
    if (!p.has_queue_url) Fail("CreateQueue: no QueueUrl in " + resp.substr(0, 300));
    return std::string(p.queue_url);
  }

  void Prefill(const std::string& q, int64_t n) {
    SendShared s;
    s.q = q;
    s.n = n;
    std::vector<std::unique_ptr<Worker>> w;
    for (int64_t i = 0; i < args_.concurrency; ++i)
      w.push_back(std::make_unique<SendWorker>(ctx_, s, 10, false, "prefill"));
    RunWorkers(ctx_, w);
  }

  // Runs fn under measurement: wall time, server CPU, client CPU, requests.
  Json Measured(const std::function<void()>& fn) {
    double cpu0 = ServerCpuSeconds(args_.pid);
    double ccpu0 = ClientCpuSeconds();
    uint64_t req0 = ctx_.client.requests();
    double t0 = NowMs();
    fn();
    double secs = (NowMs() - t0) / 1e3;
    double cpu1 = ServerCpuSeconds(args_.pid);
    double ccpu = ClientCpuSeconds() - ccpu0;
    auto reqs = static_cast<double>(ctx_.client.requests() - req0);
    Json m;
    m["seconds"] = Num(Round3(secs));
    m["requests"] = static_cast<int64_t>(reqs);
    m["server_cpu_s"] = Num(Round3(cpu1 - cpu0));
    m["server_cpu_us_per_request"] = Num(std::floor((cpu1 - cpu0) * 1e6 / reqs + 0.5));
    m["client_cpu_s"] = Num(Round3(ccpu));
    return m;
  }

  static double Seconds(const Json& m) {
    return m["seconds"].is_number() ? m["seconds"].get<double>() : 0.0;
  }
  static Json PerSecond(int64_t n, const Json& m) {
    return Num(std::floor(static_cast<double>(n) / Seconds(m) + 0.5));
  }
  static void Merge(Json& r, const Json& m) {
    for (auto it = m.begin(); it != m.end(); ++it) r[it.key()] = it.value();
  }

  Json ModeSend(int batch, int64_t n) {
    SendShared s;
    s.q = NewQueue("send" + std::to_string(batch));
    s.n = n;
    s.lat.reserve(static_cast<size_t>(n));
    std::vector<std::unique_ptr<Worker>> w;
    for (int64_t i = 0; i < args_.concurrency; ++i)
      w.push_back(std::make_unique<SendWorker>(ctx_, s, batch, true, "send"));
    Json m = Measured([&] { RunWorkers(ctx_, w); });
    Json r;
    r["messages"] = n;
    r["msgs_per_s"] = PerSecond(n, m);
    r["latency"] = Summarize(s.lat);
    Merge(r, m);
    r["latency_unit"] =
        std::string("one ") + (batch == 1 ? "SendMessage" : "SendMessageBatch") + " call";
    return r;
  }

  Json ModeRecv(int batch, int64_t n) {
    RecvShared s;
    s.q = NewQueue("recv" + std::to_string(batch));
    s.n = n;
    Prefill(s.q, n);
    std::vector<std::unique_ptr<Worker>> w;
    for (int64_t i = 0; i < args_.concurrency; ++i)
      w.push_back(std::make_unique<RecvWorker>(ctx_, s, batch));
    Json m = Measured([&] { RunWorkers(ctx_, w); });
    Json r;
    r["messages"] = s.done;
    r["msgs_per_s"] = PerSecond(s.done, m);
    r["latency"] = Summarize(s.lat);
    r["empty_receives"] = s.empties;
    Merge(r, m);
    r["latency_unit"] = "ReceiveMessage(max " + std::to_string(batch) + ") + " +
                        (batch == 1 ? "DeleteMessage" : "DeleteMessageBatch") + " pair";
    return r;
  }

  Json ModeMixed(int64_t n) {
    MixedShared s;
    s.q = NewQueue("mixed");
    s.n = n;
    std::vector<std::unique_ptr<Worker>> w;
    w.push_back(std::make_unique<Producer>(ctx_, s));
    w.push_back(std::make_unique<Consumer>(ctx_, s));
    Json m = Measured([&] { RunWorkers(ctx_, w); });
    Json r;
    r["messages"] = s.consumed;
    r["msgs_per_s"] = PerSecond(s.consumed, m);
    r["latency"] = Summarize(s.recv_lat);
    r["latency_unit"] = "consumer ReceiveMessage(max 10, wait 1 s) + DeleteMessageBatch pair";
    r["send_call_latency"] = Summarize(s.send_lat);
    // Dominated by the backlog when the producer outruns the consumer.
    r["end_to_end_latency"] = Summarize(s.e2e);
    Merge(r, m);
    return r;
  }

  // lqs_bench's `life b10 100B t1 process` over HTTP (LifeWorker's round):
  // `life` on one connection after 100 unmeasured rounds (lqs_bench warms
  // too), `lifeN` on every connection at once.
  Json ModeLife(int64_t n, bool every_connection) {
    const int64_t conns = every_connection ? args_.concurrency : 1;
    const std::string q = NewQueue(every_connection ? "lifeN" : "life");
    Prefill(q, 1000);
    auto run = [&](LifeShared& s) {
      std::vector<std::unique_ptr<Worker>> w;
      for (int64_t i = 0; i < conns; ++i) w.push_back(std::make_unique<LifeWorker>(ctx_, s));
      RunWorkers(ctx_, w);
    };
    if (!every_connection) {
      LifeShared warm;
      warm.q = q;
      warm.rounds = 100;
      run(warm);
    }
    LifeShared s;
    s.q = q;
    s.rounds = (n + 9) / 10;
    s.lat.reserve(static_cast<size_t>(s.rounds));
    Json m = Measured([&] { run(s); });
    Json r;
    r["messages"] = s.rounds * 10;
    r["msgs_per_s"] = PerSecond(s.rounds * 10, m);
    r["latency"] = Summarize(s.lat);
    Merge(r, m);
    r["latency_unit"] = std::string("one round: SendMessageBatch(10) + ReceiveMessage(max 10) + ") +
                        "DeleteMessageBatch, " +
                        (every_connection ? "on each connection" : "1 connection");
    return r;
  }

  const Args& args_;
  Ctx ctx_;
  SyncCaller sync_;
  int qseq_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  Args args = ParseArgs(argc, argv);
  Bench bench(args);
  return bench.Run();
}
