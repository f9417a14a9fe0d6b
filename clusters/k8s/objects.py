"""Generic reads and writes of any manifest in a member cluster: get, list, create, replace, delete, apply."""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from clusters.k8s.client import Timeout, api_client
from clusters.k8s.connection import ClusterConnection
from clusters.k8s.errors import AlreadyExists, NotFound, mapped_errors
from clusters.k8s.rest import decode, get_json, list_items, request

MERGE_PATCH = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"
STRATEGIC_PATCH = "application/strategic-merge-patch+json"
# Fields the API server assigns on create that an update must carry over, or it is refused or reset.
SERVICE_ASSIGNED = ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy", "healthCheckNodePort")
# Our writes are recorded under this name in the member's managedFields, so a change by anyone else
# shows there under its own manager.
FIELD_MANAGER = "karmada-ui"
AS_MANAGER = [("fieldManager", FIELD_MANAGER)]


@dataclass(frozen=True)
class ResourceInfo:
    """Where a kind lives in a cluster's API: its plural name and whether it is namespaced."""

    api_version: str
    kind: str
    plural: str
    namespaced: bool


@dataclass(frozen=True)
class ApplyOutcome:
    """What apply_object did (created, updated, unchanged or refused) and the object the server holds."""

    action: str
    object: dict[str, Any]


# Built-in kinds whose plural and scope never change; everything else is discovered once per server.
WELL_KNOWN = {
    ("v1", "ConfigMap"): ("configmaps", True),
    ("v1", "Secret"): ("secrets", True),
    ("v1", "Service"): ("services", True),
    ("v1", "ServiceAccount"): ("serviceaccounts", True),
    ("v1", "Pod"): ("pods", True),
    ("v1", "PersistentVolumeClaim"): ("persistentvolumeclaims", True),
    ("v1", "Namespace"): ("namespaces", False),
    ("apps/v1", "Deployment"): ("deployments", True),
    ("apps/v1", "StatefulSet"): ("statefulsets", True),
    ("apps/v1", "DaemonSet"): ("daemonsets", True),
    ("apps/v1", "ReplicaSet"): ("replicasets", True),
    ("batch/v1", "Job"): ("jobs", True),
    ("batch/v1", "CronJob"): ("cronjobs", True),
}

_discovery_lock = threading.Lock()
_discovery: dict[tuple[str, str], dict[str, ResourceInfo]] = {}


def _group_path(api_version: str) -> str:
    return f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"


def resource_info(
    conn: ClusterConnection, api_version: str, kind: str, timeout: Timeout | None = None
) -> ResourceInfo:
    """The plural and scope of a kind, from the cluster's discovery document (cached per server)."""
    if (api_version, kind) in WELL_KNOWN:
        plural, namespaced = WELL_KNOWN[(api_version, kind)]
        return ResourceInfo(api_version, kind, plural, namespaced)
    key = (conn.server, api_version)
    with _discovery_lock:
        known = _discovery.get(key)
    if known is None or kind not in known:
        with mapped_errors(conn.server):
            document = get_json(api_client(conn, timeout), _group_path(api_version))
        known = {
            item["kind"]: ResourceInfo(api_version, item["kind"], item["name"], bool(item.get("namespaced")))
            for item in document.get("resources") or []
            if "/" not in item.get("name", "")
        }
        with _discovery_lock:
            _discovery[key] = known
    if kind not in known:
        raise NotFound(f"The cluster {conn.name} serves no {kind} in {api_version}.")
    return known[kind]


def object_path(info: ResourceInfo, namespace: str = "", name: str = "") -> str:
    path = _group_path(info.api_version)
    if info.namespaced and namespace:
        path += f"/namespaces/{quote(namespace, safe='')}"
    path += f"/{info.plural}"
    return path + (f"/{quote(name, safe='')}" if name else "")


def _identity(manifest: dict[str, Any]) -> tuple[str, str, str, str]:
    metadata = manifest.get("metadata") or {}
    return manifest["apiVersion"], manifest["kind"], metadata.get("namespace") or "", metadata["name"]


def get_object(
    conn: ClusterConnection,
    api_version: str,
    kind: str,
    name: str,
    namespace: str = "",
    timeout: Timeout | None = None,
) -> dict[str, Any]:
    """One object; raises NotFound when it does not exist."""
    info = resource_info(conn, api_version, kind, timeout)
    with mapped_errors(conn.server):
        return get_json(api_client(conn, timeout), object_path(info, namespace, name))


def list_objects(
    conn: ClusterConnection,
    api_version: str,
    kind: str,
    namespace: str = "",
    label_selector: str = "",
    timeout: Timeout | None = None,
) -> list[dict[str, Any]]:
    """Every object of a kind (in one namespace, or everywhere), optionally filtered by labels."""
    info = resource_info(conn, api_version, kind, timeout)
    with mapped_errors(conn.server):
        items = list(
            list_items(api_client(conn, timeout), object_path(info, namespace), labelSelector=label_selector)
        )
    for item in items:  # list items carry no apiVersion/kind of their own
        item.setdefault("apiVersion", api_version)
        item.setdefault("kind", kind)
    return items


def _send(
    conn: ClusterConnection, method: str, path: str, body: Any, headers: dict[str, str] | None, timeout: Any
) -> Any:
    query = AS_MANAGER if method in ("POST", "PUT", "PATCH") else None
    with mapped_errors(conn.server):
        return decode(request(api_client(conn, timeout), method, path, query, body=body, headers=headers))


def create_object(
    conn: ClusterConnection, manifest: dict[str, Any], timeout: Timeout | None = None
) -> dict[str, Any]:
    """POST a new object; AlreadyExists when the name is taken, NotFound when its namespace is missing."""
    api_version, kind, namespace, _ = _identity(manifest)
    info = resource_info(conn, api_version, kind, timeout)
    return _send(
        conn, "POST", object_path(info, namespace), manifest, {"Content-Type": "application/json"}, timeout
    )


def replace_object(
    conn: ClusterConnection, manifest: dict[str, Any], timeout: Timeout | None = None
) -> dict[str, Any]:
    """PUT the whole object; it must carry the resourceVersion it replaces."""
    api_version, kind, namespace, name = _identity(manifest)
    info = resource_info(conn, api_version, kind, timeout)
    path = object_path(info, namespace, name)
    return _send(conn, "PUT", path, manifest, {"Content-Type": "application/json"}, timeout)


def patch_object(
    conn: ClusterConnection,
    api_version: str,
    kind: str,
    name: str,
    patch: Any,
    namespace: str = "",
    patch_type: str = MERGE_PATCH,
    timeout: Timeout | None = None,
) -> dict[str, Any]:
    """PATCH an object with a merge (default), JSON or strategic-merge patch."""
    info = resource_info(conn, api_version, kind, timeout)
    path = object_path(info, namespace, name)
    return _send(conn, "PATCH", path, patch, {"Content-Type": patch_type}, timeout)


def delete_object(
    conn: ClusterConnection,
    api_version: str,
    kind: str,
    name: str,
    namespace: str = "",
    timeout: Timeout | None = None,
) -> bool:
    """DELETE an object with background cascading; False when it was already gone."""
    info = resource_info(conn, api_version, kind, timeout)
    path = object_path(info, namespace, name)
    try:
        _send(
            conn,
            "DELETE",
            path,
            {"propagationPolicy": "Background"},
            {"Content-Type": "application/json"},
            timeout,
        )
    except NotFound:
        return False
    return True


def ensure_namespace(conn: ClusterConnection, name: str, timeout: Timeout | None = None) -> None:
    """Create a namespace unless it exists."""
    try:
        create_object(conn, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}, timeout)
    except AlreadyExists:
        return


def is_subset(desired: Any, live: Any) -> bool:
    """Every field of `desired` is present with the same value in `live` (lists element by element)."""
    if isinstance(desired, dict):
        return isinstance(live, dict) and all(
            key in live and is_subset(v, live[key]) for key, v in desired.items()
        )
    if isinstance(desired, list):
        return isinstance(live, list) and len(desired) == len(live) and all(map(is_subset, desired, live))
    return desired == live


def _carry_server_fields(live: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    body = copy.deepcopy(body)
    body.setdefault("metadata", {})["resourceVersion"] = (live.get("metadata") or {}).get("resourceVersion")
    if body.get("kind") == "Service":
        spec, live_spec = body.setdefault("spec", {}), live.get("spec") or {}
        for key in SERVICE_ASSIGNED:
            if key not in spec and key in live_spec:
                spec[key] = live_spec[key]
    body.pop("status", None)
    return body


def apply_object(
    conn: ClusterConnection,
    manifest: dict[str, Any],
    *,
    may_update: Callable[[dict[str, Any]], bool] = lambda live: True,
    merge: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]] = lambda live, desired: desired,
    exists: bool = False,
    timeout: Timeout | None = None,
) -> ApplyOutcome:
    """Create the object, or bring an existing one to the manifest.

    Creates the namespace when it is missing. An existing object is left alone when `may_update(live)`
    says no (refused) or when the manifest is already a subset of it (unchanged); otherwise it is
    replaced with `merge(live, manifest)`, keeping what the server assigned. `exists` says the object
    was written before: it is read first (a create refused as AlreadyExists would be a wasted call),
    and created only when the read finds none.
    """
    api_version, kind, namespace, name = _identity(manifest)
    if exists:
        try:
            live = get_object(conn, api_version, kind, name, namespace, timeout)
        except NotFound:
            pass
        else:
            return _update(conn, live, manifest, may_update, merge, timeout)
    try:
        return ApplyOutcome("created", create_object(conn, manifest, timeout))
    except AlreadyExists:
        pass
    except NotFound:
        if not namespace:
            raise
        ensure_namespace(conn, namespace, timeout)
        try:
            return ApplyOutcome("created", create_object(conn, manifest, timeout))
        except AlreadyExists:
            pass
    live = get_object(conn, api_version, kind, name, namespace, timeout)
    return _update(conn, live, manifest, may_update, merge, timeout)


def _update(
    conn: ClusterConnection,
    live: dict[str, Any],
    manifest: dict[str, Any],
    may_update: Callable[[dict[str, Any]], bool],
    merge: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]],
    timeout: Timeout | None,
) -> ApplyOutcome:
    """apply_object's answer for an object that exists: refused, unchanged or replaced."""
    if not may_update(live):
        return ApplyOutcome("refused", live)
    body = merge(live, manifest)
    if is_subset(body, live):
        return ApplyOutcome("unchanged", live)
    return ApplyOutcome("updated", replace_object(conn, _carry_server_fields(live, body), timeout))
