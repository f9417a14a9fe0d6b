"""Per-object locks across worker processes and machines: PostgreSQL advisory locks, taken without
waiting and released with the connection, so a SIGKILLed worker holds nothing. SQLite serves one
machine's workers with its own database lock, and needs none."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection

# Lock classes, in the high bits of the 64-bit key so two kinds of object never share a key.
WORK = 1
_SHIFT = 48


def _keys(kind: int, ids: list[int]) -> list[int]:
    return [(kind << _SHIFT) | int(pk) for pk in ids]


def try_lock(kind: int, ids: list[int]) -> list[int]:
    """The ids this connection now holds (those another session holds are left out)."""
    ids = sorted(set(ids))
    if connection.vendor != "postgresql" or not ids:
        return ids
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT key FROM unnest(%s::bigint[]) AS key WHERE pg_try_advisory_lock(key)", [_keys(kind, ids)]
        )
        held = {row[0] for row in cursor.fetchall()}
    mask = (1 << _SHIFT) - 1
    return sorted(key & mask for key in held)


def unlock(kind: int, ids: list[int]) -> None:
    if connection.vendor != "postgresql" or not ids:
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_unlock(key) FROM unnest(%s::bigint[]) AS key", [_keys(kind, ids)])


@contextmanager
def holding(kind: int, ids: list[int]) -> Iterator[list[int]]:
    """Lock what is free of `ids` for the block; yields the ids held."""
    held = try_lock(kind, ids)
    try:
        yield held
    finally:
        unlock(kind, held)
