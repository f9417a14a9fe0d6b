"""Server-side printing: ``meta.k8s.io/v1 Table`` rows with kubectl's columns per kind."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from membersim.meta import age
from membersim.resources import Resource


def _col(
    name: str, type_: str = "string", priority: int = 0, description: str = "", format_: str = ""
) -> dict[str, Any]:
    return {
        "name": name,
        "type": type_,
        "format": format_ or ("name" if name == "Name" else ""),
        "description": description or name,
        "priority": priority,
    }


def _ready_count(pod: dict[str, Any]) -> str:
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    total = len((pod.get("spec") or {}).get("containers") or [])
    return f"{sum(1 for s in statuses if s.get('ready'))}/{total}"


def _pod_status(pod: dict[str, Any]) -> str:
    status = pod.get("status") or {}
    if pod["metadata"].get("deletionTimestamp"):
        return "Terminating"
    for container in status.get("containerStatuses") or []:
        state = container.get("state") or {}
        if "waiting" in state and state["waiting"].get("reason"):
            return state["waiting"]["reason"]
        if (
            "terminated" in state
            and state["terminated"].get("reason")
            and status.get("phase") not in ("Succeeded",)
        ):
            return state["terminated"]["reason"]
    if status.get("phase") == "Succeeded":
        return "Completed"
    return status.get("phase") or "Pending"


def _node_status(node: dict[str, Any]) -> str:
    ready = next(
        (c for c in (node.get("status") or {}).get("conditions") or [] if c.get("type") == "Ready"), None
    )
    text = "Ready" if ready and ready.get("status") == "True" else "NotReady"
    if (node.get("spec") or {}).get("unschedulable"):
        text += ",SchedulingDisabled"
    return text


def _roles(node: dict[str, Any]) -> str:
    roles = sorted(
        k.split("/", 1)[1]
        for k in (node["metadata"].get("labels") or {})
        if k.startswith("node-role.kubernetes.io/")
    )
    return ",".join(roles) or "<none>"


def _ports(service: dict[str, Any]) -> str:
    parts = []
    for port in (service.get("spec") or {}).get("ports") or []:
        text = str(port.get("port"))
        if port.get("nodePort"):
            text += f":{port['nodePort']}"
        parts.append(f"{text}/{port.get('protocol', 'TCP')}")
    return ",".join(parts) or "<none>"


def _external_ip(service: dict[str, Any]) -> str:
    spec = service.get("spec") or {}
    ingress = ((service.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []
    if ingress:
        return ",".join(i.get("ip") or i.get("hostname", "") for i in ingress)
    if spec.get("externalIPs"):
        return ",".join(spec["externalIPs"])
    return "<pending>" if spec.get("type") == "LoadBalancer" else "<none>"


def _ratio(obj: dict[str, Any], status_key: str, spec_key: str, default: int = 1) -> str:
    current = (obj.get("status") or {}).get(status_key, 0)
    return f"{current}/{(obj.get('spec') or {}).get(spec_key) or default}"


def _involved(event: dict[str, Any]) -> str:
    involved = event.get("involvedObject") or {}
    return f"{involved.get('kind', '').lower()}/{involved.get('name', '')}"


def _created(obj: dict[str, Any]) -> str:
    return age(obj["metadata"].get("creationTimestamp"))


Column = tuple[dict[str, Any], Callable[[dict[str, Any]], Any]]
_NAME: Column = (
    _col("Name", description="Name must be unique within a namespace."),
    lambda o: o["metadata"]["name"],
)
_AGE: Column = (_col("Age", description="CreationTimestamp"), _created)

COLUMNS: dict[str, list[Column]] = {
    "pods": [
        _NAME,
        (
            _col("Ready", description="The aggregate readiness state of this pod for accepting traffic."),
            _ready_count,
        ),
        (_col("Status", description="The aggregate status of the containers in this pod."), _pod_status),
        (
            _col(
                "Restarts",
                "string",
                description="The number of times the containers in this pod have been restarted.",
            ),
            lambda p: str(
                sum(s.get("restartCount", 0) for s in (p.get("status") or {}).get("containerStatuses") or [])
            ),
        ),
        _AGE,
        (_col("IP", priority=1), lambda p: (p.get("status") or {}).get("podIP") or "<none>"),
        (_col("Node", priority=1), lambda p: (p.get("spec") or {}).get("nodeName") or "<none>"),
        (_col("Nominated Node", priority=1), lambda p: "<none>"),
        (_col("Readiness Gates", priority=1), lambda p: "<none>"),
    ],
    "nodes": [
        _NAME,
        (_col("Status"), _node_status),
        (_col("Roles"), _roles),
        _AGE,
        (
            _col("Version"),
            lambda n: ((n.get("status") or {}).get("nodeInfo") or {}).get("kubeletVersion", ""),
        ),
        (
            _col("Internal-IP", priority=1),
            lambda n: next(
                (
                    a["address"]
                    for a in (n.get("status") or {}).get("addresses") or []
                    if a.get("type") == "InternalIP"
                ),
                "<none>",
            ),
        ),
        (_col("External-IP", priority=1), lambda n: "<none>"),
        (
            _col("OS-Image", priority=1),
            lambda n: ((n.get("status") or {}).get("nodeInfo") or {}).get("osImage", ""),
        ),
        (
            _col("Kernel-Version", priority=1),
            lambda n: ((n.get("status") or {}).get("nodeInfo") or {}).get("kernelVersion", ""),
        ),
        (
            _col("Container-Runtime", priority=1),
            lambda n: ((n.get("status") or {}).get("nodeInfo") or {}).get("containerRuntimeVersion", ""),
        ),
    ],
    "namespaces": [_NAME, (_col("Status"), lambda n: (n.get("status") or {}).get("phase", "Active")), _AGE],
    "services": [
        _NAME,
        (_col("Type"), lambda s: (s.get("spec") or {}).get("type", "ClusterIP")),
        (_col("Cluster-IP"), lambda s: (s.get("spec") or {}).get("clusterIP") or "<none>"),
        (_col("External-IP"), _external_ip),
        (_col("Port(s)"), _ports),
        _AGE,
        (
            _col("Selector", priority=1),
            lambda s: (
                ",".join(f"{k}={v}" for k, v in sorted(((s.get("spec") or {}).get("selector") or {}).items()))
                or "<none>"
            ),
        ),
    ],
    "configmaps": [
        _NAME,
        (_col("Data", "integer"), lambda c: len(c.get("data") or {}) + len(c.get("binaryData") or {})),
        _AGE,
    ],
    "secrets": [
        _NAME,
        (_col("Type"), lambda s: s.get("type", "Opaque")),
        (_col("Data", "integer"), lambda s: len(s.get("data") or {})),
        _AGE,
    ],
    "events": [
        (_col("Last Seen"), lambda e: age(e.get("lastTimestamp") or e["metadata"].get("creationTimestamp"))),
        (_col("Type"), lambda e: e.get("type", "")),
        (_col("Reason"), lambda e: e.get("reason", "")),
        (
            _col("Object"),
            _involved,
        ),
        (_col("Message"), lambda e: e.get("message", "")),
    ],
    "deployments": [
        _NAME,
        (
            _col("Ready"),
            lambda d: _ratio(d, "readyReplicas", "replicas"),
        ),
        (_col("Up-to-date", "integer"), lambda d: (d.get("status") or {}).get("updatedReplicas", 0)),
        (_col("Available", "integer"), lambda d: (d.get("status") or {}).get("availableReplicas", 0)),
        _AGE,
        (
            _col("Containers", priority=1),
            lambda d: ",".join(
                c.get("name", "")
                for c in (((d.get("spec") or {}).get("template") or {}).get("spec") or {}).get("containers")
                or []
            ),
        ),
        (
            _col("Images", priority=1),
            lambda d: ",".join(
                c.get("image", "")
                for c in (((d.get("spec") or {}).get("template") or {}).get("spec") or {}).get("containers")
                or []
            ),
        ),
    ],
    "replicasets": [
        _NAME,
        (_col("Desired", "integer"), lambda r: (r.get("spec") or {}).get("replicas", 1)),
        (_col("Current", "integer"), lambda r: (r.get("status") or {}).get("replicas", 0)),
        (_col("Ready", "integer"), lambda r: (r.get("status") or {}).get("readyReplicas", 0)),
        _AGE,
    ],
    "statefulsets": [
        _NAME,
        (
            _col("Ready"),
            lambda s: _ratio(s, "readyReplicas", "replicas"),
        ),
        _AGE,
    ],
    "daemonsets": [
        _NAME,
        (_col("Desired", "integer"), lambda d: (d.get("status") or {}).get("desiredNumberScheduled", 0)),
        (_col("Current", "integer"), lambda d: (d.get("status") or {}).get("currentNumberScheduled", 0)),
        (_col("Ready", "integer"), lambda d: (d.get("status") or {}).get("numberReady", 0)),
        (_col("Up-to-date", "integer"), lambda d: (d.get("status") or {}).get("updatedNumberScheduled", 0)),
        (_col("Available", "integer"), lambda d: (d.get("status") or {}).get("numberAvailable", 0)),
        (
            _col("Node Selector"),
            lambda d: (
                ",".join(
                    f"{k}={v}"
                    for k, v in sorted(
                        (
                            (((d.get("spec") or {}).get("template") or {}).get("spec") or {}).get(
                                "nodeSelector"
                            )
                            or {}
                        ).items()
                    )
                )
                or "<none>"
            ),
        ),
        _AGE,
    ],
    "jobs": [
        _NAME,
        (
            _col("Status"),
            lambda j: (
                "Complete"
                if any(
                    c.get("type") == "Complete" and c.get("status") == "True"
                    for c in (j.get("status") or {}).get("conditions") or []
                )
                else "Running"
            ),
        ),
        (
            _col("Completions"),
            lambda j: _ratio(j, "succeeded", "completions"),
        ),
        (_col("Duration"), lambda j: "0s"),
        _AGE,
    ],
}


def _cells(resource: Resource, obj: dict[str, Any]) -> list[Any]:
    return [render(obj) for _, render in COLUMNS.get(resource.plural, [_NAME, _AGE])]


def _row(resource: Resource, obj: dict[str, Any], include: str) -> dict[str, Any]:
    row: dict[str, Any] = {"cells": _cells(resource, obj)}
    if include == "Object":
        row["object"] = obj
    elif include != "None":
        row["object"] = {
            "kind": "PartialObjectMetadata",
            "apiVersion": "meta.k8s.io/v1",
            "metadata": obj["metadata"],
        }
    return row


def table(
    resource: Resource,
    objects: list[dict[str, Any]],
    list_meta: dict[str, Any],
    *,
    include: str = "Metadata",
    with_columns: bool = True,
) -> dict[str, Any]:
    """A Table of ``objects``; watch events after the first leave the column definitions out."""
    result: dict[str, Any] = {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": list_meta}
    if with_columns:
        result["columnDefinitions"] = [
            definition for definition, _ in COLUMNS.get(resource.plural, [_NAME, _AGE])
        ]
    result["rows"] = [_row(resource, obj, include) for obj in objects]
    return result


def wants_table(accept: str) -> bool:
    """True when the Accept header asks for ``as=Table`` (kubectl get does; plain clients do not)."""
    return any("as=Table" in part and "g=meta.k8s.io" in part for part in accept.split(","))
