"""JSON bytes of stored objects, encoded once per version and reused: by every list that returns the
object and by every watch that sends it (a fleet's control plane watches each cluster many times)."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

import orjson

# Bytes of encodings kept, least recently used first out: enough for the lists and watches of a
# busy fleet, small against the objects themselves.
MAX_BYTES = 256 * 2**20

KIND = ("kind", "apiVersion")  # left out of list items

_lock = threading.Lock()
# id of the stored object -> (the object, which keeps the id from being reused; its bytes; where its
# fields after kind and apiVersion begin, 0 when it has no such head). One encoding serves both forms:
# a list item is the object's bytes without the head, so an object a watch sent and a list returns
# (the control plane's resync) is encoded once, and the budget holds twice as many objects.
_cache: OrderedDict[int, tuple[dict[str, Any], bytes, int]] = OrderedDict()
_size = [0]


def loads(raw: bytes | str) -> Any:
    """A request body's JSON: orjson, or the standard library for what orjson refuses (NaN); ValueError
    when it is not JSON."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return json.loads(raw)


def dumps(value: Any) -> bytes:
    """Compact JSON: orjson, or the standard library for what orjson refuses (a key that is not a
    string, an integer past 64 bits)."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, separators=(",", ":")).encode()


_heads: dict[tuple[Any, Any], bytes] = {}  # (kind, apiVersion) -> the bytes an object starts with


def _encode_whole(obj: dict[str, Any]) -> tuple[bytes, int]:
    """``obj`` as JSON with kind and apiVersion first, as the API server writes them, and the offset of
    the rest (0 when the object lacks either or has nothing else)."""
    if "kind" in obj and "apiVersion" in obj and len(obj) > 2:
        kind, api_version = obj["kind"], obj["apiVersion"]
        if isinstance(kind, str) and isinstance(api_version, str):
            head = _heads.get((kind, api_version))
            if head is None:
                head = b'{"kind":' + dumps(kind) + b',"apiVersion":' + dumps(api_version) + b","
                if len(_heads) < 256:  # the kinds served: a handful
                    _heads[kind, api_version] = head
        else:
            head = b'{"kind":' + dumps(kind) + b',"apiVersion":' + dumps(api_version) + b","
        rest = dumps({k: v for k, v in obj.items() if k not in KIND})
        return head + rest[1:], len(head)
    return dumps(obj), 0


def _as_item(obj: dict[str, Any], body: bytes, rest: int) -> bytes:
    if rest:
        return b"{" + body[rest:]
    return dumps({k: v for k, v in obj.items() if k not in KIND})


def encode(obj: dict[str, Any], *, as_item: bool = False) -> bytes:
    """``obj`` as JSON; as a list item without kind and apiVersion, as the API server lists them.
    Stored objects are never changed in place, so an object's encoding stays right while it lives."""
    return encode_all([obj], as_item=as_item)[0]


def encode_all(objects: list[dict[str, Any]], *, as_item: bool = False) -> list[bytes]:
    """``encode`` of each object, the cache looked up once for the lot (a list of a thousand pods)."""
    found: list[tuple[bytes, int] | None] = []
    with _lock:
        for obj in objects:
            entry = _cache.get(id(obj))
            if entry is not None and entry[0] is obj:
                _cache.move_to_end(id(obj))
                found.append((entry[1], entry[2]))
            else:
                found.append(None)
    missing = [i for i, entry in enumerate(found) if entry is None]
    if missing:
        fresh = {i: _encode_whole(objects[i]) for i in missing}
        with _lock:
            for i, (body, _) in fresh.items():
                obj = objects[i]
                previous = _cache.pop(id(obj), None)
                if previous is not None:
                    _size[0] -= len(previous[1])
                _cache[id(obj)] = (obj, body, fresh[i][1])
                _size[0] += len(body)
            while _size[0] > MAX_BYTES and _cache:
                _, (_, dropped, _) = _cache.popitem(last=False)
                _size[0] -= len(dropped)
        for i, entry in fresh.items():
            found[i] = entry
    if not as_item:
        return [entry[0] for entry in found]  # type: ignore[index]
    return [_as_item(obj, *entry) for obj, entry in zip(objects, found, strict=True)]  # type: ignore[misc]


def encode_list(kind: str, api_version: str, list_meta: dict[str, Any], items: list[dict[str, Any]]) -> bytes:
    """A ``*List`` document, its items spliced in from their cached encodings."""
    items_json = b",".join(encode_all(items, as_item=True))
    # One join: a page of 500 pods is near a megabyte, and each + would copy it again.
    return b"".join(
        (
            b'{"kind":',
            dumps(kind),
            b',"apiVersion":',
            dumps(api_version),
            b',"metadata":',
            dumps(list_meta),
            b',"items":[',
            items_json,
            b"]}",
        )
    )


def encode_event(kind: str, obj: dict[str, Any]) -> bytes:
    """A watch event line (without its newline)."""
    return b'{"type":' + dumps(kind) + b',"object":' + encode(obj) + b"}"
