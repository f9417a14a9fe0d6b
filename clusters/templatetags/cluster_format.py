"""Template filters for cluster numbers: cores from millicores, binary sizes from bytes, percentages."""

from __future__ import annotations

from django import template

from kubesyntax.resources import human_bytes, human_cpu

register = template.Library()


@register.filter
def cores(millicores: float | None) -> str:
    return human_cpu(millicores)


@register.filter
def binary_size(num_bytes: float | None) -> str:
    return human_bytes(num_bytes)


@register.filter
def percent_of(part: float | None, whole: float | None) -> str:
    if part is None or not whole:
        return "—"
    return f"{round(100 * part / whole)}%"


@register.filter
def get_item(mapping: dict | None, key: str) -> object:
    """mapping[key] in a template, for keys with dots and slashes such as node labels."""
    return (mapping or {}).get(key)
