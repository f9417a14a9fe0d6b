"""core/v1 Events about a cluster's objects: recorded, counted again when they repeat, and capped."""

from __future__ import annotations

import copy
import secrets
from collections import deque
from typing import Any

from membersim import meta
from membersim.resources import EVENT
from membersim.store import Store

MAX_EVENTS = 1000


class EventRecorder:
    """Records Events in the store the way the components of a cluster do through client-go."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._index: dict[tuple[str, str, str, str], str] = {}
        self._order: deque[tuple[str, str]] = deque()

    def record(self, obj: dict[str, Any], type_: str, reason: str, message: str, component: str) -> None:
        """Record (or count again) a core/v1 Event about ``obj``."""
        namespace = obj["metadata"].get("namespace") or "default"
        key = (obj["metadata"].get("uid", ""), reason, message, namespace)
        when = meta.now()
        existing_name = self._index.get(key)
        existing = self.store.get(EVENT, namespace, existing_name) if existing_name else None
        if existing:
            updated = copy.deepcopy(existing)
            updated["count"] = existing.get("count", 1) + 1
            updated["lastTimestamp"] = when
            self.store.put(EVENT, updated)
            return
        name = f"{obj['metadata']['name']}.{secrets.token_hex(8)}"
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
                "name": obj["metadata"]["name"],
                "namespace": obj["metadata"].get("namespace", ""),
                "uid": obj["metadata"].get("uid", ""),
                "resourceVersion": obj["metadata"].get("resourceVersion", ""),
            },
            "reason": reason,
            "message": message,
            "source": {"component": component},
            "firstTimestamp": when,
            "lastTimestamp": when,
            "count": 1,
            "type": type_,
            "reportingComponent": component,
            "reportingInstance": "",
        }
        self.store.put(EVENT, event)
        self._index[key] = name
        self._order.append((namespace, name))
        while self.store.count(EVENT) > MAX_EVENTS and self._order:
            # Like the API server's event TTL: the oldest go, so a long-running demo stays small.
            self.store.remove(EVENT, *self._order.popleft())
        if len(self._order) > 2 * MAX_EVENTS:
            self._order = deque(k for k in self._order if self.store.get(EVENT, *k) is not None)
        if len(self._index) > 2 * MAX_EVENTS:
            live = {(e["metadata"]["namespace"], e["metadata"]["name"]) for e in self.store.iter(EVENT)}
            self._index = {k: n for k, n in self._index.items() if (k[3], n) in live}
