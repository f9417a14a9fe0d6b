"""The HTTP layer: routing, auth, faults, content negotiation, watches. Stdlib http.server only."""

from __future__ import annotations

import email.parser
import http.client
import json
import re
import select
import selectors
import socket
import socketserver
import ssl
import struct
import sys
import threading
import time
import traceback
from dataclasses import replace
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol
from urllib.parse import parse_qsl, unquote, urlsplit

from membersim import api, discovery, encoding, errors, openapi_v2, pod_logs, tables
from membersim.cluster import Cluster
from membersim.handler_threads import HandlerThreads
from membersim.resources import NODE_METRICS, POD, POD_METRICS, SERVICE_CIDRS, Resource, find
from membersim.store import Change

KARMADA_PROXY = "/apis/cluster.karmada.io/v1alpha1/clusters/"
CONTROL_PREFIX = "/membersim/control/"
HEALTH_PATHS = {"/healthz", "/readyz", "/livez"}
PUBLIC_PATHS = {"/version", "/version/", *HEALTH_PATHS}
DEFAULT_WATCH_SECONDS = 1800.0
BOOKMARK_EVERY = 60.0  # a quiet watch's bookmarks: the API server's watch cache sends one a minute
IDLE_CHECK = 5.0  # how often a quiet watch without bookmarks looks whether its client is still there
INITIAL_BATCH = 256
# A keep-alive connection with no next request this soon is parked: its handler ends and one selector
# thread waits for the next request (a fleet's clients keep thousands of idle connections open). A
# request on a parked connection costs membersim about 0.3 ms more than on a busy one (the hand-over);
# while a fleet is seeded each propagate process writes to each member every second or two, so with
# 0.5 s here nearly every Work paid it (bench_membersim_parked.py, bench/results.md).
PARK_AFTER = 3.0
IDLE_KEEP_ALIVE = 300.0  # a parked connection silent this long is closed, as an idle handler timed out
MAX_HEADER_LINE, MAX_HEADERS = (
    65536,
    100,
)  # http.client's limits  # initial ADDED events per write of a watch from resourceVersion 0
WRITE_VERBS = {"POST": "create", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}


class Fleet(Protocol):
    """What the HTTP layer needs of whoever runs the clusters (the Simulator)."""

    clusters: dict[str, Cluster]
    verbose: bool
    anonymous: bool
    control_token: str
    stopping: threading.Event

    def control(self, name: str, action: str, *args: Any) -> dict[str, Any]: ...

    def describe(self, name: str) -> dict[str, Any]: ...


class MemberServer(ThreadingHTTPServer):
    """One listening socket; serves ``default`` at the root and every cluster under a path prefix."""

    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    # socketserver's default backlog is 5: one port serving a whole fleet to many pooled clients at once
    # overflows it, and each dropped connection attempt costs its client a 1 s SYN retransmit.
    request_queue_size = 1024

    def __init__(
        self, address: tuple[str, int], simulator: Fleet, default: str | None, tls: ssl.SSLContext | None
    ) -> None:
        self.simulator = simulator
        self.default = default
        self.tls = tls
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.parking = Parking(self)  # before binding: a failed bind closes it again
        self.handlers = HandlerThreads()
        super().__init__(address, Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind resolves the host's FQDN, a slow DNS lookup per port; skip it.
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name, self.server_port = str(host), port

    def get_request(self) -> tuple[Any, Any]:
        sock, address = self.socket.accept()
        # Headers and body leave in separate writes; without NODELAY, Nagle plus the client's
        # delayed ACK adds 40 ms to every keep-alive request.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.tls is not None:
            # The handshake runs lazily in the handler thread, so a slow client cannot stall accept().
            sock = self.tls.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        with self.connections_lock:
            self.connections.add(sock)
        return sock, address

    def process_request(self, request: Any, client_address: Any) -> None:
        """ThreadingMixIn's, on a kept thread where one is idle."""
        self.handlers.run(lambda: self.process_request_thread(request, client_address))

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        """ThreadingMixIn's, but a connection its handler asked to park goes to the lot once the handler
        is done with it (its files closed), instead of being closed."""
        try:
            self.finish_request(request, client_address)
        except Exception:
            self.handle_error(request, client_address)
        if self.parking.take_wanted(request):
            self.parking.park(request, client_address)
        else:
            self.shutdown_request(request)

    def shutdown_request(self, request: Any) -> None:
        with self.connections_lock:
            self.connections.discard(request)
        super().shutdown_request(request)

    def server_close(self) -> None:
        self.parking.close()
        self.handlers.close()
        super().server_close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that vanish mid-request (or fail the TLS handshake) are not errors worth printing."""

    def close_connections(self) -> None:
        with self.connections_lock:
            connections = list(self.connections)
        for sock in connections:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class Parking:
    """Idle keep-alive connections without a thread: one selector thread hands each back to a handler
    (on a kept idle thread, or a new one) when its next request arrives, and closes those idle past
    IDLE_KEEP_ALIVE."""

    def __init__(self, server: MemberServer) -> None:
        self.server = server
        self._selector = selectors.DefaultSelector()
        self._lock = threading.Lock()
        self._parked: dict[Any, tuple[Any, float]] = {}  # socket -> (client address, parked at)
        self._arrived: list[Any] = []  # parked since the loop last looked (it registers them)
        self._wanted: set[Any] = set()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._selector.register(self._wake_r, selectors.EVENT_READ)
        self._closed = False
        self._thread = threading.Thread(target=self._loop, name="membersim-parking", daemon=True)
        self._thread.start()

    def wanted(self, sock: Any) -> None:
        """A handler that is ending asks for its connection to be parked (see take_wanted)."""
        with self._lock:
            self._wanted.add(sock)

    def take_wanted(self, sock: Any) -> bool:
        with self._lock:
            if sock in self._wanted:
                self._wanted.discard(sock)
                return True
            return False

    def park(self, sock: Any, address: Any) -> None:
        with self._lock:
            self._parked[sock] = (address, time.monotonic())
            self._arrived.append(sock)
        try:
            self._wake_w.send(b"p")
        except OSError:
            pass

    def parked(self) -> int:
        with self._lock:
            return len(self._parked)

    def close(self) -> None:
        """Close every parked connection and end the thread."""
        self._closed = True
        try:
            self._wake_w.send(b"x")
        except OSError:
            pass
        if self._thread is not threading.current_thread():
            self._thread.join(2.0)

    def _loop(self) -> None:
        registered: set[Any] = set()
        swept = time.monotonic()
        while not self._closed:
            with self._lock:  # (not a walk of every parked connection: a fleet parks thousands)
                new = [sock for sock in self._arrived if sock in self._parked and sock not in registered]
                self._arrived = []
            for sock in new:
                try:
                    self._selector.register(sock, selectors.EVENT_READ)
                    registered.add(sock)
                except (ValueError, OSError):  # closed meanwhile
                    self._release(sock, registered, serve=False)
            for key, _ in self._selector.select(1.0):
                if key.fileobj is self._wake_r:
                    try:
                        self._wake_r.recv(4096)
                    except OSError:
                        pass
                else:
                    self._release(key.fileobj, registered, serve=True)
            now = time.monotonic()
            if now - swept >= 1.0:
                swept = now
                with self._lock:
                    idle = [sock for sock, (_, at) in self._parked.items() if now - at > IDLE_KEEP_ALIVE]
                for sock in idle:
                    self._release(sock, registered, serve=False)
        with self._lock:
            left = list(self._parked)
        for sock in left:
            self._release(sock, registered, serve=False)

    def _release(self, sock: Any, registered: set[Any], serve: bool) -> None:
        """Take a connection out of the lot: to a new handler thread, or closed."""
        if sock in registered:
            registered.discard(sock)
            try:
                self._selector.unregister(sock)
            except (KeyError, ValueError):
                pass
        with self._lock:
            address, _ = self._parked.pop(sock, (None, 0.0))
        if serve and not self._closed:
            self.server.process_request(sock, address)
        else:
            self.server.shutdown_request(sock)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "membersim"
    sys_version = ""
    timeout = 300
    server: MemberServer

    def version_string(self) -> str:
        return self.server_version

    def handle(self) -> None:
        """Requests one after another while the client keeps the connection busy; once it is quiet for
        PARK_AFTER seconds, the connection is parked and this handler ends (its thread is kept a while
        for the next: membersim.handler_threads)."""
        self.close_connection = True
        self.handle_one_request()
        while not self.close_connection:
            if self._quiet() and self._park():
                return
            self.handle_one_request()

    def _quiet(self) -> bool:
        """No next request within PARK_AFTER seconds (TLS connections are never parked: TLS keeps bytes
        of its own beyond the socket's)."""
        if isinstance(self.connection, ssl.SSLSocket):
            return False
        try:
            return not readable_within(self.connection, PARK_AFTER)
        except (OSError, ValueError):
            return False

    def _park(self) -> bool:
        """Ask for the connection to be parked once this handler is done, unless some of the next
        request is already buffered here."""
        self.connection.setblocking(False)
        try:
            buffered = self.rfile.peek(1)  # what is buffered, or what the socket has right now
        except OSError:
            buffered = b""
        finally:
            self.connection.settimeout(self.timeout)
        if buffered:
            return False
        self.server.parking.wanted(self.connection)
        return True

    def parse_request(self) -> bool:
        """BaseHTTPRequestHandler.parse_request with the header block split here rather than by the
        email package, which costs more than the rest of a small request. Only the common form takes
        this path (an HTTP/1.0 or 1.1 request line, one line per header); anything else is parsed as
        the standard library does."""
        requestline = self.raw_requestline.decode("iso-8859-1").rstrip("\r\n")
        words = requestline.split()
        if len(words) != 3 or words[2] not in ("HTTP/1.0", "HTTP/1.1"):
            return super().parse_request()
        self.requestline = requestline
        self.command, self.path, self.request_version = words
        self.close_connection = words[2] != "HTTP/1.1"
        if self.path.startswith("//"):
            self.path = "/" + self.path.lstrip("/")  # as the standard parse does
        lines: list[bytes] = []
        while True:  # the limits (and answers) of http.client.parse_headers
            line = self.rfile.readline(MAX_HEADER_LINE + 1)
            if len(line) > MAX_HEADER_LINE:
                message = f"got more than {MAX_HEADER_LINE} bytes when reading header line"
                self.send_error(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "Line too long", message)
                return False
            lines.append(line)
            if len(lines) > MAX_HEADERS:
                message = f"got more than {MAX_HEADERS} headers"
                self.send_error(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "Too many headers", message)
                return False
            if line in (b"\r\n", b"\n", b""):
                break
        self.headers = _headers(lines)
        connection = self.headers.get("Connection", "").lower()
        if connection == "close":
            self.close_connection = True
        elif connection == "keep-alive":
            self.close_connection = False
        if self.headers.get("Expect", "").lower() == "100-continue" and self.request_version == "HTTP/1.1":
            return self.handle_expect_100()
        return True

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.simulator.verbose:
            super().log_message(format, *args)

    def do_GET(self) -> None:
        self._handle()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_GET

    # ------------------------------------------------------------ plumbing

    def _read_body(self) -> bytes:
        """Always drain the body, whatever the method: an unread DELETE body corrupts the next request."""
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline().strip():
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            self.close_connection = True  # the body cannot be drained, so the connection cannot be reused
            raise errors.bad_request("Content-Length is not a number") from None
        return self.rfile.read(length) if length > 0 else b""

    def _send(
        self,
        code: int,
        body: bytes,
        content_type: str = "application/json",
        headers: dict[str, str] | None = None,
    ) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache, private")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        # Headers and body in one write: one system call (and one TCP segment) per small answer.
        # _headers_buffer is where BaseHTTPRequestHandler gathers the headers until flush_headers.
        buffer: list[bytes] = self._headers_buffer  # type: ignore[attr-defined]
        buffer.append(b"\r\n")
        if self.command != "HEAD":
            buffer.append(body)
        self.flush_headers()

    def _json(self, code: int, obj: Any, content_type: str = "application/json") -> None:
        self._send(code, json.dumps(obj, separators=(",", ":")).encode(), content_type)

    def _stored(self, code: int, obj: dict[str, Any], sub: str = "") -> None:
        """An object as written or read, its JSON from the shared cache: the watch events that follow a
        write send the same encoding. A Scale is made for the answer, so it is encoded on its own."""
        if sub == "scale":
            self._json(code, obj)
        else:
            self._send(code, encoding.encode(obj))

    def _error(self, error: errors.ApiError) -> None:
        headers = {"WWW-Authenticate": 'Bearer realm="membersim"'} if error.code == 401 else None
        self._send(error.code, json.dumps(error.status(), separators=(",", ":")).encode(), headers=headers)

    def _handle(self) -> None:
        try:
            raw = self._read_body()
            split = urlsplit(self.path)
            path = unquote(split.path)
            query = dict(parse_qsl(split.query, keep_blank_values=True))
            if path.startswith(CONTROL_PREFIX):
                self._control(path[len(CONTROL_PREFIX) :], raw)
                return
            cluster, rest = self._route(path)
            if cluster is None:
                self._error(errors.path_not_found())
                return
            if not self._apply_faults(cluster, rest):
                return
            self._dispatch(cluster, rest, api.Query(query, agent=self.headers.get("User-Agent", "")), raw)
        except errors.ApiError as error:
            self._error(error)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, TimeoutError):
            self.close_connection = True
        except Exception as error:  # a simulator bug: answer like an API server would, and say so
            traceback.print_exc(file=sys.stderr)
            self.close_connection = True
            try:
                self._error(errors.ApiError(500, "InternalError", f"membersim internal error: {error!r}"))
            except OSError:
                pass

    def _route(self, path: str) -> tuple[Cluster | None, str]:
        simulator = self.server.simulator
        for prefix in ("/clusters/", KARMADA_PROXY):
            if path.startswith(prefix):
                name, _, rest = path[len(prefix) :].partition("/")
                if prefix == KARMADA_PROXY:
                    if not rest.startswith("proxy"):
                        return None, path
                    rest = rest[len("proxy") :].lstrip("/")
                return simulator.clusters.get(name), "/" + rest
        if self.server.default is None:
            return None, path
        return simulator.clusters.get(self.server.default), path

    # ------------------------------------------------------------ faults and control

    def _apply_faults(self, cluster: Cluster, path: str) -> bool:
        """False when the request must not be answered normally (already answered or dropped)."""
        stopping = self.server.simulator.stopping
        if cluster.fault.mode == "refuse":
            # One port serves several clusters here, so drop the connection unanswered instead.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            return False
        if cluster.fault.mode == "down":
            self._hang(cluster)
            if stopping.is_set() or cluster.fault.mode == "down":
                self.close_connection = True
                return False
        if cluster.fault.delay > 0:
            stopping.wait(cluster.fault.delay)
        if cluster.fault.mode == "errors":
            code = cluster.fault.error_code
            if path in HEALTH_PATHS or path.startswith(("/healthz/", "/readyz/", "/livez/")):
                self._send(
                    code,
                    b"[-]etcd failed: reason withheld\nhealthz check failed\n",
                    "text/plain; charset=utf-8",
                )
            else:
                self._error(errors.unavailable(code))
            return False
        return True

    def _hang(self, cluster: Cluster) -> None:
        """Hold the connection without answering, like a black-holed API server, until the
        cluster comes back, the client gives up, or the simulator stops."""
        sock = self.connection
        stopping = self.server.simulator.stopping
        while cluster.fault.mode == "down" and not stopping.is_set():
            with cluster.fault_changed:
                cluster.fault_changed.wait(0.2)
            try:
                readable = readable_within(sock, 0)
                if readable and not sock.recv(1):
                    return
            except (OSError, ValueError, ssl.SSLError):
                return

    def _control(self, name: str, raw: bytes) -> None:
        simulator = self.server.simulator
        if self.headers.get("Authorization", "") != f"Bearer {simulator.control_token}":
            self._error(errors.unauthorized())
            return
        if name not in simulator.clusters:
            self._error(errors.ApiError(404, "NotFound", f'cluster "{name}" not found'))
            return
        if self.command == "POST":
            try:
                body = json.loads(raw or b"{}")
                action = body.get("action", "")
                args = body.get("args") or []
                simulator.control(name, action, *args)
            except (ValueError, AttributeError, TypeError) as error:
                self._error(errors.bad_request(str(error)))
                return
        elif self.command != "GET":
            self._error(errors.method_not_allowed(self.command))
            return
        self._json(200, simulator.describe(name))

    # ------------------------------------------------------------ dispatch

    def _dispatch(self, cluster: Cluster, path: str, query: api.Query, raw: bytes) -> None:
        method = self.command
        accept = self.headers.get("Accept") or ""
        if path in ("/version", "/version/"):
            self._json(200, discovery.version_info(cluster.spec.version))
            return
        if path in HEALTH_PATHS or path.startswith(("/healthz/", "/readyz/", "/livez/")):
            self._send(200, b"ok", "text/plain; charset=utf-8")
            return
        role = self._authenticate(cluster)
        if method in WRITE_VERBS and role == "viewer":
            raise errors.ApiError(
                403,
                "Forbidden",
                f'User "viewer" cannot {WRITE_VERBS[method]} {path}: the viewer token is read-only',
            )
        if method == "OPTIONS":
            raise errors.method_not_allowed(method)
        parts = [p for p in path.split("/") if p]
        if parts[:1] == ["openapi"]:
            self._openapi(cluster, parts)
            return
        if not parts or parts[0] not in ("api", "apis"):
            raise errors.path_not_found()
        if len(parts) == 1:
            self._root_discovery(cluster, parts[0] == "api", accept)
            return
        if parts[0] == "api":
            group, version, rest = "", parts[1], parts[2:]
        elif len(parts) == 2:
            document = discovery.api_group(parts[1], cluster.spec.minor)
            if document is None or method != "GET":
                raise errors.path_not_found()
            self._json(200, document)
            return
        else:
            group, version, rest = parts[1], parts[2], parts[3:]
        if not rest:
            document = discovery.resource_list(group, version, cluster.spec.minor)
            if document is None or method != "GET":
                raise errors.path_not_found()
            self._json(200, document)
            return
        self._resource(cluster, group, version, rest, query, raw, accept)

    def _authenticate(self, cluster: Cluster) -> str:
        header = self.headers.get("Authorization", "")
        token = header[7:].strip() if header.lower().startswith("bearer ") else ""
        if token and token == cluster.token:
            return "admin"
        if token and token == cluster.viewer_token:
            return "viewer"
        if not token and self.server.simulator.anonymous:
            return "admin"
        raise errors.unauthorized()

    def _root_discovery(self, cluster: Cluster, core: bool, accept: str) -> None:
        version = discovery.aggregated_version(accept)
        minor = cluster.spec.minor
        if version:
            self._json(
                200, discovery.aggregated(core, version, minor), discovery.AGGREGATED.format(version=version)
            )
        elif core:
            host = (
                self.headers.get("Host")
                or f"{self.server.server_address[0]!s}:{self.server.server_address[1]}"
            )
            self._json(200, discovery.api_versions(host))
        else:
            self._json(200, discovery.api_group_list(minor))

    def _openapi(self, cluster: Cluster, parts: list[str]) -> None:
        if parts[1:] == ["v2"]:
            self._send(200, openapi_v2.document(cluster.spec.version), openapi_v2.CONTENT_TYPE)
            return
        if parts[1:2] != ["v3"]:
            raise errors.path_not_found()
        if len(parts) == 2:
            self._json(200, discovery.openapi_index(cluster.spec.version))
            return
        tail = parts[2:]
        if tail[0] == "api" and len(tail) == 2:
            document = discovery.openapi_gv("", tail[1], cluster.spec.version)
        elif tail[0] == "apis" and len(tail) == 3:
            document = discovery.openapi_gv(tail[1], tail[2], cluster.spec.version)
        else:
            document = None
        if document is None:
            raise errors.path_not_found()
        self._json(200, document)

    def _resource(
        self,
        cluster: Cluster,
        group: str,
        version: str,
        rest: list[str],
        query: api.Query,
        raw: bytes,
        accept: str,
    ) -> None:
        method = self.command
        watch = False
        if rest[0] == "watch":
            watch, rest = True, rest[1:]
            if not rest:
                raise errors.path_not_found()
        namespace: str | None = None
        if rest[0] == "namespaces" and len(rest) >= 3:
            candidate = find(group, version, rest[2], cluster.spec.minor)
            if candidate is not None and candidate.namespaced:
                namespace, rest = rest[1], rest[2:]
        resource = find(group, version, rest[0], cluster.spec.minor)
        if resource is None or len(rest) > 3:
            raise errors.path_not_found()
        name = rest[1] if len(rest) > 1 else None
        sub = rest[2] if len(rest) > 2 else ""
        if (resource.namespaced and name is not None and namespace is None) or (
            not resource.namespaced and namespace is not None
        ):
            raise errors.path_not_found()
        if sub and sub not in resource.subresources:
            raise errors.path_not_found()
        if query.get("watch") in ("true", "1"):
            watch = True
        ns = namespace or ""
        if method in ("GET", "HEAD"):
            self._read(cluster, resource, namespace, name, sub, watch, query, accept)
            return
        if watch:
            raise errors.method_not_allowed(method)
        needed = {
            "POST": "create",
            "PUT": "update",
            "PATCH": "patch",
            "DELETE": "delete" if name else "deletecollection",
        }[method]
        if needed not in resource.verbs or (sub == "log"):
            raise errors.method_not_allowed(method)
        content_type = self.headers.get("Content-Type") or "application/json"
        if method == "POST" and sub == "eviction":
            self._json(201, api.evict(cluster, ns, name or "", api.options_body(raw, content_type), query))
            return
        if sub == "eviction":
            raise errors.method_not_allowed(method)
        if method == "POST":
            if name is not None:
                raise errors.method_not_allowed(method)
            if resource.namespaced and namespace is None:
                raise errors.path_not_found()
            self._stored(201, api.create(cluster, resource, ns, api.parse_body(raw, content_type), query))
        elif method == "PUT":
            if name is None:
                raise errors.method_not_allowed(method)
            self._stored(
                200,
                api.replace(cluster, resource, ns, name, sub, api.parse_body(raw, content_type), query),
                sub,
            )
        elif method == "PATCH":
            if name is None:
                raise errors.method_not_allowed(method)
            code, obj = api.patch(
                cluster, resource, ns, name, sub, raw, self.headers.get("Content-Type") or "", query
            )
            self._stored(code, obj, sub)
        elif name is None:
            self._json(
                200,
                api.delete_collection(
                    cluster, resource, namespace, api.options_body(raw, content_type), query
                ),
            )
        else:
            self._json(
                200, api.delete(cluster, resource, ns, name, api.options_body(raw, content_type), query)
            )

    def _read(
        self,
        cluster: Cluster,
        resource: Resource,
        namespace: str | None,
        name: str | None,
        sub: str,
        watch: bool,
        query: api.Query,
        accept: str,
    ) -> None:
        ns = namespace or ""
        if watch:
            if "watch" not in resource.verbs or sub:
                raise errors.method_not_allowed("GET")
            self._watch(cluster, resource, namespace, name, query, accept)
            return
        as_table = (
            tables.wants_table(accept)
            and not sub
            and resource not in (NODE_METRICS, POD_METRICS, *SERVICE_CIDRS)
        )
        include = query.get("includeObject") or "Metadata"
        if name is None:
            items, list_meta = api.list_objects(cluster, resource, namespace, query)
            if as_table:
                self._json(200, tables.table(resource, items, list_meta, include=include))
                return
            body = encoding.encode_list(f"{resource.kind}List", resource.api_version, list_meta, items)
            self._send(200, body)
            return
        if sub == "eviction":
            raise errors.method_not_allowed("GET")
        if sub == "log":
            self._pod_log(cluster, ns, name or "", query)
            return
        obj = api.get(cluster, resource, ns, name)
        if sub == "scale":
            obj = api.scale_of(resource, obj)
        if as_table:
            self._json(
                200,
                tables.table(
                    resource,
                    [obj],
                    {"resourceVersion": obj["metadata"].get("resourceVersion", "")},
                    include=include,
                ),
            )
            return
        self._stored(200, obj, sub)

    # ------------------------------------------------------------ logs

    def _pod_log(self, cluster: Cluster, namespace: str, name: str, query: api.Query) -> None:
        """A container's log, whole or followed: with follow the response stays open and sends each
        new line as the kubelet writes it, until the run ends, the pod goes or the client leaves."""
        with cluster.store.lock:
            pod = api.get(cluster, POD, namespace, name)
        chosen = pod_logs.options(query, pod)
        run = pod_logs.find_run(cluster.logs, pod, chosen)
        if run is None:
            self._send(200, b"", "text/plain")
            return
        changed = cluster.logs.changed
        with changed:
            lines, position = run.since(0)
            done = run.finished or run.gone
        chunks, remaining = pod_logs.limited(pod_logs.render(lines, chosen), chosen.limit_bytes)
        if not chosen.follow:
            self._send(200, b"".join(chunks), "text/plain")
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache, private")
        self.end_headers()
        newer = replace(chosen, tail_lines=None)
        stopping = self.server.simulator.stopping
        try:
            while True:
                body = b"".join(chunks)
                if body:
                    self.wfile.write(f"{len(body):x}\r\n".encode() + body + b"\r\n")
                    self.wfile.flush()
                if done or remaining == 0 or stopping.is_set() or self._client_gone():
                    return
                with changed:
                    if run.dropped + len(run.lines) == position and not (run.finished or run.gone):
                        changed.wait(0.5)
                    lines, position = run.since(position)
                    done = (run.finished or run.gone) and run.dropped + len(run.lines) == position
                chunks, remaining = pod_logs.limited(pod_logs.render(lines, newer), remaining)
        finally:
            try:
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except OSError:
                self.close_connection = True

    # ------------------------------------------------------------ watch

    def _watch(
        self,
        cluster: Cluster,
        resource: Resource,
        namespace: str | None,
        name: str | None,
        query: api.Query,
        accept: str,
    ) -> None:
        matches = api.matcher(query, namespace)
        if name is not None:
            base = matches
            matches = lambda obj: base(obj) and obj["metadata"]["name"] == name  # noqa: E731
        try:
            timeout = float(query.get("timeoutSeconds") or DEFAULT_WATCH_SECONDS)
        except ValueError:
            raise errors.bad_request("timeoutSeconds must be a number") from None
        start = query.get("resourceVersion")
        if start not in ("", "0") and not start.isdigit():
            raise errors.bad_request(f"invalid resourceVersion {start!r}")
        as_table = tables.wants_table(accept)
        include = query.get("includeObject") or "Metadata"
        bookmarks = query.get("allowWatchBookmarks") in ("true", "1")
        store = cluster.store
        initial: list[dict[str, Any]] = []
        expired = False
        initial_events = query.get("sendInitialEvents") == "true"
        with store.lock:
            if start in ("", "0") or initial_events:
                initial = [o for o in store.list(resource, namespace) if matches(o)]
                last = store.rv
            else:
                last = int(start)
                expired = store.changes_since(last, resource) is None
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache, private")
        self.end_headers()
        first = [True]

        def chunk(kind: str, obj: dict[str, Any]) -> bytes:
            """One event as a chunk of the response; the object's JSON comes from the shared cache,
            so a change sent to many watches is encoded once."""
            if as_table and kind in ("ADDED", "MODIFIED", "DELETED"):
                obj = tables.table(
                    resource,
                    [obj],
                    {"resourceVersion": obj["metadata"].get("resourceVersion", "")},
                    include=include,
                    with_columns=first[0],
                )
                first[0] = False
            if as_table or kind not in ("ADDED", "MODIFIED", "DELETED"):
                data = json.dumps({"type": kind, "object": obj}, separators=(",", ":")).encode() + b"\n"
            else:
                data = encoding.encode_event(kind, obj) + b"\n"
            return b"%x\r\n%b\r\n" % (len(data), data)

        def emit(*events: tuple[str, dict[str, Any]]) -> None:
            """Send events in one write: what a wake-up found, or a batch of the initial objects."""
            if events:
                self.wfile.write(b"".join(chunk(kind, obj) for kind, obj in events))
                self.wfile.flush()

        try:
            if expired:
                emit(
                    (
                        "ERROR",
                        errors.gone(
                            f"too old resource version: {start} ({store.compacted_for(resource) + 1})"
                        ).status(),
                    )
                )
                return
            for begin in range(0, len(initial), INITIAL_BATCH):
                emit(*(("ADDED", obj) for obj in initial[begin : begin + INITIAL_BATCH]))
            if initial_events and bookmarks:
                # The watch-list protocol: a bookmark marks the end of the initial state.
                end = {"resourceVersion": str(last), "annotations": {"k8s.io/initial-events-end": "true"}}
                emit(
                    ("BOOKMARK", {"kind": resource.kind, "apiVersion": resource.api_version, "metadata": end})
                )
            self._stream(cluster, resource, matches, last, timeout, bookmarks, emit)
        finally:
            try:
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except OSError:
                self.close_connection = True

    def _stream(
        self,
        cluster: Cluster,
        resource: Resource,
        matches: Any,
        last: int,
        timeout: float,
        bookmarks: bool,
        emit: Any,
    ) -> None:
        store = cluster.store
        changed = store.changed_for(resource)
        stopping = self.server.simulator.stopping
        deadline = time.monotonic() + timeout
        last_sent = time.monotonic()
        while not stopping.is_set() and not store.closed:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            # A quiet watch sleeps until its next bookmark is due (writes, faults and the simulator
            # stopping wake it at once): a fleet's thousands of idle watches cost next to nothing.
            quiet = BOOKMARK_EVERY - (time.monotonic() - last_sent) if bookmarks else IDLE_CHECK
            with changed:
                if store.latest_rv(resource) <= last:
                    changed.wait(min(remaining, max(quiet, 0.0)))
                changes = store.changes_since(last, resource)
                current = store.rv
            if cluster.fault.mode == "errors":
                return
            if cluster.fault.mode == "down":
                self._hang(cluster)
                self.close_connection = True
                return
            if cluster.fault.mode == "refuse":
                self.close_connection = True
                return
            if changes is None:
                emit(
                    (
                        "ERROR",
                        errors.gone(
                            f"too old resource version: {last} ({store.compacted_for(resource) + 1})"
                        ).status(),
                    )
                )
                return
            events = [event for change in changes if (event := _event_for(change, resource, matches))]
            emit(*events)
            if events:
                last_sent = time.monotonic()
            last = current
            if bookmarks and time.monotonic() - last_sent >= BOOKMARK_EVERY:
                bookmark = {
                    "kind": resource.kind,
                    "apiVersion": resource.api_version,
                    "metadata": {"resourceVersion": str(last)},
                }
                emit(("BOOKMARK", bookmark))
                last_sent = time.monotonic()
            elif not events and self._client_gone():
                # A client that left is found by the next write's error; a quiet stream asks the socket.
                return

    def _client_gone(self) -> bool:
        try:
            readable = readable_within(self.connection, 0)
            if readable:
                if isinstance(self.connection, ssl.SSLSocket):
                    return False
                return not self.connection.recv(1, socket.MSG_PEEK)
        except (OSError, ValueError):
            return True
        return False


def readable_within(sock: Any, seconds: float) -> bool:
    """Whether `sock` has something to read (or was closed) within `seconds`: poll, not select, which
    refuses descriptors past 1,023 (a fleet's connections go far beyond)."""
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(seconds * 1000))


_SIMPLE_HEADER = re.compile(rb"[\041-\071\073-\176]+:[^\r\n]*\r?\n")


def _headers(lines: list[bytes]) -> http.client.HTTPMessage:
    """The header lines of a request (with their blank end line) as http.client would parse them:
    split here when each is one plain `Name: value` line, else by the email package."""
    block = lines[:-1] if lines and lines[-1] in (b"\r\n", b"\n", b"") else lines
    if not all(_SIMPLE_HEADER.fullmatch(line) for line in block):
        parsed = email.parser.Parser(_class=http.client.HTTPMessage).parsestr(
            b"".join(lines).decode("iso-8859-1")
        )
        return parsed  # type: ignore[return-value]
    message = http.client.HTTPMessage()
    for line in block:
        name, _, value = line.decode("iso-8859-1").partition(":")
        message.set_raw(name, value.lstrip(" \t").rstrip("\r\n"))
    return message


def _event_for(change: Change, resource: Resource, matches: Any) -> tuple[str, dict[str, Any]] | None:
    """A watch event for ``change``, turning selector exits into DELETED and entries into ADDED."""
    if change.resource is not resource:
        return None
    now = matches(change.obj)
    before = change.old is not None and matches(change.old)
    if change.type == "DELETED":
        return ("DELETED", change.obj) if before else None
    if change.type == "ADDED":
        return ("ADDED", change.obj) if now else None
    if now and before:
        return "MODIFIED", change.obj
    if now:
        return "ADDED", change.obj
    if before:
        return "DELETED", change.obj
    return None
