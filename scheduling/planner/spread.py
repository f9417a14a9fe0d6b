"""Cluster selection: all candidates, or by spread constraints over clusters and regions (spec §3)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .errors import SchedulerError
from .messages import error_message
from .model import ClusterSnapshot
from .placement import DUPLICATED, Placement, SpreadConstraint

WEIGHT_UNIT = 1000
NO_NEED = -1


@dataclass(slots=True)
class Candidate:
    """A feasible cluster with its score, capacity and overflow tier."""

    name: str
    score: int = 0
    available: int = 0
    allocatable: int = 0
    overflow_order: int = 0
    cluster: ClusterSnapshot | None = None
    capacity: dict[str, Any] | None = None
    region: str = field(init=False, default="")

    def __post_init__(self) -> None:
        self.region = self.cluster.region if self.cluster is not None else ""


def candidate_key(candidate: Candidate) -> tuple[int, int, int, str]:
    """Karmada's candidate order: overflow tier, score desc, available desc, name."""
    return (candidate.overflow_order, -candidate.score, -candidate.available, candidate.name)


@dataclass
class Group:
    """A region as selectGroups sees it: value = its cluster count, weight = its score."""

    name: str
    value: int
    weight: int


@dataclass
class Region:
    """A region's candidates (in candidate order) and its score."""

    name: str
    score: int
    clusters: list[Candidate]


def spread_ignored(placement: Placement) -> bool:
    """Static weighting with no weightPreference or a non-empty static list ignores spread constraints."""
    rs = placement.replica_scheduling
    if rs is None or rs.type != "Divided" or rs.division_preference != "Weighted":
        return False
    return rs.static_weights is None or (len(rs.static_weights) > 0 and not rs.dynamic_weight)


def _constraint(placement: Placement, field: str) -> SpreadConstraint | None:
    found = None
    for constraint in placement.spread_constraints:
        if constraint.spread_by_field == field:
            found = constraint
    return found


def select_clusters(
    placement: Placement, candidates: list[Candidate], replicas: int, trace: dict[str, Any] | None = None
) -> list[Candidate]:
    """Karmada SelectBestClusters: candidates are in candidate order; raises SchedulerError."""
    trace = trace if trace is not None else {}
    if not placement.spread_constraints or spread_ignored(placement):
        trace["method"] = "all"
        return list(candidates)
    rs = placement.replica_scheduling
    need = NO_NEED if rs is None or rs.type == DUPLICATED else replicas
    region = _constraint(placement, "region")
    cluster = _constraint(placement, "cluster")
    if region is not None:
        trace["method"] = "region"
        regions = group_regions(candidates, placement, replicas, region.min_groups)
        return select_by_region(regions, region, cluster, trace)
    if cluster is not None:
        trace["method"] = "cluster"
        return select_by_cluster(candidates, cluster, need, trace)
    raise SchedulerError(error_message("spread_unsupported"))


def select_by_cluster(
    candidates: list[Candidate], constraint: SpreadConstraint, need: int, trace: dict[str, Any] | None = None
) -> list[Candidate]:
    """Pick min(#candidates, maxGroups) clusters, swapping in bigger ones until ``need`` replicas fit."""
    if len(candidates) < constraint.min_groups:
        raise SchedulerError(error_message("too_few_clusters"))
    count = min(len(candidates), constraint.max_groups)
    if trace is not None:
        trace["limit"] = count
    chosen = list(candidates[:count])
    if need == NO_NEED:
        return chosen
    rest = list(candidates[count:])
    position = len(chosen) - 1
    swaps = []
    while sum(c.available for c in chosen) < need and position >= 0:
        best = -1
        most = chosen[position].available
        for index, other in enumerate(rest):
            if other.available > most:
                best, most = index, other.available
        if best != -1:
            swaps.append({"out": chosen[position].name, "in": rest[best].name})
            chosen[position], rest[best] = rest[best], chosen[position]
        position -= 1
    if trace is not None and swaps:
        trace["swaps"] = swaps
    if sum(c.available for c in chosen) < need:
        raise SchedulerError(error_message("not_enough_resource", count=count))
    return chosen


def group_score(clusters: list[Candidate], replicas: int, placement: Placement, min_groups: int) -> int:
    """Karmada calcGroupScore: capacity in units of 1000, cluster scores to break ties."""
    if placement.scheduling_type == DUPLICATED:
        valid = [c for c in clusters if c.available >= replicas]
        if not valid:
            return 0
        return len(valid) * WEIGHT_UNIT + sum(c.score for c in valid) // len(valid)
    target = math.ceil(replicas / max(min_groups, 1))
    cluster_constraint = _constraint(placement, "cluster")
    needed = max(cluster_constraint.min_groups if cluster_constraint else 0, min_groups)
    total_available = total_score = taken = 0
    for cluster in clusters:
        total_available += cluster.available
        total_score += cluster.score
        taken += 1
        if taken >= needed and total_available >= target:
            break
    if total_available < target:
        return total_available * WEIGHT_UNIT + total_score // len(clusters)
    return target * WEIGHT_UNIT + total_score // taken


def group_regions(
    candidates: list[Candidate], placement: Placement, replicas: int, min_groups: int
) -> list[Region]:
    """Candidates with a region, grouped by it (candidate order kept), each region scored."""
    by_name: dict[str, list[Candidate]] = {}
    for candidate in candidates:
        if candidate.region:
            by_name.setdefault(candidate.region, []).append(candidate)
    return [
        Region(name, group_score(members, replicas, placement, min_groups), members)
        for name, members in sorted(by_name.items())
    ]


def select_groups(groups: list[Group], min_groups: int, max_groups: int, target: int) -> list[Group]:
    """Karmada selectGroups: depth-first feasible combinations, best weight, then shorter prefixes."""
    if not groups:
        return []
    ordered = sorted(groups, key=lambda g: (g.value, -g.weight, g.name))
    paths: list[tuple[int, int, int, list[Group]]] = []
    path: list[Group] = []

    def search(total: int, begin: int) -> None:
        if total >= target and min_groups <= len(path) <= max_groups:
            members = sorted(path, key=lambda g: (-g.weight, g.name))
            weight = sum(g.weight for g in members)
            paths.append((len(paths) + 1, weight, sum(g.value for g in members), members))
            return
        if len(path) >= max_groups:
            return
        for index in range(begin, len(ordered)):
            path.append(ordered[index])
            search(total + ordered[index].value, index + 1)
            if len(ordered) == min_groups:
                break
            path.pop()

    search(0, 0)
    if not paths:
        return []
    ranked = sorted(paths, key=lambda p: (-p[1], -p[2], p[0]))
    best = ranked[0][3]
    for _, _, _, members in ranked[1:]:
        if len(members) < len(best) and all(a.name == b.name for a, b in zip(members, best, strict=False)):
            best = members
    return best


def select_by_region(
    regions: list[Region],
    region_constraint: SpreadConstraint,
    cluster_constraint: SpreadConstraint | None,
    trace: dict[str, Any] | None = None,
) -> list[Candidate]:
    """Choose regions with selectGroups, then the first cluster of each and the best of the rest."""
    if len(regions) < region_constraint.min_groups:
        raise SchedulerError(error_message("too_few_regions"))
    by_name = {region.name: region for region in regions}
    groups = [Group(region.name, len(region.clusters), region.score) for region in regions]
    cluster_min = cluster_constraint.min_groups if cluster_constraint else 0
    cluster_max = cluster_constraint.max_groups if cluster_constraint else 0
    chosen = select_groups(groups, region_constraint.min_groups, region_constraint.max_groups, cluster_min)
    if trace is not None:
        trace["regions"] = [
            {"name": r.name, "score": r.score, "clusters": [c.name for c in r.clusters]} for r in regions
        ]
        trace["chosen_regions"] = [group.name for group in chosen]
    if not chosen:
        raise SchedulerError(error_message("no_region_combination"))
    selected = [by_name[group.name].clusters[0] for group in chosen]
    rest = [c for group in chosen for c in by_name[group.name].clusters[1:]]
    count = min(len(rest) + len(selected), cluster_max)
    if trace is not None:
        trace["limit"] = count
    if count - len(selected) > 0:
        rest.sort(key=candidate_key)
        selected.extend(rest[: count - len(selected)])
    return selected
