"""Cluster events into the dirty-binding queue: joined, removed, labels, fields, taints and readiness."""

from __future__ import annotations

import copy
from typing import Any

from django.db.models.signals import post_delete, post_init, post_save

from clusters import signals
from clusters.models import Cluster
from scheduling import tasks
from scheduling.controllers.marking import affected_by_cluster_change, affected_by_cluster_changes

# What a placement, a spread constraint or the filter step can look at.
WATCHED = ("labels", "taints", "provider", "region", "zone", "zones", "ready")
SEEN = "_scheduling_seen"
# What a cluster affinity matches on: an event's states are completed with these before testing.
IDENTITY = ("labels", "provider", "region", "zones")


def _loaded(cluster: Cluster) -> dict[str, Any]:
    """The watched fields this instance holds (deferred ones are left out rather than queried)."""
    return {name: copy.deepcopy(cluster.__dict__[name]) for name in WATCHED if name in cluster.__dict__}


def remember(sender: Any, instance: Cluster, **_: Any) -> None:
    setattr(instance, SEEN, _loaded(instance))


def _completed(cluster: str, old: dict[str, Any], new: dict[str, Any]) -> tuple[dict, dict]:
    """Both states with the identity fields the event did not carry, read once (they did not change)."""
    missing = [name for name in IDENTITY if name not in old or name not in new]
    if not missing:
        return old, new
    row = Cluster.objects.filter(name=cluster).values(*missing).first() or {}
    fill = {name: row.get(name) for name in missing}
    return {**fill, **old}, {**fill, **new}


def saved(sender: Any, instance: Cluster, created: bool, **_: Any) -> None:
    now = _loaded(instance)
    before = None if created else getattr(instance, SEEN, None)
    if before is not None:
        before = {name: value for name, value in before.items() if name in now}
        now = {name: value for name, value in now.items() if name in before}
        if before == now:
            return
        before, now = _completed(instance.name, before, now)
    tasks.mark_bindings(affected_by_cluster_change(instance.name, before, now))
    setattr(instance, SEEN, _loaded(instance))


def deleted(sender: Any, instance: Cluster, **_: Any) -> None:
    tasks.mark_bindings(affected_by_cluster_change(instance.name, _loaded(instance), None))


def spec_written(sender: Any, cluster: str, old: dict[str, Any], new: dict[str, Any], **_: Any) -> None:
    tasks.mark_bindings(affected_by_cluster_change(cluster, *_completed(cluster, old, new)))


def ready_written(sender: Any, cluster: str, ready: Any, **_: Any) -> None:
    before, after = _completed(cluster, {"ready": None}, {"ready": ready})
    tasks.mark_bindings(affected_by_cluster_change(cluster, before, after))


def joined(sender: Any, clusters: list[Cluster], **_: Any) -> None:
    """Many clusters registered at once: the bindings they concern are found and marked once."""
    changes = [(cluster.name, None, _loaded(cluster)) for cluster in clusters]
    tasks.mark_bindings(affected_by_cluster_changes(changes))
    for cluster in clusters:
        setattr(cluster, SEEN, _loaded(cluster))


def connect() -> None:
    """Called once from the app config."""
    post_init.connect(remember, sender=Cluster, dispatch_uid="scheduling.remember")
    post_save.connect(saved, sender=Cluster, dispatch_uid="scheduling.saved")
    post_delete.connect(deleted, sender=Cluster, dispatch_uid="scheduling.deleted")
    signals.spec_changed.connect(spec_written, sender=Cluster, dispatch_uid="scheduling.spec")
    signals.ready_changed.connect(ready_written, sender=Cluster, dispatch_uid="scheduling.ready")
    signals.clusters_joined.connect(joined, sender=Cluster, dispatch_uid="scheduling.joined")
