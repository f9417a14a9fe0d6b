"""One cluster's object store: objects by resource, a resourceVersion counter and a change log for watches."""

from __future__ import annotations

import builtins
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from membersim.resources import Resource

LOG_SIZE = 500  # changes kept per resource for watches, like the API server's per-resource watch cache


@dataclass(frozen=True, slots=True)
class Change:
    """One logged write, replayed to watchers."""

    rv: int
    resource: Resource
    type: str  # ADDED, MODIFIED, DELETED
    obj: dict[str, Any]
    old: dict[str, Any] | None


class Store:
    """Objects are never mutated once stored: every write stores a new dict, so readers may
    serialise what they got without holding the lock."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.rv = 0
        self._objects: dict[Resource, dict[str, dict[str, dict[str, Any]]]] = {}
        # Per resource, so a burst of Events does not push a Deployment watcher's changes out of reach,
        # and a write wakes only the watchers of its resource.
        self._logs: dict[Resource, deque[Change]] = {}
        self._compacted: dict[Resource, int] = {}
        self._conditions: dict[Resource, threading.Condition] = {}
        self._latest: dict[Resource, int] = {}
        self.compacted_rv = 0  # nothing before the objects a cluster starts with can be watched
        self.closed = False
        # owner uid -> (resource, namespace, name) of objects whose ownerReferences name it
        # (lists: most owners own one object, and a one-element set costs three times as much)
        self._owned: dict[str, builtins.list[tuple[Resource, str, str]]] = {}
        # called as (resource, namespace, name, old, new) after every write, under the lock
        self._observers: builtins.list[Callable[..., None]] = []
        # writes of each resource so far, seen by watchers or not: what a cache of a derived value
        # compares to know that nothing it was derived from changed
        self._writes: dict[Resource, int] = {}

    def observe(self, observer: Callable[..., None]) -> None:
        """Call ``observer(resource, namespace, name, old, new)`` after every put and remove."""
        self._observers.append(observer)

    def next_rv(self) -> int:
        self.rv += 1
        return self.rv

    def get(self, resource: Resource, namespace: str, name: str) -> dict[str, Any] | None:
        return self._objects.get(resource, {}).get(namespace, {}).get(name)

    def list(self, resource: Resource, namespace: str | None = None) -> list[dict[str, Any]]:
        """Objects in the API server's order, that of their keys `namespace/name` (so "bench-one/x" before
        "bench/y", as etcd sorts them, and as a list's continue token compares them); all namespaces
        when ``namespace`` is None. Namespaces sort by `namespace/` (no name holds a slash: the same)."""
        by_namespace = self._objects.get(resource, {})
        with self.lock:
            if namespace is not None:
                return [by_namespace[namespace][n] for n in sorted(by_namespace.get(namespace, {}))]
            spaces = sorted(by_namespace, key=lambda ns: ns + "/")
            return [by_namespace[ns][n] for ns in spaces for n in sorted(by_namespace[ns])]

    def iter(self, resource: Resource, namespace: str | None = None) -> Iterator[dict[str, Any]]:
        """Unsorted objects; call with the lock held."""
        by_namespace = self._objects.get(resource, {})
        spaces = [by_namespace.get(namespace, {})] if namespace is not None else list(by_namespace.values())
        for objects in spaces:
            yield from list(objects.values())

    def writes(self, resource: Resource) -> int:
        """How many puts and removes of ``resource`` there have been (any change counts one)."""
        return self._writes.get(resource, 0)

    def count(self, resource: Resource) -> int:
        return sum(len(v) for v in self._objects.get(resource, {}).values())

    def put(self, resource: Resource, obj: dict[str, Any], *, log: bool = True) -> dict[str, Any]:
        """Store ``obj`` (a new dict) under a new resourceVersion and tell watchers."""
        with self.lock:
            meta = obj["metadata"]
            namespace = meta.get("namespace", "") if resource.namespaced else ""
            objects = self._objects.setdefault(resource, {}).setdefault(namespace, {})
            old = objects.get(meta["name"])
            rv = self.next_rv()
            obj["metadata"] = {**meta, "resourceVersion": str(rv)}
            objects[meta["name"]] = obj
            self._index(resource, namespace, meta["name"], old, obj)
            if log:
                self._record(Change(rv, resource, "MODIFIED" if old else "ADDED", obj, old))
            else:
                self.compacted_rv = rv
            return obj

    def put_unseen(self, resource: Resource, obj: dict[str, Any]) -> dict[str, Any]:
        """Store ``obj`` as put does, but tell no watcher: a lost watch event (no 410 either), for
        proving that a client's periodic re-list repairs what its watch missed."""
        with self.lock:
            meta = obj["metadata"]
            namespace = meta.get("namespace", "") if resource.namespaced else ""
            objects = self._objects.setdefault(resource, {}).setdefault(namespace, {})
            old = objects.get(meta["name"])
            obj["metadata"] = {**meta, "resourceVersion": str(self.next_rv())}
            objects[meta["name"]] = obj
            self._index(resource, namespace, meta["name"], old, obj)
            return obj

    def remove(self, resource: Resource, namespace: str, name: str) -> dict[str, Any] | None:
        with self.lock:
            objects = self._objects.get(resource, {}).get(namespace if resource.namespaced else "", {})
            old = objects.pop(name, None)
            if old is None:
                return None
            self._index(resource, namespace if resource.namespaced else "", name, old, None)
            rv = self.next_rv()
            gone = {**old, "metadata": {**old["metadata"], "resourceVersion": str(rv)}}
            self._record(Change(rv, resource, "DELETED", gone, old))
            return gone

    def _index(
        self, resource: Resource, namespace: str, name: str, old: dict | None, new: dict | None
    ) -> None:
        self._writes[resource] = self._writes.get(resource, 0) + 1
        key = (resource, namespace, name)
        before = {r.get("uid") for r in (old or {}).get("metadata", {}).get("ownerReferences") or []}
        after = {r.get("uid") for r in (new or {}).get("metadata", {}).get("ownerReferences") or []}
        for uid in before - after:
            keys = self._owned.get(uid)
            if keys is not None and key in keys:
                keys.remove(key)
                if not keys:
                    del self._owned[uid]
        for uid in after - before:
            self._owned.setdefault(uid, []).append(key)
        for observer in self._observers:
            observer(resource, namespace, name, old, new)

    def owned_by(
        self, uid: str, resource: Resource | None = None
    ) -> builtins.list[tuple[Resource, dict[str, Any]]]:
        """Objects (optionally of one resource) whose ownerReferences name ``uid``; hold the lock."""
        found = []
        for owned_resource, namespace, name in list(self._owned.get(uid, ())):
            if resource is None or owned_resource is resource:
                obj = self.get(owned_resource, namespace, name)
                if obj is not None:
                    found.append((owned_resource, obj))
        return found

    def _record(self, change: Change) -> None:
        log = self._logs.get(change.resource)
        if log is None:
            log = self._logs[change.resource] = deque(maxlen=LOG_SIZE)
        if len(log) == log.maxlen:
            self._compacted[change.resource] = log[0].rv
        log.append(change)
        self._latest[change.resource] = change.rv
        condition = self._conditions.get(change.resource)
        if condition is not None:
            condition.notify_all()

    def changed_for(self, resource: Resource) -> threading.Condition:
        """A condition (on the store lock) notified after every write of ``resource``."""
        with self.lock:
            condition = self._conditions.get(resource)
            if condition is None:
                condition = self._conditions[resource] = threading.Condition(self.lock)
            return condition

    def latest_rv(self, resource: Resource) -> int:
        """The resourceVersion of the last logged write of ``resource`` (0 if none)."""
        return self._latest.get(resource, 0)

    def compacted_for(self, resource: Resource) -> int:
        """Watches of ``resource`` from before this resourceVersion are too old (410 Gone)."""
        return max(self.compacted_rv, self._compacted.get(resource, 0))

    def changes_since(self, rv: int, resource: Resource) -> builtins.list[Change] | None:
        """Changes of ``resource`` after ``rv``, or None when some were already compacted away."""
        with self.lock:
            if rv < self.compacted_for(resource):
                return None
            # The log is in resourceVersion order: walk back only over the changes after ``rv``.
            newer = []
            for change in reversed(self._logs.get(resource, ())):
                if change.rv <= rv:
                    break
                newer.append(change)
            newer.reverse()
            return newer

    def wake_watchers(self) -> None:
        """Wake every watch of every resource (something other than a write changed, a fault)."""
        with self.lock:
            for condition in self._conditions.values():
                condition.notify_all()

    def close(self) -> None:
        with self.lock:
            self.closed = True
        self.wake_watchers()
