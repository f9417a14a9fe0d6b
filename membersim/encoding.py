"""JSON bytes of stored objects, encoded once per version and reused: by every list that returns the
object and by every watch that sends it (a fleet's control plane watches each cluster many times)."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

# Bytes of encodings kept, least recently used first out: enough for the lists and watches of a
# busy fleet, small against the objects themselves.
MAX_BYTES = 256 * 2**20

KIND = ("kind", "apiVersion")  # left out of list items

_lock = threading.Lock()
# id of the stored object -> (the object, which keeps the id from being reused; as item; bytes)
_cache: OrderedDict[tuple[int, bool], tuple[dict[str, Any], bytes]] = OrderedDict()
_size = [0]


def dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def encode(obj: dict[str, Any], *, as_item: bool = False) -> bytes:
    """``obj`` as JSON; as a list item without kind and apiVersion, as the API server lists them.
    Stored objects are never changed in place, so an object's encoding stays right while it lives."""
    return encode_all([obj], as_item=as_item)[0]


def encode_all(objects: list[dict[str, Any]], *, as_item: bool = False) -> list[bytes]:
    """``encode`` of each object, the cache looked up once for the lot (a list of a thousand pods)."""
    bodies: list[bytes | None] = []
    with _lock:
        for obj in objects:
            key = (id(obj), as_item)
            found = _cache.get(key)
            if found is not None and found[0] is obj:
                _cache.move_to_end(key)
                bodies.append(found[1])
            else:
                bodies.append(None)
    missing = [i for i, body in enumerate(bodies) if body is None]
    if not missing:
        return bodies  # type: ignore[return-value]
    fresh = {}
    for i in missing:
        obj = objects[i]
        bodies[i] = fresh[i] = dumps({k: v for k, v in obj.items() if k not in KIND} if as_item else obj)
    with _lock:
        for i, body in fresh.items():
            obj = objects[i]
            key = (id(obj), as_item)
            previous = _cache.pop(key, None)
            if previous is not None:
                _size[0] -= len(previous[1])
            _cache[key] = (obj, body)
            _size[0] += len(body)
        while _size[0] > MAX_BYTES and _cache:
            _, (_, dropped) = _cache.popitem(last=False)
            _size[0] -= len(dropped)
    return bodies  # type: ignore[return-value]


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
