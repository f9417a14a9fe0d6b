"""Reads from a member cluster: version, health probe, nodes, pods, metrics, API discovery, CIDRs."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import urllib3.exceptions
from kubernetes.client.exceptions import ApiException

from clusters.k8s.client import Timeout, api_client
from clusters.k8s.connection import ClusterConnection
from clusters.k8s.errors import mapped_errors, translate
from clusters.k8s.rest import decode, get_json, list_items, request
from clusters.k8s.types import (
    APIDiscovery,
    APIEnablement,
    HealthProbe,
    NodeInfo,
    NodeMetric,
    PodInfo,
    Resources,
    VersionInfo,
)
from kubesyntax.quantities import QuantityError, milli_units, quantity_amount, whole_units

NON_TERMINAL_PODS = "status.phase!=Succeeded,status.phase!=Failed"
AGGREGATED_DISCOVERY = (
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
)
SERVICE_RANGE_FLAG = re.compile(r"--service-cluster-ip-range=(\S+)")


def _quantity(value: Any) -> Fraction:
    """A member's quantity; one it writes wrongly counts as nothing rather than failing the whole read."""
    try:
        return quantity_amount(value) if value not in (None, "") else Fraction(0)
    except QuantityError:
        return Fraction(0)


def resources_of(values: dict[str, Any] | None) -> Resources:
    """cpu/memory/pods quantities of a ResourceList as integers (millicores, bytes, count)."""
    values = values or {}
    return Resources(
        cpu_milli=milli_units(_quantity(values.get("cpu"))),
        memory_bytes=whole_units(_quantity(values.get("memory"))),
        pods=int(_quantity(values.get("pods"))),
    )


def get_version(conn: ClusterConnection, timeout: Timeout | None = None) -> VersionInfo:
    with mapped_errors(conn.server):
        data = get_json(api_client(conn, timeout), "/version")
    return VersionInfo(
        git_version=str(data.get("gitVersion") or ""),
        major=str(data.get("major") or ""),
        minor=str(data.get("minor") or ""),
        platform=str(data.get("platform") or ""),
    )


def probe_health(
    conn: ClusterConnection, timeout: Timeout | None = None, clock: Callable[[], float] = time.monotonic
) -> HealthProbe:
    """GET /readyz, falling back to /healthz on 404, as Karmada's cluster status controller does."""
    client = api_client(conn, timeout)
    started = clock()
    status: int | None = None
    path = "/readyz"
    try:
        for path in ("/readyz", "/healthz"):
            status = request(client, "GET", path, headers={"Accept": "text/plain, */*"}).status
            if status != 404:
                break
    except (ApiException, urllib3.exceptions.HTTPError, OSError) as exc:
        return HealthProbe(
            ok=False,
            reachable=False,
            status=None,
            path=path,
            latency=clock() - started,
            message=translate(exc, conn.server).message,
        )
    latency = clock() - started
    if status == 200:
        return HealthProbe(ok=True, reachable=True, status=status, path=path, latency=latency)
    return HealthProbe(
        ok=False,
        reachable=True,
        status=status,
        path=path,
        latency=latency,
        message=f"{path} answered {status}",
    )


def node_from(item: dict[str, Any]) -> NodeInfo:
    metadata, spec, status = item.get("metadata") or {}, item.get("spec") or {}, item.get("status") or {}
    ready = any(
        c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or []
    )
    cidrs = spec.get("podCIDRs") or ([spec["podCIDR"]] if spec.get("podCIDR") else [])
    return NodeInfo(
        name=str(metadata.get("name") or ""),
        ready=ready,
        labels=dict(metadata.get("labels") or {}),
        taints=tuple(
            {k: str(v) for k, v in taint.items() if v is not None} for taint in spec.get("taints") or []
        ),
        allocatable=resources_of(status.get("allocatable")),
        capacity=resources_of(status.get("capacity")),
        pod_cidrs=tuple(str(c) for c in cidrs if c),
        unschedulable=bool(spec.get("unschedulable", False)),
        provider_id=str(spec.get("providerID") or ""),
    )


def list_nodes(conn: ClusterConnection, timeout: Timeout | None = None) -> list[NodeInfo]:
    with mapped_errors(conn.server):
        return [node_from(item) for item in list_items(api_client(conn, timeout), "/api/v1/nodes")]


def pod_requests(spec: dict[str, Any]) -> Resources:
    """What the scheduler reserves: max(sum of containers, largest init container) plus overhead; 1 pod."""

    def total(containers: list[dict[str, Any]]) -> Resources:
        result = Resources()
        for container in containers:
            result = result + resources_of((container.get("resources") or {}).get("requests"))
        return result

    regular = total(spec.get("containers") or [])
    sidecars = [c for c in spec.get("initContainers") or [] if c.get("restartPolicy") == "Always"]
    regular = regular + total(sidecars)
    init_peak = Resources()
    for init in spec.get("initContainers") or []:
        if init.get("restartPolicy") == "Always":
            continue
        one = resources_of((init.get("resources") or {}).get("requests"))
        init_peak = Resources(
            max(init_peak.cpu_milli, one.cpu_milli), max(init_peak.memory_bytes, one.memory_bytes)
        )
    overhead = resources_of(spec.get("overhead"))
    return Resources(
        cpu_milli=max(regular.cpu_milli, init_peak.cpu_milli) + overhead.cpu_milli,
        memory_bytes=max(regular.memory_bytes, init_peak.memory_bytes) + overhead.memory_bytes,
        pods=1,
    )


def pod_from(item: dict[str, Any]) -> PodInfo | None:
    """A pod as the resource summary counts it; None when it has finished (Succeeded or Failed)."""
    metadata, spec = item.get("metadata") or {}, item.get("spec") or {}
    phase = str((item.get("status") or {}).get("phase") or "")
    if phase in ("Succeeded", "Failed"):
        return None
    return PodInfo(
        namespace=str(metadata.get("namespace") or ""),
        name=str(metadata.get("name") or ""),
        node_name=str(spec.get("nodeName") or ""),
        phase=phase,
        requests=pod_requests(spec),
    )


def list_pods(conn: ClusterConnection, timeout: Timeout | None = None) -> list[PodInfo]:
    """Pods of every namespace that are neither Succeeded nor Failed."""
    with mapped_errors(conn.server):
        items = list_items(api_client(conn, timeout), "/api/v1/pods", fieldSelector=NON_TERMINAL_PODS)
        # pod_from also drops finished pods a server that ignores the field selector returns
        return [pod for pod in map(pod_from, items) if pod is not None]


def list_node_metrics(conn: ClusterConnection, timeout: Timeout | None = None) -> list[NodeMetric]:
    """Node usage from metrics.k8s.io; NotFound when the cluster has no metrics server."""
    with mapped_errors(conn.server):
        items = list_items(api_client(conn, timeout), "/apis/metrics.k8s.io/v1beta1/nodes")
        metrics = []
        for item in items:
            usage = resources_of(item.get("usage"))
            metrics.append(
                NodeMetric(
                    name=str((item.get("metadata") or {}).get("name") or ""),
                    cpu_milli=usage.cpu_milli,
                    memory_bytes=usage.memory_bytes,
                )
            )
        return metrics


def _resources(entries: list[dict[str, Any]], name_key: str, kind_key: str) -> tuple[tuple[str, str], ...]:
    """(plural, kind) of each resource, subresources left out as Karmada does."""
    pairs = []
    for entry in entries:
        name = str(entry.get(name_key) or "")
        if name and "/" not in name:
            kind = entry.get(kind_key)
            pairs.append((name, str(kind.get("kind") if isinstance(kind, dict) else kind or "")))
    return tuple(sorted(pairs))


def _aggregated(documents: list[dict[str, Any]]) -> list[APIEnablement]:
    enablements = []
    for document in documents:
        for group in document.get("items") or []:
            group_name = str((group.get("metadata") or {}).get("name") or "")
            for version in group.get("versions") or []:
                gv = f"{group_name}/{version.get('version')}" if group_name else str(version.get("version"))
                enablements.append(
                    APIEnablement(gv, _resources(version.get("resources") or [], "resource", "responseKind"))
                )
    return enablements


def list_api_enablements(conn: ClusterConnection, timeout: Timeout | None = None) -> APIDiscovery:
    """Every served group/version with its resources; aggregated discovery when the server offers it."""
    with mapped_errors(conn.server):
        client = api_client(conn, timeout)
        headers = {"Accept": AGGREGATED_DISCOVERY}
        core = request(client, "GET", "/api", headers=headers)
        groups = request(client, "GET", "/apis", headers=headers)
        documents = []
        for response in (core, groups):
            content_type = response.headers.get("Content-Type", "")
            if "as=APIGroupDiscoveryList" in content_type:
                documents.append(decode(response))
        if len(documents) == 2:
            found = _aggregated(documents)
            return APIDiscovery(
                enablements=tuple(sorted(found, key=lambda e: e.group_version)), complete=True
            )

        versions = [str(v) for v in decode(core).get("versions") or []]
        for group in decode(groups).get("groups") or []:
            versions += [
                str(v.get("groupVersion")) for v in group.get("versions") or [] if v.get("groupVersion")
            ]
        enablements, failed = [], []
        for gv in versions:
            path = f"/api/{gv}" if "/" not in gv else f"/apis/{gv}"
            try:
                doc = get_json(client, path)
            except (ApiException, urllib3.exceptions.HTTPError, OSError):
                failed.append(gv)
                continue
            enablements.append(APIEnablement(gv, _resources(doc.get("resources") or [], "name", "kind")))
    return APIDiscovery(
        enablements=tuple(sorted(enablements, key=lambda e: e.group_version)),
        complete=not failed,
        failed_groups=tuple(failed),
    )


def list_service_cidrs(conn: ClusterConnection, timeout: Timeout | None = None) -> list[str]:
    """The service IP ranges: ServiceCIDR objects (1.31+), else the kube-apiserver flag, else none known."""
    with mapped_errors(conn.server):
        client = api_client(conn, timeout)
        for version in ("v1", "v1beta1"):
            try:
                items = list(list_items(client, f"/apis/networking.k8s.io/{version}/servicecidrs"))
            except ApiException as exc:
                if exc.status in (403, 404):
                    continue
                raise
            cidrs = [str(c) for item in items for c in (item.get("spec") or {}).get("cidrs") or []]
            if cidrs:
                return sorted(set(cidrs))
        try:
            pods = list(
                list_items(
                    client, "/api/v1/namespaces/kube-system/pods", labelSelector="component=kube-apiserver"
                )
            )
        except ApiException as exc:
            if exc.status in (403, 404):
                return []
            raise
        for pod in pods:
            for container in (pod.get("spec") or {}).get("containers") or []:
                for arg in [*(container.get("command") or []), *(container.get("args") or [])]:
                    match = SERVICE_RANGE_FLAG.search(str(arg))
                    if match:
                        return sorted(set(match.group(1).split(",")))
    return []
