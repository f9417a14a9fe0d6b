"""core/v1 Events about a cluster's objects: recorded as client-go's recorder does (a repeat counts
again), expired after an hour like the API server's event TTL, and capped per cluster."""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Any

from membersim import meta
from membersim.resources import EVENT
from membersim.store import Store

MAX_EVENTS = 1000
TTL_SECONDS = 3600.0  # the API server's --event-ttl default

# (involved uid, component, host, type, reason, message): what client-go's EventLogger treats as a repeat
Key = tuple[str, str, str, str, str, str]


class EventRecorder:
    """Records Events in the store the way the components of a cluster do."""

    def __init__(self, store: Store, ttl: float = TTL_SECONDS, limit: int = MAX_EVENTS) -> None:
        self.store = store
        self.ttl = ttl
        self.limit = limit
        # key -> (namespace, name, last recorded at), least recently recorded first
        self._index: OrderedDict[Key, tuple[str, str, float]] = OrderedDict()
        self._last_ns = 0

    def record(
        self, obj: dict[str, Any], type_: str, reason: str, message: str, component: str, host: str = ""
    ) -> None:
        """Record (or count again) an Event about ``obj``."""
        metadata = obj["metadata"]
        namespace = metadata.get("namespace") or "default"
        key = (metadata.get("uid", ""), component, host, type_, reason, message)
        now = time.time()
        when = meta.now()
        self._expire(now)
        known = self._index.get(key)
        existing = self.store.get(EVENT, known[0], known[1]) if known else None
        if existing is not None:
            self.store.put(EVENT, {**existing, "count": existing.get("count", 1) + 1, "lastTimestamp": when})
            self._index[key] = (known[0], known[1], now)  # type: ignore[index]
            self._index.move_to_end(key)
            return
        # As client-go names them: the involved object's name and the time in hex nanoseconds, so
        # listing by name lists in the order they happened.
        name = f"{metadata['name']}.{max(time.time_ns(), self._last_ns + 1):x}"
        self._last_ns = int(name.rsplit(".", 1)[1], 16)
        source = {"component": component, "host": host} if host else {"component": component}
        event = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {
                "name": name,
                "namespace": namespace,
                "uid": meta.new_uid(),
                "creationTimestamp": when,
            },
            "involvedObject": {
                "apiVersion": obj.get("apiVersion", ""),
                "kind": obj.get("kind", ""),
                "name": metadata["name"],
                "namespace": metadata.get("namespace", ""),
                "uid": metadata.get("uid", ""),
                "resourceVersion": metadata.get("resourceVersion", ""),
            },
            "reason": reason,
            "message": message,
            "source": source,
            "firstTimestamp": when,
            "lastTimestamp": when,
            "count": 1,
            "type": type_,
            "eventTime": None,
            "reportingComponent": component,
            "reportingInstance": host,
        }
        self.store.put(EVENT, event)
        self._index[key] = (namespace, name, now)
        while len(self._index) > self.limit:
            self._drop_oldest()

    def _expire(self, now: float) -> None:
        """Events not recorded again within the TTL go, oldest first, as their etcd lease runs out."""
        while self._index and now - next(iter(self._index.values()))[2] > self.ttl:
            self._drop_oldest()

    def _drop_oldest(self) -> None:
        _, (namespace, name, _) = self._index.popitem(last=False)
        self.store.remove(EVENT, namespace, name)
