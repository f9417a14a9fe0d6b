"""Suspension of a binding: Karmada's policy-level dispatch suspension merged with an operator's holds.

Karmada's ``RB.spec.suspension`` is the policy's ``suspension {dispatching, dispatchingOnClusters}``
plus the binding's own ``scheduling`` flag (set by third-party systems, here the operator's pause
button).  karmada-ui lets an operator also hold one workload's dispatching, everywhere or on named
clusters, without touching its policy: those holds live beside the binding and are merged in, so
the exported ResourceBinding stays Karmada's shape and resuming a hold never lifts the policy's own.
"""

from __future__ import annotations

from typing import Any

HOLD_KEYS = ("scheduling", "dispatching", "dispatchingOnClusters")


def normal_holds(holds: dict[str, Any] | None) -> dict[str, Any]:
    """An operator's holds in canonical form: only true flags and a sorted, non-empty cluster list."""
    holds = holds or {}
    result: dict[str, Any] = {}
    if holds.get("scheduling") is True:
        result["scheduling"] = True
    if holds.get("dispatching") is True:
        result["dispatching"] = True
    clusters = sorted({str(c) for c in holds.get("dispatchingOnClusters") or [] if c})
    if clusters and not result.get("dispatching"):
        result["dispatchingOnClusters"] = clusters
    return result


def binding_suspension(policy: dict[str, Any] | None, holds: dict[str, Any] | None) -> dict[str, Any] | None:
    """``RB.spec.suspension``: the policy's suspension with the operator's holds added, or None."""
    holds = normal_holds(holds)
    suspension: dict[str, Any] = {}
    policy = policy or {}
    if policy.get("dispatching") is not None:
        suspension["dispatching"] = policy["dispatching"]
    if policy.get("dispatchingOnClusters") is not None:
        suspension["dispatchingOnClusters"] = policy["dispatchingOnClusters"]
    if holds.get("dispatching"):
        suspension["dispatching"] = True
    on_clusters = holds.get("dispatchingOnClusters")
    if on_clusters and suspension.get("dispatching") is not True:
        listed = (suspension.get("dispatchingOnClusters") or {}).get("clusterNames") or []
        suspension["dispatchingOnClusters"] = {"clusterNames": sorted({*listed, *on_clusters})}
    if suspension.get("dispatching") is True:
        suspension.pop("dispatchingOnClusters", None)
    if holds.get("scheduling"):
        suspension["scheduling"] = True
    return suspension or None


def scheduling_suspended(suspension: dict[str, Any] | None) -> bool:
    """Karmada SchedulingSuspended(): the scheduler leaves the binding alone."""
    return bool(suspension) and (suspension or {}).get("scheduling") is True


def dispatching_suspended(suspension: dict[str, Any] | None) -> bool:
    """Dispatching is suspended to every cluster."""
    return bool(suspension) and (suspension or {}).get("dispatching") is True


def suspended_on(suspension: dict[str, Any] | None) -> list[str]:
    """The clusters dispatching is suspended to by name."""
    return list(((suspension or {}).get("dispatchingOnClusters") or {}).get("clusterNames") or [])


def is_suspended(suspension: dict[str, Any] | None) -> bool:
    """Anything is held: scheduling, dispatching, or dispatching to some clusters."""
    return (
        scheduling_suspended(suspension)
        or dispatching_suspended(suspension)
        or bool(suspended_on(suspension))
    )
