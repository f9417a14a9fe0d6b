"""API discovery documents (legacy and aggregated apidiscovery.k8s.io) and the minimal OpenAPI v3."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from membersim.resources import Resource, group_versions, in_group_version

SUBRESOURCE_VERBS = {
    "status": ("get", "patch", "update"),
    "scale": ("get", "patch", "update"),
    "log": ("get",),
    "eviction": ("create",),
}
AGGREGATED = "application/json;g=apidiscovery.k8s.io;v={version};as=APIGroupDiscoveryList"


def _storage_hash(resource: Resource) -> str:
    return hashlib.sha256(f"{resource.api_version}/{resource.kind}".encode()).hexdigest()[:12]


def _subresource_kind(resource: Resource, sub: str) -> tuple[str, str, str]:
    if sub == "scale":
        return "autoscaling", "v1", "Scale"
    if sub == "eviction":
        return "policy", "v1", "Eviction"
    return resource.group, resource.version, resource.kind


def api_versions(server_address: str) -> dict[str, Any]:
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}],
    }


def _group(name: str, minor: int) -> dict[str, Any]:
    entries = [{"groupVersion": f"{name}/{v}", "version": v} for g, v in group_versions(minor) if g == name]
    return {"name": name, "versions": entries, "preferredVersion": entries[0]}


def _group_names(minor: int) -> list[str]:
    names: list[str] = []
    for group, _ in group_versions(minor):
        if group and group not in names:
            names.append(group)
    return names


def api_group_list(minor: int) -> dict[str, Any]:
    return {
        "kind": "APIGroupList",
        "apiVersion": "v1",
        "groups": [_group(g, minor) for g in _group_names(minor)],
    }


def api_group(name: str, minor: int) -> dict[str, Any] | None:
    if name not in _group_names(minor):
        return None
    return {"kind": "APIGroup", "apiVersion": "v1", **_group(name, minor)}


def resource_list(group: str, version: str, minor: int) -> dict[str, Any] | None:
    resources = in_group_version(group, version, minor)
    if not resources:
        return None
    entries: list[dict[str, Any]] = []
    for r in resources:
        entry: dict[str, Any] = {
            "name": r.plural,
            "singularName": r.singular,
            "namespaced": r.namespaced,
            "kind": r.kind,
            "verbs": list(r.verbs),
        }
        if r.short_names:
            entry["shortNames"] = list(r.short_names)
        if r.categories:
            entry["categories"] = list(r.categories)
        entry["storageVersionHash"] = _storage_hash(r)
        entries.append(entry)
        for sub in r.subresources:
            sub_group, sub_version, sub_kind = _subresource_kind(r, sub)
            sub_entry: dict[str, Any] = {
                "name": f"{r.plural}/{sub}",
                "singularName": "",
                "namespaced": r.namespaced,
                "kind": sub_kind,
                "verbs": list(SUBRESOURCE_VERBS[sub]),
            }
            if sub in ("scale", "eviction"):
                sub_entry.update({"group": sub_group, "version": sub_version})
            entries.append(sub_entry)
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": f"{group}/{version}" if group else version,
        "resources": entries,
    }


def _aggregated_resource(r: Resource) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "resource": r.plural,
        "responseKind": {"group": r.group, "version": r.version, "kind": r.kind},
        "scope": "Namespaced" if r.namespaced else "Cluster",
        "singularResource": r.singular,
        "verbs": list(r.verbs),
    }
    if r.short_names:
        entry["shortNames"] = list(r.short_names)
    if r.categories:
        entry["categories"] = list(r.categories)
    if r.subresources:
        subs = []
        for sub in r.subresources:
            group, version, kind = _subresource_kind(r, sub)
            subs.append(
                {
                    "subresource": sub,
                    "responseKind": {"group": group, "version": version, "kind": kind},
                    "verbs": list(SUBRESOURCE_VERBS[sub]),
                }
            )
        entry["subresources"] = subs
    return entry


def aggregated(core: bool, version: str, minor: int) -> dict[str, Any]:
    """``/api`` (core) or ``/apis`` as an APIGroupDiscoveryList of the given discovery version."""
    items = []
    for group in [""] if core else _group_names(minor):
        versions = [
            {
                "version": gv,
                "resources": [_aggregated_resource(r) for r in in_group_version(group, gv, minor)],
                "freshness": "Current",
            }
            for g, gv in group_versions(minor)
            if g == group
        ]
        items.append({"metadata": {"name": group, "creationTimestamp": None}, "versions": versions})
    return {
        "kind": "APIGroupDiscoveryList",
        "apiVersion": f"apidiscovery.k8s.io/{version}",
        "metadata": {},
        "items": items,
    }


def aggregated_version(accept: str) -> str | None:
    """The apidiscovery version an Accept header asks for, preferring v2."""
    parts = [p.replace(" ", "") for p in accept.split(",")]
    for version in ("v2", "v2beta1"):
        if any(
            "g=apidiscovery.k8s.io" in p and f";v={version};" in p + ";" and "as=APIGroupDiscoveryList" in p
            for p in parts
        ):
            return version
    return None


# ---------------------------------------------------------------- OpenAPI v3


def _gv_path(group: str, version: str) -> str:
    return f"apis/{group}/{version}" if group else f"api/{version}"


def openapi_gv(group: str, version: str, k8s_version: str) -> dict[str, Any] | None:
    minor = int(k8s_version.split(".")[1])
    """One PATCH operation per kind, with its GVK and the fieldValidation parameter.

    That is what kubectl's query-parameter probe reads before it leaves validation to the
    server; schemas are left out so kubectl falls back to its built-in patch metadata.
    """
    resources = [r for r in in_group_version(group, version, minor) if "patch" in r.verbs]
    if not in_group_version(group, version, minor):
        return None
    paths: dict[str, Any] = {}
    for r in resources:
        base = f"/{_gv_path(group, version)}"
        path = (
            f"{base}/namespaces/{{namespace}}/{r.plural}/{{name}}"
            if r.namespaced
            else f"{base}/{r.plural}/{{name}}"
        )
        operation = {
            "operationId": f"patch{r.kind}",
            "parameters": [
                {"name": "dryRun", "in": "query", "schema": {"type": "string", "uniqueItems": True}},
                {"name": "fieldManager", "in": "query", "schema": {"type": "string", "uniqueItems": True}},
                {"name": "fieldValidation", "in": "query", "schema": {"type": "string", "uniqueItems": True}},
                {"name": "force", "in": "query", "schema": {"type": "boolean", "uniqueItems": True}},
            ],
            "responses": {"200": {"description": "OK"}},
            "x-kubernetes-action": "patch",
            "x-kubernetes-group-version-kind": {"group": r.group, "version": r.version, "kind": r.kind},
        }
        paths[path] = {"patch": operation}
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": f"v{k8s_version}"},
        "paths": paths,
        "components": {},
    }


def openapi_index(k8s_version: str) -> dict[str, Any]:
    paths = {}
    for group, version in group_versions(int(k8s_version.split(".")[1])):
        document = openapi_gv(group, version, k8s_version)
        digest = hashlib.sha512(json.dumps(document, sort_keys=True).encode()).hexdigest().upper()[:128]
        paths[_gv_path(group, version)] = {
            "serverRelativeURL": f"/openapi/v3/{_gv_path(group, version)}?hash={digest}"
        }
    return {"paths": paths}


def version_info(version: str) -> dict[str, str]:
    """What ``/version`` answers for a cluster running Kubernetes ``version`` (e.g. "1.31.4")."""
    major, minor, _ = version.split(".")
    return {
        "major": major,
        "minor": minor,
        "gitVersion": f"v{version}",
        "gitCommit": hashlib.sha256(version.encode()).hexdigest()[:40],
        "gitTreeState": "clean",
        "buildDate": "2025-01-01T00:00:00Z",
        "goVersion": "go1.23.4",
        "compiler": "gc",
        "platform": "linux/amd64",
    }
