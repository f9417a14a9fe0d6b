"""A fleet's resyncs spread over the period: the first at a random point of it, the later a period apart."""

from __future__ import annotations

import random

import pytest

from clusters.k8s import reflector
from clusters.k8s.reflector import FIRST_RESYNC_AT_LEAST, ListWatch


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    now = Clock()
    monkeypatch.setattr(reflector.time, "monotonic", now)
    return now


def watch(resync: float = 300.0) -> ListWatch:
    return ListWatch("w", None, "apps/v1", "Deployment", resync, 60, mux=object())  # type: ignore[arg-type]


def test_first_resync_within_the_period_then_a_period_apart(clock):
    one = watch()
    assert one._due()  # nothing listed yet
    one._listed("10")
    first = one.relist_at - clock.now
    assert 300.0 * FIRST_RESYNC_AT_LEAST <= first <= 300.0
    clock.now += first - 0.001
    assert not one._due()
    clock.now += 0.002
    assert one._due()
    one._listed("20")
    assert one.relist_at - clock.now == pytest.approx(300.0)
    assert one.version == "20"


def test_watches_started_together_list_spread_over_the_period(clock):
    random.seed(7)
    fleet = [watch() for _ in range(200)]
    for one in fleet:
        one._listed("1")
    offsets = sorted(one.relist_at - clock.now for one in fleet)
    # ten windows of 30 s: each holds some of the 200 first resyncs, none holds most of them
    counts = [sum(1 for o in offsets if 30 * w <= o < 30 * (w + 1)) for w in range(10)]
    assert counts[0] < 20 and all(c < 40 for c in counts) and sum(counts[1:]) >= 180


def test_relist_soon_makes_the_next_listing_due_now_and_never_later(clock):
    w = watch()
    w._listed("1")
    assert not w._due()
    w.relist_soon()
    assert w._due()
    w._listed("2")  # the listing that followed: the period starts again
    clock.now += 299.0
    assert not w._due()
