"""The fleet in words: the header line, each cluster's health reasons, and worst-first ordering."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from clusters.editing import UNSCHEDULABLE_TAINT, describe_taint
from clusters.health import FALSE, TRUE, UNKNOWN
from clusters.models import Cluster

HOT_ALLOCATION = 0.9


def fleet_summary_parts() -> list[str]:
    """ "12 clusters", "11 Ready", "1 NotReady" — one query, for every page's header line."""
    counts = Cluster.objects.aggregate(
        n_total=Count("id"),
        n_ready=Count("id", filter=Q(ready=TRUE)),
        n_not_ready=Count("id", filter=Q(ready=FALSE)),
        n_unknown=Count("id", filter=Q(ready=UNKNOWN)),
    )
    parts = [
        ngettext("%(n)d cluster", "%(n)d clusters", counts["n_total"]) % {"n": counts["n_total"]},
        _("%(n)d Ready") % {"n": counts["n_ready"]},
    ]
    if counts["n_not_ready"]:
        parts.append(_("%(n)d NotReady") % {"n": counts["n_not_ready"]})
    if counts["n_unknown"]:
        parts.append(_("%(n)d Unknown") % {"n": counts["n_unknown"]})
    return parts


def ago(seconds: float) -> str:
    """42 s, 3 min, 2 h, 4 d: short durations for reasons."""
    seconds = max(0, int(seconds))
    if seconds < 120:
        return _("%(n)d s") % {"n": seconds}
    if seconds < 7200:
        return _("%(n)d min") % {"n": seconds // 60}
    if seconds < 172800:
        return _("%(n)d h") % {"n": seconds // 3600}
    return _("%(n)d d") % {"n": seconds // 86400}


def _since(when: datetime | None, now: datetime) -> float:
    return (now - when).total_seconds() if when else 0.0


def reasons(cluster: Cluster, now: datetime | None = None) -> list[str]:
    """Why a cluster is not plainly healthy, in words; empty when it is."""
    now = now or timezone.now()
    found = []
    reference = cluster.last_success_at or cluster.ready_since
    if cluster.ready == FALSE and cluster.ready_reason == "ClusterNotReachable":
        found.append(_("unreachable for %(t)s") % {"t": ago(_since(reference, now))})
    elif cluster.ready == FALSE:
        found.append(
            _("not ready for %(t)s: %(m)s")
            % {"t": ago(_since(cluster.ready_since, now)), "m": cluster.ready_message}
        )
    elif cluster.ready == UNKNOWN:
        found.append(
            _("no health probe for %(t)s") % {"t": ago(_since(cluster.last_probe_at or reference, now))}
        )
    elif cluster.last_probe_at and _since(cluster.last_probe_at, now) >= settings.HEALTH_UNKNOWN_AFTER:
        # No worker has probed it lately: say so rather than show an old Ready as current.
        found.append(_("no health probe for %(t)s") % {"t": ago(_since(cluster.last_probe_at, now))})
    elif cluster.observed and cluster.observed != cluster.ready:
        found.append(_("probe failing since %(t)s ago") % {"t": ago(_since(cluster.observed_since, now))})
    for taint in cluster.taints:
        if taint.get("key") == UNSCHEDULABLE_TAINT:
            found.append(_("cordoned"))
            continue
        added = parse_datetime(str(taint.get("timeAdded") or ""))
        text = describe_taint(taint)
        if added:
            found.append(_("taint %(t)s added %(a)s ago") % {"t": text, "a": ago(_since(added, now))})
        else:
            found.append(_("taint %(t)s") % {"t": text})
    if cluster.nodes_total and cluster.nodes_ready < cluster.nodes_total:
        found.append(
            _("%(n)d of %(t)d nodes NotReady")
            % {"n": cluster.nodes_total - cluster.nodes_ready, "t": cluster.nodes_total}
        )
    for label, share in ((_("CPU"), cluster.cpu_allocation), (_("memory"), cluster.memory_allocation)):
        if share is not None and share >= HOT_ALLOCATION:
            found.append(_("%(r)s %(p)d%% allocated") % {"r": label, "p": round(share * 100)})
    return found


# The columns severity() reads, so the fleet can order every cluster from values() rows.
SEVERITY_FIELDS = (
    "ready",
    "observed",
    "taints",
    "nodes_total",
    "nodes_ready",
    "cpu_allocated",
    "cpu_allocatable",
    "memory_allocated",
    "memory_allocatable",
)


def _share(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def severity_of(row: dict[str, Any]) -> int:
    """Higher is worse: NotReady/Unknown, then pending failures, taints, node and capacity trouble."""
    score = {FALSE: 300, UNKNOWN: 250}.get(row["ready"], 0)
    if row["observed"] and row["observed"] != row["ready"]:
        score += 100
    if row["taints"]:
        score += 20
    if row["nodes_total"] and row["nodes_ready"] < row["nodes_total"]:
        score += 50
    cpu = _share(row["cpu_allocated"], row["cpu_allocatable"])
    memory = _share(row["memory_allocated"], row["memory_allocatable"])
    if max(cpu, memory) >= HOT_ALLOCATION:
        score += 10
    return score


def severity(cluster: Cluster) -> int:
    return severity_of({name: getattr(cluster, name) for name in SEVERITY_FIELDS})


def worst_first(clusters: list[Cluster]) -> list[Cluster]:
    return sorted(clusters, key=lambda c: (-severity(c), c.name))


def worst_first_ids(rows: list[dict[str, Any]]) -> list[int]:
    """The ids of values() rows (id, name and SEVERITY_FIELDS), worst first, then by name."""
    return [row["id"] for row in sorted(rows, key=lambda row: (-severity_of(row), row["name"]))]
