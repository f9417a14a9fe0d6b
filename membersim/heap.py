"""The cyclic garbage collector's share of a long-running process's heap, kept to the objects that are new.

A process that holds a large, long-lived state (membersim's fleet: 100 clusters x 1,000 Deployments,
their ReplicaSets, pods and Events, millions of container objects) pays for it in Python's collector: a
full collection scans every tracked object, and starts each time the objects that survived the younger
generations reach a quarter of those it scanned the time before, so while a fleet fills, every new object
is scanned about four times over and the cost of a create grows with the fleet. Stored objects are JSON
trees, freed by reference counting when a newer version replaces them; cycles are rare (request handlers,
exceptions). So the keeper collects what is new, then freezes it (moves it out of the collector's sight:
``gc.freeze``), twice a second: a full collection scans only what was made since the tick before. What
was frozen alive and became cyclic garbage later is found again by a collection of everything, once the
heap has grown ``growth``-fold since the last one; a quiet process freezes little and never has
one. That collection stops the process for as long as it scans (1-8 s for the two million objects a
membersim process held at 100 clusters x 1,000 Deployments on a busy 2-core machine: its clusters' probes
timed out and they were judged NotReady), so it is kept rare. The growth is read every ``count_every``
ticks as the memory blocks the process's allocator holds (``sys.getallocatedblocks``: a walk of its
arenas, 2 ms at eight million blocks), which the frozen objects and what they hold make up nearly all of
in a long-running process. The frozen heap's own count (``gc.get_freeze_count``) is a walk of a linked
list of every frozen object, cold in the cache and under the GIL: 0.2 s at two million objects on a
quiet machine, and half of a member process's time in a profile of a full-size seeding, each walk a
pause of every cluster it serves. Counting only what each tick freezes would take ``gc.get_objects``,
and the list it returns holds a reference to every object in it for a moment: a tuple another thread is
building from a generator then has two references and cannot grow (CPython raises SystemError: a member
watcher that ran a keeper died of it).

Only a process that owns its heap runs a keeper (``python -m membersim``): freezing is process-wide, and
an embedding process (a test suite) keeps its own collector's policy. The product's member watcher ran
one for a while and stopped: an object frozen while in use is not collected as cyclic garbage until the
frozen heap doubles, so whatever it holds stays held, and with it a demo's Works sometimes kept their
apply-time status (CHANGELOG).
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from collections.abc import Callable

# Blocks allocated since the last collection of everything before the next one, at least (a small
# fleet, the demo's three clusters, would otherwise have one every few ticks); a stored object's JSON
# tree holds about four blocks for each object the collector tracks.
MIN_REBUILD = 2_000_000
# The heap's growth since the last collection of everything that starts another. Every such collection
# in the bench runs of 2026-12-07 found nothing unreachable (0 objects, 0.8-1.3 s each), and the slowest
# new-workload samples of that day's full-size run coincided with one: with 32, a process grows from its
# first one (at MIN_REBUILD blocks) to 64 million blocks (some 16 million objects) before the next,
# beyond a full-size fleet's 2-4 million objects.
GROWTH = 32.0
COUNT_EVERY = 20  # ticks between two counts of the heap's blocks


class HeapKeeper:
    """Call ``tick()`` periodically (membersim's main loop does, twice a second)."""

    def __init__(
        self,
        min_rebuild: int = MIN_REBUILD,
        growth: float = GROWTH,
        report: Callable[[str], None] | None = None,
        count_every: int = COUNT_EVERY,
    ) -> None:
        self.min_rebuild = min_rebuild
        self.growth = growth
        # called with each collection of everything's line (the process pauses while it runs; a request
        # slow for no other reason can be matched against these)
        self.report = report
        self.count_every = count_every
        self._lock = threading.Lock()
        self.baseline = 0  # blocks allocated right after the last collection of everything
        self.ticks = 0
        self.rebuilds = 0

    def tick(self) -> None:
        """Collect the objects made since the last tick, then freeze the survivors; collect everything
        once the heap has grown ``growth`` times since that was last done (looked at every
        ``count_every`` ticks). A tick that finds next to nothing new does nothing and is not counted:
        an idle process's keeper costs nothing."""
        if not gc.isenabled():
            return  # someone turned the collector off: leave the heap as they want it
        with self._lock:
            young, middle, old = gc.get_count()
            if young < gc.get_threshold()[0] and not middle and not old:
                return  # fewer new objects than start the collector's youngest collection: an idle process
            self.ticks += 1
            if self.ticks % self.count_every == 0:
                threshold = max(self.min_rebuild, self.baseline * (self.growth - 1))
                if sys.getallocatedblocks() - self.baseline > threshold:
                    self._rebuild()
                    return
            gc.collect()  # everything older is frozen: this scans only what is new
            gc.freeze()

    def _rebuild(self) -> None:
        """Collect everything, frozen or not, and freeze what lives: the new baseline."""
        started, wall = time.monotonic(), time.time()
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        self.baseline = sys.getallocatedblocks()
        self.rebuilds += 1
        if self.report is not None:
            self.report(
                f"heap: collected everything at {wall:.1f} (unix time), "
                f"{self.baseline} blocks live, {found} objects unreachable, in "
                f"{time.monotonic() - started:.2f} s"
            )

    def release(self) -> None:
        """Give every frozen object back to the collector."""
        with self._lock:
            gc.unfreeze()
            self.baseline = 0
