"""Drift for the pages: per cluster the manifest we apply beside a live diff of the copy, whether its
repair is held and why, the copy's drift events, and the counts of the fleet and cluster pages."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import yaml
from django.db.models import Count, Q
from django.utils import timezone

from clusters import fanout
from clusters.k8s import NotFound, objects
from clusters.models import Cluster
from scheduling.controllers.drift_events import describe, held_reason
from scheduling.karmada.drift import masked
from scheduling.members.across import CALL_TIMEOUT, DEADLINE, identity, member_works
from scheduling.models import DriftEvent, ResourceBinding, ResourceTemplate, Work

RECENT = timedelta(hours=24)
HISTORY = 20


@dataclass
class CopyDrift:
    """One cluster's copy: the manifest we apply, the live diff now, whether repair is held and why."""

    cluster: str
    work: Work
    manifest_yaml: str
    reachable: bool = True
    error: str = ""
    found: bool = True
    changes: list[dict[str, Any]] = field(default_factory=list)
    diff: str = ""
    held: str = ""
    events: list[DriftEvent] = field(default_factory=list)


def _read_live(cluster: Cluster, manifest: dict[str, Any]) -> dict[str, Any] | None:
    api_version, kind, name, namespace = identity(manifest)
    try:
        return objects.get_object(
            cluster.connection(), api_version, kind, name, namespace, timeout=CALL_TIMEOUT
        )
    except NotFound:
        return None


def copies_drift(template: ResourceTemplate, deadline: float = DEADLINE) -> list[CopyDrift]:
    """Per cluster holding a copy: our manifest, the live diff, the hold and the last drift events."""
    binding = ResourceBinding.objects.filter(template=template).prefetch_related("works").first()
    if binding is None:
        return []
    works = {w.cluster_name: w for w in member_works(binding)}
    clusters = list(Cluster.objects.filter(name__in=list(works)))
    answers = fanout.gather(clusters, lambda c: _read_live(c, works[c.name].manifest), deadline)
    history: dict[str, list[DriftEvent]] = {}
    for event in DriftEvent.objects.filter(binding=binding).order_by("-detected_at", "-id")[: HISTORY * 4]:
        history.setdefault(event.cluster_name, []).append(event)
    rows = []
    for name, work in sorted(works.items()):
        row = CopyDrift(
            cluster=name,
            work=work,
            manifest_yaml=yaml.safe_dump(masked(work.manifest), sort_keys=False),
            events=history.get(name, [])[:HISTORY],
        )
        answer = answers.get(name)
        if answer is None or not answer.ok:
            row.reachable, row.error = False, answer.error if answer else f"{name} is not registered."
            row.held = "the cluster is unreachable"
        elif answer.value is None:
            row.found = False
            row.changes = describe(work, None)["changes"]
            row.held = held_reason(work)
        else:
            found = describe(work, answer.value, name)
            row.changes, row.diff = found["changes"], found["diff"]
            row.held = held_reason(work) if row.changes else ""
        rows.append(row)
    return rows


def drift_counts(cluster: str = "", now: datetime | None = None) -> dict[str, int]:
    """Drift events of the last 24 h (all, put back, held) — of one cluster, or of the fleet."""
    since = (now or timezone.now()) - RECENT
    rows = DriftEvent.objects.filter(detected_at__gte=since)
    if cluster:
        rows = rows.filter(cluster_name=cluster)
    counts = rows.aggregate(
        total=Count("id"),
        put_back=Count("id", filter=Q(state=DriftEvent.PUT_BACK)),
        held=Count("id", filter=Q(state=DriftEvent.HELD)),
    )
    return {key: int(value or 0) for key, value in counts.items()}


def drift_counts_by_cluster(now: datetime | None = None) -> dict[str, int]:
    since = (now or timezone.now()) - RECENT
    rows = DriftEvent.objects.filter(detected_at__gte=since).values("cluster_name").annotate(n=Count("id"))
    return {row["cluster_name"]: row["n"] for row in rows}
