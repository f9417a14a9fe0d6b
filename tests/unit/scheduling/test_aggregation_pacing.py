"""The watcher's aggregation pacing: at once when quiet, once a period when busy, a share while trailing."""

from __future__ import annotations

import pytest

from scheduling.controllers.aggregation_pacing import AggregationPacer


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def pacer_with(
    clock: Clock, chunk: int = 100, fails: bool = False, takes: float = 0.0
) -> tuple[AggregationPacer, list[list[int]]]:
    calls: list[list[int]] = []

    def aggregate(ids: list[int]) -> None:
        if fails:
            raise RuntimeError("database gone")
        calls.append(list(ids))
        clock.now += takes

    return AggregationPacer(aggregate, every=1.0, chunk=chunk, clock=clock), calls


def test_a_quiet_binding_is_aggregated_at_once(clock):
    pacer, calls = pacer_with(clock)
    assert pacer.due_in() is None and pacer.run() == []
    pacer.changed([7, 3])
    assert pacer.due_in() == 0.0
    assert pacer.run() == [3, 7]
    assert calls == [[3, 7]] and not pacer.pending


def test_a_busy_bindings_changes_within_the_period_make_one_aggregation_at_its_end(clock):
    pacer, calls = pacer_with(clock)
    pacer.changed([1])
    pacer.run()
    for _ in range(5):  # five more reports within the next second
        clock.now += 0.15
        pacer.changed([1])
        assert pacer.run() == []
    assert pacer.due_in() == pytest.approx(0.25)
    clock.now += 0.25
    assert pacer.run() == [1]
    assert calls == [[1], [1]]
    # a second later it is quiet again: the next report goes at once
    clock.now += 1.0
    pacer.changed([1])
    assert pacer.run() == [1]


def test_another_binding_is_not_held_by_a_busy_one(clock):
    pacer, _ = pacer_with(clock)
    pacer.changed([1])
    pacer.run()
    clock.now += 0.1
    pacer.changed([1, 2])
    assert pacer.run() == [2]
    assert pacer.pending.keys() == {1}


def test_budgets_aggregate_those_waiting_longest_first_and_an_overrun_is_paid_back(clock):
    pacer, calls = pacer_with(clock, chunk=2, takes=0.1)
    pacer.changed([5])
    clock.now += 0.1
    pacer.changed([9, 4, 3])
    clock.now += 0.1
    pacer.changed([1, 8])
    # 5 waited longest, then 3, 4 and 9 (by id): two chunks of 0.1 s spend a budget of 0.15
    assert pacer.run(budget=0.15) == [3, 5, 4, 9]
    assert calls == [[3, 5], [4, 9]] and pacer.pending.keys() == {1, 8}
    assert pacer.run(budget=0.04) == []  # 0.05 was overspent: this budget pays it back first
    assert pacer.run(budget=0.04) == [1, 8]  # now in credit again
    for _ in range(100):  # many small budgets: the chunks take what they add up to, no more
        pacer.changed([2, 6])
        clock.now += 1.0
        pacer.run(budget=0.02)
    assert 19 <= len(calls) - 3 <= 21
    pacer.changed([7])
    assert 7 in pacer.run() and not pacer.pending  # no budget: every one due, whatever was owed
    pacer.changed([10])
    assert pacer.run(budget=0.01) == [10]  # and the debt is forgotten


def test_a_failed_aggregation_leaves_its_bindings_pending(clock):
    pacer, _ = pacer_with(clock, fails=True)
    pacer.changed([2, 3])
    with pytest.raises(RuntimeError):
        pacer.run()
    assert pacer.pending.keys() == {2, 3}


def test_flush_aggregates_what_is_not_due_yet(clock):
    pacer, calls = pacer_with(clock)
    pacer.changed([1])
    pacer.run()
    pacer.changed([1, 2])
    pacer.run()
    assert pacer.flush() == [1]
    assert calls == [[1], [2], [1]] and not pacer.pending
