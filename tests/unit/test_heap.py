"""The heap keeper (membersim's and the member watcher's): new objects collected then frozen, cyclic
garbage among frozen ones found again once the frozen heap doubles, nothing done while the collector is
off, and a keeper started in the background ticks on its own."""

from __future__ import annotations

import gc
import threading
import time
import weakref

import pytest

from core.heap import HeapKeeper


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> weakref.ref:
    """A two-object cycle nothing else refers to, and a weak reference to see it go."""
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


@pytest.fixture
def keeper():
    keeper = HeapKeeper(min_rebuild=1, growth=2.0)
    gc.collect()
    try:
        yield keeper
    finally:
        keeper.release()
        gc.collect()


def test_a_tick_collects_what_is_new_and_freezes_what_lives(keeper):
    gone = cycle()
    alive = [Node() for _ in range(100)]
    keeper.baseline = 10**9  # no collection of everything on this tick
    keeper.tick()
    assert gone() is None  # garbage made since the last tick is collected, not frozen
    frozen = gc.get_freeze_count()
    assert frozen >= len(alive)
    # Stored objects freed by reference counting leave the frozen heap at once.
    del alive
    assert gc.get_freeze_count() <= frozen - 100


def test_cyclic_garbage_among_frozen_objects_is_found_when_the_frozen_heap_doubles(keeper):
    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    keeper.baseline = 10**9
    keeper.tick()  # the cycle is alive: frozen
    assert keeper.added >= 2
    del a, b
    keeper.tick()
    assert gone() is not None  # frozen: out of the collector's sight
    # the frozen heap has more than doubled since the baseline, as the ticks counted and as it is (by a
    # margin: objects other threads of the process free meanwhile leave the frozen heap)
    keeper.baseline = gc.get_freeze_count() // 4
    keeper.added = gc.get_freeze_count()
    keeper.tick()
    assert gone() is None
    assert keeper.rebuilds == 1
    assert keeper.baseline > 0 and keeper.added == 0  # what the next doubling is counted from


def test_nothing_is_frozen_while_the_collector_is_off(keeper):
    gc.disable()
    try:
        keeper.tick()
        assert gc.get_freeze_count() == 0
    finally:
        gc.enable()


def test_each_collection_of_everything_is_reported_with_its_pause():
    lines: list[str] = []
    keeper = HeapKeeper(min_rebuild=1, growth=2.0, report=lines.append)
    gc.collect()
    try:
        keeper.tick()  # everything alive frozen: the heap has grown from nothing past the threshold
        keeper.added = 10
        keeper.tick()
        assert keeper.rebuilds == 1
        assert len(lines) == 1 and "collected everything" in lines[0] and lines[0].endswith(" s")
        assert " unreachable, " in lines[0]
        keeper.tick()  # a tick with little new: no collection of everything, nothing reported
        assert len(lines) == 1
    finally:
        keeper.release()
        gc.collect()


def test_ticks_that_overcount_do_not_start_a_collection_of_everything(keeper):
    """The ticks count every object they freeze, also those freed since (a stored object replaced by a
    newer version): past the threshold the frozen heap is counted itself, and it has not grown."""
    keeper.baseline = 10**9
    keeper.tick()  # everything alive frozen
    keeper.baseline = gc.get_freeze_count()
    keeper.added = 10 * keeper.baseline  # as if the heap had grown tenfold
    keeper.tick()
    assert keeper.rebuilds == 0
    assert keeper.added < keeper.baseline  # the count starts again from what is truly frozen


def test_a_keeper_started_in_the_background_freezes_what_lives_on_its_own(keeper):
    keeper.baseline = 10**9  # no collection of everything
    alive = [Node() for _ in range(1000)]
    gone = cycle()
    stopping = threading.Event()
    thread = keeper.start(every=0.01, stopping=stopping)
    try:
        assert thread.daemon  # it never keeps the process from exiting
        deadline = time.monotonic() + 10
        while gc.get_freeze_count() < len(alive):
            assert time.monotonic() < deadline, "nothing was frozen in 10 s"
            time.sleep(0.01)
        assert gone() is None  # collected before the freeze, not frozen with the rest
    finally:
        stopping.set()
        thread.join(5)
    assert not thread.is_alive()
