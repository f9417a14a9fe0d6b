"""Object metadata helpers: timestamps, uids, generated names, owner references."""

from __future__ import annotations

import hashlib
import json
import random
import time
from datetime import UTC, datetime
from typing import Any

from membersim.resources import Resource

_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_random = random.Random()
_random_bits = _random.getrandbits


def now() -> str:
    """RFC 3339 UTC timestamp with second precision, as the API server writes."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


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


def template_hash(template: Any) -> str:
    """A stable short hash of a pod template, used as ``pod-template-hash``."""
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
