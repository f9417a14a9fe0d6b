"""Finding objects in a member cluster: a kind named as people write it (Deployment, deploy, pods,
certificates.cert-manager.io) resolved through discovery, then listed by namespace, name and labels.
Only metadata leaves this module, so a search never carries a Secret's data."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from clusters.k8s.client import Timeout, api_client
from clusters.k8s.connection import ClusterConnection
from clusters.k8s.errors import NotFound, mapped_errors
from clusters.k8s.objects import ResourceInfo, object_path, resource_info
from clusters.k8s.reads import list_api_enablements
from clusters.k8s.rest import list_items
from clusters.k8s.types import ObjectSummary

# kubectl's short names of the built-in kinds; anything else is found by discovery.
SHORT_NAMES = {
    "po": "pods",
    "deploy": "deployments",
    "svc": "services",
    "cm": "configmaps",
    "sts": "statefulsets",
    "ds": "daemonsets",
    "rs": "replicasets",
    "ns": "namespaces",
    "no": "nodes",
    "cj": "cronjobs",
    "sa": "serviceaccounts",
    "pvc": "persistentvolumeclaims",
    "pv": "persistentvolumes",
    "ing": "ingresses",
    "hpa": "horizontalpodautoscalers",
    "ev": "events",
}
BUILT_IN = {
    "pods": ResourceInfo("v1", "Pod", "pods", True),
    "services": ResourceInfo("v1", "Service", "services", True),
    "configmaps": ResourceInfo("v1", "ConfigMap", "configmaps", True),
    "secrets": ResourceInfo("v1", "Secret", "secrets", True),
    "serviceaccounts": ResourceInfo("v1", "ServiceAccount", "serviceaccounts", True),
    "namespaces": ResourceInfo("v1", "Namespace", "namespaces", False),
    "nodes": ResourceInfo("v1", "Node", "nodes", False),
    "deployments": ResourceInfo("apps/v1", "Deployment", "deployments", True),
    "statefulsets": ResourceInfo("apps/v1", "StatefulSet", "statefulsets", True),
    "daemonsets": ResourceInfo("apps/v1", "DaemonSet", "daemonsets", True),
    "replicasets": ResourceInfo("apps/v1", "ReplicaSet", "replicasets", True),
    "jobs": ResourceInfo("batch/v1", "Job", "jobs", True),
    "cronjobs": ResourceInfo("batch/v1", "CronJob", "cronjobs", True),
}
DISCOVERY_TTL = 300.0

_lock = threading.Lock()
_discovered: dict[str, tuple[float, dict[str, ResourceInfo]]] = {}


def _names(info: ResourceInfo) -> set[str]:
    group = info.api_version.split("/")[0] if "/" in info.api_version else ""
    names = {info.plural, info.kind.lower()}
    return names | ({f"{info.plural}.{group}", f"{info.kind.lower()}.{group}"} if group else set())


def _discover(conn: ClusterConnection, timeout: Timeout | None) -> dict[str, ResourceInfo]:
    """Every served kind by each name people use for it, from the cluster's discovery (cached)."""
    now = time.monotonic()
    with _lock:
        cached = _discovered.get(conn.server)
    if cached and now - cached[0] < DISCOVERY_TTL:
        return cached[1]
    found: dict[str, ResourceInfo] = {}
    for enablement in list_api_enablements(conn, timeout).enablements:
        for plural, kind in enablement.resources:
            info = ResourceInfo(enablement.group_version, kind, plural, True)
            for name in _names(info):
                found.setdefault(name, info)  # the first version served wins, as kubectl prefers
    with _lock:
        _discovered[conn.server] = (now, found)
    return found


def resolve_kind(conn: ClusterConnection, text: str, timeout: Timeout | None = None) -> ResourceInfo:
    """The resource a kind name means in this cluster; NotFound when the cluster serves no such kind."""
    name = text.strip().lower()
    name = SHORT_NAMES.get(name, name)
    for info in BUILT_IN.values():
        if name in _names(info):
            return info
    served = _discover(conn, timeout).get(name)
    if served is None:
        raise NotFound(f"The cluster {conn.name} serves no kind called {text!r}.")
    return resource_info(conn, served.api_version, served.kind, timeout)  # its scope, from its group


@dataclass(frozen=True)
class Found:
    """The matching objects of one cluster, and how many were listed before the name filter."""

    objects: tuple[ObjectSummary, ...]
    listed: int


def _summary(info: ResourceInfo, item: dict[str, Any]) -> ObjectSummary:
    metadata = item.get("metadata") or {}
    return ObjectSummary(
        api_version=info.api_version,
        kind=info.kind,
        namespace=str(metadata.get("namespace") or ""),
        name=str(metadata.get("name") or ""),
        created=str(metadata.get("creationTimestamp") or ""),
        labels={str(k): str(v) for k, v in (metadata.get("labels") or {}).items()},
        annotations={str(k): str(v) for k, v in (metadata.get("annotations") or {}).items()},
    )


def find_objects(
    conn: ClusterConnection,
    info: ResourceInfo,
    namespace: str = "",
    name: str = "",
    label_selector: str = "",
    limit: int = 500,
    timeout: Timeout | None = None,
) -> Found:
    """Objects of a kind whose name contains `name` (any case) and whose labels match the selector."""
    path = object_path(info, namespace if info.namespaced else "")
    needle = name.strip().lower()
    found: list[ObjectSummary] = []
    listed = 0
    with mapped_errors(conn.server):
        for item in list_items(api_client(conn, timeout), path, labelSelector=label_selector):
            listed += 1
            summary = _summary(info, item)
            if needle and needle not in summary.name.lower():
                continue
            found.append(summary)
            if len(found) >= limit:
                break
    return Found(objects=tuple(found), listed=listed)
