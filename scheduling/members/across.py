"""A workload across its member clusters: per cluster the live copy's status, its pods and the Events of
copy and pods, read from every cluster at once; a cluster that does not answer is named in its own row."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from clusters import fanout
from clusters.k8s import ClusterEvent, NotFound, PodState, list_events, list_pod_states, objects
from clusters.models import Cluster
from kubesyntax.selector_maps import selector_from_map
from kubesyntax.selectors import SelectorError
from scheduling.karmada.interpreter import interpret_health, reflect_status
from scheduling.models import ResourceBinding, ResourceTemplate, Work

# Each member call may take this long (connect, read); the whole fan-out answers within DEADLINE.
CALL_TIMEOUT = (1.0, 2.0)
DEADLINE = 2.5
MAX_EVENTS = 200


@dataclass(frozen=True)
class MemberCopy:
    """What one cluster runs of the workload, or why that could not be read."""

    cluster: str
    reachable: bool
    error: str = ""
    found: bool = False
    status: dict[str, Any] = field(default_factory=dict)
    health: str = ""
    pods: tuple[PodState, ...] = ()
    events: tuple[ClusterEvent, ...] = ()


@dataclass(frozen=True)
class WorkloadAcross:
    members: tuple[MemberCopy, ...]
    events: tuple[tuple[str, ClusterEvent], ...]  # (cluster, event), newest first across clusters


def identity(manifest: dict[str, Any]) -> tuple[str, str, str, str]:
    meta = manifest.get("metadata") or {}
    return manifest["apiVersion"], manifest["kind"], str(meta.get("name")), str(meta.get("namespace") or "")


def pod_selector(live: dict[str, Any]) -> str:
    """The label selector of the workload's pods (spec.selector), or "" for kinds that have none."""
    selector = (live.get("spec") or {}).get("selector")
    if not isinstance(selector, dict) or not selector:
        return ""
    if "matchLabels" not in selector and "matchExpressions" not in selector:
        selector = {"matchLabels": selector}  # a ReplicationController's or Service's plain map
    try:
        return str(selector_from_map(selector))
    except SelectorError:
        return ""


def read_copy(cluster: Cluster, manifest: dict[str, Any]) -> MemberCopy:
    """The live copy, its pods and their Events in one cluster (raises KubeError when unreachable)."""
    api_version, kind, name, namespace = identity(manifest)
    conn = cluster.connection()
    try:
        live = objects.get_object(conn, api_version, kind, name, namespace, timeout=CALL_TIMEOUT)
    except NotFound:
        return MemberCopy(cluster.name, reachable=True, found=False)
    pods: list[PodState] = []
    selector = pod_selector(live)
    if namespace and selector:
        pods = list_pod_states(conn, namespace, selector, timeout=CALL_TIMEOUT)
    involved = {(kind, name)} | {("Pod", pod.name) for pod in pods}
    involved |= {owner for pod in pods for owner in pod.owners}
    events = list_events(conn, namespace, involved, timeout=CALL_TIMEOUT) if namespace else []
    return MemberCopy(
        cluster.name,
        reachable=True,
        found=True,
        status=reflect_status(live),
        health=interpret_health(live),
        pods=tuple(pods),
        events=tuple(sorted(events, key=lambda e: e.last_seen, reverse=True)),
    )


def member_works(binding: ResourceBinding) -> list[Work]:
    return sorted((w for w in binding.works.all() if not w.deleting), key=lambda w: w.cluster_name)


def workload_across(template: ResourceTemplate, deadline: float = DEADLINE) -> WorkloadAcross:
    """Every member copy of the template, read in parallel; events merged newest first."""
    binding = ResourceBinding.objects.filter(template=template).prefetch_related("works").first()
    works = {w.cluster_name: w for w in member_works(binding)} if binding else {}
    clusters = list(Cluster.objects.filter(name__in=list(works)).order_by("name"))
    answers = fanout.gather(clusters, lambda c: read_copy(c, works[c.name].manifest), deadline)
    members = []
    for name in sorted(works):
        answer = answers.get(name)
        if answer is None:
            members.append(MemberCopy(name, reachable=False, error=f"{name} is not registered."))
        elif answer.value is not None:
            members.append(answer.value)
        else:
            members.append(MemberCopy(name, reachable=False, error=answer.error))
    merged = [(m.cluster, e) for m in members for e in m.events]
    merged.sort(key=lambda pair: (pair[1].last_seen, pair[0]), reverse=True)
    return WorkloadAcross(members=tuple(members), events=tuple(merged[:MAX_EVENTS]))


def parse_time(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def short_age(created: str, now: datetime | None = None) -> str:
    """kubectl's AGE column: 42s, 5m, 3h, 2d."""
    when = parse_time(created)
    if when is None:
        return "—"
    seconds = max(0, int(((now or datetime.now(UTC)) - when).total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def pod_dict(pod: PodState, now: datetime | None = None) -> dict[str, Any]:
    return {
        "name": pod.name,
        "phase": pod.phase,
        "ready": f"{pod.ready_containers}/{len(pod.containers)}",
        "isReady": pod.ready,
        "restarts": pod.restarts,
        "node": pod.node_name,
        "created": pod.created,
        "age": short_age(pod.created, now),
        "reason": pod.reason,
        "containers": list(pod.containers),
    }


def event_dict(cluster: str, event: ClusterEvent) -> dict[str, Any]:
    return {
        "cluster": cluster,
        "type": event.type,
        "reason": event.reason,
        "message": event.message,
        "object": {"kind": event.object_kind, "name": event.object_name},
        "count": event.count,
        "lastSeen": event.last_seen,
        "source": event.source,
    }


def across_document(view: WorkloadAcross, now: datetime | None = None) -> dict[str, Any]:
    """The plain form the REST API returns and the page renders."""
    now = now or datetime.now(UTC)
    return {
        "clusters": [
            {
                "cluster": m.cluster,
                "reachable": m.reachable,
                "error": m.error,
                "found": m.found,
                "status": m.status,
                "health": m.health,
                "pods": [pod_dict(p, now) for p in m.pods],
            }
            for m in view.members
        ],
        "events": [event_dict(cluster, event) for cluster, event in view.events],
    }
