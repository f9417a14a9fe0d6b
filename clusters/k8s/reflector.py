"""The list-then-watch loop a reflector thread runs: resync, 410 Gone and back-off; what it lists, how it
watches and what a failure means are its subclass's."""

from __future__ import annotations

import random
import threading
import time

from clusters.k8s.errors import KubeError
from clusters.k8s.watch import Expired

BACKOFF_FIRST, BACKOFF_MAX = 0.5, 30.0
RESYNC_JITTER = 0.1  # resyncs spread by up to this share so that listings do not all arrive at once


class ListWatchThread(threading.Thread):
    """List, then watch from the list's resourceVersion; 410 Gone lists again; a failure (`retried`) is
    retried with back-off from the last resourceVersion; every `resync` seconds a fresh listing."""

    retried: tuple[type[BaseException], ...] = (KubeError,)

    def __init__(self, name: str, resync: float, watch_seconds: int) -> None:
        super().__init__(name=name, daemon=True)
        self.resync = resync * (1 - RESYNC_JITTER * random.random())
        self.watch_seconds = watch_seconds
        self.stopping = threading.Event()

    def stop(self) -> None:
        self.stopping.set()

    def run(self) -> None:
        version, listed_at, backoff = "", 0.0, BACKOFF_FIRST
        while not self.stopping.is_set():
            try:
                if not version or time.monotonic() - listed_at >= self.resync:
                    version, listed_at = self._list(), time.monotonic()
                version = self._watch(version, listed_at)
                backoff = BACKOFF_FIRST
            except Expired:
                self._expired()
                version = ""  # too old: the next turn lists again
            except self.retried as exc:
                version = self._failed(exc, backoff, version)
                if self.stopping.is_set():
                    break
                self.stopping.wait(backoff * random.uniform(0.8, 1.2))
                backoff = min(backoff * 2, BACKOFF_MAX)

    def _list(self) -> str:
        """List what is watched; the listing's resourceVersion."""
        raise NotImplementedError

    def _watch(self, version: str, listed_at: float) -> str:
        """Watch from `version` until the server ends the stream or the resync is due; the version reached."""
        raise NotImplementedError

    def _expired(self) -> None:
        """The watch's resourceVersion is too old (410 Gone)."""

    def _failed(self, exc: BaseException, backoff: float, version: str) -> str:
        """A failure to be retried in `backoff` seconds; the version to resume from ("" lists again)."""
        return version
