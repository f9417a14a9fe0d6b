"""Reads of what runs in a member: a workload's pods with their state, and the Events of its objects."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from clusters.k8s.client import Timeout, api_client
from clusters.k8s.connection import ClusterConnection
from clusters.k8s.errors import mapped_errors
from clusters.k8s.rest import list_items
from clusters.k8s.types import ClusterEvent, PodState


def _not_ready_reason(status: dict[str, Any]) -> str:
    """Why a pod is not ready, in kubectl's words: a container's waiting or terminated reason first,
    then how a restarted container's last run ended, then the Ready condition's reason, then the phase."""
    for container in [*(status.get("initContainerStatuses") or []), *(status.get("containerStatuses") or [])]:
        if container.get("ready"):
            continue
        state = container.get("state") or {}
        for key in ("waiting", "terminated"):
            reason = (state.get(key) or {}).get("reason")
            if reason:
                return str(reason)
    for container in status.get("containerStatuses") or []:
        last = ((container.get("lastState") or {}).get("terminated") or {}).get("reason")
        if not container.get("ready") and last:
            return f"{last} (restarted)"  # up again but not ready yet: why its last run ended
    for condition in status.get("conditions") or []:
        if condition.get("type") == "Ready" and condition.get("status") != "True":
            return str(condition.get("reason") or condition.get("message") or "NotReady")
    return str(status.get("reason") or status.get("phase") or "Unknown")


def pod_state(item: dict[str, Any]) -> PodState:
    metadata, spec, status = item.get("metadata") or {}, item.get("spec") or {}, item.get("status") or {}
    containers = tuple(str(c.get("name") or "") for c in spec.get("containers") or [])
    statuses = status.get("containerStatuses") or []
    ready_count = sum(1 for c in statuses if c.get("ready"))
    state = PodState(
        namespace=str(metadata.get("namespace") or ""),
        name=str(metadata.get("name") or ""),
        phase=str(status.get("phase") or "Pending"),
        ready_containers=ready_count,
        containers=containers,
        restarts=sum(int(c.get("restartCount") or 0) for c in statuses),
        node_name=str(spec.get("nodeName") or ""),
        created=str(metadata.get("creationTimestamp") or ""),
        owners=tuple(
            (str(o.get("kind") or ""), str(o.get("name") or ""))
            for o in metadata.get("ownerReferences") or []
        ),
    )
    if state.ready and state.phase == "Running":
        return state
    return PodState(**{**state.__dict__, "reason": _not_ready_reason(status)})


def list_pod_states(
    conn: ClusterConnection, namespace: str, label_selector: str, timeout: Timeout | None = None
) -> list[PodState]:
    """The pods of one namespace that match a label selector, by name."""
    path = f"/api/v1/namespaces/{quote(namespace, safe='')}/pods"
    with mapped_errors(conn.server):
        items = list(list_items(api_client(conn, timeout), path, labelSelector=label_selector))
    return sorted((pod_state(item) for item in items), key=lambda pod: pod.name)


def event_from(item: dict[str, Any]) -> ClusterEvent:
    involved, metadata = item.get("involvedObject") or {}, item.get("metadata") or {}
    source = item.get("source") or {}
    return ClusterEvent(
        type=str(item.get("type") or "Normal"),
        reason=str(item.get("reason") or ""),
        message=str(item.get("message") or ""),
        object_kind=str(involved.get("kind") or ""),
        object_name=str(involved.get("name") or ""),
        namespace=str(metadata.get("namespace") or ""),
        count=int(item.get("count") or 1),
        last_seen=str(
            item.get("lastTimestamp") or item.get("eventTime") or metadata.get("creationTimestamp") or ""
        ),
        source=str(source.get("component") or item.get("reportingComponent") or ""),
    )


def list_events(
    conn: ClusterConnection,
    namespace: str,
    involved: set[tuple[str, str]] | None = None,
    timeout: Timeout | None = None,
) -> list[ClusterEvent]:
    """The Events of one namespace, only those about the (kind, name) objects given when given."""
    path = f"/api/v1/namespaces/{quote(namespace, safe='')}/events"
    with mapped_errors(conn.server):
        items = list(list_items(api_client(conn, timeout), path))
    found = [event_from(item) for item in items]
    if involved is not None:
        found = [e for e in found if (e.object_kind, e.object_name) in involved]
    return found
