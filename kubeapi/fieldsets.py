"""Field sets as server-side apply sees an object: every owned field by its path, and FieldsV1 trees.

A path is a tuple of FieldsV1 elements: `f:<key>` for a map key, `k:{"name":"web"}` for an item of a
list keyed by a merge key (built-in kinds' keyed lists; the item itself is a member of the set, as
FieldsV1's `.` says), `v:<json>` for an item of a set of strings (finalizers). Any other list is
atomic: owned whole, as Kubernetes treats the lists of a schema that does not say otherwise.
"""

from __future__ import annotations

import json
from typing import Any

from kubeapi.patching import MERGE_KEYS

Path = tuple[str, ...]
# The value recorded for a keyed list's item node: it never differs, only its fields do.
ITEM = ("<item>",)
# metadata the server fills in: never owned by a manager
BOOKKEEPING = frozenset(
    "name namespace uid resourceVersion generation creationTimestamp deletionTimestamp "
    "deletionGracePeriodSeconds managedFields selfLink".split()
)
SET_LISTS = frozenset({"finalizers"})


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _item_element(item: Any, key: str) -> str | None:
    if not isinstance(item, dict) or key not in item:
        return None
    return "k:" + _compact({key: item[key]})


def _walk(value: Any, prefix: Path, keyed: bool, found: dict[Path, Any]) -> None:
    if isinstance(value, dict) and value:
        for key, inner in value.items():
            _walk(inner, (*prefix, f"f:{key}"), keyed, found)
        return
    field = prefix[-1][2:] if prefix and prefix[-1].startswith("f:") else ""
    if isinstance(value, list) and value and keyed and field in SET_LISTS:
        if all(isinstance(item, str) for item in value):
            for item in value:
                found[(*prefix, "v:" + _compact(item))] = ITEM
            return
    merge_key = MERGE_KEYS.get(field) if keyed and isinstance(value, list) and value else None
    if merge_key:
        elements = [_item_element(item, merge_key) for item in value]
        if all(elements) and len(set(elements)) == len(elements):
            for element, item in zip(elements, value, strict=True):
                item_path = (*prefix, str(element))
                found[item_path] = ITEM
                _walk(item, item_path, keyed, found)
            return
    if prefix:
        found[prefix] = value


def leaves(document: dict[str, Any], keyed: bool, subresource: str = "") -> dict[Path, Any]:
    """Every field of `document` a manager can own, with its value (item nodes valued ITEM).

    `keyed`: the kind is built in, so its lists merge by Kubernetes' merge keys. The main resource
    never owns status; the status subresource owns nothing else."""
    found: dict[Path, Any] = {}
    for key, value in document.items():
        if key in ("apiVersion", "kind"):
            continue
        if (key == "status") != (subresource == "status"):
            continue
        if key == "metadata" and isinstance(value, dict):
            value = {k: v for k, v in value.items() if k not in BOOKKEEPING}
            if not value:
                continue
        _walk(value, (f"f:{key}",), keyed, found)
    return found


def to_fields_v1(paths: set[Path]) -> dict[str, Any]:
    """The FieldsV1 tree of a set of paths; a member that also has members below it carries `.`."""
    root: dict[str, Any] = {}
    for path in sorted(paths):
        node = root
        for element in path:
            node = node.setdefault(element, {})
    members = set(paths)

    def mark(node: dict[str, Any], prefix: Path) -> None:
        for element, inner in node.items():
            here = (*prefix, element)
            if inner:
                mark(inner, here)
                if here in members:
                    inner["."] = {}

    mark(root, ())
    return root


def from_fields_v1(tree: Any, prefix: Path = ()) -> set[Path]:
    """The paths a FieldsV1 tree names (a malformed tree names none)."""
    if not isinstance(tree, dict):
        return set()
    if not tree:
        return {prefix} if prefix else set()
    found: set[Path] = set()
    for element, inner in tree.items():
        if element == ".":
            if prefix:
                found.add(prefix)
            continue
        found |= from_fields_v1(inner, (*prefix, element))
    return found


def display(path: Path) -> str:
    """A path as the API server prints it in a conflict: `.spec.containers[name="web"].image`."""
    out = ""
    for element in path:
        kind, _, rest = element.partition(":")
        if kind == "f":
            out += f".{rest}"
        elif kind == "k":
            try:
                keys = json.loads(rest)
            except ValueError:
                keys = {}
            out += "[" + ",".join(f"{k}={json.dumps(v)}" for k, v in sorted(keys.items())) + "]"
        else:
            out += f"[={rest}]"
    return out or "."


def remove(document: dict[str, Any], path: Path) -> None:
    """Take the field at `path` out of `document` (an item path takes the whole item)."""
    if not path:
        return
    parent: Any = document
    for element in path[:-1]:
        parent = _child(parent, element)
        if parent is None:
            return
    last = path[-1]
    if isinstance(parent, dict) and last.startswith("f:"):
        parent.pop(last[2:], None)
    elif isinstance(parent, list):
        for index, item in enumerate(parent):
            if _matches(item, last):
                parent.pop(index)
                return


def _child(node: Any, element: str) -> Any:
    if isinstance(node, dict) and element.startswith("f:"):
        return node.get(element[2:])
    if isinstance(node, list):
        return next((item for item in node if _matches(item, element)), None)
    return None


def _matches(item: Any, element: str) -> bool:
    kind, _, rest = element.partition(":")
    try:
        wanted = json.loads(rest)
    except ValueError:
        return False
    if kind == "k":
        return isinstance(item, dict) and all(item.get(k) == v for k, v in wanted.items())
    return kind == "v" and item == wanted
