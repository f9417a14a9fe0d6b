"""Threads for membersim's connection handlers, kept for the next connection once a handler ends.

A parked keep-alive connection whose next request arrives is handed to a handler thread; starting a new
thread for it costs more CPU than answering a small request (about 0.1 ms on an idle core, more on a
busy one), and while a fleet is seeded nearly every request to a member arrives on a parked connection.
So a thread whose handler has ended waits, for ``linger`` seconds, for the next one instead of ending;
at most ``keep`` wait at once, and beyond them a thread ends as before.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable

KEEP = 256  # idle threads kept at most
LINGER = 30.0  # seconds an idle thread waits for a handler before it ends

Job = Callable[[], None]
Idle = tuple["queue.SimpleQueue[Job | None]", threading.Thread]


class HandlerThreads:
    """``run(job)`` runs the job on an idle kept thread, or on a new one when none is idle."""

    def __init__(self, keep: int = KEEP, linger: float = LINGER, name: str = "membersim-handler") -> None:
        self.keep = keep
        self.linger = linger
        self.name = name
        self._lock = threading.Lock()
        self._idle: list[Idle] = []  # each idle thread and its inbox, the latest last
        self._closed = False
        self.started = 0  # threads started so far (a reused thread is not counted again)

    def run(self, job: Job) -> None:
        with self._lock:
            inbox = self._idle.pop()[0] if self._idle else None
            if inbox is None:
                self.started += 1
                number = self.started
        if inbox is not None:
            inbox.put(job)
            return
        thread = threading.Thread(
            target=self._serve, args=(queue.SimpleQueue(), job), name=f"{self.name}-{number}", daemon=True
        )
        thread.start()

    def idle(self) -> int:
        with self._lock:
            return len(self._idle)

    def close(self, wait: float = 1.0) -> None:
        """Idle threads end now (waited for, ``wait`` seconds at most in all); busy ones end with their
        handler."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for inbox, _ in idle:
            inbox.put(None)
        ends = time.monotonic() + wait
        for _, thread in idle:
            thread.join(max(0.0, ends - time.monotonic()))

    def _serve(self, inbox: queue.SimpleQueue[Job | None], job: Job | None) -> None:
        idle = (inbox, threading.current_thread())
        while job is not None:
            job()
            job = None  # what the handler held goes now, not when the next one comes
            with self._lock:
                if self._closed or len(self._idle) >= self.keep:
                    return
                self._idle.append(idle)
            try:
                job = inbox.get(timeout=self.linger)
            except queue.Empty:
                with self._lock:
                    try:
                        self._idle.remove(idle)  # (a queue and a thread equal only themselves)
                        return
                    except ValueError:
                        pass
                job = inbox.get()  # handed a job between the timeout and the lock: it is on its way
