"""A whole policy document checked as the apply path will check it, each problem with its field path."""

from __future__ import annotations

from typing import Any

from scheduling.editor import policy
from scheduling.karmada.webhooks import SpecInvalid, validate_metadata, validate_propagation_spec
from scheduling.planner import (
    DIVISION_ANNOTATION,
    InputError,
    division_method_from_annotations,
    rollout_spec_from_annotations,
)

Problem = tuple[str, str]


def validate_policy(doc: dict[str, Any]) -> list[Problem]:
    """Every problem as (field path, message), from the same webhook checks apply runs; empty when valid."""
    problems: list[Problem] = []
    if doc.get("apiVersion") != policy.API_VERSION:
        problems.append(("apiVersion", f"must be {policy.API_VERSION}"))
    kind = doc.get("kind")
    if kind not in policy.KINDS:
        problems.append(("kind", f"must be {' or '.join(policy.KINDS)}"))
        kind = policy.PROPAGATION_POLICY
    namespaced = kind == policy.PROPAGATION_POLICY
    meta = doc.get("metadata")
    problems += validate_metadata(meta, namespaced)
    meta = meta if isinstance(meta, dict) else {}
    if namespaced and not meta.get("namespace"):
        problems.append(("metadata.namespace", "is required"))
    annotations = meta.get("annotations")
    if isinstance(annotations, dict):
        try:
            division_method_from_annotations(annotations)
        except InputError as exc:
            problems.append((f"metadata.annotations[{DIVISION_ANNOTATION}]", exc.message))
        try:
            rollout_spec_from_annotations(annotations)
        except InputError as exc:
            problems.append((exc.path, exc.message))
    try:
        validate_propagation_spec(kind, str(meta.get("namespace") or ""), doc.get("spec"))
    except SpecInvalid as exc:
        problems += exc.errors
    return problems
