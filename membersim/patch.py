"""JSON patch (RFC 6902), JSON merge patch (RFC 7386) and Kubernetes strategic merge patch."""

from __future__ import annotations

import copy
from typing import Any


class PatchError(ValueError):
    """A patch that cannot be applied; the message says why."""


# Lists that merge by a key instead of being replaced, keyed by field name. These follow the
# patchMergeKey/patchStrategy tags of the core and apps types; lists not named here (tolerations,
# taints, args, command, envFrom, ...) are atomic and replaced whole, as in Kubernetes.
MERGE_KEYS: dict[str, str] = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "env": "name",
    "volumeMounts": "mountPath",
    "volumeDevices": "devicePath",
    "volumes": "name",
    "conditions": "type",
    "imagePullSecrets": "name",
    "hostAliases": "ip",
    "ownerReferences": "uid",
    "addresses": "type",
    "topologySpreadConstraints": "topologyKey",
    "resourceClaims": "name",
    "schedulingGates": "name",
    "podIPs": "ip",
    "hostIPs": "ip",
}
# Lists of scalars merged as sets.
PRIMITIVE_MERGE = {"finalizers"}


def _merge_key(field: str, items: list[Any]) -> str | None:
    if field == "ports":
        # Container ports merge by containerPort, service ports by port.
        for item in items:
            if isinstance(item, dict) and "containerPort" in item:
                return "containerPort"
        return "port"
    return MERGE_KEYS.get(field)


# ---------------------------------------------------------------- JSON merge patch


def merge_patch(original: Any, patch: Any) -> Any:
    """RFC 7386: maps merge recursively, ``null`` deletes, everything else replaces."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(original) if isinstance(original, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


# ---------------------------------------------------------------- JSON patch


def _decode_pointer(pointer: str) -> list[str]:
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PatchError(f"invalid JSON pointer {pointer!r}")
    return [p.replace("~1", "/").replace("~0", "~") for p in pointer[1:].split("/")]


def _container_and_key(doc: Any, parts: list[str], pointer: str) -> tuple[Any, str]:
    current = doc
    for part in parts[:-1]:
        if isinstance(current, dict) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            raise PatchError(f"path {pointer!r} does not exist")
    return current, parts[-1]


def _get(doc: Any, pointer: str) -> Any:
    current = doc
    for part in _decode_pointer(pointer):
        if isinstance(current, dict) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            raise PatchError(f"path {pointer!r} does not exist")
    return current


def _add(doc: Any, pointer: str, value: Any) -> Any:
    parts = _decode_pointer(pointer)
    if not parts:
        return value
    parent, key = _container_and_key(doc, parts, pointer)
    if isinstance(parent, dict):
        parent[key] = value
    elif isinstance(parent, list):
        if key == "-":
            parent.append(value)
        elif key.isdigit() and int(key) <= len(parent):
            parent.insert(int(key), value)
        else:
            raise PatchError(f"index {key!r} out of range at {pointer!r}")
    else:
        raise PatchError(f"cannot add at {pointer!r}: parent is not an object or array")
    return doc


def _remove(doc: Any, pointer: str) -> tuple[Any, Any]:
    parts = _decode_pointer(pointer)
    if not parts:
        raise PatchError("cannot remove the whole document")
    parent, key = _container_and_key(doc, parts, pointer)
    if isinstance(parent, dict) and key in parent:
        return doc, parent.pop(key)
    if isinstance(parent, list) and key.isdigit() and int(key) < len(parent):
        return doc, parent.pop(int(key))
    raise PatchError(f"path {pointer!r} does not exist")


def json_patch(original: Any, operations: Any) -> Any:
    """RFC 6902 operations applied in order; any failure rejects the whole patch."""
    if not isinstance(operations, list):
        raise PatchError("a JSON patch must be a list of operations")
    doc = copy.deepcopy(original)
    for index, op in enumerate(operations):
        if not isinstance(op, dict) or "op" not in op or "path" not in op:
            raise PatchError(f"operation {index} needs 'op' and 'path'")
        kind, path = op["op"], op["path"]
        if kind in ("add", "replace", "test") and "value" not in op:
            raise PatchError(f"operation {index} ({kind}) needs 'value'")
        if kind == "add":
            doc = _add(doc, path, copy.deepcopy(op["value"]))
        elif kind == "remove":
            doc, _ = _remove(doc, path)
        elif kind == "replace":
            _get(doc, path)
            doc, _ = _remove(doc, path) if _decode_pointer(path) else (doc, None)
            doc = _add(doc, path, copy.deepcopy(op["value"]))
        elif kind in ("move", "copy"):
            if "from" not in op:
                raise PatchError(f"operation {index} ({kind}) needs 'from'")
            if kind == "move":
                doc, value = _remove(doc, op["from"])
            else:
                value = copy.deepcopy(_get(doc, op["from"]))
            doc = _add(doc, path, value)
        elif kind == "test":
            if _get(doc, path) != op["value"]:
                raise PatchError(f"test operation at {path!r} failed")
        else:
            raise PatchError(f"unknown operation {kind!r}")
    return doc


# ---------------------------------------------------------------- strategic merge patch

_DIRECTIVE_PREFIXES = ("$setElementOrder/", "$deleteFromPrimitiveList/", "$retainKeys", "$patch")


def _strip_directives(value: Any) -> Any:
    """A patch fragment with no original to merge into becomes plain data."""
    if isinstance(value, dict):
        if value.get("$patch") == "delete":
            return None
        return {
            k: _strip_directives(v)
            for k, v in value.items()
            if not k.startswith(_DIRECTIVE_PREFIXES) and v is not None
        }
    if isinstance(value, list):
        return [
            _strip_directives(v) for v in value if not (isinstance(v, dict) and v.get("$patch") == "delete")
        ]
    return value


def strategic_merge_patch(original: Any, patch: Any) -> Any:
    """Apply a strategic merge patch as the API server does for the built-in types."""
    if not isinstance(patch, dict):
        raise PatchError("a strategic merge patch must be a JSON object")
    result = _merge_map(original if isinstance(original, dict) else {}, patch)
    if result is None:
        raise PatchError("$patch: delete is not allowed on the whole object")
    return result


def _merge_map(original: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any] | None:
    directive = patch.get("$patch")
    if directive == "delete":
        return None
    if directive == "replace":
        return _strip_directives({k: v for k, v in patch.items() if k != "$patch"})
    if directive not in (None, "merge"):
        raise PatchError(f"unknown patch directive {directive!r}")
    result = dict(original)
    orders: dict[str, list[Any]] = {}
    for key, value in patch.items():
        if key in ("$patch", "$retainKeys"):
            continue
        if key.startswith("$setElementOrder/"):
            orders[key.split("/", 1)[1]] = value
            continue
        if key.startswith("$deleteFromPrimitiveList/"):
            field = key.split("/", 1)[1]
            if not isinstance(value, list):
                raise PatchError(f"{key} must be a list")
            if isinstance(result.get(field), list):
                result[field] = [v for v in result[field] if v not in value]
            continue
        if value is None:
            result.pop(key, None)
        elif isinstance(value, dict):
            merged = (
                _merge_map(result[key], value) if isinstance(result.get(key), dict) else _merge_map({}, value)
            )
            if merged is None:
                result.pop(key, None)
            else:
                result[key] = merged
        elif isinstance(value, list):
            result[key] = _merge_list(key, result.get(key), value)
        else:
            result[key] = value
    for field, order in orders.items():
        if isinstance(result.get(field), list):
            result[field] = _apply_order(field, result[field], order)
    if "$retainKeys" in patch:
        keep = set(patch["$retainKeys"] or [])
        result = {k: v for k, v in result.items() if k in keep}
    return result


def _merge_list(field: str, original: Any, patch: list[Any]) -> list[Any]:
    original = original if isinstance(original, list) else []
    for item in patch:
        if isinstance(item, dict) and item.get("$patch") == "replace":
            return _strip_directives([i for i in patch if i is not item])
    if field in PRIMITIVE_MERGE:
        merged = list(original)
        for item in patch:
            if item not in merged:
                merged.append(item)
        return merged
    key = _merge_key(field, patch + original)
    if key is None or not all(isinstance(i, dict) for i in patch):
        return _strip_directives(patch)
    merged = [dict(i) if isinstance(i, dict) else i for i in original]
    for item in patch:
        if key not in item:
            raise PatchError(f"map in list {field!r} does not contain the merge key {key!r}")
        position = next(
            (n for n, o in enumerate(merged) if isinstance(o, dict) and o.get(key) == item[key]), None
        )
        if item.get("$patch") == "delete":
            if position is not None:
                merged.pop(position)
            continue
        if position is None:
            merged.append(_strip_directives(item))
        else:
            combined = _merge_map(merged[position], item)
            if combined is None:
                merged.pop(position)
            else:
                merged[position] = combined
    return merged


def _apply_order(field: str, items: list[Any], order: list[Any]) -> list[Any]:
    key = _merge_key(field, [o for o in order if isinstance(o, dict)] + items)
    if key is None:
        positions = {repr(v): n for n, v in enumerate(order)}
        return sorted(items, key=lambda v: positions.get(repr(v), len(positions)))
    ranks: dict[Any, int] = {o.get(key): n for n, o in enumerate(order) if isinstance(o, dict)}
    return sorted(items, key=lambda v: ranks.get(v.get(key) if isinstance(v, dict) else None, len(ranks)))


def removal_patch(previous: Any, current: Any) -> dict[str, Any]:
    """A strategic merge patch that deletes what ``previous`` set and ``current`` no longer does.

    Server-side apply uses it to drop fields a field manager stopped applying.
    """
    patch: dict[str, Any] = {}
    if not isinstance(previous, dict):
        return patch
    current = current if isinstance(current, dict) else {}
    for key, old in previous.items():
        if key not in current:
            patch[key] = None
            continue
        new = current[key]
        if isinstance(old, dict) and isinstance(new, dict):
            nested = removal_patch(old, new)
            if nested:
                patch[key] = nested
        elif isinstance(old, list) and isinstance(new, list):
            merge_key = _merge_key(key, old + new)
            if merge_key and all(isinstance(i, dict) for i in old + new):
                new_by_key = {i.get(merge_key): i for i in new}
                entries = []
                for item in old:
                    if item.get(merge_key) not in new_by_key:
                        entries.append({merge_key: item.get(merge_key), "$patch": "delete"})
                    else:
                        nested = removal_patch(item, new_by_key[item.get(merge_key)])
                        if nested:
                            entries.append({merge_key: item.get(merge_key), **nested})
                if entries:
                    patch[key] = entries
    return patch
