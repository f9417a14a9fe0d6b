"""Kubernetes quantity strings from integer millicores and bytes, and human-readable forms for pages."""

from __future__ import annotations

BINARY = (("Ei", 2**60), ("Pi", 2**50), ("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10))


def format_cpu(millicores: int) -> str:
    """8000 -> "8", 1500 -> "1500m" (the canonical forms Kubernetes writes)."""
    return str(millicores // 1000) if millicores % 1000 == 0 else f"{millicores}m"


def format_memory(num_bytes: int) -> str:
    """The largest binary suffix that divides exactly: 34359738368 -> "32Gi"."""
    for suffix, size in BINARY:
        if num_bytes and num_bytes % size == 0:
            return f"{num_bytes // size}{suffix}"
    return str(num_bytes)


def human_cpu(millicores: float | None) -> str:
    if millicores is None:
        return "—"
    cores = millicores / 1000
    return f"{cores:.0f}" if cores >= 10 or cores == int(cores) else f"{cores:.1f}"


def human_bytes(num_bytes: float | None) -> str:
    if num_bytes is None:
        return "—"
    for suffix, size in BINARY:
        if num_bytes >= size:
            value = num_bytes / size
            return f"{value:.0f}{suffix}" if value >= 10 else f"{value:.1f}{suffix}"
    return f"{num_bytes:.0f}"
