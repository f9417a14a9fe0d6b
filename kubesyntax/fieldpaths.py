"""Field paths as Kubernetes writes them in errors: `spec.containers[0].image`, `metadata.labels[app]`."""

from __future__ import annotations

import re

PART = re.compile(r"([^.\[\]]+)|\[([^\]]*)\]")


def join(path: str, key: str | int) -> str:
    """`path` extended with a field name, or with a list index when `key` is an int."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def split(path: str) -> list[str | int]:
    """The field names and indexes of `path`: `[0]` is the index 0, `[app]` the map key "app"."""
    parts: list[str | int] = []
    for match in PART.finditer(path):
        name, bracketed = match.groups()
        if name is not None:
            parts.append(name)
        else:
            parts.append(int(bracketed) if bracketed.isdigit() else bracketed)
    return parts
