"""The Kubernetes door maps transport failures to our errors, within the timeout, with the cause chained."""

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from clusters.k8s import ClusterConnection, ClusterUnreachable, Unauthorized, get_version, probe_health
from clusters.k8s.client import api_client


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Answers(BaseHTTPRequestHandler):
    """Answers every GET with the status the server was built with; records the Authorization header."""

    def do_GET(self):
        self.server.seen.append((self.path, self.headers.get("Authorization")))
        status = self.server.status_for(self.path)
        body = b'{"kind":"Status","message":"nope","reason":"Unauthorized"}' if status == 401 else b"ok"
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def http_server():
    servers = []

    def start(status_for):
        server = ThreadingHTTPServer(("127.0.0.1", 0), Answers)
        server.status_for, server.seen = status_for, []
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_a_closed_port_is_unreachable_and_the_cause_is_chained():
    conn = ClusterConnection(name="gone", server=f"http://127.0.0.1:{free_port()}")
    with pytest.raises(ClusterUnreachable, match="Cannot connect") as caught:
        get_version(conn, timeout=1)
    assert caught.value.__cause__ is not None


def test_a_server_that_never_answers_fails_within_the_read_timeout():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)  # accepts connections but never answers
    try:
        conn = ClusterConnection(name="hang", server=f"http://127.0.0.1:{listener.getsockname()[1]}")
        started = time.monotonic()
        probe = probe_health(conn, timeout=0.5)
        elapsed = time.monotonic() - started
    finally:
        listener.close()
    assert not probe.reachable and not probe.ok
    assert "did not answer in time" in probe.message
    assert elapsed < 2.0


def test_the_probe_falls_back_to_healthz_when_readyz_is_missing(http_server):
    server = http_server(lambda path: 404 if path.startswith("/readyz") else 200)
    conn = ClusterConnection(name="old", server=f"http://127.0.0.1:{server.server_port}", token="t0k")
    probe = probe_health(conn, timeout=2)
    assert (probe.ok, probe.path, probe.status) == (True, "/healthz", 200)
    assert server.seen == [("/readyz", "Bearer t0k"), ("/healthz", "Bearer t0k")]


def test_a_non_200_probe_is_reachable_but_not_ready(http_server):
    server = http_server(lambda path: 500)
    probe = probe_health(ClusterConnection(name="sick", server=f"http://127.0.0.1:{server.server_port}"), 2)
    assert (probe.ok, probe.reachable, probe.status) == (False, True, 500)


def test_a_rejected_token_is_unauthorized(http_server):
    server = http_server(lambda path: 401)
    conn = ClusterConnection(name="x", server=f"http://127.0.0.1:{server.server_port}", token="wrong")
    with pytest.raises(Unauthorized, match="rejected the credentials"):
        get_version(conn, timeout=2)


def test_each_process_and_connection_gets_its_own_cached_client():
    conn = ClusterConnection(name="a", server="http://127.0.0.1:1")
    assert api_client(conn, 2) is api_client(conn, 2)
    assert api_client(conn, 2) is not api_client(ClusterConnection(name="a", server="http://127.0.0.1:2"), 2)
    assert api_client(conn, 2).timeout == (2.0, 2.0)
