"""OpenAPI v2 and v3 documents of the custom kinds served (Karmada's and the generic ones).

Built-in kinds are left out on purpose: kubectl then uses its compiled types for them, so its
client-side apply sends proper strategic-merge patches with their merge keys.
"""

from __future__ import annotations

from typing import Any

from kubeapi.kinds import Kind

OPEN_OBJECT = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}


def definition_name(kind: Kind) -> str:
    reversed_group = ".".join(reversed(kind.group.split("."))) if kind.group else "io.k8s.api.core"
    return f"{reversed_group}.{kind.version}.{kind.kind}"


def _schema(kind: Kind, ref_prefix: str) -> dict[str, Any]:
    return {
        "type": "object",
        "description": f"{kind.kind} ({kind.api_version}) as karmada-ui serves it",
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"$ref": f"{ref_prefix}io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
            "spec": dict(OPEN_OBJECT),
            "status": dict(OPEN_OBJECT),
        },
        "x-kubernetes-group-version-kind": [
            {"group": kind.group, "version": kind.version, "kind": kind.kind}
        ],
    }


def _object_meta() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "namespace": {"type": "string"},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
        },
        "x-kubernetes-preserve-unknown-fields": True,
    }


def _custom(kinds: list[Kind]) -> list[Kind]:
    return [k for k in kinds if not k.builtin]


def v2(kinds: list[Kind]) -> dict[str, Any]:
    prefix = "#/definitions/"
    definitions = {definition_name(k): _schema(k, prefix) for k in _custom(kinds)}
    definitions["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"] = _object_meta()
    return {
        "swagger": "2.0",
        "info": {"title": "karmada-ui Kubernetes API", "version": "v1"},
        "paths": {},
        "definitions": definitions,
    }


FIELD_VALIDATION = {
    "name": "fieldValidation",
    "in": "query",
    "description": "Strict, Warn or Ignore: what the server does with unknown or duplicate fields",
    "schema": {"type": "string", "uniqueItems": True},
}


def _paths(kinds: list[Kind]) -> dict[str, Any]:
    """An item path per kind whose write operations take fieldValidation: kubectl reads this to leave
    validation to the server (fieldValidation=Strict) instead of fetching the v2 protobuf schema."""
    paths: dict[str, Any] = {}
    for kind in kinds:
        base = f"/apis/{kind.group}/{kind.version}" if kind.group else "/api/v1"
        scope = "/namespaces/{namespace}" if kind.namespaced else ""
        gvk = {"group": kind.group, "version": kind.version, "kind": kind.kind}
        operations: dict[str, Any] = {}
        for method, action in (("put", "put"), ("patch", "patch"), ("post", "post")):
            operations[method] = {
                "operationId": f"{method}{kind.kind}",
                "parameters": [FIELD_VALIDATION],
                "responses": {"200": {"description": "OK"}},
                "x-kubernetes-action": action,
                "x-kubernetes-group-version-kind": gvk,
            }
        paths[f"{base}{scope}/{kind.plural}/{{name}}"] = operations
    return paths


def v3_index(kinds: list[Kind]) -> dict[str, Any]:
    paths = {}
    for kind in kinds:
        path = f"apis/{kind.group}/{kind.version}" if kind.group else "api/v1"
        paths[path] = {"serverRelativeURL": f"/k8s/openapi/v3/{path}"}
    return {"paths": paths}


def v3(kinds: list[Kind], group: str, version: str) -> dict[str, Any] | None:
    mine = [k for k in kinds if (k.group, k.version) == (group, version)]
    if not mine:
        return None
    prefix = "#/components/schemas/"
    schemas = {definition_name(k): _schema(k, prefix) for k in _custom(mine)}
    schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"] = _object_meta()
    return {
        "openapi": "3.0.0",
        "info": {"title": "karmada-ui Kubernetes API", "version": "v1"},
        "paths": _paths(mine),
        "components": {"schemas": schemas},
    }
