"""Cluster events into the dirty-binding queue: joined, removed, labels, fields, taints and readiness."""

from __future__ import annotations

import copy
from typing import Any

from django.db.models.signals import post_delete, post_init, post_save

from clusters import signals
from clusters.models import Cluster
from scheduling import tasks
from scheduling.controllers.marking import affected_by_cluster_change

# What a placement, a spread constraint or the filter step can look at.
WATCHED = ("labels", "taints", "provider", "region", "zone", "zones", "ready")
SEEN = "_scheduling_seen"


def _loaded(cluster: Cluster) -> dict[str, Any]:
    """The watched fields this instance holds (deferred ones are left out rather than queried)."""
    return {name: copy.deepcopy(cluster.__dict__[name]) for name in WATCHED if name in cluster.__dict__}


def remember(sender: Any, instance: Cluster, **_: Any) -> None:
    setattr(instance, SEEN, _loaded(instance))


def saved(sender: Any, instance: Cluster, created: bool, **_: Any) -> None:
    now = _loaded(instance)
    before = None if created else getattr(instance, SEEN, None)
    if before is not None:
        before = {name: value for name, value in before.items() if name in now}
        now = {name: value for name, value in now.items() if name in before}
        if before == now:
            return
    tasks.mark_bindings(affected_by_cluster_change(instance.name, before, now))
    setattr(instance, SEEN, _loaded(instance))


def deleted(sender: Any, instance: Cluster, **_: Any) -> None:
    tasks.mark_bindings(affected_by_cluster_change(instance.name, _loaded(instance), None))


def _labels(cluster: str) -> dict[str, str]:
    return dict(Cluster.objects.filter(name=cluster).values_list("labels", flat=True).first() or {})


def spec_written(sender: Any, cluster: str, old: dict[str, Any], new: dict[str, Any], **_: Any) -> None:
    if "labels" not in new:  # a taint change concerns placements selecting on any label it carries
        labels = _labels(cluster)
        old, new = {"labels": labels, **old}, {"labels": labels, **new}
    tasks.mark_bindings(affected_by_cluster_change(cluster, old, new))


def ready_written(sender: Any, cluster: str, ready: Any, **_: Any) -> None:
    labels = _labels(cluster)
    before, after = {"labels": labels, "ready": None}, {"labels": labels, "ready": ready}
    tasks.mark_bindings(affected_by_cluster_change(cluster, before, after))


def connect() -> None:
    """Called once from the app config."""
    post_init.connect(remember, sender=Cluster, dispatch_uid="scheduling.remember")
    post_save.connect(saved, sender=Cluster, dispatch_uid="scheduling.saved")
    post_delete.connect(deleted, sender=Cluster, dispatch_uid="scheduling.deleted")
    signals.spec_changed.connect(spec_written, sender=Cluster, dispatch_uid="scheduling.spec")
    signals.ready_changed.connect(ready_written, sender=Cluster, dispatch_uid="scheduling.ready")
