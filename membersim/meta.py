"""Object metadata helpers: timestamps, uids, generated names, owner references."""

from __future__ import annotations

import hashlib
import json
import random
import sys
import time
from datetime import UTC, datetime
from typing import Any

import orjson

from membersim.resources import Resource

_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_random = random.Random()
_random_bits = _random.getrandbits


def random_bits(count: int) -> int:
    """``count`` random bits for ids that need not be secret (uids, container ids)."""
    return _random_bits(count)


_last_second: list[Any] = [0, ""]


def now() -> str:
    """RFC 3339 UTC timestamp with second precision, as the API server writes. Objects written in
    the same second share one string: a fleet of pods holds a dozen timestamps each."""
    second = int(time.time())
    if second != _last_second[0]:
        _last_second[:] = [second, datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")]
    return _last_second[1]


def interned_copy(value: Any) -> Any:
    """A deep copy of a decoded JSON value whose keys are shared with every other object's: the same few
    hundred names recur in each of a fleet's hundred thousand objects. Made by orjson, in C, whose
    decoder keeps one string per key; the parts equal to a stored object's are then shared whole by
    ``shared``. What orjson cannot encode (a key that is not a string, an integer past 64 bits, a
    float that is not a number) is copied by walking it."""
    try:
        copy = orjson.loads(orjson.dumps(value))
    except TypeError:  # orjson.JSONEncodeError is one
        return _walked_copy(value)
    # orjson writes a float that is not a number as null: such a value is copied by walking it
    return copy if copy == value else _walked_copy(value)


def _walked_copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {sys.intern(k) if isinstance(k, str) else k: _walked_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_walked_copy(v) for v in value]
    if isinstance(value, str) and len(value) <= 40:
        return sys.intern(value)
    return value


def parse_time(value: str | None) -> float:
    if not value:
        return time.time()
    try:
        return datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp()
    except ValueError:
        return time.time()


def new_uid() -> str:
    """A random (version 4) UUID string; formatted by hand because clusters create thousands at start."""
    value = (_random_bits(128) & ~(0xF000 << 64) | (0x4000 << 64)) & ~(0xC000 << 48) | (0x8000 << 48)
    text = f"{value:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def suffix(length: int = 5) -> str:
    return "".join(_random.choice(_NAME_ALPHABET) for _ in range(length))


_HASHES: dict[int, tuple[Any, str]] = {}
MAX_HASHES = 8192


def template_hash(template: Any) -> str:
    """A stable short hash of a pod template, used as ``pod-template-hash``. Stored objects are never
    changed in place, so the hash of a stored template is remembered (the cache keeps the template
    alive, so its id cannot be reused by another object)."""
    known = _HASHES.get(id(template))
    if known is not None and known[0] is template:
        return known[1]
    result = _template_hash(template)
    if isinstance(template, dict):
        if len(_HASHES) >= MAX_HASHES:
            _HASHES.clear()
        _HASHES[id(template)] = (template, result)
    return result


def _template_hash(template: Any) -> str:
    digest = hashlib.sha256(json.dumps(template, sort_keys=True).encode()).digest()
    number = int.from_bytes(digest[:8], "big")
    chars = []
    for _ in range(10):
        number, index = divmod(number, len(_NAME_ALPHABET))
        chars.append(_NAME_ALPHABET[index])
    return "".join(chars)


def stamp_new(resource: Resource, obj: dict[str, Any]) -> dict[str, Any]:
    """Fill the metadata the API server assigns on create."""
    metadata = obj.setdefault("metadata", {})
    metadata["uid"] = new_uid()
    metadata["creationTimestamp"] = now()
    if resource.generation:
        metadata["generation"] = 1
    obj["apiVersion"], obj["kind"] = resource.api_version, resource.kind
    return obj


_SHARED: dict[int, Any] = {}
# id of a part in _SHARED -> the part (which keeps the id from being reused)
_KNOWN: dict[int, Any] = {}
MAX_SHARED = 200_000
_NESTED = (dict, list)


def shared(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with every part equal to a part of an object stored before replaced by that part: a
    fleet's thousands of Deployments, ReplicaSets and pods repeat the same containers, resources,
    strategies and conditions. Safe because stored objects are never changed in place. The object's
    own dict and its metadata (unique by name and uid) stay its own."""
    result: dict[str, Any] = {}
    for key, value in obj.items():
        if key == "metadata" and isinstance(value, dict):
            result[key] = {k: _share(v) for k, v in value.items()}
        else:
            result[key] = _share(value)
    return result


def shared_part(value: Any) -> Any:
    """``value`` (a status, a spec) as ``shared`` shares an object's parts."""
    return _share(value)


def _share(value: Any) -> Any:
    """The shared equal of ``value``. A part is looked up whole first, by the hash of its JSON (encoded
    in C, so a part seen before costs one encoding, not a walk of its every leaf); only a part not seen
    whole is walked, its own parts looked up the same way. JSON tells bool, int and float apart as the
    stored objects do; a hit is used only when it is also equal. A part that is already the shared one
    (a pod's spec taken from its template) is known by identity."""
    if not isinstance(value, _NESTED):
        return value
    if _KNOWN.get(id(value)) is value:
        return value
    try:
        key: int | None = hash(orjson.dumps(value))
    except TypeError:  # what JSON cannot hold as orjson writes it (a key that is not a string): unshared
        key = None
    if key is not None:
        found = _SHARED.get(key)
        if found is not None and found == value:
            return found
    candidate: Any
    if isinstance(value, dict):
        candidate = {k: _share(v) if isinstance(v, _NESTED) else v for k, v in value.items()}
    else:
        candidate = [_share(v) if isinstance(v, _NESTED) else v for v in value]
    if key is None:
        return candidate
    if len(_SHARED) >= MAX_SHARED:
        _SHARED.clear()  # what is stored keeps its sharing; only later objects start over
        _KNOWN.clear()
    _SHARED[key] = candidate
    _KNOWN[id(candidate)] = candidate
    return candidate


def owner_reference(owner: dict[str, Any], *, controller: bool = True) -> dict[str, Any]:
    return {
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
        "controller": controller,
        "blockOwnerDeletion": True,
    }


def controller_uid(obj: dict[str, Any]) -> str | None:
    for ref in obj["metadata"].get("ownerReferences") or []:
        if ref.get("controller"):
            return ref.get("uid")
    return None


def age(timestamp: str | None) -> str:
    """kubectl's short human duration: 5s, 3m, 2h, 4d."""
    seconds = max(0, int(time.time() - parse_time(timestamp)))
    if seconds < 120:
        return f"{seconds}s"
    if seconds < 7200:
        return f"{seconds // 60}m"
    if seconds < 172800:
        return f"{seconds // 3600}h"
    return f"{seconds // 86400}d"
