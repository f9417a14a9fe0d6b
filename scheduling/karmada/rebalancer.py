"""WorkloadRebalancer (apps.karmada.io/v1alpha1): its spec checked as Karmada's CRD does, and its status.

Each listed workload gets one fresh reschedule of its binding; the status records, per workload,
Successful, or Failed with the reason NotFound when it has no binding, as Karmada's controller does.
"""

from __future__ import annotations

from typing import Any

from core.errors import FieldErrors

SUCCESSFUL = "Successful"
FAILED = "Failed"
NOT_FOUND = "NotFound"
REFERENCE_FIELDS = ("apiVersion", "kind", "name", "namespace")


def workloads_of(spec: Any) -> list[dict[str, str]]:
    """spec.workloads as references {apiVersion, kind, name[, namespace]}; FieldErrors name each bad one."""
    problems: dict[str, list[str]] = {}
    if not isinstance(spec, dict):
        raise FieldErrors({"spec": ["Required value: the rebalancer needs a spec with workloads"]})
    listed = spec.get("workloads")
    if not isinstance(listed, list) or not listed:
        raise FieldErrors({"spec.workloads": ["Required value: list at least one workload"]})
    references: list[dict[str, str]] = []
    for index, item in enumerate(listed):
        where = f"spec.workloads[{index}]"
        if not isinstance(item, dict):
            problems.setdefault(where, []).append("must be an object reference")
            continue
        for key in ("apiVersion", "kind", "name"):
            if not isinstance(item.get(key), str) or not item.get(key):
                problems.setdefault(f"{where}.{key}", []).append("Required value")
        unknown = sorted(set(item) - set(REFERENCE_FIELDS))
        if unknown:
            problems.setdefault(f"{where}.{unknown[0]}", []).append("unknown field")
        reference = {k: str(item[k]) for k in REFERENCE_FIELDS if item.get(k)}
        if reference in references:
            problems.setdefault(where, []).append("Duplicate value: listed twice")
        references.append(reference)
    ttl = spec.get("ttlSecondsAfterFinished")
    if ttl is not None and (not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 0):
        problems.setdefault("spec.ttlSecondsAfterFinished", []).append("must be a non-negative integer")
    if problems:
        raise FieldErrors(problems)
    return references


def observed(reference: dict[str, str], found: bool) -> dict[str, Any]:
    """One workload's line of status.observedWorkloads."""
    if found:
        return {"workload": reference, "result": SUCCESSFUL}
    return {"workload": reference, "result": FAILED, "reason": NOT_FOUND}


def sort_key(entry: dict[str, Any]) -> tuple[str, ...]:
    workload = entry.get("workload") or {}
    return tuple(str(workload.get(k, "")) for k in REFERENCE_FIELDS)
