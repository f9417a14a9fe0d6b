"""The template's status aggregated from its member copies, as Karmada's default AggregateStatus."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from scheduling.karmada.interpreter import REPLICA_COUNTS

# Pod and volume phases, worst first: the template shows the worst any member reports (Karmada #2137).
POD_PHASES = ("Failed", "Pending", "Running", "Succeeded")


@dataclass(frozen=True)
class MemberStatus:
    """One target cluster's reflected status; None until the member copy has reported."""

    cluster: str
    status: dict[str, Any] | None


def aggregate_status(
    manifest: dict[str, Any],
    generation: int,
    old: dict[str, Any],
    members: Sequence[MemberStatus],
    now: str,
) -> dict[str, Any]:
    """The template's new status from every target cluster's; the old one for kinds Karmada leaves alone.

    `now` (RFC 3339) stamps conditions that changed; unchanged conditions keep their times, so a quiet
    fleet writes nothing.
    """
    kind = str(manifest.get("kind") or "")
    if not members:
        return old
    if kind in REPLICA_COUNTS and kind != "ReplicaSet":
        return _replicated(kind, generation, old, members, now)
    aggregator = _AGGREGATORS.get(kind)
    if aggregator is None:
        return old
    return aggregator(manifest, old, members, now)


def _observed_latest(status: dict[str, Any] | None, generation: int) -> bool:
    """Karmada: the member caught up with its own spec, and that spec came from the latest template."""
    if status is None:
        return False
    return (
        status.get("generation", 0) == status.get("observedGeneration", 0)
        and status.get("resourceTemplateGeneration", 0) == generation
    )


def _replicated(
    kind: str, generation: int, old: dict[str, Any], members: Sequence[MemberStatus], now: str
) -> dict[str, Any]:
    """Deployment, StatefulSet, DaemonSet: counts summed; observedGeneration only once all caught up."""
    reported = [m.status for m in members if m.status is not None]
    new: dict[str, Any] = {}
    if all(_observed_latest(m.status, generation) for m in members):
        new["observedGeneration"] = generation
    elif old.get("observedGeneration"):
        new["observedGeneration"] = old["observedGeneration"]
    for key in REPLICA_COUNTS[kind]:
        total = sum(int(status.get(key) or 0) for status in reported)
        if total:  # Kubernetes leaves zero counts out of a status
            new[key] = total
    if kind == "Deployment":
        conditions = _deployment_conditions(old, members, now)
        if conditions:
            new["conditions"] = conditions
    return new


def _member_condition(status: dict[str, Any] | None, type_: str) -> dict[str, Any] | None:
    for condition in (status or {}).get("conditions") or []:
        if condition.get("type") == type_:
            return dict(condition)
    return None


def _stamped(old: dict[str, Any], condition: dict[str, Any], now: str, update_time: bool) -> dict[str, Any]:
    """The condition with Kubernetes' times: the transition time moves only when the status does."""
    previous = _member_condition(old, condition["type"]) or {}
    same_status = previous.get("status") == condition["status"]
    same_words = same_status and all(previous.get(key) == condition.get(key) for key in ("reason", "message"))
    stamped = dict(condition)
    if update_time:
        stamped["lastUpdateTime"] = previous.get("lastUpdateTime", now) if same_words else now
    stamped["lastTransitionTime"] = previous.get("lastTransitionTime", now) if same_status else now
    return stamped


def _deployment_conditions(
    old: dict[str, Any], members: Sequence[MemberStatus], now: str
) -> list[dict[str, Any]]:
    """Available and Progressing over every member (karmada-ui: Karmada aggregates no conditions here,
    but `kubectl wait --for=condition=Available` and `rollout status`'s deadline check read them)."""
    available = {m.cluster: _member_condition(m.status, "Available") for m in members}
    progressing = {m.cluster: _member_condition(m.status, "Progressing") for m in members}
    if not any(available.values()) and not any(progressing.values()):
        return []
    conditions = []
    lacking = sorted(c for c, cond in available.items() if cond is None or cond.get("status") != "True")
    if lacking:
        condition = {
            "type": "Available",
            "status": "False",
            "reason": "MinimumReplicasUnavailable",
            "message": f"Deployment does not have minimum availability in {', '.join(lacking)}.",
        }
    else:
        condition = {
            "type": "Available",
            "status": "True",
            "reason": "MinimumReplicasAvailable",
            "message": "Deployment has minimum availability in every member cluster.",
        }
    conditions.append(_stamped(old, condition, now, update_time=True))
    stalled = sorted(
        c for c, cond in progressing.items() if cond and cond.get("reason") == "ProgressDeadlineExceeded"
    )
    rolling = sorted(
        c for c, cond in progressing.items() if cond is None or cond.get("reason") != "NewReplicaSetAvailable"
    )
    if stalled:
        condition = {
            "type": "Progressing",
            "status": "False",
            # kubectl rollout status stops with an error on exactly this reason
            "reason": "ProgressDeadlineExceeded",
            "message": f"Deployment exceeded its progress deadline in {', '.join(stalled)}.",
        }
    elif rolling:
        condition = {
            "type": "Progressing",
            "status": "True",
            "reason": "ReplicaSetUpdated",
            "message": f"Deployment is progressing in {', '.join(rolling)}.",
        }
    else:
        condition = {
            "type": "Progressing",
            "status": "True",
            "reason": "NewReplicaSetAvailable",
            "message": "Deployment has successfully progressed in every member cluster.",
        }
    conditions.append(_stamped(old, condition, now, update_time=True))
    return conditions


def _job_finished(status: dict[str, Any] | None) -> str:
    """Complete or Failed when the Job has finished, else the empty string."""
    for condition in (status or {}).get("conditions") or []:
        if condition.get("type") in ("Complete", "Failed") and condition.get("status") == "True":
            return str(condition["type"])
    return ""


def _job(
    manifest: dict[str, Any], old: dict[str, Any], members: Sequence[MemberStatus], now: str
) -> dict[str, Any]:
    """Counts summed; Failed when any member failed, Complete once every one completed (then frozen)."""
    if _job_finished(old):
        return old  # Karmada never updates a finished Job's status again
    reported = [m for m in members if m.status is not None]
    new: dict[str, Any] = {}
    for key in ("active", "succeeded", "failed"):
        total = sum(int((m.status or {}).get(key) or 0) for m in reported)
        if total:
            new[key] = total
    starts = [str(m.status["startTime"]) for m in reported if m.status and m.status.get("startTime")]
    if starts:
        new["startTime"] = min(starts)
    completions = [
        str(m.status["completionTime"]) for m in reported if m.status and m.status.get("completionTime")
    ]
    if completions and len(completions) == len(members):
        new["completionTime"] = max(completions)
    failed = sorted(m.cluster for m in reported if _job_finished(m.status) == "Failed")
    conditions = []
    if failed:
        conditions.append(
            {
                "type": "Failed",
                "status": "True",
                "reason": "JobFailed",
                "message": f"Job executed failed in member clusters {', '.join(failed)}",
            }
        )
    if all(_job_finished(m.status) == "Complete" for m in members):
        conditions.append(
            {"type": "Complete", "status": "True", "reason": "Completed", "message": "Job completed"}
        )
    if conditions:
        new["conditions"] = [
            {**_stamped(old, c, now, update_time=False), "lastProbeTime": now} for c in conditions
        ]
    return new


def _cron_job(
    manifest: dict[str, Any], old: dict[str, Any], members: Sequence[MemberStatus], now: str
) -> dict[str, Any]:
    """Active Jobs of every member; the latest schedule and success times any member reports."""
    new: dict[str, Any] = {}
    active = [ref for m in members for ref in (m.status or {}).get("active") or []]
    if active:
        new["active"] = active
    for key in ("lastScheduleTime", "lastSuccessfulTime"):
        times = [str(m.status[key]) for m in members if m.status and m.status.get(key)]
        if times:
            new[key] = max(times)
    return new


def _load_balancer(
    manifest: dict[str, Any], old: dict[str, Any], members: Sequence[MemberStatus], now: str
) -> dict[str, Any]:
    """Services of type LoadBalancer and Ingresses: every member's ingress points, named by cluster."""
    if manifest.get("kind") == "Service" and (manifest.get("spec") or {}).get("type") != "LoadBalancer":
        return old
    ingress = []
    for member in members:
        for point in ((member.status or {}).get("loadBalancer") or {}).get("ingress") or []:
            ingress.append(
                {"hostname": member.cluster, **point} if not point.get("hostname") else dict(point)
            )
    return {"loadBalancer": {"ingress": ingress}} if ingress else {"loadBalancer": {}}


def _pod(
    manifest: dict[str, Any], old: dict[str, Any], members: Sequence[MemberStatus], now: str
) -> dict[str, Any]:
    """The worst phase any member reports; a member yet to report counts as Pending."""
    phases = {str((m.status or {}).get("phase") or "Pending") for m in members}
    for phase in POD_PHASES:
        if phase in phases:
            return {"phase": phase}
    return old


_AGGREGATORS: dict[
    str, Callable[[dict[str, Any], dict[str, Any], Sequence[MemberStatus], str], dict[str, Any]]
] = {
    "Job": _job,
    "CronJob": _cron_job,
    "Service": _load_balancer,
    "Ingress": _load_balancer,
    "Pod": _pod,
}
