"""Binding aggregations paced for the member watcher: each at most once a period, fewer while it trails."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable

from scheduling.controllers import propagation

# A binding is aggregated at most once per this many seconds. Aggregating reads every Work of the
# binding: a Duplicated workload over 100 clusters reports from each of them within a second or two, and
# aggregating it on each report read its 100 Works 100 times (the watcher's catch-up after a seeding
# recorded 15-75 Works/s, most of it there; bench/results.md).
AGGREGATE_EVERY = 1.0
# Bindings aggregated together (one read of their Works), those waiting longest first.
CHUNK = 25
# Seconds of budget a run of budgeted runs may save up for the ones after it.
MAX_CREDIT = 1.0


class AggregationPacer:
    """Bindings whose Works' status changed, aggregated when due: at once for a binding not aggregated
    within `every` seconds, else `every` seconds after its last aggregation; several changes meanwhile
    make one aggregation. A run may be given a time budget (the watcher trailing its members gives its
    aggregations as long as its events took): what it leaves waits on, and gathers more changes, as a
    work queue's keys do while its workers are busy."""

    def __init__(
        self,
        aggregate: Callable[[list[int]], None] = propagation.aggregate_bindings,
        every: float = AGGREGATE_EVERY,
        chunk: int = CHUNK,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.aggregate, self.every, self.chunk, self.clock = aggregate, every, chunk, clock
        self.pending: dict[int, float] = {}  # binding id -> since when it waits
        self._last: dict[int, float] = {}  # binding id -> when aggregated (the last `every` seconds only)
        self._credit = 0.0  # seconds of budget not yet spent (negative: overspent)

    def changed(self, binding_ids: Iterable[int]) -> None:
        now = self.clock()
        for binding_id in binding_ids:
            self.pending.setdefault(binding_id, now)

    def _due_at(self, binding_id: int, since: float) -> float:
        return max(since, self._last.get(binding_id, -math.inf) + self.every)

    def due_in(self) -> float | None:
        """Seconds until the next pending binding is due (0 when one is), None when none waits."""
        if not self.pending:
            return None
        soonest = min(self._due_at(binding_id, since) for binding_id, since in self.pending.items())
        return max(0.0, soonest - self.clock())

    def run(self, budget: float | None = None) -> list[int]:
        """Aggregate the bindings due, those waiting longest first, a chunk at a time; the ids aggregated.
        With a `budget` (seconds), chunks run while the credit it adds to lasts: what a chunk takes is
        taken off, a chunk that overran leaves the credit owing, so over many runs the aggregations
        take as long as the budgets given, however long one chunk takes. None: every one due, and the
        credit starts afresh. A chunk that fails (a database error) stays pending."""
        now = self.clock()
        self._last = {binding_id: at for binding_id, at in self._last.items() if now - at < self.every}
        if budget is None:
            self._credit = 0.0
        else:
            self._credit = min(self._credit + budget, MAX_CREDIT)
        due = [
            binding_id
            for since, binding_id in sorted(
                (since, binding_id)
                for binding_id, since in self.pending.items()
                if self._due_at(binding_id, since) <= now
            )
        ]
        done: list[int] = []
        for start in range(0, len(due), self.chunk):
            if budget is not None and self._credit <= 0:
                break
            ids = sorted(due[start : start + self.chunk])
            began = self.clock()
            try:
                self.aggregate(ids)
            finally:
                if budget is not None:
                    self._credit -= self.clock() - began
            for binding_id in ids:
                del self.pending[binding_id]
                self._last[binding_id] = now
            done += ids
        return done

    def flush(self) -> list[int]:
        """Aggregate every pending binding now, due or not (the watcher stopping)."""
        ids = sorted(self.pending)
        if ids:
            self.aggregate(ids)
            self.pending.clear()
        return ids
