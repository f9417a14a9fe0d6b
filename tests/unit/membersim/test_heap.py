"""membersim's heap keeper: new objects collected then frozen, cyclic garbage among frozen ones found again
once the heap's blocks double, nothing done while the collector is off, and a tick that finds next to
nothing new does nothing."""

from __future__ import annotations

import gc
import sys
import weakref

import pytest

from membersim.heap import HeapKeeper


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> weakref.ref:
    """A two-object cycle nothing else refers to, and a weak reference to see it go."""
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def made() -> list[Node]:
    """More new objects than start the collector's youngest collection: a tick acts on them."""
    return [Node() for _ in range(2 * gc.get_threshold()[0])]


@pytest.fixture
def keeper():
    keeper = HeapKeeper(min_rebuild=1, growth=2.0, count_every=1)
    gc.collect()
    try:
        yield keeper
    finally:
        keeper.release()
        gc.collect()


def test_a_tick_collects_what_is_new_and_freezes_what_lives(keeper):
    gone = cycle()
    alive = made()
    keeper.baseline = 10**9  # no collection of everything on this tick
    keeper.tick()
    assert gone() is None  # garbage made since the last tick is collected, not frozen
    frozen = gc.get_freeze_count()
    assert frozen >= len(alive)
    # Stored objects freed by reference counting leave the frozen heap at once.
    count = len(alive)
    del alive
    assert gc.get_freeze_count() <= frozen - count


def test_a_tick_that_finds_next_to_nothing_new_does_nothing(keeper):
    keeper.baseline = 10**9
    alive = made()
    keeper.tick()
    ticks, frozen = keeper.ticks, gc.get_freeze_count()
    few = [Node() for _ in range(10)]
    keeper.tick()  # an idle process's tick: no collection, nothing frozen, not counted
    assert keeper.ticks == ticks
    assert gc.get_freeze_count() <= frozen
    assert alive and few


def test_cyclic_garbage_among_frozen_objects_is_found_when_the_heap_doubles(keeper):
    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    keeper.baseline = 10**9
    alive = [made()]
    keeper.tick()  # the cycle is alive: frozen
    del a, b
    alive.append(made())
    keeper.tick()
    assert gone() is not None  # frozen: out of the collector's sight
    # the heap has more than doubled since the baseline (by a margin: objects other threads of the process
    # free meanwhile leave it)
    keeper.baseline = sys.getallocatedblocks() // 4
    alive.append(made())
    keeper.tick()
    assert gone() is None
    assert keeper.rebuilds == 1
    assert keeper.baseline > 0  # what the next doubling is counted from


def test_nothing_is_frozen_while_the_collector_is_off(keeper):
    gc.disable()
    try:
        keeper.tick()
        assert gc.get_freeze_count() == 0
    finally:
        gc.enable()


def test_each_collection_of_everything_is_reported_with_its_pause():
    lines: list[str] = []
    keeper = HeapKeeper(min_rebuild=1, growth=2.0, report=lines.append, count_every=1)
    gc.collect()
    try:
        keeper.baseline = 10**9
        alive = [made()]
        keeper.tick()  # far from doubled: what is new is collected and frozen, nothing reported
        assert not lines
        keeper.baseline = sys.getallocatedblocks() // 4
        alive.append(made())
        keeper.tick()  # the heap has grown past the threshold since the baseline
        assert keeper.rebuilds == 1
        assert len(lines) == 1 and "collected everything" in lines[0] and lines[0].endswith(" s")
        assert " unreachable, " in lines[0]
        keeper.tick()  # a tick with little new: no collection of everything, nothing reported
        assert len(lines) == 1
    finally:
        keeper.release()
        gc.collect()


def test_the_growth_is_looked_at_only_every_count_every_ticks():
    keeper = HeapKeeper(min_rebuild=1, growth=2.0, count_every=3)
    gc.collect()
    try:
        keeper.baseline = sys.getallocatedblocks() // 4  # grown past the threshold from the start
        alive = [made()]
        keeper.tick()
        alive.append(made())
        keeper.tick()  # the heap has grown past the threshold, but it is not counted on this tick
        assert keeper.rebuilds == 0
        alive.append(made())
        keeper.tick()
        assert keeper.rebuilds == 1
    finally:
        keeper.release()
        gc.collect()
