"""Table output (meta.k8s.io/v1): Karmada's printer columns per kind, rows carrying object metadata."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

Cell = Callable[[dict[str, Any]], Any]
TABLE_ACCEPT = "as=Table"


def _column(name: str, type_: str = "string", priority: int = 0, format_: str = "") -> dict[str, Any]:
    return {"name": name, "type": type_, "format": format_, "description": name, "priority": priority}


def age(document: dict[str, Any], now: datetime | None = None) -> str:
    """kubectl's short age (translateTimestampSince): 45s, 3m12s, 5h, 17d, 2y30d."""
    created = (document.get("metadata") or {}).get("creationTimestamp")
    if not created:
        return "<unknown>"
    moment = datetime.strptime(created, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    seconds = int(((now or datetime.now(UTC)) - moment).total_seconds())
    if seconds < 0:
        return "0s"
    minutes, hours, days = seconds // 60, seconds // 3600, seconds // 86400
    if seconds < 120:
        return f"{seconds}s"
    if minutes < 10:
        return f"{minutes}m{seconds % 60}s" if seconds % 60 else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    if hours < 8:
        return f"{hours}h{minutes % 60}m" if minutes % 60 else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        return f"{days}d{hours % 24}h" if hours % 24 else f"{days}d"
    if days < 365 * 2:
        return f"{days}d"
    if days < 365 * 8:
        return f"{days // 365}y{days % 365}d" if days % 365 else f"{days // 365}y"
    return f"{days // 365}y"


def _at(document: dict[str, Any], *path: str) -> Any:
    node: Any = document
    for key in path:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


def _none(value: Any) -> Any:
    if value in (None, "", []):
        return "<none>"
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return value


def _condition(type_: str, absent: str = "") -> Cell:
    def cell(document: dict[str, Any]) -> str:
        for condition in _at(document, "status", "conditions") or []:
            if isinstance(condition, dict) and condition.get("type") == type_:
                return str(condition.get("status", ""))
        return absent

    return cell


def _ready_of(document: dict[str, Any]) -> str:
    ready = _at(document, "status", "readyReplicas") or 0
    return f"{ready}/{_at(document, 'spec', 'replicas') or 0}"


def _containers(document: dict[str, Any], field: str) -> str:
    containers = _at(document, "spec", "template", "spec", "containers") or []
    return ",".join(str(c.get(field, "")) for c in containers if isinstance(c, dict)) or "<none>"


def _ports(document: dict[str, Any]) -> str:
    ports = _at(document, "spec", "ports") or []
    shown = [f"{p.get('port')}/{p.get('protocol', 'TCP')}" for p in ports if isinstance(p, dict)]
    return ",".join(shown) or "<none>"


def _count(*path: str) -> Cell:
    return lambda document: len(_at(document, *path) or {})


def _data_count(document: dict[str, Any]) -> int:
    return len(document.get("data") or {}) + len(document.get("binaryData") or {})


# {kind: [(column, cell)]}; AGE is appended where Karmada's columns list it (every kind but the quota).
COLUMNS: dict[str, list[tuple[dict[str, Any], Cell]]] = {
    "Cluster": [
        (_column("VERSION"), lambda d: _at(d, "status", "kubernetesVersion") or ""),
        (_column("MODE"), lambda d: _at(d, "spec", "syncMode") or ""),
        (_column("READY"), _condition("Ready", "Unknown")),
        (_column("AGE", "date"), age),
        (_column("ZONES", priority=1), lambda d: _none(_at(d, "spec", "zones"))),
        (_column("REGION", priority=1), lambda d: _none(_at(d, "spec", "region"))),
        (_column("PROVIDER", priority=1), lambda d: _none(_at(d, "spec", "provider"))),
        (_column("API-ENDPOINT", priority=1), lambda d: _none(_at(d, "spec", "apiEndpoint"))),
        (_column("PROXY-URL", priority=1), lambda d: _none(_at(d, "spec", "proxyURL"))),
    ],
    "PropagationPolicy": [
        (_column("CONFLICT-RESOLUTION"), lambda d: _at(d, "spec", "conflictResolution") or ""),
        (_column("PRIORITY", "integer"), lambda d: _at(d, "spec", "priority") or 0),
        (_column("AGE", "date"), age),
    ],
    "ResourceBinding": [
        (_column("SCHEDULED"), _condition("Scheduled")),
        (_column("FULLYAPPLIED"), _condition("FullyApplied")),
        (_column("AGE", "date"), age),
    ],
    "Work": [
        (
            _column("WORKLOAD-KIND"),
            lambda d: ",".join(
                str(m.get("kind", ""))
                for m in _at(d, "spec", "workload", "manifests") or []
                if isinstance(m, dict)
            ),
        ),
        (_column("APPLIED"), _condition("Applied")),
        (_column("AGE", "date"), age),
    ],
    "FederatedResourceQuota": [
        (_column("OVERALL"), lambda d: _at(d, "status", "overall") or {}),
        (_column("OVERALL_USED"), lambda d: _at(d, "status", "overallUsed") or {}),
    ],
    "Deployment": [
        (_column("READY"), _ready_of),
        (_column("UP-TO-DATE", "integer"), lambda d: _at(d, "status", "updatedReplicas") or 0),
        (_column("AVAILABLE", "integer"), lambda d: _at(d, "status", "availableReplicas") or 0),
        (_column("AGE", "date"), age),
        (_column("CONTAINERS", priority=1), lambda d: _containers(d, "name")),
        (_column("IMAGES", priority=1), lambda d: _containers(d, "image")),
    ],
    "StatefulSet": [(_column("READY"), _ready_of), (_column("AGE", "date"), age)],
    "ConfigMap": [(_column("DATA", "integer"), _data_count), (_column("AGE", "date"), age)],
    "Secret": [
        (_column("TYPE"), lambda d: d.get("type") or "Opaque"),
        (_column("DATA", "integer"), _data_count),
        (_column("AGE", "date"), age),
    ],
    "Service": [
        (_column("TYPE"), lambda d: _at(d, "spec", "type") or "ClusterIP"),
        (_column("CLUSTER-IP"), lambda d: _at(d, "spec", "clusterIP") or "<none>"),
        (_column("PORT(S)"), _ports),
        (_column("AGE", "date"), age),
    ],
    "Namespace": [
        (_column("STATUS"), lambda d: _at(d, "status", "phase") or "Active"),
        (_column("AGE", "date"), age),
    ],
}
COLUMNS["ClusterPropagationPolicy"] = COLUMNS["PropagationPolicy"]
COLUMNS["ClusterResourceBinding"] = COLUMNS["ResourceBinding"]
DEFAULT = [(_column("AGE", "date"), age)]
NAME = _column("NAME", format_="name")


def _partial_metadata(document: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": "PartialObjectMetadata",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": document.get("metadata") or {},
    }


def table(
    kind: str, documents: list[dict[str, Any]], list_metadata: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A Table of `documents`; each row's object is its PartialObjectMetadata (labels, namespace)."""
    columns = COLUMNS.get(kind, DEFAULT)
    rows = [
        {
            "cells": [(d.get("metadata") or {}).get("name", ""), *(cell(d) for _, cell in columns)],
            "object": _partial_metadata(d),
        }
        for d in documents
    ]
    return {
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": dict(list_metadata or {}),
        "columnDefinitions": [NAME, *(column for column, _ in columns)],
        "rows": rows,
    }


def wants_table(accept: str) -> bool:
    return TABLE_ACCEPT in accept and "meta.k8s.io" in accept
