"""What a placement selects clusters on, as index keys, and which keys a cluster change touches."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from scheduling.planner import ClusterSnapshot, InputError, Placement
from scheduling.planner.selectors import ClusterAffinity

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


def cluster_state(name: str, state: Mapping[str, Any]) -> ClusterSnapshot:
    """What an affinity matches on, from a cluster event's state (labels, provider, region, zones)."""
    return ClusterSnapshot(
        name=name,
        labels={str(k): str(v) for k, v in (state.get("labels") or {}).items()},
        provider=str(state.get("provider") or ""),
        region=str(state.get("region") or ""),
        zones=tuple(str(zone) for zone in state.get("zones") or ()),
    )


# Matches every cluster: what a placement without affinity, or one not yet observed, is tested with.
EVERY_CLUSTER = ClusterAffinity()


def deciding_affinity(placement: Mapping[str, Any], observed: str | None) -> ClusterAffinity:
    """The affinity a cluster event is tested against, as Karmada's scheduler enqueues affected bindings.

    The clusterAffinity, or the clusterAffinities term the scheduler observed (``observed`` is its name;
    an unknown name means the first term). EVERY_CLUSTER when the placement names no affinity, when its
    clusterAffinities are not observed for this generation yet (``observed`` None), or when it does not
    parse (the pass reports why).
    """
    try:
        parsed = Placement.from_dict(placement or {})
    except (InputError, TypeError, ValueError, AttributeError):
        return EVERY_CLUSTER
    if parsed.cluster_affinities is not None:
        if observed is None or not parsed.cluster_affinities:
            return EVERY_CLUSTER
        return (parsed.term(observed) or parsed.cluster_affinities[0]).affinity
    return parsed.cluster_affinity or EVERY_CLUSTER


def selects(affinity: ClusterAffinity, states: Iterable[ClusterSnapshot]) -> bool:
    """Whether the affinity matches one of a cluster's states (its old and new one)."""
    return any(affinity.matches(state) for state in states)
