"""Many clusters' watch streams read by one thread: each stream's socket on a selector, its events sent on."""

from __future__ import annotations

import heapq
import itertools
import logging
import queue
import selectors
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from clusters.k8s import wire
from clusters.k8s.client import api_client
from clusters.k8s.connection import ClusterConnection
from clusters.k8s.errors import KubeError, mapped_errors
from clusters.k8s.objects import object_path, resource_info
from clusters.k8s.watch import WATCH_READ_TIMEOUT, WatchEvent, error_of, open_stream, watch_query

log = logging.getLogger(__name__)

READ_SIZE = 65536
# Lists and watch openings run on this many threads, whatever the number of clusters: a fleet's
# first listings queue up instead of all arriving (and being decoded) at once, and a few clusters that
# hang (each call held until its timeout) still leave threads for the others.
OPENERS = 32
LOOK_EVERY = 1.0  # how often streams are looked at for a stop, an overdue end or a silence
RESUME_EVERY = 0.05  # how often paused streams' receivers are asked whether they have room again


class ChunkedLines:
    """The lines of a chunked (or, with chunked=False, a plain) HTTP body, fed in pieces as they arrive."""

    def __init__(self, chunked: bool = True) -> None:
        self.chunked = chunked
        self.ended = False
        self._raw = b""  # chunked framing not yet decoded
        self._left = 0  # bytes of the current chunk still to come
        self._line = b""

    def feed(self, data: bytes) -> list[bytes]:
        """The complete lines `data` finishes (non-empty ones); `ended` once the last chunk is seen."""
        body = data if not self.chunked else self._unchunk(data)
        self._line += body
        if b"\n" not in body:
            return []
        *lines, self._line = self._line.split(b"\n")
        return [line for line in lines if line.strip()]

    def rest(self) -> list[bytes]:
        """What is left when the body ends without a newline."""
        line, self._line = self._line, b""
        return [line] if line.strip() else []

    def _unchunk(self, data: bytes) -> bytes:
        self._raw += data
        out: list[bytes] = []
        while self._raw and not self.ended:
            if self._left:
                piece = self._raw[: self._left]
                out.append(piece)
                self._left -= len(piece)
                self._raw = self._raw[len(piece) :]
                continue
            end = self._raw.find(b"\r\n")
            if end < 0:
                break
            header, rest = self._raw[:end], self._raw[end + 2 :]
            if not header:  # the CRLF after a chunk's data
                self._raw = rest
                continue
            size = int(header.split(b";", 1)[0].strip() or b"0", 16)
            self._raw = rest
            if size == 0:
                self.ended = True
            self._left = size
        return b"".join(out)


class Opened:
    """A watch whose response headers have arrived: its socket, and the bytes already read past them."""

    def __init__(self, response: Any, server: str) -> None:
        self.response = response  # the urllib3 response, body not read
        self.server = server
        reply = response._fp  # http.client's response: headers parsed, body untouched
        self.sock = response.connection.sock
        self.lines = ChunkedLines(chunked=bool(reply.chunked))
        self.sock.setblocking(False)
        # what arrived with the headers sits in http.client's buffer, not in the socket: take it now
        # (nothing buffered reads the socket, which has nothing yet: not a failure, TLS or not)
        try:
            self._early: bytes = reply.fp.read1(READ_SIZE) or b""
        except (BlockingIOError, ssl.SSLWantReadError):
            self._early = b""

    def read(self) -> tuple[list[bytes], bool]:
        """The lines that have arrived, and whether the body has ended (the server closed the watch)."""
        lines: list[bytes] = []
        if self._early:
            data, self._early = self._early, b""
            lines += self.lines.feed(data)
        while not self.lines.ended:
            try:
                data = self.sock.recv(READ_SIZE)
            except (BlockingIOError, ssl.SSLWantReadError):
                return lines, False
            except (ssl.SSLZeroReturnError, ssl.SSLEOFError):
                data = b""
            if not data:
                return [*lines, *self.lines.rest()], True
            lines += self.lines.feed(data)
        return [*lines, *self.lines.rest()], True

    def close(self) -> None:
        """Drop the connection (its socket was read past http.client: it cannot go back to the pool)."""
        try:
            self.response.close()
        finally:
            self.response.release_conn()


def open_watch(
    conn: ClusterConnection,
    api_version: str,
    kind: str,
    resource_version: str,
    label_selector: str = "",
    timeout_seconds: int = 300,
) -> Opened:
    """Ask for a watch of `kind` after `resource_version` and wait for its headers (not its events);
    a KubeError when it cannot be opened."""
    info = resource_info(conn, api_version, kind)
    query = watch_query(resource_version, label_selector, timeout_seconds)
    # The cluster's usual client: its read timeout bounds only the wait for the headers (the mux reads
    # the body and judges silences itself), and the watch takes the connection its list just left, so a
    # cluster's watches hold one connection each rather than one each and an idle one beside.
    with mapped_errors(conn.server):
        response = open_stream(api_client(conn), object_path(info), query)
        return Opened(response.response, conn.server)


@dataclass(eq=False)
class Stream:
    """One open watch on the mux and whom it reports to."""

    opened: Opened
    api_version: str
    kind: str
    # each event; False ends the stream (a stop, or the resync is due)
    on_event: Callable[[WatchEvent], bool]
    # the end, in the mux's thread (only to schedule what comes next): None when the server ended it
    on_end: Callable[[BaseException | None], None]
    overdue_at: float  # the server should have ended it by then
    heard_at: float = field(default_factory=time.monotonic)
    # whether the receiver takes more events now (None: always). While it does not, the stream is left
    # unread: what its server sends waits in the connection (TCP's own back-pressure), the mux's thread
    # goes on reading the others, and the time paused counts neither as a silence nor toward the end.
    room: Callable[[], bool] | None = None


class Mux:
    """One selector thread for every open watch, a few threads for lists and openings, and timers."""

    def __init__(self, openers: int = OPENERS, name: str = "watch") -> None:
        self._selector = selectors.DefaultSelector()
        self._lock = threading.Lock()
        self._adds: list[Stream] = []
        self._paused: dict[Stream, float] = {}  # streams left unread for want of room -> since when
        self._timers: list[tuple[float, int, Callable[[], None]]] = []
        self._order = itertools.count()
        # daemon threads, not an executor: a process that exits must not wait for a list that hangs
        self._work: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        for index in range(openers):
            threading.Thread(target=self._open_loop, name=f"{name}-open-{index}", daemon=True).start()
        self._wake_r, self._wake_w = _pipe()
        self._selector.register(self._wake_r, selectors.EVENT_READ, None)
        self._thread = threading.Thread(target=self._loop, name=f"{name}-mux", daemon=True)
        self._thread.start()

    def submit(self, work: Callable[[], None]) -> None:
        """Run `work` on an opener thread (lists and openings: at most OPENERS at once)."""
        self._work.put(work)

    def _open_loop(self) -> None:
        while True:
            _logged(self._work.get())

    def later(self, delay: float, work: Callable[[], None]) -> None:
        """Submit `work` after `delay` seconds."""
        with self._lock:
            heapq.heappush(self._timers, (time.monotonic() + delay, next(self._order), work))
        self._wake()

    def add(self, stream: Stream) -> None:
        """Read `stream` from now on (its lines already buffered, too)."""
        with self._lock:
            self._adds.append(stream)
        self._wake()

    def streams(self) -> int:
        return len(self._selector.get_map()) - 1 + len(self._paused)

    def paused(self) -> int:
        """Streams left unread while their receivers have no room."""
        return len(self._paused)

    def _wake(self) -> None:
        try:
            self._wake_w.send(b"x")
        except (BlockingIOError, OSError):
            pass  # already woken (the pipe is full) or shutting down

    def _loop(self) -> None:
        looked = time.monotonic()
        while True:
            timeout = LOOK_EVERY
            if self._paused:
                timeout = RESUME_EVERY
            with self._lock:
                adds, self._adds = self._adds, []
                if self._timers:
                    timeout = max(0.0, min(timeout, self._timers[0][0] - time.monotonic()))
            for stream in adds:
                self._selector.register(stream.opened.sock, selectors.EVENT_READ, stream)
                self._read(stream)  # what came with the headers is in the reader already
            for key, _ in self._selector.select(timeout):
                if key.data is None:
                    _drain(self._wake_r)
                else:
                    self._read(key.data)
            now = time.monotonic()
            self._resume(now)
            self._run_timers(now)
            if now - looked >= LOOK_EVERY:
                looked = now
                self._look(now)

    def _run_timers(self, now: float) -> None:
        due: list[Callable[[], None]] = []
        with self._lock:
            while self._timers and self._timers[0][0] <= now:
                due.append(heapq.heappop(self._timers)[2])
        for work in due:
            self.submit(work)

    def _pause(self, stream: Stream) -> None:
        self._selector.unregister(stream.opened.sock)
        self._paused[stream] = time.monotonic()

    def _resume(self, now: float) -> None:
        """Read again the paused streams whose receivers have room, those paused longest first."""
        for stream, since in list(self._paused.items()):
            if stream not in self._paused:
                continue  # ended meanwhile
            if stream.room is not None and not stream.room():
                return  # no room: the ones paused later wait behind this one
            del self._paused[stream]
            stream.heard_at += now - since
            stream.overdue_at += now - since
            self._selector.register(stream.opened.sock, selectors.EVENT_READ, stream)
            self._read(stream)

    def _read(self, stream: Stream) -> None:
        if stream.room is not None and not stream.room():
            self._pause(stream)
            return
        try:
            lines, ended = stream.opened.read()
            if lines:
                stream.heard_at = time.monotonic()
            for line in lines:
                if not stream.on_event(self._event(stream, line)):
                    self._end(stream, None)
                    return
            if ended:
                self._end(stream, None)
        except Exception as exc:  # the stream broke, or its reader failed: either way it ends
            self._end(stream, exc)

    @staticmethod
    def _event(stream: Stream, line: bytes) -> WatchEvent:
        event = wire.loads(line)
        if event.get("type") == "ERROR":
            raise error_of(event.get("object") or {}, stream.opened.server)
        obj = event.get("object") or {}
        obj.setdefault("apiVersion", stream.api_version)
        obj.setdefault("kind", stream.kind)
        return WatchEvent(str(event.get("type")), obj)

    def _look(self, now: float) -> None:
        """Streams whose reflector stopped, whose server is silent too long or overdue to end them."""
        for stream in list(self._paused):
            if not stream.on_event(WatchEvent("LOOK", {})):
                self._end(stream, None)
        for key in list(self._selector.get_map().values()):
            stream = key.data
            if stream is None:
                continue
            if not stream.on_event(WatchEvent("LOOK", {})):
                self._end(stream, None)
            elif now - stream.heard_at > WATCH_READ_TIMEOUT or now > stream.overdue_at:
                silent = now - stream.heard_at
                self._end(stream, KubeError(f"The watch of {stream.kind} went silent for {silent:.0f} s"))

    def _end(self, stream: Stream, exc: BaseException | None) -> None:
        if self._paused.pop(stream, None) is None:
            try:
                self._selector.unregister(stream.opened.sock)
            except (KeyError, ValueError):
                pass
        try:
            stream.opened.close()
        except Exception as error:  # a connection that will not close is dropped all the same
            log.debug("watch of %s: closing: %s", stream.kind, error)
        try:
            stream.on_end(exc)
        except Exception:
            log.exception("watch of %s: ending failed", stream.kind)


def _logged(work: Callable[[], None]) -> None:
    try:
        work()
    except Exception:
        log.exception("watch: %s failed", getattr(work, "__qualname__", work))


def _pipe() -> tuple[Any, Any]:
    import socket

    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)
    return reader, writer


def _drain(sock: Any) -> None:
    try:
        while sock.recv(4096):
            pass
    except (BlockingIOError, OSError):
        pass


_shared: dict[str, Mux] = {}
_shared_lock = threading.Lock()


def shared_mux(name: str = "watch", openers: int = OPENERS) -> Mux:
    """This process's mux of that name, started on first use. A mux's thread hands each event on in
    turn, so one slow receiver slows every stream of its mux (a full backlog pauses only its own
    streams, but the member watcher's events are many): streams that must keep flowing regardless (the
    inventories the health collection trusts) are read by a mux of their own."""
    with _shared_lock:
        if name not in _shared:
            _shared[name] = Mux(openers, name)
        return _shared[name]
