"""Discovery: /version, /api, /apis, each group-version's resources, and aggregated discovery (v2)."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from kubeapi.catalogue import group_versions
from kubeapi.kinds import Kind

AGGREGATED_TYPE = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
SUBRESOURCE_VERBS = ("get", "patch", "update")


def server_version() -> dict[str, Any]:
    """/version: the Kubernetes version whose API this door speaks (kubectl's dispatcher picks its minor
    from it), from the KUBEAPI_KUBERNETES_VERSION setting."""
    version = str(settings.KUBEAPI_KUBERNETES_VERSION)
    major, minor = [*version.split("."), "0", "0"][:2]
    return {
        "major": major,
        "minor": minor,
        "gitVersion": f"v{version}",
        "gitCommit": "",
        "gitTreeState": "clean",
        "buildDate": "1970-01-01T00:00:00Z",
        "goVersion": "",
        "compiler": "",
        "platform": "linux/amd64",
    }


def api_versions() -> dict[str, Any]:
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": ""}],
    }


def _group(name: str, versions: list[str]) -> dict[str, Any]:
    entries = [{"groupVersion": f"{name}/{v}", "version": v} for v in versions]
    return {"name": name, "versions": entries, "preferredVersion": entries[0]}


def api_group_list(kinds: list[Kind]) -> dict[str, Any]:
    groups = [_group(g, v) for g, v in group_versions(kinds).items() if g]
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def api_group(name: str, kinds: list[Kind]) -> dict[str, Any] | None:
    versions = group_versions(kinds).get(name)
    if not name or not versions:
        return None
    return {"kind": "APIGroup", "apiVersion": "v1", **_group(name, versions)}


def _resource_entry(kind: Kind) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": kind.plural,
        "singularName": kind.singular,
        "namespaced": kind.namespaced,
        "kind": kind.kind,
        "verbs": list(kind.verbs),
    }
    if kind.short_names:
        entry["shortNames"] = list(kind.short_names)
    if kind.categories:
        entry["categories"] = list(kind.categories)
    return entry


def resource_list(group: str, version: str, kinds: list[Kind]) -> dict[str, Any] | None:
    mine = [k for k in kinds if (k.group, k.version) == (group, version)]
    if not mine:
        return None
    resources = []
    for kind in mine:
        resources.append(_resource_entry(kind))
        for sub in kind.subresources:
            resources.append(
                {
                    "name": f"{kind.plural}/{sub}",
                    "singularName": "",
                    "namespaced": kind.namespaced,
                    "kind": kind.kind,
                    "verbs": list(SUBRESOURCE_VERBS),
                }
            )
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": f"{group}/{version}" if group else version,
        "resources": resources,
    }


def _aggregated_resource(kind: Kind) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "resource": kind.plural,
        "responseKind": {"group": kind.group, "version": kind.version, "kind": kind.kind},
        "scope": "Namespaced" if kind.namespaced else "Cluster",
        "singularResource": kind.singular,
        "verbs": list(kind.verbs),
    }
    if kind.short_names:
        entry["shortNames"] = list(kind.short_names)
    if kind.categories:
        entry["categories"] = list(kind.categories)
    if kind.subresources:
        entry["subresources"] = [
            {
                "subresource": sub,
                "responseKind": {"group": kind.group, "version": kind.version, "kind": kind.kind},
                "verbs": list(SUBRESOURCE_VERBS),
            }
            for sub in kind.subresources
        ]
    return entry


def aggregated(kinds: list[Kind], legacy: bool) -> dict[str, Any]:
    """APIGroupDiscoveryList of the core group (`legacy`, for /api) or of every named group (/apis)."""
    items = []
    for group, versions in group_versions(kinds).items():
        if bool(group) == legacy:
            continue
        items.append(
            {
                "metadata": {"name": group, "creationTimestamp": None},
                "versions": [
                    {
                        "version": version,
                        "resources": [
                            _aggregated_resource(k) for k in kinds if (k.group, k.version) == (group, version)
                        ],
                        "freshness": "Current",
                    }
                    for version in versions
                ],
            }
        )
    return {
        "kind": "APIGroupDiscoveryList",
        "apiVersion": "apidiscovery.k8s.io/v2",
        "metadata": {},
        "items": items,
    }


def wants_aggregated(accept: str) -> bool:
    """Whether one of the accepted types is aggregated discovery v2 (v2beta1 clients get the legacy form)."""
    for entry in accept.split(","):
        params = {p.strip() for p in entry.split(";")[1:]}
        if {"g=apidiscovery.k8s.io", "v=v2", "as=APIGroupDiscoveryList"} <= params:
            return True
    return False
