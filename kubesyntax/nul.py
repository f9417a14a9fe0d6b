"""The first field of a document whose name or text holds U+0000, which no object store here can keep."""

from __future__ import annotations

from typing import Any

from kubesyntax.fieldpaths import join

NUL = "\x00"


def first_nul(value: Any, path: str = "") -> str | None:
    """The path of the first map key or string under `value` that holds NUL (`metadata.labels[a]`), or
    None. A key that holds it is named as any key is, with the character written `\\0`."""
    if isinstance(value, str):
        return path if NUL in value else None
    if isinstance(value, dict):
        bracketed = _is_map_entry(path)
        for key, item in value.items():
            name = str(key).replace(NUL, "\\0")
            child = f"{path}[{name}]" if bracketed else join(path, name)
            if NUL in str(key):
                return child
            found = first_nul(item, child)
            if found is not None:
                return found
        return None
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = first_nul(item, join(path, index))
            if found is not None:
                return found
    return None


# maps whose keys Kubernetes writes in brackets in a field path (`metadata.labels[app]`)
BRACKETED = ("labels", "annotations", "data", "stringData", "binaryData", "nodeSelector", "matchLabels")


def _is_map_entry(path: str) -> bool:
    return path.rsplit(".", 1)[-1] in BRACKETED
