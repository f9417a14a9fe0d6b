"""Webhook-style validation of a placement dict: a list of (field path, message), empty when valid."""

from __future__ import annotations

from typing import Any

from kubesyntax.names import label_key_error
from kubesyntax.taints import TOLERATION_OPERATORS

from .errors import InputError
from .placement import DIVIDED, Placement
from .selectors import ClusterAffinity, validate_field_selector


def _overflow_allowed(placement: Placement) -> bool:
    rs = placement.replica_scheduling
    if rs is None or rs.type != DIVIDED:
        return False
    if rs.division_preference == "Aggregated":
        return True
    return rs.division_preference == "Weighted" and bool(rs.dynamic_weight)


def _affinity_problems(affinity: ClusterAffinity | None, path: str) -> list[tuple[str, str]]:
    if affinity is None:
        return []
    problem = validate_field_selector(affinity.field_selector)
    return [(f"{path}.fieldSelector" if path else "fieldSelector", problem)] if problem else []


def _affinity_name_problem(name: str) -> str | None:
    if not name:
        return "must not be empty"
    if len(name) > 32:
        return "must be at most 32 characters"
    return label_key_error(name)


def validate_placement(data: Any) -> list[tuple[str, str]]:
    """Check a placement dict the way Karmada's webhook and CRD schema do (paths relative to placement)."""
    try:
        placement = Placement.from_dict(data)
    except InputError as exc:
        return [(exc.path, exc.message)]
    problems: list[tuple[str, str]] = []
    if placement.cluster_affinity is not None and placement.cluster_affinities is not None:
        problems.append(("clusterAffinities", "cannot be set together with clusterAffinity"))
    problems += _affinity_problems(placement.cluster_affinity, "clusterAffinity")
    seen: set[str] = set()
    for i, term in enumerate(placement.cluster_affinities or ()):
        path = f"clusterAffinities[{i}]"
        problem = _affinity_name_problem(term.name)
        if problem:
            problems.append((f"{path}.affinityName", problem))
        if term.name in seen:
            problems.append(
                (f"{path}.affinityName", "each affinity term in a policy must have a unique name")
            )
        seen.add(term.name)
        problems += _affinity_problems(term.affinity, path)
        if term.overflow is None:
            continue
        if not _overflow_allowed(placement):
            problems.append(
                (
                    f"{path}.overflowAffinities",
                    "can only be used together with dynamic weight or aggregated scheduling",
                )
            )
        if term.affinity.is_empty():
            problems.append(
                (f"{path}.overflowAffinities", "can only be used together with the inline ClusterAffinity")
            )
        names = {term.name}
        for j, overflow in enumerate(term.overflow):
            overflow_path = f"{path}.overflowAffinities[{j}]"
            problem = _affinity_name_problem(overflow.name)
            if problem:
                problems.append((f"{overflow_path}.affinityName", problem))
            if overflow.name in names:
                problems.append(
                    (
                        f"{overflow_path}.affinityName",
                        "must be unique and must not duplicate the primary group's affinityName",
                    )
                )
            names.add(overflow.name)
            problems += _affinity_problems(overflow.affinity, overflow_path)
    fields: set[str] = set()
    for i, constraint in enumerate(placement.spread_constraints):
        path = f"spreadConstraints[{i}]"
        if constraint.spread_by_field and constraint.spread_by_label:
            problems.append((path, "spreadByLabel should not co-exist with spreadByField"))
        if constraint.min_groups < 0:
            problems.append((f"{path}.minGroups", "must be >= 0"))
        if constraint.max_groups < 0:
            problems.append((f"{path}.maxGroups", "must be >= 0"))
        if 0 < constraint.max_groups < constraint.min_groups:
            problems.append((f"{path}.maxGroups", "must be >= minGroups"))
        if constraint.spread_by_field:
            if constraint.spread_by_field in fields:
                problems.append(
                    (
                        f"{path}.spreadByField",
                        f"multiple {constraint.spread_by_field} spread constraints are not allowed",
                    )
                )
            fields.add(constraint.spread_by_field)
    if fields and "cluster" not in fields:
        problems.append(
            ("spreadConstraints", "a cluster spread constraint is required when spreadByField is used")
        )
    for i, toleration in enumerate(placement.cluster_tolerations):
        if toleration.operator not in TOLERATION_OPERATORS:
            problems.append((f"clusterTolerations[{i}].operator", 'must be "", "Exists" or "Equal"'))
    problems += _workload_affinity_problems(data.get("workloadAffinity") if isinstance(data, dict) else None)
    return problems


def _workload_affinity_problems(data: Any) -> list[tuple[str, str]]:
    """workloadAffinity: each groupByLabelKey a valid label key, and affinity and antiAffinity keys differ."""
    if not isinstance(data, dict):
        return []
    problems = []
    keys = {}
    for part in ("affinity", "antiAffinity"):
        term = data.get(part)
        if not isinstance(term, dict):
            continue
        key = term.get("groupByLabelKey")
        path = f"workloadAffinity.{part}.groupByLabelKey"
        if not isinstance(key, str) or not key:
            problems.append((path, "must be a non-empty label key"))
            continue
        problem = label_key_error(key)
        if problem:
            problems.append((path, problem))
        keys[part] = key
    if len(keys) == 2 and keys["affinity"] == keys["antiAffinity"]:
        problems.append(
            ("workloadAffinity", "affinity and antiAffinity must not use the same groupByLabelKey")
        )
    return problems
