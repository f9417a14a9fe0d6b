"""What one controller pass sees and does: the objects in scope, their owners and dependents, and the
writes every controller makes (pods created and deleted, statuses, events)."""

from __future__ import annotations

import copy
import heapq
import itertools
from typing import Any

from membersim import meta
from membersim.events import EventRecorder
from membersim.pods import qos_class
from membersim.resources import (
    DAEMONSET,
    DEPLOYMENT,
    EVENT,
    JOB,
    NODE,
    POD,
    REPLICASET,
    STATEFULSET,
    Resource,
)
from membersim.store import Store
from membersim.validation import default_pod_spec, is_defaulted

# (resource, namespace, name, old object or None, new object or None) of one write
Touch = tuple[Resource, str, str, "dict[str, Any] | None", "dict[str, Any] | None"]
WORKLOADS = {r.kind: r for r in (DEPLOYMENT, REPLICASET, STATEFULSET, DAEMONSET, JOB)}
# Past this many writes between passes, recomputing everything is as cheap as following them.
MAX_TOUCHED = 10_000


def pod_spec_from(template_spec: dict[str, Any], extra: dict[str, Any] | None) -> dict[str, Any]:
    """A new pod's spec: the template's, shared (stored objects are never changed in place) when the
    API server has already defaulted it, as it does every stored template; else a defaulted copy."""
    spec = {**template_spec, **(extra or {})}
    if is_defaulted(spec):
        return spec
    spec = copy.deepcopy(spec)
    default_pod_spec(spec)
    return spec


class Context:
    """Shared by the controllers of one cluster. A pass looks only at the objects written since the
    pass before began (and their owners), unless a node changed or time passed: then at everything."""

    def __init__(self, store: Store, events: EventRecorder) -> None:
        self.store = store
        self.events = events
        self.touched: list[Touch] = []
        self.full = True
        self.begin_pass(None)
        # (when, sequence, resource, namespace, name): objects a controller asked to look at again
        self._timers: list[tuple[float, int, Resource, str, str]] = []
        self._due: dict[tuple[Resource, str, str], float] = {}
        self._sequence = itertools.count()
        store.observe(self._observe)

    def _observe(
        self, resource: Resource, namespace: str, name: str, old: dict | None, new: dict | None
    ) -> None:
        if resource is NODE:
            self.full = True
        elif resource is not EVENT and not self.full:
            self.touched.append((resource, namespace, name, old, new))
            if len(self.touched) > MAX_TOUCHED:
                self.full = True
        if self.full:
            self.touched.clear()

    # ------------------------------------------------------------ time

    def requeue_at(self, resource: Resource, namespace: str, name: str, when: float) -> None:
        """Look at this object again at ``when`` (a time.time()), like a work queue's AddAfter."""
        key = (resource, namespace, name)
        if self._due.get(key, float("inf")) <= when:
            return
        self._due[key] = when
        heapq.heappush(self._timers, (when, next(self._sequence), resource, namespace, name))

    def next_due(self) -> float | None:
        return self._timers[0][0] if self._timers else None

    def touch_due(self, now: float) -> bool:
        """Follow the objects whose time has come as if they had just been written; True if any."""
        touched = False
        while self._timers and self._timers[0][0] <= now:
            when, _, resource, namespace, name = heapq.heappop(self._timers)
            key = (resource, namespace, name)
            if self._due.get(key) != when:
                continue  # superseded by an earlier requeue of the same object
            del self._due[key]
            obj = self.store.get(resource, namespace, name)
            if obj is not None:
                touched = True
                if not self.full:
                    self.touched.append((resource, namespace, name, obj, obj))
        return touched

    # ------------------------------------------------------------ reads

    def begin_pass(self, scope: list[Touch] | None) -> None:
        """Start a pass over ``scope`` (the writes to follow), or over everything when None."""
        self.scope = scope
        self._in_scope: dict[Resource, dict[tuple[str, str], None]] = {}
        self._expanded_scope = False
        self._expanded_touched = 0

    def visit(self, resource: Resource) -> list[dict[str, Any]]:
        """The objects of ``resource`` this pass looks at: all of them, or (scoped) those written
        since the pass before began and the owners (and their owners) of what was written."""
        if self.scope is None:
            return list(self.store.iter(resource))
        self._expand()
        found = []
        for namespace, name in self._in_scope.get(resource, {}):
            obj = self.store.get(resource, namespace, name)
            if obj is not None:
                found.append(obj)
        return found

    def _expand(self) -> None:
        """Index the writes not yet indexed (the scope once, then each write made during the pass)."""
        entries: list[Touch] = []
        if not self._expanded_scope:
            entries += self.scope or []
            self._expanded_scope = True
        entries += self.touched[self._expanded_touched :]
        self._expanded_touched = len(self.touched)
        for touched_resource, namespace, name, old, new in entries:
            self._in_scope.setdefault(touched_resource, {})[(namespace, name)] = None
            if new is not None:
                self._owner_keys(new, 2)
            # A write that left the owners as they were (a status write shares the list) finds the
            # same owners again: look them up once.
            if old is not None and (
                new is None
                or old["metadata"].get("ownerReferences") is not new["metadata"].get("ownerReferences")
                or old["metadata"].get("namespace", "") != new["metadata"].get("namespace", "")
            ):
                self._owner_keys(old, 2)

    def _owner_keys(self, obj: dict[str, Any], depth: int) -> None:
        namespace = obj["metadata"].get("namespace", "")
        for ref in obj["metadata"].get("ownerReferences") or []:
            owner_resource = WORKLOADS.get(ref.get("kind", ""))
            if not ref.get("controller") or owner_resource is None:
                continue
            owner = self.store.get(owner_resource, namespace, ref.get("name", ""))
            if owner is None or owner["metadata"].get("uid") != ref.get("uid"):
                continue
            self._in_scope.setdefault(owner_resource, {})[(namespace, owner["metadata"]["name"])] = None
            if depth > 1:
                self._owner_keys(owner, depth - 1)

    def owned(self, resource: Resource, owner: dict[str, Any]) -> list[dict[str, Any]]:
        """The objects of ``resource`` that ``owner`` controls."""
        uid = owner["metadata"]["uid"]
        return [o for _, o in self.store.owned_by(uid, resource) if meta.controller_uid(o) == uid]

    # ------------------------------------------------------------ writes

    def record(
        self, obj: dict[str, Any], type_: str, reason: str, message: str, component: str, host: str = ""
    ) -> None:
        self.events.record(obj, type_, reason, message, component, host)

    def create_pod(
        self,
        owner: dict[str, Any],
        template: dict[str, Any],
        name: str,
        labels: dict[str, str],
        component: str,
        spec_extra: dict[str, Any] | None = None,
    ) -> None:
        template_meta = template.get("metadata") or {}
        spec = pod_spec_from(template.get("spec") or {}, spec_extra)
        metadata: dict[str, Any] = {
            "name": name,
            "namespace": owner["metadata"]["namespace"],
            "labels": {**(template_meta.get("labels") or {}), **labels},
            "ownerReferences": [meta.owner_reference(owner)],
        }
        if template_meta.get("annotations"):
            metadata["annotations"] = dict(template_meta["annotations"])
        pod = {
            "metadata": metadata,
            "spec": spec,
            "status": {"phase": "Pending", "qosClass": qos_class(spec)},
        }
        meta.stamp_new(POD, pod)
        self.store.put(POD, meta.shared(pod))
        self.record(owner, "Normal", "SuccessfulCreate", f"Created pod: {name}", component)

    def delete(
        self, resource: Resource, obj: dict[str, Any], owner: dict[str, Any] | None, component: str
    ) -> None:
        self.store.remove(resource, obj["metadata"].get("namespace", ""), obj["metadata"]["name"])
        if owner is not None:
            self.record(
                owner, "Normal", "SuccessfulDelete", f"Deleted pod: {obj['metadata']['name']}", component
            )

    def write_status(self, resource: Resource, obj: dict[str, Any], status: dict[str, Any]) -> bool:
        if (obj.get("status") or {}) == status:
            return False
        self.store.put(resource, {**obj, "status": meta.shared_part(status)})
        return True
