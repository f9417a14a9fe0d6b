"""Taint and toleration lists read from the planner's input, each error with its field path."""

from __future__ import annotations

from typing import Any

from kubesyntax.fieldpaths import join
from kubesyntax.taints import Taint, TaintError, Toleration, taint_from_dict, toleration_from_dict

from .errors import InputError
from .parsing import get_list


def _read(data: Any, path: str, reader: Any) -> Any:
    try:
        return reader(data)
    except TaintError as exc:
        raise InputError(join(path, exc.field) if exc.field else path, exc.reason) from None


def parse_taints(data: Any, path: str) -> tuple[Taint, ...]:
    """A list of taints."""
    items = get_list(data, path) or []
    return tuple(_read(item, join(path, i), taint_from_dict) for i, item in enumerate(items))


def parse_tolerations(data: Any, path: str) -> tuple[Toleration, ...]:
    """A list of tolerations."""
    items = get_list(data, path) or []
    return tuple(_read(item, join(path, i), toleration_from_dict) for i, item in enumerate(items))
