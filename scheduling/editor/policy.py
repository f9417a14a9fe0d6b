"""A policy document as a plain dict: kinds, a new policy's skeleton, and typed reads of its parts."""

from __future__ import annotations

from typing import Any

from scheduling.planner import DIVISION_ANNOTATION, WEBSTER

API_VERSION = "policy.karmada.io/v1alpha1"
PROPAGATION_POLICY = "PropagationPolicy"
CLUSTER_PROPAGATION_POLICY = "ClusterPropagationPolicy"
KINDS = (PROPAGATION_POLICY, CLUSTER_PROPAGATION_POLICY)


def new_policy(kind: str = PROPAGATION_POLICY, namespace: str = "default") -> dict[str, Any]:
    """The document a new policy starts from: one Deployment selector and no placement yet."""
    metadata: dict[str, Any] = {"name": ""}
    if kind == PROPAGATION_POLICY:
        metadata["namespace"] = namespace
    selector: dict[str, Any] = {"apiVersion": "apps/v1", "kind": "Deployment", "name": ""}
    if kind == PROPAGATION_POLICY:
        selector["namespace"] = namespace
    return {
        "apiVersion": API_VERSION,
        "kind": kind,
        "metadata": metadata,
        "spec": {"resourceSelectors": [selector], "placement": {}},
    }


def as_map(value: Any) -> dict[str, Any]:
    """``value`` when it is a mapping, otherwise an empty one (read-only use)."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def metadata(doc: dict[str, Any]) -> dict[str, Any]:
    return as_map(doc.get("metadata"))


def spec(doc: dict[str, Any]) -> dict[str, Any]:
    return as_map(doc.get("spec"))


def placement(doc: dict[str, Any]) -> dict[str, Any]:
    return as_map(spec(doc).get("placement"))


def division_method(doc: dict[str, Any]) -> str:
    """The division method annotation as written (webster when absent)."""
    value = as_map(metadata(doc).get("annotations")).get(DIVISION_ANNOTATION)
    return value if isinstance(value, str) and value else WEBSTER


def is_cluster_scoped(doc: dict[str, Any]) -> bool:
    return doc.get("kind") == CLUSTER_PROPAGATION_POLICY
