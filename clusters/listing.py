"""The cluster list's query: label-selector filter and sort over every cluster in one query, ids out."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from clusters.models import Cluster
from kubesyntax.selector_maps import to_selector

# sort name -> (fields to read, key function); "-name" etc. reverse.
SORTS = {
    "name": ("name",),
    "status": ("ready", "name"),
    "version": ("kubernetes_version", "name"),
    "region": ("region", "name"),
    "nodes": ("nodes_total", "name"),
    "cpu": ("cpu_allocated", "cpu_allocatable", "name"),
    "memory": ("memory_allocated", "memory_allocatable", "name"),
}
SORTS.update({f"-{name}": fields for name, fields in list(SORTS.items())})
STATUS_ORDER = {"False": 0, "Unknown": 1, "True": 2}
# Columns no list row shows: the collected status document (nodes, API enablements) and the credentials.
UNLISTED = ("status", "credentials")


def listed(rows: QuerySet[Cluster]) -> QuerySet[Cluster]:
    """Clusters as the list pages read them: without the columns no row shows."""
    return rows.defer(*UNLISTED)


@dataclass(frozen=True)
class ListQuery:
    selector: str = ""
    sort: str = "name"


def _key(row: dict, sort: str) -> tuple:
    name = sort.lstrip("-")
    if name == "status":
        return (STATUS_ORDER.get(row["ready"], 1), row["name"])
    if name in ("cpu", "memory"):
        allocatable = row[f"{name}_allocatable"]
        share = row[f"{name}_allocated"] / allocatable if allocatable else -1.0
        return (share, row["name"])
    return tuple(row[f] for f in SORTS[name])


def filter_clusters(query: ListQuery) -> list[int]:
    """Ids of the clusters the selector matches, sorted; raises SelectorError on a bad selector."""
    selector = to_selector(query.selector.strip())
    sort = query.sort if query.sort in SORTS else "name"
    fields = {"id", "labels", "name", *SORTS[sort.lstrip("-")]}
    if sort.lstrip("-") in ("cpu", "memory"):
        fields |= {f"{sort.lstrip('-')}_allocated", f"{sort.lstrip('-')}_allocatable"}
    rows = [row for row in Cluster.objects.values(*fields) if selector.matches(row["labels"])]
    rows.sort(key=lambda row: _key(row, sort), reverse=sort.startswith("-"))
    return [row["id"] for row in rows]
