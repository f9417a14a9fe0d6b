"""The member watcher: one list+watch per cluster and kind, events into Works, repairs onto the queue.

Reflectors (steps on a shared mux: every stream on one selector thread, lists on a few) only talk to
member clusters; one loop (the caller's thread) turns what they saw
into database writes in batches, so a watcher holds one database connection however many clusters
it watches. The same loop stores each cluster's nodes and pod requests, which its own list+watch
caches hold, for the health collection.
"""

from __future__ import annotations

import hashlib
import logging
import queue
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from django.db import DatabaseError, close_old_connections
from django.db.models import Max
from django.utils import timezone

from clusters.inventory_watch import WRITE_EVERY as INVENTORY_WRITE_EVERY
from clusters.inventory_watch import InventoryWatch
from clusters.k8s import ClusterConnection, KubeError
from clusters.k8s.reflector import ListWatch
from clusters.k8s.watch import WatchEvent, list_kind
from clusters.models import Cluster
from scheduling import tasks
from scheduling.controllers import member_state, rollouts
from scheduling.controllers.aggregation_pacing import AggregationPacer
from scheduling.karmada import names
from scheduling.models import Work

log = logging.getLogger(__name__)

SELECTOR = f"{names.MANAGED_LABEL}=true"
# An event of a copy whose Work is still being applied is held until the apply is recorded, looked at
# again this often, and for at most this long (after that the next event or listing brings its status).
HELD_CHECK, HELD_FOR = 0.05, 60.0
# Events come in bursts (an apply touches a copy in every cluster): what arrives this soon after the
# first goes in the same batch, one round of queries for all of them.
BATCH_WINDOW = 0.02
# At most this many member objects wait between the reflectors and the database loop (and one read's
# events a stream beyond it); a listing with more waits, a watch stream is left unread (its events wait
# in its connection): a loop that falls behind holds bounded memory, and its streams are not cut.
BACKLOG_OBJECTS = 10_000
# Listings at most that are asked for and wait for the backlog at once (the others wait before asking).
LISTINGS_AT_ONCE = 4
# the kinds the Works hold are read again at least this often (seconds), else only when Works were added;
# the full read scans every Work (2.4 s at 100,000 on a database busy with a seeding)
KINDS_AGAIN = 300.0
# Seconds between two listings of a healthy watch: the safety net for what a watch cannot miss and the
# watcher did not lose (a watch resumes from its resourceVersion or, on 410 Gone, lists again; a batch
# lost to a database error or an event held past HELD_FOR lists its clusters again at once). Each
# listing decodes every object of its kind, so the period sets a quiet fleet's cost: 100,000 copies and
# 100,000 pods listed every 5 minutes were most of the watcher's CPU (bench/results.md).
RESYNC = 900.0


@dataclass(frozen=True)
class Shard:
    """Which clusters this watcher takes: those whose name hashes to `index` of `count`."""

    index: int = 0
    count: int = 1

    @classmethod
    def parse(cls, text: str) -> Shard:
        """'i/n' with 0 <= i < n; ValueError with the reason otherwise."""
        try:
            index, count = (int(part) for part in text.split("/"))
        except ValueError:
            raise ValueError(f"--shard must be i/n, e.g. 0/2, not {text!r}") from None
        if count < 1 or not 0 <= index < count:
            raise ValueError(f"--shard {text}: need 0 <= i < n")
        return cls(index, count)

    def holds(self, cluster: str) -> bool:
        digest = hashlib.sha256(cluster.encode()).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index


@dataclass(frozen=True)
class Seen:
    """What a reflector hands the database loop: a full listing, or watch events."""

    cluster: str
    api_version: str
    kind: str
    listing: list[dict[str, Any]] | None = None
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    # when the listing was asked for: a Work applied after that is not judged by it
    listed_at: datetime | None = None

    @property
    def size(self) -> int:
        """How many member objects this holds (at least one)."""
        return max(1, len(self.listing) if self.listing is not None else len(self.events))


class Backlog:
    """The reflectors' hand-over to the database loop, bounded by the member objects it holds: a
    listing's `put` waits while the bound would be passed (one item larger than the bound passes alone);
    watch events are `add`ed without waiting, their streams left unread by the mux while `has_room` is
    false; `done` gives the room back once the loop has written an item."""

    def __init__(self, limit: int = BACKLOG_OBJECTS) -> None:
        self.limit, self.held = limit, 0
        self._items: queue.Queue[Seen] = queue.Queue()
        self._room = threading.Condition()
        self.listings = threading.BoundedSemaphore(LISTINGS_AT_ONCE)

    def has_room(self) -> bool:
        return self.held < self.limit

    def wait_for_room(self, stopping: threading.Event | None = None) -> None:
        """Until the backlog has room (or `stopping` is set)."""
        with self._room:
            while not self.has_room():
                if stopping is not None and stopping.is_set():
                    return
                self._room.wait(0.5)

    def add(self, seen: Seen) -> None:
        """Take `seen` without waiting: a watch stream's events, whose mux reads no more of the stream
        while there is no room (the bound is passed by at most one read's events a stream)."""
        with self._room:
            self.held += seen.size
        self._items.put(seen)

    def put(self, seen: Seen, stopping: threading.Event | None = None) -> None:
        with self._room:
            while self.held and self.held + seen.size > self.limit:
                if stopping is not None and stopping.is_set():
                    return
                self._room.wait(0.5)
            self.held += seen.size
        self._items.put(seen)

    def get(self, timeout: float) -> Seen:
        return self._items.get(timeout=timeout)

    def waiting(self) -> int:
        """How many items wait to be taken."""
        return self._items.qsize()

    def done(self, items: list[Seen]) -> None:
        with self._room:
            self.held = max(0, self.held - sum(item.size for item in items))
            self._room.notify_all()


@dataclass
class Counters:
    """What the reflectors did, for logs and tests."""

    lists: int = 0
    expired: int = 0
    reconnects: int = 0
    events: int = 0
    bookmarks: int = 0


class Reflector(ListWatch):
    """List, then watch from the list's resourceVersion; bookmarks move it on; 410 Gone lists again;
    a broken connection is retried with back-off from the last resourceVersion; every `resync`
    seconds a fresh listing bounds how long a missed event can go unrepaired."""

    def __init__(
        self,
        conn: ClusterConnection,
        api_version: str,
        kind: str,
        out: Backlog,
        resync: float,
        watch_seconds: int,
        counters: Counters,
    ) -> None:
        super().__init__(
            f"watch-{conn.name}-{kind}", conn, api_version, kind, resync, watch_seconds, SELECTOR
        )
        self.kind = kind
        self.out, self.counters = out, counters
        self.room = out.has_room

    def _due(self) -> bool:
        """A resync waits while the backlog has no room, the watch going on meanwhile: a listing then
        would wait on one of the mux's few opener threads holding every copy it decoded, and with all
        of them so held no watch could be opened again (a full-size seeding had 32 listings waiting)."""
        return super()._due() and self.out.has_room()

    def _expired(self) -> None:
        self.counters.expired += 1

    def _failed(self, exc: BaseException, backoff: float, version: str) -> str:
        self.counters.reconnects += 1
        log.info("watch %s %s: %s; again in %.1fs", self.conn.name, self.kind, exc, backoff)
        return version

    def _list(self) -> str:
        # A listing is asked for once the backlog has room, and at most LISTINGS_AT_ONCE wait with their
        # decoded copies: a watcher trailing its members by minutes finds its streams' versions gone
        # (410) when they reconnect, and 31 listings of 1,000 copies waited in put, a third of its memory.
        with self.out.listings:
            self.out.wait_for_room(self.stopping)
            if self.stopping.is_set():
                raise KubeError(f"the watch of {self.kind} in {self.conn.name} stopped")  # no turn follows
            asked = timezone.now()
            listing = list_kind(self.conn, self.api_version, self.kind, SELECTOR)
            self.counters.lists += 1
            self.out.put(
                Seen(self.conn.name, self.api_version, self.kind, listing=listing.items, listed_at=asked),
                self.stopping,
            )
        return listing.resource_version

    def _bookmark(self) -> None:
        self.counters.bookmarks += 1

    def _event(self, event: WatchEvent) -> None:
        self.counters.events += 1
        self.out.add(Seen(self.conn.name, self.api_version, self.kind, events=[(event.type, event.object)]))


class Watcher:
    """The reflectors of one shard, kept in step with the joined clusters and the kinds Works hold, and
    the loop that writes what they see."""

    def __init__(
        self,
        shard: Shard | None = None,
        resync: float = RESYNC,
        refresh: float = 5.0,
        watch_seconds: int = 300,
        on_batch: Callable[[member_state.Observed], None] | None = None,
        heartbeat: Path | None = None,
        inventory: bool = True,
    ) -> None:
        self.shard = shard or Shard()
        # Nodes and pods by list+watch too, for the health collection (None: not kept here).
        self.inventory = InventoryWatch(resync=resync) if inventory else None
        self.resync, self.refresh, self.watch_seconds = resync, refresh, watch_seconds
        self.seen = Backlog()
        self.reflectors: dict[tuple[str, str, str], tuple[Reflector, ClusterConnection]] = {}
        self.counters = Counters()
        self.stopping = threading.Event()
        self.on_batch = on_batch
        self.heartbeat = heartbeat
        # permanent id of a Work being applied -> (when held, event type, object): see observe_applied
        self.held: dict[str, tuple[float, str, dict[str, Any]]] = {}
        # copies last found in step, so a resync re-compares only what changed since
        self.judged = member_state.Judged()
        # the bindings whose Works' status changed, aggregated at most once a second each
        self.aggregations = AggregationPacer()
        # the kinds the Works hold, and (newest Work id, clusters, when) they were read for
        self._kinds: set[tuple[str, str, str]] = set()
        self._kinds_read_at: tuple[int | None, frozenset[str], float] = (None, frozenset(), -KINDS_AGAIN)
        self._held_checked = 0.0

    def stop(self) -> None:
        self.stopping.set()

    def run(self) -> None:
        """Until stop(): refresh the reflectors every `refresh` seconds and write batches as they come."""
        next_refresh = next_inventory = 0.0
        try:
            while not self.stopping.is_set():
                try:
                    if time.monotonic() >= next_refresh:
                        close_old_connections()
                        self.refresh_reflectors()
                        if self.heartbeat is not None:
                            self.heartbeat.touch()
                        next_refresh = time.monotonic() + self.refresh
                    if self.inventory is not None and time.monotonic() >= next_inventory:
                        self.inventory.write()
                        next_inventory = time.monotonic() + INVENTORY_WRITE_EVERY
                    self.drain(timeout=min(0.5, self.refresh, INVENTORY_WRITE_EVERY))
                except DatabaseError as exc:
                    # What this batch saw is lost; the next listing (resync) brings it back.
                    log.warning("watcher: database error, retrying: %s", exc)
                    close_old_connections()
                    self.stopping.wait(min(self.refresh, 5.0))
        finally:
            self.close()
            try:
                self.aggregations.flush()
            except DatabaseError as exc:  # left to the reconcile: their Works' status moved on
                log.warning("watcher: the last aggregations failed: %s", exc)

    def close(self) -> None:
        """Stop every reflector (run() does when it ends)."""
        for reflector, _ in self.reflectors.values():
            reflector.stop()
        if self.inventory is not None:
            self.inventory.stop()

    def refresh_reflectors(self) -> None:
        """Start a reflector for each (cluster, kind) of the shard; stop those no longer wanted (a cluster
        removed, its credentials changed, or no Work of that kind left)."""
        connections: dict[str, ClusterConnection] = {}
        # only what a connection is made of: a whole row would also copy its labels and taints for the
        # cluster-event signals, a thousand of them every look
        fields = ("name", "api_endpoint", "credentials", "insecure_skip_tls_verify")
        for cluster in Cluster.objects.only(*fields).order_by("name"):
            if not self.shard.holds(cluster.name):
                continue
            try:
                connections[cluster.name] = cluster.connection()
            except Exception as exc:  # unreadable credentials must not stop the other clusters
                log.warning("watch %s: credentials cannot be read: %s", cluster.name, exc)
        if self.inventory is not None:
            self.inventory.refresh(connections)
        wanted = {key for key in self._watched_kinds(connections) if key[0] in connections}
        for key, (reflector, conn) in list(self.reflectors.items()):
            if key not in wanted or connections.get(key[0]) != conn:
                reflector.stop()
                del self.reflectors[key]
        for key in sorted(wanted - set(self.reflectors)):
            conn = connections[key[0]]
            reflector = Reflector(
                conn, key[1], key[2], self.seen, self.resync, self.watch_seconds, self.counters
            )
            self.reflectors[key] = (reflector, conn)
            reflector.start()

    def _watched_kinds(self, connections: dict[str, ClusterConnection]) -> set[tuple[str, str, str]]:
        """The (cluster, apiVersion, kind) the Works hold: read in full when the clusters changed and at
        least every KINDS_AGAIN seconds (a kind's last Work gone stops its reflector then: the full read
        scans every Work), and in between only from the Works created since (a new kind comes with a
        new Work: a seeding fleet's every look would otherwise scan them all)."""
        newest = Work.objects.aggregate(newest=Max("pk"))["newest"]
        clusters = frozenset(connections)
        now = time.monotonic()
        last_newest, last_clusters, read_at = self._kinds_read_at
        if clusters != last_clusters or now - read_at >= KINDS_AGAIN:
            self._kinds = member_state.watched_kinds(connections)
            self._kinds_read_at = (newest, clusters, now)
        elif newest != last_newest:
            self._kinds = self._kinds | member_state.watched_kinds(connections, after=last_newest)
            self._kinds_read_at = (newest, clusters, read_at)
        return self._kinds

    def drain(self, timeout: float = 0.5, limit: int = 500) -> int:
        """Write what the reflectors saw (up to `limit` items, waiting up to `timeout` for the first), and
        the status of held copies whose applies were recorded meanwhile."""
        batch: list[Seen] = []
        aggregation_due = self.aggregations.due_in()
        if aggregation_due is not None:
            timeout = min(timeout, aggregation_due)
        try:
            batch.append(self.seen.get(timeout=min(timeout, HELD_CHECK) if self.held else timeout))
        except queue.Empty:
            pass
        closes = time.monotonic() + BATCH_WINDOW
        while batch and len(batch) < limit:
            try:
                batch.append(self.seen.get(timeout=max(0.0, closes - time.monotonic())))
            except queue.Empty:
                break
        if not batch and not self.held:
            self.aggregations.run()
            return 0
        try:
            self._write(batch)
        except DatabaseError:
            self._lost({(item.cluster, item.api_version, item.kind) for item in batch})
            raise
        finally:
            self.seen.done(batch)
        return len(batch)

    def _lost(self, keys: set[tuple[str, str, str]]) -> None:
        """What these (cluster, apiVersion, kind) reported was not written: their reflectors list again
        now, not at their next resync."""
        for key in keys:
            entry = self.reflectors.get(key)
            if entry is not None:
                entry[0].relist_soon()

    def _write(self, batch: list[Seen]) -> None:
        started = time.monotonic()
        observed = member_state.Observed()
        events: dict[str, list[tuple[str, dict[str, Any]]]] = defaultdict(list)
        for item in batch:
            if item.listing is not None:
                self._merge(
                    observed,
                    member_state.observe_listing(
                        item.cluster,
                        item.api_version,
                        item.kind,
                        item.listing,
                        listed_at=item.listed_at,
                        judged=self.judged,
                    ),
                )
            else:
                events[item.cluster] += item.events
        self._merge(observed, member_state.observe_cluster_events(events, judged=self.judged))
        self._merge(observed, self._observe_held(observed))
        tasks.enqueue_works(sorted(set(observed.repair)))
        self.aggregations.changed(observed.changed)
        # trailing the members (more waits in the backlog), the aggregations get as long as the batch
        self.aggregations.run(budget=time.monotonic() - started if self.seen.waiting() else None)
        for binding_id in rollouts.active_binding_ids(binding_ids=sorted(observed.changed)):
            tasks.after_commit(tasks.advance_rollout, binding_id)  # new member status may let a wave go
        if self.on_batch is not None:
            self.on_batch(observed)

    def _observe_held(self, seen: member_state.Observed) -> member_state.Observed:
        """Hold the events just seen for Works being applied (a newer event replaces an older one, and
        one judged in sync drops it); every HELD_CHECK seconds, write the status of those whose applies
        are now recorded."""
        now = time.monotonic()
        for key in seen.judged:
            self.held.pop(key, None)
        for key, (kind, obj) in seen.waiting.items():
            if key in self.held and member_state.older_copy(obj, self.held[key][2]):
                continue  # a listing that waited behind a newer event: the event's copy stays held
            self.held[key] = (now, kind, obj)
        # one query reads every held Work: with many held (a fleet being seeded), less often
        if not self.held or now - self._held_checked < HELD_CHECK * max(1.0, len(self.held) / 500):
            return member_state.Observed()
        self._held_checked = now
        again = {
            key: (kind, obj)
            for key, (since, kind, obj) in self.held.items()
            if now - since < HELD_FOR and key not in seen.waiting
        }
        # their status is not written from these events: their clusters list again (not for a copy a
        # listing gave: a Work whose apply keeps failing would have its cluster listed again and again)
        expired = [
            key
            for key, (since, kind, _) in self.held.items()
            if now - since >= HELD_FOR and kind != member_state.LISTED
        ]
        if expired:
            self._lost(member_state.copy_kinds(expired))
        observed = member_state.observe_applied(again, judged=self.judged)
        self.held = {key: self.held[key] for key in (*observed.waiting, *seen.waiting)}
        return observed

    @staticmethod
    def _merge(into: member_state.Observed, more: member_state.Observed) -> None:
        into.repair += more.repair
        into.changed |= more.changed
        for key, (kind, obj) in more.waiting.items():  # a newer copy of one object is not replaced
            if key not in into.waiting or not member_state.older_copy(obj, into.waiting[key][1]):
                into.waiting[key] = (kind, obj)
        into.judged |= more.judged
