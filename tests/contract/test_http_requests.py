"""membersim's HTTP/1.x handling at the socket: keep-alive, HTTP/1.0, Expect: 100-continue, header limits."""

import socket

import pytest

from membersim import ClusterSpec, Simulator


@pytest.fixture(scope="module")
def simulator():
    with Simulator([ClusterSpec(name="member-1", nodes=1)], anonymous=True) as simulator:
        yield simulator


@pytest.fixture(scope="module")
def address(simulator):
    endpoint = simulator.endpoint("member-1")
    host, port = endpoint.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
    return host, int(port)


def serving_threads(simulator) -> int:
    """Threads alive, less the handler threads kept idle for the next connection (they hold none)."""
    import threading

    return threading.active_count() - simulator.idle_handler_threads()


def exchange(address, request: bytes, answers: int = 1) -> bytes:
    """What the server sends until ``answers`` status lines have come (the connection stays open)."""
    with socket.create_connection(address, timeout=5) as sock:
        sock.sendall(request)
        answer = b""
        while answer.count(b"HTTP/1.1 ") < answers or not answer.endswith((b"ok", b"}")):
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
        return answer


def read_all(address, request: bytes) -> bytes:
    """Every byte the server sends before it closes the connection."""
    with socket.create_connection(address, timeout=5) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
        return answer


def test_an_http_1_0_request_is_answered_and_its_connection_closed(address):
    answer = read_all(address, b"GET /version HTTP/1.0\r\nHost: x\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 200 ")
    assert b'"gitVersion"' in answer


def test_connection_close_ends_an_http_1_1_connection_after_the_answer(address):
    answer = read_all(address, b"GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 200 ") and b'"gitVersion"' in answer


def test_two_requests_on_one_connection_get_two_answers(address):
    request = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    answer = exchange(address, request * 2, answers=2)
    assert answer.count(b"HTTP/1.1 200 ") == 2


def test_expect_100_continue_is_answered_before_the_body(address):
    body = b'{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"expect"}}'
    head = (
        b"POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Expect: 100-continue\r\nContent-Length: %d\r\n\r\n" % len(body)
    )
    with socket.create_connection(address, timeout=5) as sock:
        sock.sendall(head)
        assert sock.recv(65536).startswith(b"HTTP/1.1 100 Continue")
        sock.sendall(body)
        answer = sock.recv(65536)
    assert answer.startswith(b"HTTP/1.1 201 ")


def test_more_than_a_hundred_headers_is_a_431(address):
    headers = b"".join(b"X-H%d: v\r\n" % i for i in range(101))
    answer = read_all(address, b"GET /version HTTP/1.1\r\nHost: x\r\n" + headers + b"\r\n")
    assert answer.startswith(b"HTTP/1.1 431 ")


def test_a_header_line_over_64_kib_is_a_431(address):
    answer = read_all(address, b"GET /version HTTP/1.1\r\nX-Long: " + b"a" * 70000 + b"\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 431 ")


def test_a_folded_header_is_read_as_the_standard_parser_reads_it(address):
    answer = exchange(address, b"GET /healthz HTTP/1.1\r\nX-Folded: a\r\n b\r\nHost: x\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 200 ")


def test_an_http_2_request_line_is_refused_by_the_standard_parser(address):
    # The standard library answers it before it knows the version, in HTTP/0.9 form (no status line).
    answer = read_all(address, b"GET /version HTTP/2.0\r\nHost: x\r\n\r\n")
    assert b"505" in answer and b"Invalid HTTP version (2.0)" in answer


def test_idle_keep_alive_connections_hold_no_thread_and_answer_when_they_speak_again(simulator, address):
    import time

    from membersim.server import PARK_AFTER

    request = b"GET /version HTTP/1.1\r\nHost: x\r\n\r\n"
    baseline = serving_threads(simulator)
    clients = [socket.create_connection(address, timeout=5) for _ in range(40)]
    try:
        for sock in clients:
            sock.sendall(request)
            assert sock.recv(65536).startswith(b"HTTP/1.1 200")
        deadline = time.monotonic() + PARK_AFTER + 5
        while serving_threads(simulator) > baseline + 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert serving_threads(simulator) <= baseline + 2  # forty open connections, no thread each
        for sock in clients:  # the same connections, each asking again
            sock.sendall(request)
            assert sock.recv(65536).startswith(b"HTTP/1.1 200")
    finally:
        for sock in clients:
            sock.close()


def test_connections_past_descriptor_1023_are_parked_too(simulator, address):
    import os
    import time

    from membersim.server import PARK_AFTER

    filler = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]  # a fleet's worth of descriptors
    request = b"GET /version HTTP/1.1\r\nHost: x\r\n\r\n"
    try:
        baseline = serving_threads(simulator)
        clients = [socket.create_connection(address, timeout=5) for _ in range(10)]
        for sock in clients:
            sock.sendall(request)
            assert sock.recv(65536).startswith(b"HTTP/1.1 200")
        deadline = time.monotonic() + PARK_AFTER + 5
        while serving_threads(simulator) > baseline + 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert serving_threads(simulator) <= baseline + 2
        for sock in clients:
            sock.sendall(request)
            assert sock.recv(65536).startswith(b"HTTP/1.1 200")
            sock.close()
    finally:
        for fd in filler:
            os.close(fd)
