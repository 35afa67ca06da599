"""An HTTPS endpoint on loopback: nginx terminating TLS in front of an lqsd.

    with Lqsd() as server, TlsFront(server.port) as front:
        client = boto3.client("sqs", endpoint_url=front.url, verify=front.ca_file, ...)

TlsFront makes, in a temporary directory, a throwaway CA and a server
certificate it signs (subjectAltName IP:127.0.0.1 and DNS:localhost, EC P-256,
two days), with the openssl command-line tool. It writes an nginx
configuration there and starts nginx (/usr/sbin/nginx, or $NGINX) in the
foreground (`daemon off;`, `-p DIR -c nginx.conf`; pid file, logs and temp
paths all in the directory, so it needs no root), listening with TLS on
127.0.0.1 at a free port and proxying every request to
http://BACKEND_HOST:BACKEND_PORT. It returns once the port accepts.

What reaches lqsd: the request as the client sent it, with its Host header
unchanged (`proxy_set_header Host $http_host`). SigV4 signs the host header,
so a client signing for https://127.0.0.1:PORT is verified by lqsd against
the host it signed. lqsd sees plain HTTP, and so hands out http:// queue URLs
for that host (clients send each request to their endpoint, whatever the
queue URL says). Request bodies up to 16 MiB are buffered in memory and
responses are not buffered, so long polls and large messages pass unchanged.

Attributes: `ca_file` (the CA's certificate, PEM: what a client verifies
with), `cert_file`, `key_file`, `port`, `url` (https://HOST:PORT, HOST being
url_host: 127.0.0.1 or localhost, both in the certificate), `dir`.
stop() (also on leaving a `with`) stops nginx and removes the directory;
error_log() is nginx's error log, for a failing test's message.

nginx_binary() and openssl_binary() say whether the tools are installed (None
when not): a test skips without them, and fails under CI=true
(tests/missing_client.py).
"""

import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time

_OPENSSL_CNF = """\
[req]
distinguished_name = dn
prompt = no
[dn]
CN = lqs test
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[server]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
"""

_NGINX_CONF = """\
daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log info;
events {{ worker_connections 512; }}
http {{
    access_log {dir}/access.log;
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    server {{
        listen 127.0.0.1:{port} ssl;
        ssl_certificate {dir}/server.pem;
        ssl_certificate_key {dir}/server.key;
        client_max_body_size 16m;
        client_body_buffer_size 16m;
        location / {{
            proxy_pass http://{backend_host}:{backend_port};
            proxy_set_header Host $http_host;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_buffering off;
            proxy_read_timeout 120s;
        }}
    }}
}}
"""


def nginx_binary():
    """$NGINX, else /usr/sbin/nginx or the nginx on PATH; None when it is not there."""
    path = os.environ.get("NGINX")
    if path:
        return path if os.access(path, os.X_OK) else None
    if os.access("/usr/sbin/nginx", os.X_OK):
        return "/usr/sbin/nginx"
    return shutil.which("nginx")


def openssl_binary():
    return shutil.which("openssl")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class TlsFront:
    def __init__(self, backend_port, backend_host="127.0.0.1", url_host="127.0.0.1"):
        self.nginx = nginx_binary()
        if self.nginx is None:
            raise RuntimeError("nginx is not installed (set NGINX=/path/to/nginx)")
        self.backend = (backend_host, backend_port)
        self.dir = tempfile.mkdtemp(prefix="lqs-tls-front-")
        self.proc = None
        try:
            self._make_certificates()
            # The port is free when chosen, and may be taken before nginx binds it: then
            # nginx exits, and another port is tried.
            for _ in range(3):
                self.port = _free_port()
                if self._start():
                    break
            else:
                raise RuntimeError("nginx did not start:\n" + self.error_log())
        except BaseException:
            self.stop()
            raise
        self.url = "https://%s:%d" % (url_host, self.port)

    def _path(self, name):
        return os.path.join(self.dir, name)

    def _openssl(self, *args):
        subprocess.run([openssl_binary() or "openssl", *args], cwd=self.dir, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def _make_certificates(self):
        with open(self._path("openssl.cnf"), "w") as f:
            f.write(_OPENSSL_CNF)
        key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        self._openssl("req", "-x509", "-config", "openssl.cnf", "-extensions", "ca", *key,
                      "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
                      "-subj", "/CN=lqs test CA")
        self._openssl("req", "-new", "-config", "openssl.cnf", *key,
                      "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost")
        self._openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                      "-set_serial", "0x" + secrets.token_hex(8), "-days", "2",
                      "-extfile", "openssl.cnf", "-extensions", "server", "-out", "server.pem")
        self.ca_file = self._path("ca.pem")
        self.cert_file = self._path("server.pem")
        self.key_file = self._path("server.key")

    def _start(self, timeout=10):
        """Starts nginx on self.port: True once the port accepts, False if nginx exited."""
        with open(self._path("nginx.conf"), "w") as f:
            f.write(_NGINX_CONF.format(dir=self.dir, port=self.port,
                                       backend_host=self.backend[0],
                                       backend_port=self.backend[1]))
        with open(self._path("stderr.log"), "ab") as err:
            self.proc = subprocess.Popen(
                [self.nginx, "-p", self.dir, "-c", self._path("nginx.conf"),
                 "-e", self._path("error.log")],
                stdin=subprocess.DEVNULL, stdout=err, stderr=err)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                self.proc = None
                return False
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                if self.proc.poll() is None:
                    return True
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("nginx did not accept on port %d within %s s:\n%s"
                           % (self.port, timeout, self.error_log()))

    def error_log(self):
        text = ""
        for name in ("stderr.log", "error.log"):
            try:
                with open(self._path(name), errors="replace") as f:
                    text += f.read()
            except OSError:
                pass
        return text

    def stop(self, timeout=10):
        """Stops nginx (SIGTERM: its fast shutdown) and removes the directory. Returns
        nginx's exit code (None when it was not running)."""
        code = None
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGTERM)
            try:
                code = self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                code = self.proc.wait()
            self.proc = None
        shutil.rmtree(self.dir, ignore_errors=True)
        return code

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
