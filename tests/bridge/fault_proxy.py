"""A TCP proxy on loopback whose faults a test switches on and off.

    with FaultProxy("127.0.0.1", lqsd.port) as proxy:
        client = boto3.client("sqs", endpoint_url=proxy.url, ...)
        proxy.drop()            # every connection is reset from now on
        ...
        proxy.pass_through()    # and forwarded again

The proxy listens on 127.0.0.1 (a free port: `port`, `url`) and forwards each
connection it accepts to the target. A thread accepts, and each connection has
a thread of its own that copies bytes both ways; the mode is read at every
step, so a switch applies to new connections at once and to open ones within
about 50 ms. What the client sees in each mode:

- pass_through() (the default): its bytes reach the target and the target's
  come back, unchanged; a half-close is passed on.
- refuse(): the port stops listening, so a connect fails with "connection
  refused" (ECONNREFUSED), as when the server is down; open connections are
  reset. The port listens again when the mode changes (on the same port).
  The proxy never sees a refused attempt, so it cannot count those.
- drop(): connections are accepted and reset at once (RST: SO_LINGER 0, then
  close): reads and writes fail with ECONNRESET. The reset may reach the
  client before its connect call returns, and then that call fails with
  ECONNRESET (botocore: EndpointConnectionError rather than
  ConnectionClosedError). Open connections are reset the same way.
- stall(): connections are accepted and held, and nothing is forwarded in
  either direction (a new connection does not even reach the target) until
  the mode changes: the client sees its read time out. Bytes sent meanwhile
  wait in the socket buffers and go on when the mode changes to one that
  forwards.
- cut_response(after_bytes, reset=False): requests are forwarded; of the
  response bytes a connection gets while this mode is on, the first
  after_bytes are forwarded, and when more arrive the connection is closed
  (FIN, or RST with reset=True) instead of forwarding them. With 0, the
  target gets the request and answers, and the client gets nothing.
- slow(bytes_per_second): each direction of each connection is throttled to
  about that rate (chunks of a twentieth of a second).

refuse() and drop() return once the open connections are gone, so a client
call made after them sees the fault; the other switches return at once.

Counters, for assertions (stats() is a consistent snapshot of them all):
`connections` (accepted, including those then reset), `active` (open now),
`bytes_up` (client to target) and `bytes_down` (target to client), both as
forwarded (counted just before they are sent on, so a client that has
received bytes finds them counted), `faults` (a dict: how many connections
each fault hit, keyed "refuse", "drop", "stall", "cut", "slow"; a connection
counts once per switch) and `upstream_errors` (connections reset because the
target did not accept). close() resets every connection and stops the
threads.

Standard library only; no third-party modules.
"""

import selectors
import socket
import struct
import threading
import time

_TICK = 0.05  # how often a connection's thread looks at the mode


def _reset(sock):
    """Closes `sock` with an RST rather than a FIN."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    sock.close()


class FaultProxy:
    def __init__(self, target_host, target_port, listen_host="127.0.0.1"):
        self.target = (target_host, target_port)
        self.host = listen_host
        self._cond = threading.Condition()
        self._mode, self._arg, self._generation = "pass", None, 0
        self._closing = False
        self._listening = False
        self._listen_error = None
        self._conns = set()
        self.connections = self.bytes_up = self.bytes_down = self.upstream_errors = 0
        self.faults = {}
        self._listener = self._listen(0)
        self.port = self._listener.getsockname()[1]
        self._listening = True
        self._acceptor = threading.Thread(target=self._accept_loop, daemon=True,
                                          name="fault-proxy-accept")
        self._acceptor.start()

    @property
    def url(self):
        return "http://%s:%d" % (self.host, self.port)

    @property
    def active(self):
        with self._cond:
            return len(self._conns)

    @property
    def mode(self):
        """The mode's name: pass, refuse, drop, stall, cut or slow."""
        with self._cond:
            return self._mode

    def stats(self):
        with self._cond:
            return {"connections": self.connections, "active": len(self._conns),
                    "bytes_up": self.bytes_up, "bytes_down": self.bytes_down,
                    "faults": dict(self.faults), "upstream_errors": self.upstream_errors}

    # ---- The switches ---------------------------------------------------------------

    def pass_through(self):
        self._switch("pass")

    def refuse(self):
        self._switch("refuse")

    def drop(self):
        self._switch("drop")

    def stall(self):
        self._switch("stall")

    def cut_response(self, after_bytes, reset=False):
        if after_bytes < 0:
            raise ValueError("after_bytes must be >= 0")
        self._switch("cut", (after_bytes, reset))

    def slow(self, bytes_per_second):
        if bytes_per_second <= 0:
            raise ValueError("bytes_per_second must be > 0")
        self._switch("slow", bytes_per_second)

    def _switch(self, mode, arg=None, timeout=10):
        with self._cond:
            if self._closing:
                raise RuntimeError("the proxy is closed")
            self._mode, self._arg = mode, arg
            self._generation += 1
            self._cond.notify_all()
            # Wait for the acceptor to (re)open or close the port, and for refuse and
            # drop to have reset the open connections.
            listening = mode != "refuse"
            done = self._cond.wait_for(
                lambda: self._listen_error is not None or (
                    self._listening == listening and
                    (mode not in ("refuse", "drop") or not self._conns)),
                timeout)
            if self._listen_error is not None:
                error, self._listen_error = self._listen_error, None
                raise error
            if not done:
                raise TimeoutError("the proxy did not switch to %s in %s s" % (mode, timeout))

    # ---- Life cycle -----------------------------------------------------------------

    def close(self):
        with self._cond:
            if self._closing:
                return
            self._closing = True
            self._cond.notify_all()
        self._acceptor.join()
        with self._cond:
            self._cond.wait_for(lambda: not self._conns, 10)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- Internals ------------------------------------------------------------------

    def _listen(self, port):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host, port))
            sock.listen(128)
        except OSError:
            sock.close()
            raise
        return sock

    def _count_fault(self, conn, kind):
        """Counts `kind` against `conn` (None: a connection never admitted) once per mode
        switch."""
        with self._cond:
            if conn is not None:
                if conn.faulted == (self._generation, kind):
                    return
                conn.faulted = (self._generation, kind)
            self.faults[kind] = self.faults.get(kind, 0) + 1

    def _accept_loop(self):
        while True:
            with self._cond:
                if self._closing:
                    break
                refusing = self._mode == "refuse"
            if refusing and self._listener is not None:
                self._listener.close()
                self._listener = None
                with self._cond:
                    self._listening = False
                    self._cond.notify_all()
            elif not refusing and self._listener is None:
                self._reopen()
            if self._listener is None:
                with self._cond:
                    self._cond.wait(_TICK)
                continue
            self._listener.settimeout(_TICK)
            try:
                sock, _ = self._listener.accept()
            except socket.timeout:
                continue
            except OSError:
                continue
            self._admit(sock)
        if self._listener is not None:
            self._listener.close()
        with self._cond:
            self._listening = False
            self._cond.notify_all()

    def _reopen(self):
        # Another socket may have taken the port meanwhile (an outgoing connection's
        # ephemeral port): try for a second before giving up.
        for _ in range(20):
            try:
                self._listener = self._listen(self.port)
                break
            except OSError as e:
                error = e
                time.sleep(_TICK)
        with self._cond:
            if self._listener is None:
                self._listen_error = error
            else:
                self._listening = True
            self._cond.notify_all()

    def _admit(self, sock):
        with self._cond:
            self.connections += 1
            mode = self._mode
            if mode != "drop":
                conn = _Connection(self, sock)
                self._conns.add(conn)
        if mode == "drop":
            self._count_fault(None, "drop")
            _reset(sock)
            return
        threading.Thread(target=conn.run, daemon=True, name="fault-proxy-conn").start()


class _Connection:
    """One client connection and, once forwarding starts, its connection to the target."""

    def __init__(self, proxy, client):
        self.proxy = proxy
        self.client = client
        self.upstream = None
        self.faulted = None  # (mode switch, fault) last counted against this connection
        self.cut_generation = None  # the cut_response() whose response bytes cut_sent counts
        self.cut_sent = 0
        self.open_ends = {client: 0.0}  # the sockets not at EOF yet: when slow() lets them read

    def run(self):
        proxy = self.proxy
        try:
            with selectors.DefaultSelector() as self.selector:
                self._pump()
        finally:
            for sock in (self.client, self.upstream):
                if sock is not None:
                    sock.close()
            with proxy._cond:
                proxy._conns.discard(self)
                proxy._cond.notify_all()

    def _mode(self):
        p = self.proxy
        with p._cond:
            return ("closed" if p._closing else p._mode), p._arg, p._generation

    def _abort(self):
        _reset(self.client)
        if self.upstream is not None:
            _reset(self.upstream)

    def _pump(self):
        p = self.proxy
        self.client.settimeout(_TICK)
        while self.open_ends:
            mode, arg, generation = self._mode()
            if mode in ("closed", "refuse", "drop"):
                if mode != "closed":
                    p._count_fault(self, mode)
                self._abort()
                return
            if mode == "stall":
                p._count_fault(self, "stall")
                with p._cond:
                    p._cond.wait(_TICK)
                continue
            if self.upstream is None and not self._connect():
                return
            if mode == "slow":
                p._count_fault(self, "slow")
            for sock in self._readable(mode == "slow"):
                if not self._forward(sock, mode, arg, generation):
                    return

    def _readable(self, paced):
        """The open ends with bytes (or EOF) to read, waiting at most a tick. Paced (slow
        mode), an end is not read before the time its last chunk allows."""
        now = time.monotonic()
        wanted = {s for s, at in self.open_ends.items() if not paced or at <= now}
        waits = [at - now for at in self.open_ends.values() if paced and at > now]
        timeout = min([_TICK] + waits)
        registered = {key.fileobj for key in self.selector.get_map().values()}
        for sock in registered - wanted:
            self.selector.unregister(sock)
        for sock in wanted - registered:
            self.selector.register(sock, selectors.EVENT_READ)
        if not wanted:
            time.sleep(timeout)
            return []
        return [key.fileobj for key, _ in self.selector.select(timeout)]

    def _connect(self):
        try:
            self.upstream = socket.create_connection(self.proxy.target, timeout=5)
        except OSError:
            with self.proxy._cond:
                self.proxy.upstream_errors += 1
            _reset(self.client)
            return False
        self.upstream.settimeout(_TICK)
        self.open_ends[self.upstream] = 0.0
        return True

    def _forward(self, src, mode, arg, generation):
        """Moves one chunk from `src` to the other side. False: the connection is over."""
        p = self.proxy
        up = src is self.client
        dst = self.upstream if up else self.client
        size = max(1, arg // 20) if mode == "slow" else 65536
        try:
            data = src.recv(size)
        except socket.timeout:
            return True
        except OSError:
            self._abort()
            return False
        if not data:  # EOF: pass the half-close on
            del self.open_ends[src]
            try:
                dst.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            return True
        cut = False
        if mode == "cut" and not up:
            after_bytes, reset = arg
            if self.cut_generation != generation:
                self.cut_generation, self.cut_sent = generation, 0
            room = after_bytes - self.cut_sent
            if len(data) > room:
                data, cut = data[:room], True
            self.cut_sent += len(data)
        if not self._send(dst, data, up):
            self._abort()
            return False
        if cut:
            p._count_fault(self, "cut")
            if reset:
                self._abort()
            else:
                self.client.shutdown(socket.SHUT_RDWR)
            return False
        if mode == "slow":
            self.open_ends[src] = time.monotonic() + len(data) / arg
        return True

    def _send(self, dst, data, up):
        """Sends all of `data`, giving up when the proxy closes or starts dropping. The
        bytes are counted first, so a client that has them finds them counted."""
        p = self.proxy
        with p._cond:
            if up:
                p.bytes_up += len(data)
            else:
                p.bytes_down += len(data)
        view = memoryview(data)
        while view:
            try:
                view = view[dst.send(view):]
            except socket.timeout:
                mode, _, _ = self._mode()
                if mode in ("closed", "refuse", "drop"):
                    return False
            except OSError:
                return False
        return True
