"""Delete every object carrying a label selector from a member cluster (what unjoin cleans up)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from clusters.k8s.client import Timeout, api_client
from clusters.k8s.connection import ClusterConnection
from clusters.k8s.errors import mapped_errors
from clusters.k8s.rest import decode, get_json, list_items, request

SKIPPED_GROUPS = ("metrics.k8s.io", "events.k8s.io")
SKIPPED_RESOURCES = ("events", "nodes")


@dataclass(frozen=True)
class ResourceType:
    group_version: str
    plural: str
    namespaced: bool

    def base(self) -> str:
        return (
            f"/api/{self.group_version}" if "/" not in self.group_version else f"/apis/{self.group_version}"
        )


def deletable_types(conn: ClusterConnection, timeout: Timeout | None = None) -> list[ResourceType]:
    """Resources of each group's preferred version that can be listed and deleted."""
    with mapped_errors(conn.server):
        client = api_client(conn, timeout)
        versions = list(get_json(client, "/api").get("versions") or [])
        for group in get_json(client, "/apis").get("groups") or []:
            if group.get("name") in SKIPPED_GROUPS:
                continue
            preferred = (group.get("preferredVersion") or {}).get("groupVersion")
            if preferred:
                versions.append(preferred)
        found = []
        for gv in versions:
            path = f"/api/{gv}" if "/" not in gv else f"/apis/{gv}"
            for resource in get_json(client, path).get("resources") or []:
                name, verbs = resource.get("name", ""), set(resource.get("verbs") or [])
                if "/" in name or name in SKIPPED_RESOURCES or not {"list", "delete"} <= verbs:
                    continue
                found.append(ResourceType(gv, name, bool(resource.get("namespaced"))))
    # Namespaces last, so their contents go first and nothing is left behind half-deleted.
    return sorted(found, key=lambda t: t.plural == "namespaces")


def delete_labelled(conn: ClusterConnection, selector: str, timeout: Timeout | None = None) -> list[str]:
    """Delete every object matching the label selector; returns "kind-plural/namespace/name" of each."""
    deleted = []
    with mapped_errors(conn.server):
        client = api_client(conn, timeout)
        for kind in deletable_types(conn, timeout):
            for item in list_items(client, f"{kind.base()}/{kind.plural}", labelSelector=selector):
                meta: dict[str, Any] = item.get("metadata") or {}
                name, namespace = meta.get("name", ""), meta.get("namespace", "")
                path = (
                    f"{kind.base()}/namespaces/{namespace}/{kind.plural}/{name}"
                    if kind.namespaced
                    else f"{kind.base()}/{kind.plural}/{name}"
                )
                response = request(client, "DELETE", path, body={"propagationPolicy": "Background"})
                if response.status == 404:
                    continue  # already gone, e.g. with its namespace
                decode(response)  # raises on anything but success
                deleted.append(f"{kind.plural}/{namespace}/{name}" if namespace else f"{kind.plural}/{name}")
    return deleted
