"""What a placement selects clusters on, as index keys, and which keys a cluster change touches."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

# A placement that names no label, field or cluster selects every cluster: any cluster event concerns it.
ANY = "any"
CLUSTER_FIELDS = ("provider", "region", "zone")


def label_key(key: str) -> str:
    return f"label:{key}"


def field_key(name: str) -> str:
    return f"field:{name}"


def name_key(cluster: str) -> str:
    return f"name:{cluster}"


def _selector_label_keys(selector: Any) -> set[str]:
    if not isinstance(selector, Mapping):
        return set()
    keys = {str(key) for key in (selector.get("matchLabels") or {})}
    keys |= {
        str(expr.get("key")) for expr in selector.get("matchExpressions") or [] if isinstance(expr, dict)
    }
    return keys


def affinity_keys(affinity: Any) -> set[str]:
    """The keys one clusterAffinity (or a ClusterAffinity-shaped target) selects on."""
    if not isinstance(affinity, Mapping):
        return {ANY}
    keys = {label_key(key) for key in _selector_label_keys(affinity.get("labelSelector"))}
    field_selector = affinity.get("fieldSelector")
    if isinstance(field_selector, Mapping):
        for expr in field_selector.get("matchExpressions") or []:
            if isinstance(expr, dict) and expr.get("key"):
                keys.add(field_key(str(expr["key"])))
    for name in [*(affinity.get("clusterNames") or []), *(affinity.get("exclude") or [])]:
        keys.add(name_key(str(name)))
    if not (affinity.get("labelSelector") or affinity.get("fieldSelector") or affinity.get("clusterNames")):
        keys.add(ANY)  # only exclusions, or nothing: every other cluster is a candidate
    return keys


def placement_keys(placement: Mapping[str, Any]) -> set[str]:
    """Every key a placement's cluster choice depends on: affinities, and spread constraints' fields
    and labels (a label or field a spread constraint groups by changes the groups)."""
    terms = [
        term.get("affinity") for term in placement.get("clusterAffinities") or [] if isinstance(term, dict)
    ]
    if not terms:
        terms = [placement.get("clusterAffinity")]
    keys: set[str] = set()
    for affinity in terms:
        keys |= affinity_keys(affinity) if affinity is not None else {ANY}
    for constraint in placement.get("spreadConstraints") or []:
        if not isinstance(constraint, dict):
            continue
        if constraint.get("spreadByField") and constraint["spreadByField"] != "cluster":
            keys.add(field_key(str(constraint["spreadByField"])))
        if constraint.get("spreadByLabel"):
            keys.add(label_key(str(constraint["spreadByLabel"])))
    return keys


def override_label_keys(spec: Mapping[str, Any]) -> set[str]:
    """The cluster label and field keys an OverridePolicy's targetCluster terms select on."""
    keys: set[str] = set()
    for rule in spec.get("overrideRules") or []:
        if isinstance(rule, dict) and rule.get("targetCluster"):
            keys |= affinity_keys(rule["targetCluster"])
    if spec.get("targetCluster"):
        keys |= affinity_keys(spec["targetCluster"])
    return keys - {ANY}


def changed_label_keys(old: Mapping[str, str], new: Mapping[str, str]) -> set[str]:
    """Keys added, removed or given another value."""
    return {key for key in set(old) | set(new) if old.get(key) != new.get(key)}


def every_key_of(name: str, labels: Iterable[str]) -> set[str]:
    """The keys under which any placement could select this cluster: for events that change whether a
    cluster can take workloads at all (joined, removed, taints, readiness)."""
    keys = {ANY, name_key(name)} | {label_key(key) for key in labels}
    return keys | {field_key(field) for field in CLUSTER_FIELDS}
