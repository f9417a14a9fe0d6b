"""The watcher's backlog: bounded by the member objects it holds, a full one makes reflectors wait."""

from __future__ import annotations

import threading

from scheduling.member_watch import Backlog, Seen


def events(count: int) -> Seen:
    return Seen("c", "apps/v1", "Deployment", events=[("ADDED", {})] * count)


def test_a_put_past_the_bound_waits_until_the_loop_has_written_enough():
    backlog = Backlog(limit=10)
    first = events(8)
    backlog.put(first)
    put = threading.Event()
    waiting = threading.Thread(target=lambda: (backlog.put(events(5)), put.set()), daemon=True)
    waiting.start()
    assert not put.wait(0.2)  # 8 + 5 would pass 10
    backlog.done([backlog.get(timeout=1)])
    assert put.wait(2) and backlog.held == 5


def test_an_item_larger_than_the_bound_passes_alone_and_a_stopping_reflector_gives_up():
    backlog = Backlog(limit=10)
    backlog.put(Seen("c", "apps/v1", "Deployment", listing=[{}] * 50))  # an empty backlog takes it
    assert backlog.held == 50
    stopping = threading.Event()
    stopping.set()
    backlog.put(events(1), stopping)  # returns instead of waiting forever
    assert backlog.held == 50
