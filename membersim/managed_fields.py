"""metadata.managedFields as the API server keeps them: who set which field, by which operation and when.

Each write records, for its field manager (the `fieldManager` parameter, else the User-Agent up to its
first "/"), the fields it changed, in the FieldsV1 form (`f:<key>` for map keys, `k:{"name":"web"}`
for items of lists keyed by a merge key, other lists owned whole); other managers of those fields lose
them, and a manager left with no fields is dropped. Status writes and the object's own bookkeeping
(resourceVersion, generation, uid, timestamps, managedFields) are not recorded, as on a real server.
"""

from __future__ import annotations

import json
from typing import Any

from membersim import meta

Path = tuple[str, ...]
# The merge keys of the lists a manifest most often carries, in the order Kubernetes' schemas name them.
MERGE_KEYS = (("name",), ("containerPort", "protocol"), ("port", "protocol"), ("mountPath",), ("type",))
BOOKKEEPING = frozenset(
    "resourceVersion generation uid creationTimestamp deletionTimestamp managedFields selfLink".split()
)
MAX_MANAGER = 128


def manager_name(field_manager: str, user_agent: str) -> str:
    """The manager of a write: the parameter, else the User-Agent's product name (`kubectl`, …)."""
    name = field_manager or user_agent.split("/", 1)[0] or "unknown"
    return name[:MAX_MANAGER]


def _item_key(item: Any) -> str | None:
    if not isinstance(item, dict):
        return None
    for keys in MERGE_KEYS:
        if keys[0] in item:
            fields = {k: item[k] for k in keys if k in item}
            return "k:" + json.dumps(fields, separators=(",", ":"), sort_keys=True)
    return None


def leaves(value: Any, prefix: Path = ()) -> dict[Path, Any]:
    """Every owned field of a value by its FieldsV1 path; a list of keyless items is one field."""
    if isinstance(value, dict):
        found: dict[Path, Any] = {}
        for key, inner in value.items():
            if not prefix and key in ("status", "apiVersion", "kind"):
                continue
            if prefix == ("f:metadata",) and key in BOOKKEEPING:
                continue
            found.update(leaves(inner, (*prefix, f"f:{key}")))
        return found or ({prefix: {}} if prefix else {})
    if isinstance(value, list) and value:
        keys = [_item_key(item) for item in value]
        if all(keys):
            found = {}
            for item, item_key in zip(value, keys, strict=True):
                found.update(leaves(item, (*prefix, item_key or "")))
            return found
    return {prefix: value}


def changed(before: dict[str, Any] | None, after: dict[str, Any]) -> set[Path]:
    """The paths whose value a write set or changed (all of them for a create)."""
    return _changed(before, leaves(after))


def _changed(before: dict[str, Any] | None, after: dict[Path, Any]) -> set[Path]:
    old = leaves(before) if before else {}
    return {path for path, value in after.items() if path not in old or old[path] != value}


def _tree(paths: set[Path]) -> dict[str, Any]:
    root: dict[str, Any] = {}
    for path in sorted(paths):
        node = root
        for part in path:
            node = node.setdefault(part, {})
    return root


def _paths(tree: dict[str, Any], prefix: Path = ()) -> set[Path]:
    if not tree:
        return {prefix} if prefix else set()
    found: set[Path] = set()
    for key, inner in tree.items():
        found |= _paths(inner, (*prefix, key))
    return found


def record(
    before: dict[str, Any] | None, after: dict[str, Any], manager: str, operation: str, api_version: str
) -> list[dict[str, Any]]:
    """The managedFields `after` carries once `manager` wrote it over `before` (None for a create)."""
    after_leaves = leaves(after)
    touched = _changed(before, after_leaves)
    present = set(after_leaves)
    entries = []
    mine: set[Path] = set()
    for entry in (before or {}).get("metadata", {}).get("managedFields") or []:
        owned = _paths(entry.get("fieldsV1") or {}) & present
        if entry.get("manager") == manager and entry.get("operation") == operation:
            mine = owned
            continue
        owned -= touched
        if owned:
            entries.append({**entry, "fieldsV1": _tree(owned)})
    mine = (mine | touched) & present
    if mine:
        entries.append(
            {
                "manager": manager,
                "operation": operation,
                "apiVersion": api_version,
                "time": meta.now().split(".")[0].rstrip("Z") + "Z",
                "fieldsType": "FieldsV1",
                "fieldsV1": _tree(mine),
            }
        )
    return entries
