"""The list-then-watch loop of one (cluster, kind): resync, 410 Gone and back-off, run as steps on a shared
mux (its streams on one selector thread, its lists on a few threads), not on a thread of its own; what it
lists and what an event or a failure means are its subclass's."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable

from clusters.k8s.connection import ClusterConnection
from clusters.k8s.errors import KubeError
from clusters.k8s.watch import Expired, WatchEvent
from clusters.k8s.watch_streams import Mux, Stream, open_watch, shared_mux

BACKOFF_FIRST, BACKOFF_MAX = 0.5, 30.0
# The first resync comes at a random point of the period after the first listing (at least this share
# of it), the later ones a period apart: a fleet's watches, started together, list spread over the whole
# period instead of together every period (100 clusters re-listing 200,000 objects within a few seconds
# kept the members too busy to answer their health probes).
FIRST_RESYNC_AT_LEAST = 0.1
OVERDUE = 30.0  # seconds past its timeoutSeconds a server may take to end a watch before it is dropped


class ListWatch:
    """List, then watch from the list's resourceVersion; 410 Gone lists again; a failure (`retried`) is
    retried with back-off from the last resourceVersion; a fresh listing every `resync` seconds (the first
    sooner, at a random point of the period: a fleet's listings spread out).

    Each turn (a listing if due, then opening the watch) runs on one of the mux's few opener threads;
    the open watch is read by the mux's selector thread, which hands each event to `_event`."""

    retried: tuple[type[BaseException], ...] = (KubeError,)

    def __init__(
        self,
        name: str,
        conn: ClusterConnection,
        api_version: str,
        kind: str,
        resync: float,
        watch_seconds: int,
        label_selector: str = "",
        mux: Mux | None = None,
    ) -> None:
        self.name = name
        self.conn, self.api_version, self.kind_name, self.label_selector = (
            conn,
            api_version,
            kind,
            label_selector,
        )
        self.resync = resync
        self.watch_seconds = watch_seconds
        self.stopping = threading.Event()
        self.mux = mux or shared_mux()
        self.version, self.listed_at, self.backoff = "", 0.0, BACKOFF_FIRST
        self.relist_at = 0.0  # when the next listing is due (monotonic seconds)
        self.listings = 0
        self.watching = False  # a stream of it is on the mux
        # whether its receiver takes more events now (None: always): the mux leaves the stream unread
        # while it does not, so `_event` need not wait
        self.room: Callable[[], bool] | None = None

    def start(self) -> None:
        self.mux.submit(self._turn)

    def stop(self) -> None:
        """No further turn; an open stream ends at the mux's next look."""
        self.stopping.set()

    def relist_soon(self) -> None:
        """What this watch reported was lost on its way (a database error dropped the batch, an event was
        held past its bound): list again at the next turn; an open stream ends at its next event or look."""
        self.relist_at = min(self.relist_at, time.monotonic())

    def _due(self) -> bool:
        return time.monotonic() >= self.relist_at

    def _listed(self, version: str) -> None:
        """A listing ended with `version`: the next is due a period on (the first one's sooner)."""
        self.version, self.listed_at = version, time.monotonic()
        share = 1.0 if self.listings else random.uniform(FIRST_RESYNC_AT_LEAST, 1.0)
        self.relist_at = self.listed_at + self.resync * share
        self.listings += 1

    def _turn(self) -> None:
        """List if there is no version or the resync is due, then open the watch and hand it to the mux."""
        if self.stopping.is_set():
            return
        try:
            if not self.version or self._due():
                self._listed(self._list())
            left = self.relist_at - time.monotonic()
            # until the resync (one postponed by a subclass's _due: the whole period; the next look at
            # the stream ends it once the resync is due)
            seconds = max(1, min(self.watch_seconds, int(left) + 1)) if left > 0 else self.watch_seconds
            opened = open_watch(
                self.conn, self.api_version, self.kind_name, self.version, self.label_selector, seconds
            )
        except BaseException as exc:  # sorted out by _ended: retried, listed again or raised
            self._ended(exc)
            return
        self.watching = True
        self.mux.add(
            Stream(
                opened,
                self.api_version,
                self.kind_name,
                self._on_event,
                self._ended,
                time.monotonic() + seconds + OVERDUE,
                room=self.room,
            )
        )

    def _on_event(self, event: WatchEvent) -> bool:
        """One event, in the mux's thread; False ends the stream (stopped, or the resync is due)."""
        if event.type != "LOOK":
            self.version = event.resource_version or self.version
            if event.type == "BOOKMARK":
                self._bookmark()
            else:
                self._event(event)
        return not self.stopping.is_set() and not self._due()

    def _ended(self, exc: BaseException | None) -> None:
        """The watch ended (None: by the server, or because the resync is due or it stopped), or the turn
        failed: the next turn, at once or after a back-off."""
        self.watching = False
        if self.stopping.is_set():
            return
        if exc is None:
            self._closed()
            self.backoff = BACKOFF_FIRST
            self.mux.submit(self._turn)
        elif isinstance(exc, Expired):
            self._expired()
            self.version = ""  # too old: the next turn lists again
            self.mux.submit(self._turn)
        elif isinstance(exc, self.retried):
            self.version = self._failed(exc, self.backoff, self.version)
            self.mux.later(self.backoff * random.uniform(0.8, 1.2), self._turn)
            self.backoff = min(self.backoff * 2, BACKOFF_MAX)
        else:
            raise exc

    def _list(self) -> str:
        """List what is watched; the listing's resourceVersion."""
        raise NotImplementedError

    def _event(self, event: WatchEvent) -> None:
        """An ADDED, MODIFIED or DELETED event (in the mux's thread: hand it on, do not wait long)."""
        raise NotImplementedError

    def _bookmark(self) -> None:
        """A bookmark moved the watch on."""

    def _closed(self) -> None:
        """The server ended the watch (or it was ended for the resync): it is there."""

    def _expired(self) -> None:
        """The watch's resourceVersion is too old (410 Gone)."""

    def _failed(self, exc: BaseException, backoff: float, version: str) -> str:
        """A failure to be retried in `backoff` seconds; the version to resume from ("" lists again)."""
        return version
