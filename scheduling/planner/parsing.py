"""Small typed readers for Kubernetes-style dicts that report the failing field path."""

from __future__ import annotations

from typing import Any

from kubesyntax.fieldpaths import join

from .errors import InputError


def get_map(data: Any, path: str) -> dict[str, Any] | None:
    """A mapping, or None when absent (null)."""
    if data is None:
        return None
    return require_map(data, path)


def require_map(data: Any, path: str) -> dict[str, Any]:
    """A mapping that must be present."""
    if data is None:
        raise InputError(path, "is required")
    if not isinstance(data, dict):
        raise InputError(path, "must be an object")
    return data


def get_list(data: Any, path: str) -> list[Any] | None:
    """A list, or None when absent."""
    if data is None:
        return None
    if not isinstance(data, list):
        raise InputError(path, "must be a list")
    return data


def get_str(data: Any, path: str, default: str = "") -> str:
    """A string; numbers and booleans are refused as in a typed API."""
    if data is None:
        return default
    if not isinstance(data, str):
        raise InputError(path, "must be a string")
    return data


def get_int(data: Any, path: str, default: int = 0) -> int:
    """An integer (a whole float such as 3.0 is accepted)."""
    if data is None:
        return default
    if isinstance(data, bool):
        raise InputError(path, "must be an integer")
    if isinstance(data, float) and data.is_integer():
        return int(data)
    if not isinstance(data, int):
        raise InputError(path, "must be an integer")
    return data


def get_bool(data: Any, path: str, default: bool = False) -> bool:
    """A boolean."""
    if data is None:
        return default
    if not isinstance(data, bool):
        raise InputError(path, "must be true or false")
    return data


def get_str_list(data: Any, path: str) -> tuple[str, ...]:
    """A list of strings as a tuple."""
    items = get_list(data, path) or []
    return tuple(get_str(item, join(path, i)) for i, item in enumerate(items))


def get_str_map(data: Any, path: str) -> dict[str, str]:
    """A string-to-string mapping (labels, nodeSelector)."""
    mapping = get_map(data, path) or {}
    result = {}
    for key, value in mapping.items():
        if not isinstance(key, str):
            raise InputError(path, "keys must be strings")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)
        result[key] = get_str(value, join(path, key))
    return result
