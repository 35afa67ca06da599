"""tests/bridge/fault_proxy.py: each mode does to a client what its docstring says.

Against a small echo server and a small HTTP server written here, and then
against a real lqsd with boto3 (Debian's /usr/bin/python3, the query
protocol): the errors botocore raises in each mode, and a cut response whose
request the target has carried out.
"""

import http.client
import http.server
import os
import socket
import socketserver
import sys
import threading
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "server"))

from fault_proxy import FaultProxy  # noqa: E402
from lqsd_harness import boto3, botocore, Config, Lqsd, require_lqsd_and_boto3  # noqa: E402

BODY = bytes(range(256)) * 4  # the HTTP server's answer: 1,024 bytes


def wait_for(predicate, timeout=5):
    deadline = time.time() + timeout
    while not predicate():
        assert time.time() < deadline, "timed out waiting"
        time.sleep(0.01)


# ---- Targets ------------------------------------------------------------------------

class _Echo(socketserver.BaseRequestHandler):
    def handle(self):
        self.server.connections += 1
        while True:
            data = self.request.recv(65536)
            if not data:
                return
            self.request.sendall(data)


class _Http(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive

    def do_GET(self):
        self.server.requests += 1
        self.send_response(200)
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, *args):
        pass


def _serve(server):
    server.handle_error = lambda *args: None  # the resets the tests cause are expected
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    return server


@pytest.fixture
def echo():
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Echo)
    server.daemon_threads = True
    server.connections = 0
    yield _serve(server)
    server.shutdown()
    server.server_close()


@pytest.fixture
def web():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Http)
    server.requests = 0
    yield _serve(server)
    server.shutdown()
    server.server_close()


@pytest.fixture
def echo_proxy(echo):
    with FaultProxy(*echo.server_address) as proxy:
        yield proxy


@pytest.fixture
def web_proxy(web):
    with FaultProxy(*web.server_address) as proxy:
        yield proxy


def connect(proxy, timeout=5):
    return socket.create_connection((proxy.host, proxy.port), timeout=timeout)


def recv_exactly(sock, size):
    got = b""
    while len(got) < size:
        chunk = sock.recv(size - len(got))
        assert chunk, "connection closed after %d bytes" % len(got)
        got += chunk
    return got


def echo_once(sock, data=b"ping"):
    sock.sendall(data)
    return recv_exactly(sock, len(data))


def assert_reset(sock, error=ConnectionResetError):
    """Checks that the proxy reset `sock` (its next exchange fails with `error`); closes it."""
    with pytest.raises(error):
        sock.sendall(b"more")
        sock.recv(10)
    sock.close()


def read_to_eof(sock):
    got = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return got
        got += chunk


GET = b"GET / HTTP/1.1\r\nHost: test\r\n\r\n"


# ---- Each mode ----------------------------------------------------------------------

def test_pass_through_forwards_and_counts(echo, echo_proxy):
    assert echo_proxy.mode == "pass"
    assert echo_proxy.url == "http://127.0.0.1:%d" % echo_proxy.port
    with connect(echo_proxy) as s:
        assert echo_once(s, b"hello") == b"hello"
        assert echo_once(s, b"x" * 100000) == b"x" * 100000
        s.shutdown(socket.SHUT_WR)  # the half-close reaches the echo server, which closes
        assert read_to_eof(s) == b""
    wait_for(lambda: echo_proxy.active == 0)
    assert echo_proxy.stats() == {"connections": 1, "active": 0, "bytes_up": 100005,
                                  "bytes_down": 100005, "faults": {}, "upstream_errors": 0}
    assert echo.connections == 1


def test_refuse_resets_open_connections_and_refuses_new_ones(echo_proxy):
    port = echo_proxy.port
    s = connect(echo_proxy)
    echo_once(s)
    echo_proxy.refuse()
    assert echo_proxy.mode == "refuse"
    assert_reset(s)
    with pytest.raises(ConnectionRefusedError):
        connect(echo_proxy)
    assert echo_proxy.faults == {"refuse": 1}

    echo_proxy.pass_through()  # listens again, on the same port
    assert echo_proxy.port == port
    with connect(echo_proxy) as s:
        assert echo_once(s) == b"ping"


def test_drop_resets_open_and_new_connections(echo, echo_proxy):
    s = connect(echo_proxy)
    echo_once(s)
    echo_proxy.drop()
    assert_reset(s)
    # Accepted, then reset: on loopback the RST may reach the client before its connect
    # call has returned, and that call reports it.
    with pytest.raises(ConnectionResetError):
        with connect(echo_proxy) as s:
            s.sendall(b"ping")
            s.recv(10)
    assert echo_proxy.faults == {"drop": 2}
    assert echo_proxy.connections == 2
    assert echo.connections == 1  # the dropped new connection never reached the target

    echo_proxy.pass_through()
    with connect(echo_proxy) as s:
        assert echo_once(s) == b"ping"


def test_stall_holds_open_and_new_connections_until_the_mode_changes(echo, echo_proxy):
    old = connect(echo_proxy, timeout=0.3)
    echo_once(old)
    echo_proxy.stall()
    new = connect(echo_proxy, timeout=0.3)
    for s in (old, new):
        s.sendall(b"held")
        with pytest.raises(socket.timeout):
            s.recv(10)
    assert echo.connections == 1  # the new connection has not reached the target
    up, down = echo_proxy.bytes_up, echo_proxy.bytes_down
    time.sleep(0.2)
    assert (echo_proxy.bytes_up, echo_proxy.bytes_down) == (up, down)
    wait_for(lambda: echo_proxy.faults.get("stall") == 2)

    echo_proxy.pass_through()  # what was sent meanwhile goes on
    for s in (old, new):
        s.settimeout(5)
        assert recv_exactly(s, 4) == b"held"
        s.close()
    assert echo.connections == 2


def test_cut_response_forwards_the_request_and_part_of_the_response(web, web_proxy):
    web_proxy.cut_response(100)
    with connect(web_proxy) as s:
        s.sendall(GET)
        got = read_to_eof(s)
    assert len(got) == 100 and got.startswith(b"HTTP/1.1 200")
    assert web.requests == 1
    assert web_proxy.faults == {"cut": 1}

    # Cut inside the body (the head is under 200 bytes): an incomplete read.
    web_proxy.cut_response(200 + len(BODY) // 2)
    conn = http.client.HTTPConnection(web_proxy.host, web_proxy.port, timeout=5)
    conn.request("GET", "/")
    with pytest.raises(http.client.IncompleteRead):
        conn.getresponse().read()
    conn.close()
    assert web.requests == 2

    # 0: the target answers, the client gets nothing; with reset, an RST.
    web_proxy.cut_response(0)
    with connect(web_proxy) as s:
        s.sendall(GET)
        assert read_to_eof(s) == b""
    web_proxy.cut_response(0, reset=True)
    with connect(web_proxy) as s:
        s.sendall(GET)
        with pytest.raises(ConnectionResetError):
            read_to_eof(s)
    assert web.requests == 4
    assert web_proxy.faults == {"cut": 4}


def test_cut_response_counts_bytes_per_connection_from_the_switch(web, web_proxy):
    conn = http.client.HTTPConnection(web_proxy.host, web_proxy.port, timeout=5)
    conn.request("GET", "/")
    assert conn.getresponse().read() == BODY
    # The response just read does not count: the next one gets its first 10 bytes.
    web_proxy.cut_response(10)
    conn.request("GET", "/")
    with pytest.raises((http.client.HTTPException, ConnectionError)):
        conn.getresponse()
    conn.close()
    assert web.requests == 2


def test_slow_throttles_both_directions(echo_proxy):
    data = b"s" * 1000
    with connect(echo_proxy) as s:
        echo_proxy.slow(2000)
        start = time.time()
        assert echo_once(s, data) == data
        slow = time.time() - start
        echo_proxy.pass_through()
        start = time.time()
        assert echo_once(s, data) == data
        fast = time.time() - start
    # 1,000 bytes at 2,000 bytes/s each way, in chunks of 100: 0.45 s up, the echo
    # overlapping (were the directions throttled together, twice that).
    assert 0.4 < slow < 0.8, slow
    assert fast < 0.15, fast
    assert echo_proxy.faults == {"slow": 1}


def test_close_resets_connections_and_stops_listening(echo):
    proxy = FaultProxy(*echo.server_address)
    s = connect(proxy)
    echo_once(s)
    proxy.close()
    assert proxy.active == 0
    assert_reset(s, ConnectionError)
    with pytest.raises(ConnectionRefusedError):
        connect(proxy)
    with pytest.raises(RuntimeError):
        proxy.drop()
    proxy.close()  # twice is fine


def test_upstream_refusing_resets_the_client():
    spare = socket.socket()
    spare.bind(("127.0.0.1", 0))
    port = spare.getsockname()[1]
    spare.close()  # nothing listens on it now
    with FaultProxy("127.0.0.1", port) as proxy:
        with pytest.raises(ConnectionResetError):  # at the connect, or after it
            with connect(proxy) as s:
                s.sendall(b"x")
                s.recv(10)
        assert proxy.upstream_errors == 1


# ---- Against lqsd, with boto3 -------------------------------------------------------

@pytest.fixture(scope="module")
def lqsd():
    require_lqsd_and_boto3()
    with Lqsd() as server:
        yield server


def sqs(endpoint, read_timeout=5):
    return boto3.client("sqs", endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id="x", aws_secret_access_key="x",
                        config=Config(retries={"total_max_attempts": 1}, connect_timeout=2,
                                      read_timeout=read_timeout))


def bodies(client, url):
    got = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10,
                                 WaitTimeSeconds=0).get("Messages", [])
    return sorted(m["Body"] for m in got)


def test_boto3_through_each_mode(lqsd):
    direct = sqs(lqsd.url)
    url = direct.create_queue(QueueName="proxied")["QueueUrl"]
    with FaultProxy("127.0.0.1", lqsd.port) as proxy:
        client = sqs(proxy.url, read_timeout=1)
        client.send_message(QueueUrl=url, MessageBody="through")
        assert proxy.connections == 1 and proxy.bytes_up > 0 and proxy.bytes_down > 0

        proxy.refuse()
        with pytest.raises(botocore.exceptions.EndpointConnectionError):
            client.send_message(QueueUrl=url, MessageBody="refused")
        proxy.drop()  # the RST may beat the request: then urllib3 reports a failed connect
        with pytest.raises((botocore.exceptions.ConnectionClosedError,
                            botocore.exceptions.EndpointConnectionError)):
            client.send_message(QueueUrl=url, MessageBody="dropped")
        proxy.stall()
        with pytest.raises(botocore.exceptions.ReadTimeoutError):
            client.send_message(QueueUrl=url, MessageBody="stalled")
        proxy.drop()  # resets the held connection: "stalled" never reaches lqsd

        # A cut response: the client sees a failure, but lqsd has the message.
        proxy.cut_response(0)
        with pytest.raises(botocore.exceptions.ConnectionClosedError):
            client.send_message(QueueUrl=url, MessageBody="cut")

        proxy.slow(20000)
        client.send_message(QueueUrl=url, MessageBody="slowly")
        proxy.pass_through()
        client.send_message(QueueUrl=url, MessageBody="again")
        assert bodies(direct, url) == ["again", "cut", "slowly", "through"]
        assert proxy.faults == {"refuse": 1, "drop": 2, "stall": 1, "cut": 1, "slow": 1}
