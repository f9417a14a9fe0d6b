"""FederatedResourceQuota enforcement at scheduling: a split that takes the namespace over its overall quota.

Karmada (1.14+, FederatedQuotaEnforcement) judges a binding's write by its change in usage: usage is
the replicas on its clusters times its per-replica requests, summed per resource; only the resources
named in ``spec.overall`` count.  When the change is zero for every counted resource the write passes;
otherwise the namespace's usage plus the change must stay within every limit, else the write is
refused with ``QuotaExceeded`` and the previous result stays.  Bindings already placed are never
moved: lowering a quota below its usage only stops further growth (and any change that stays over).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from kubesyntax.resources import format_resource

from .errors import ScheduleFailure
from .messages import error_message
from .model import ReplicaRequirements, Resources, TargetCluster

QUOTA_EXCEEDED = "QuotaExceeded"
_ZERO = Fraction(0)


class QuotaExceededError(ScheduleFailure):
    """The binding's new result would exceed a FederatedResourceQuota: the previous result is kept.

    ``trace`` is the per-quota check the explanation carries.
    """

    reason = QUOTA_EXCEEDED

    def __init__(self, message: str, trace: dict[str, Any]) -> None:
        super().__init__(message)
        self.trace = trace


@dataclass(frozen=True)
class QuotaSnapshot:
    """A FederatedResourceQuota of the binding's namespace: its ``spec.overall`` and the usage now.

    ``used`` is the namespace's ``status.overallUsed``: every ResourceBinding's usage as it stands,
    the binding being scheduled included.
    """

    namespace: str
    name: str
    overall: Resources = field(default_factory=dict)
    used: Resources = field(default_factory=dict)


def binding_usage(requirements: ReplicaRequirements | None, clusters: Iterable[TargetCluster]) -> Resources:
    """Karmada's CalculateResourceUsage: the replicas on all clusters times each non-zero request."""
    if requirements is None or not requirements.resource_request:
        return {}
    replicas = sum(target.replicas for target in clusters)
    if replicas == 0:
        return {}
    return {name: amount * replicas for name, amount in requirements.resource_request.items() if amount != 0}


def add_usage(total: dict[str, Fraction], usage: Mapping[str, Fraction]) -> None:
    """Add one binding's usage into a running total, in place."""
    for name, amount in usage.items():
        total[name] = total.get(name, _ZERO) + amount


def _counted(usage: Mapping[str, Fraction], overall: Mapping[str, Fraction]) -> dict[str, Fraction]:
    return {name: usage[name] for name in overall if name in usage}


def check_quota(
    quotas: Sequence[QuotaSnapshot],
    namespace: str,
    before: Resources,
    after: Resources,
) -> dict[str, Any]:
    """Judge a change of one binding's usage from ``before`` to ``after`` against every quota.

    Returns the trace the explanation carries; raises QuotaExceededError (Karmada's message for the
    first quota and resource over, plus by how much) when a quota refuses it.
    """
    delta = {name: after.get(name, _ZERO) - before.get(name, _ZERO) for name in {*before, *after}}
    trace: dict[str, Any] = {
        "before": _formatted(before),
        "after": _formatted(after),
        "quotas": [],
        "exceeded": False,
    }
    refusal = ""
    for quota in sorted(quotas, key=lambda q: q.name):
        if quota.namespace != namespace or not quota.overall:
            continue
        counted = _counted(delta, quota.overall)
        entry: dict[str, Any] = {"namespace": quota.namespace, "name": quota.name, "resources": []}
        trace["quotas"].append(entry)
        if all(amount == 0 for amount in counted.values()):
            entry["unchanged"] = True
            continue
        projected = dict(_counted(quota.used, quota.overall))
        add_usage(projected, counted)
        for name in sorted(quota.overall):
            limit = quota.overall[name]
            used = quota.used.get(name, _ZERO)
            total = projected.get(name, _ZERO)
            over = total - limit if total > limit else _ZERO
            entry["resources"].append(
                {
                    "resource": name,
                    "limit": format_resource(name, limit),
                    "used": format_resource(name, used),
                    "change": _signed(counted.get(name, _ZERO), name),
                    "projected": format_resource(name, total),
                    "over": format_resource(name, over) if over else None,
                }
            )
            if over and not refusal:
                refusal = error_message(
                    "quota_exceeded",
                    namespace=quota.namespace,
                    name=quota.name,
                    resource=name,
                    requested=format_resource(name, total),
                    limit=format_resource(name, limit),
                    over=format_resource(name, over),
                )
        entry["exceeded"] = any(r["over"] for r in entry["resources"])
    if refusal:
        trace["exceeded"] = True
        trace["message"] = refusal
        raise QuotaExceededError(refusal, trace)
    return trace


def _formatted(usage: Mapping[str, Fraction]) -> dict[str, str]:
    return {name: format_resource(name, amount) for name, amount in sorted(usage.items())}


def _signed(amount: Fraction, name: str) -> str:
    if amount < 0:
        return "-" + format_resource(name, -amount)
    return "+" + format_resource(name, amount)
