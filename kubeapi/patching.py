"""PATCH bodies: JSON patch, JSON merge patch, and strategic-merge patch for the built-in kinds."""

from __future__ import annotations

import copy
import json
from typing import Any

from kubeapi.status import ApiError
from kubesyntax.jsonpatch import PatchError, apply_patch

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"
PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH, APPLY_PATCH)

# The lists of built-in kinds that merge by a key (patchMergeKey in Kubernetes' types), by field name.
MERGE_KEYS = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "env": "name",
    "volumes": "name",
    "volumeMounts": "mountPath",
    "volumeDevices": "devicePath",
    "ports": "containerPort",
    "imagePullSecrets": "name",
    "tolerations": "key",
    "hostAliases": "ip",
    "topologySpreadConstraints": "topologyKey",
    "conditions": "type",
    "ownerReferences": "uid",
    "finalizers": "",  # a set of strings: merged, not replaced
}
# Service ports merge by port, not containerPort.
SERVICE_PORT_KEY = "port"


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386: maps merge, null removes, anything else replaces."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def _merge_list(target: list[Any], patch: list[Any], key: str) -> list[Any]:
    if key == "":
        out = list(target)
        out += [item for item in patch if item not in out]
        return out
    result = copy.deepcopy(target)
    for item in patch:
        if not isinstance(item, dict):
            raise ApiError(400, f"strategic merge patch: expected maps keyed by {key!r} in the list")
        directive = item.get("$patch")
        index = next(
            (i for i, old in enumerate(result) if isinstance(old, dict) and old.get(key) == item.get(key)),
            None,
        )
        if directive == "delete":
            if index is not None:
                result.pop(index)
            continue
        body = {k: v for k, v in item.items() if k != "$patch"}
        if index is None:
            result.append(strategic_merge(None, body))
        else:
            result[index] = strategic_merge(result[index], body)
    return result


def strategic_merge(target: Any, patch: Any, field: str = "", parent: str = "") -> Any:
    """Kubernetes' strategic merge for the fields of built-in kinds: keyed lists merge by their key,
    `$patch: replace|delete` and `$deleteFromPrimitiveList/` directives, `$setElementOrder/` ignored
    (order follows the patch's own where it lists new elements)."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if patch.get("$patch") == "replace":
        return {k: copy.deepcopy(v) for k, v in patch.items() if k != "$patch"}
    if patch.get("$patch") == "delete":
        return None
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if key.startswith("$setElementOrder/") or key in ("$patch", "$retainKeys"):
            continue
        if key.startswith("$deleteFromPrimitiveList/"):
            name = key.partition("/")[2]
            result[name] = [v for v in result.get(name) or [] if v not in (value or [])]
            continue
        if value is None:
            result.pop(key, None)
            continue
        old = result.get(key)
        merge_key = MERGE_KEYS.get(key)
        if key == "ports" and field == "spec" and parent != "template":
            merge_key = SERVICE_PORT_KEY if not _container_ports(value) else merge_key
        if isinstance(value, list) and merge_key is not None and isinstance(old, list):
            result[key] = _merge_list(old, value, merge_key)
        elif isinstance(value, dict):
            result[key] = strategic_merge(old, value, key, field)
        else:
            result[key] = copy.deepcopy(value)
    return result


def _container_ports(ports: list[Any]) -> bool:
    return any(isinstance(p, dict) and "containerPort" in p for p in ports)


def parse_body(raw: bytes) -> Any:
    try:
        return json.loads(raw or b"null")
    except (ValueError, UnicodeDecodeError):
        raise ApiError(400, "the request body is not valid JSON") from None


def patched(current: dict[str, Any], content_type: str, raw: bytes, builtin: bool) -> dict[str, Any]:
    """The object after a JSON, merge or strategic-merge patch (server-side apply is elsewhere)."""
    patch = parse_body(raw)
    if content_type == JSON_PATCH:
        try:
            result = apply_patch(current, patch)
        except PatchError as exc:
            raise ApiError(422, f"the JSON patch cannot be applied: {exc}", "Invalid") from None
    elif content_type == MERGE_PATCH:
        if not isinstance(patch, dict):
            raise ApiError(400, "a merge patch must be a JSON object")
        result = merge_patch(current, patch)
    elif content_type == STRATEGIC_PATCH:
        if not builtin:
            raise ApiError(
                415,
                "strategic merge patch is not supported for custom resources; use a merge patch",
                "UnsupportedMediaType",
            )
        if not isinstance(patch, dict):
            raise ApiError(400, "a strategic merge patch must be a JSON object")
        result = strategic_merge(current, patch)
    else:
        raise ApiError(
            415,
            f"the patch type {content_type!r} is not one of {', '.join(PATCH_TYPES)}",
            "UnsupportedMediaType",
        )
    if not isinstance(result, dict):
        raise ApiError(422, "the patched object is not a Kubernetes object", "Invalid")
    return result
