"""Member state into Works: a listing or a batch of watch events becomes status, health and drift."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils import timezone

from scheduling.controllers.propagation import REPAIR, STATUS, copy_key, observe_copy
from scheduling.karmada import names
from scheduling.models import Work


@dataclass
class Observed:
    """Works to re-apply (copy missing or edited by hand) and bindings whose Works' status changed."""

    repair: list[int] = field(default_factory=list)
    changed: set[int] = field(default_factory=set)

    def add(self, work: Work, found: str) -> None:
        if found == REPAIR:
            self.repair.append(work.pk)
        elif found == STATUS:
            self.changed.add(work.binding_id)


def watched_works(cluster: str) -> Any:
    """The Works whose member copies a watch in this cluster reports on."""
    return Work.objects.filter(cluster_name=cluster, deleting=False, suspended=False)


def watched_kinds(clusters: Iterable[str]) -> set[tuple[str, str, str]]:
    """(cluster, apiVersion, kind) for every kind the Works of these clusters hold."""
    rows = (
        Work.objects.filter(cluster_name__in=list(clusters), deleting=False)
        .values_list("cluster_name", "manifest__apiVersion", "manifest__kind")
        .distinct()
    )
    return {(str(c), str(v), str(k)) for c, v, k in rows}


def observe_listing(
    cluster: str, api_version: str, kind: str, items: list[dict[str, Any]], now: datetime | None = None
) -> Observed:
    """A full listing of one kind: every Work of that kind is compared with its copy, or its absence.
    This is the resync that repairs whatever an event missed."""
    now = now or timezone.now()
    live = {copy_key(item): item for item in items}
    observed = Observed()
    works = watched_works(cluster).filter(manifest__apiVersion=api_version, manifest__kind=kind)
    for work in works.order_by("pk"):
        observed.add(work, observe_copy(work, live.get(copy_key(work.manifest)), now))
    return observed


def observe_events(
    cluster: str, events: Iterable[tuple[str, dict[str, Any]]], now: datetime | None = None
) -> Observed:
    """Watch events (type, object) of one cluster, the last per object counting. A Work with an apply on
    its way (not in sync) is left to that apply: its copy is about to change anyway."""
    now = now or timezone.now()
    latest: dict[str, tuple[str, dict[str, Any]]] = {}
    for kind, obj in events:
        labels = (obj.get("metadata") or {}).get("labels") or {}
        try:
            work_id = uuid.UUID(str(labels.get(names.WORK_PERMANENT_ID)))
        except ValueError:
            continue  # not one of ours, or its label was edited: the next listing judges it
        latest[str(work_id)] = (kind, obj)
    observed = Observed()
    if not latest:
        return observed
    works = watched_works(cluster).filter(permanent_id__in=list(latest))
    for work in works.order_by("pk"):
        kind, obj = latest[str(work.permanent_id)]
        if not work.in_sync:
            continue
        observed.add(work, observe_copy(work, None if kind == "DELETED" else obj, now))
    return observed
