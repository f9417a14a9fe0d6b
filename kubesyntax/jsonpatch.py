"""JSON patches (RFC 6902): add, remove, replace, move, copy and test, applied as a whole or not at all."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from kubesyntax.jsonpointer import PointerError, array_index, child, parse_pointer, resolve

OPERATIONS = ("add", "remove", "replace", "move", "copy", "test")
MISSING = object()


class PatchError(ValueError):
    """A patch that is malformed or cannot apply to the document; str() names the operation and the path."""


def json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values: numbers by value, but true is not 1, and key order does not matter."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[key], b[key]) for key in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _parent(document: Any, tokens: list[str], pointer: str, create: bool) -> Any:
    """The container of the last token; with `create`, missing objects on the way are made (as Karmada's
    overriders do), so `add /metadata/annotations/x` works on an object without annotations."""
    node = document
    for token in tokens[:-1]:
        if create and isinstance(node, dict) and token not in node:
            node[token] = {}
        node = child(node, token, pointer)
    return node


def _add(document: Any, pointer: str, value: Any, create: bool = False) -> Any:
    tokens = parse_pointer(pointer)
    if not tokens:
        return value
    parent, last = _parent(document, tokens, pointer, create), tokens[-1]
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list):
        parent.insert(array_index(last, len(parent), pointer, end_allowed=True), value)
    else:
        raise PointerError(f"{pointer}: cannot add inside a {type(parent).__name__}")
    return document


def _remove(document: Any, pointer: str) -> tuple[Any, Any]:
    """The document without the value at `pointer`, and that value."""
    tokens = parse_pointer(pointer)
    if not tokens:
        raise PointerError("the whole document cannot be removed")
    parent, last = _parent(document, tokens, pointer, False), tokens[-1]
    if isinstance(parent, dict):
        if last not in parent:
            raise PointerError(f"{pointer}: {last!r} does not exist")
        return document, parent.pop(last)
    if isinstance(parent, list):
        return document, parent.pop(array_index(last, len(parent), pointer))
    raise PointerError(f"{pointer}: cannot remove inside a {type(parent).__name__}")


def _replace(document: Any, pointer: str, value: Any) -> Any:
    tokens = parse_pointer(pointer)
    if not tokens:
        return value
    parent, last = _parent(document, tokens, pointer, False), tokens[-1]
    child(parent, last, pointer)  # the value replaced must exist
    if isinstance(parent, list):
        parent[array_index(last, len(parent), pointer)] = value
    else:
        parent[last] = value
    return document


def _field(operation: Mapping[str, Any], name: str, number: int) -> Any:
    if name not in operation:
        raise PatchError(f"operation {number} ({operation.get('op')}) has no {name!r}")
    return operation[name]


def _apply_operation(
    document: Any, operation: Mapping[str, Any], number: int = 0, create: bool = False
) -> Any:
    """One operation applied to `document` in place; the document after it (a new root for path "")."""
    if not isinstance(operation, Mapping):
        raise PatchError(f"operation {number} is not an object")
    op = operation.get("op")
    if op not in OPERATIONS:
        raise PatchError(f"operation {number}: {op!r} is not one of {', '.join(OPERATIONS)}")
    path = _field(operation, "path", number)
    try:
        if op == "add":
            return _add(document, path, copy.deepcopy(_field(operation, "value", number)), create)
        if op == "remove":
            return _remove(document, path)[0]
        if op == "replace":
            return _replace(document, path, copy.deepcopy(_field(operation, "value", number)))
        if op == "test":
            if not json_equal(resolve(document, path), _field(operation, "value", number)):
                raise PatchError(f"operation {number}: test failed: {path} does not hold the value given")
            return document
        source = _field(operation, "from", number)
        if op == "move":
            if path.startswith(source + "/"):
                raise PatchError(f"operation {number}: cannot move {source} into its own child {path}")
            if path == source:
                resolve(document, source)
                return document
            document, value = _remove(document, source)
            return _add(document, path, value)
        return _add(document, path, copy.deepcopy(resolve(document, source)))
    except PointerError as exc:
        raise PatchError(f"operation {number} ({op}): {exc}") from None


def apply_patch(
    document: Any,
    operations: Iterable[Mapping[str, Any]],
    create_parents: bool = False,
    in_place: bool = False,
) -> Any:
    """The document after every operation, or PatchError and the document untouched (unless `in_place`,
    which changes it as it goes); `create_parents` makes missing objects on the way of an `add`, as
    Karmada's overriders do."""
    if isinstance(operations, (str, bytes, Mapping)) or not isinstance(operations, Iterable):
        raise PatchError("a JSON patch is a list of operations")
    result = document if in_place else copy.deepcopy(document)
    for number, operation in enumerate(operations):
        result = _apply_operation(result, operation, number, create_parents)
    return result
