"""JSON pointers (RFC 6901): `/spec/template/spec/containers/0/image`, with `~0` for `~` and `~1` for `/`."""

from __future__ import annotations

import re
from typing import Any

ARRAY_INDEX = re.compile(r"(0|[1-9][0-9]*)")


class PointerError(ValueError):
    """A pointer that is malformed, or that names nothing in the document; str() says which and why."""


def parse_pointer(pointer: str) -> list[str]:
    """The reference tokens of `pointer`, unescaped; "" is the whole document."""
    if not isinstance(pointer, str):
        raise PointerError(f"{pointer!r} is not a JSON pointer")
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PointerError(f"{pointer!r} is not a JSON pointer: it must be empty or start with '/'")
    if re.search(r"~(?![01])", pointer):
        raise PointerError(f"{pointer!r} is not a JSON pointer: '~' must be followed by 0 or 1")
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer[1:].split("/")]


def pointer_error(pointer: object) -> str | None:
    """Why `pointer` is not a JSON pointer, or None when it is."""
    try:
        parse_pointer(pointer)  # type: ignore[arg-type]
    except PointerError as exc:
        return str(exc)
    return None


def array_index(token: str, length: int, pointer: str, end_allowed: bool = False) -> int:
    """The array position `token` names: digits without leading zeros, or `-` (past the end) if allowed."""
    if token == "-" and end_allowed:
        return length
    if not ARRAY_INDEX.fullmatch(token):
        raise PointerError(f"{pointer}: {token!r} is not an array index")
    index = int(token)
    if index > length or (index == length and not end_allowed):
        raise PointerError(f"{pointer}: there is no array element {index}")
    return index


def child(node: Any, token: str, pointer: str) -> Any:
    """The member or element `token` of `node`."""
    if isinstance(node, dict):
        if token not in node:
            raise PointerError(f"{pointer}: {token!r} does not exist")
        return node[token]
    if isinstance(node, list):
        return node[array_index(token, len(node), pointer)]
    raise PointerError(f"{pointer}: cannot look inside a {type(node).__name__}")


def resolve(document: Any, pointer: str) -> Any:
    """The value `pointer` names in `document`."""
    node = document
    for token in parse_pointer(pointer):
        node = child(node, token, pointer)
    return node
