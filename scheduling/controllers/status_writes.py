"""Member status and health found for many Works, written back in one statement per batch."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import OperationalError, connection, transaction
from django.utils import timezone

from scheduling.controllers.values_sql import json_rows
from scheduling.models import Work

# Rows per statement (five parameters each).
ROWS = 500


@dataclass
class StatusWrites:
    """The status, health, status_at and unhealthy_since to write, by Work id (the last one given wins)."""

    rows: dict[int, tuple[dict[str, Any], str, datetime, datetime | None]] = field(default_factory=dict)

    def add(self, work: Work) -> None:
        """Write `work`'s status columns as they are now in memory."""
        self.rows[work.pk] = (work.status, work.health, work.status_at, work.unhealthy_since)

    def __len__(self) -> int:
        return len(self.rows)

    def flush(self) -> int:
        """Write every row given since the last flush, in id order; how many Works were written."""
        rows = sorted(self.rows.items())
        self.rows = {}
        written = 0
        for start in range(0, len(rows), ROWS):
            part = rows[start : start + ROWS]
            if connection.vendor == "postgresql":
                try:
                    with transaction.atomic():
                        written += _update_postgresql(part)
                    continue
                except OperationalError:
                    pass  # a deadlock with another writer of many Works: one row at a time instead
            written += _update_each(part)
        return written


Row = tuple[int, tuple[dict[str, Any], str, datetime, datetime | None]]


def _update_each(rows: list[Row]) -> int:
    written = 0
    for pk, (status, health, status_at, since) in rows:
        written += Work.objects.filter(pk=pk).update(
            status=status,
            health=health,
            status_at=status_at,
            unhealthy_since=since,
            updated_at=timezone.now(),
        )
    return written


def _update_postgresql(rows: list[Row]) -> int:
    """One UPDATE … FROM the rows as one JSON parameter (json_rows), the rows locked in id order first
    (as other writers of many Works)."""
    quote = connection.ops.quote_name
    table = quote(Work._meta.db_table)
    values, row_params = json_rows(
        ("bigint", "jsonb", "text", "timestamptz", "timestamptz"),
        ((pk, status, health, status_at, since) for pk, (status, health, status_at, since) in rows),
    )
    # Only quoted identifiers and placeholders are interpolated; every value is a parameter.
    sql = (
        f"WITH locked AS (SELECT id FROM {table} WHERE id = ANY(%s) ORDER BY id FOR UPDATE) "  # noqa: S608
        f"UPDATE {table} AS w SET status = v.status, health = v.health, status_at = v.status_at, "
        "unhealthy_since = v.since, updated_at = %s "
        f"FROM ({values}) AS v(id, status, health, status_at, since) JOIN locked ON locked.id = v.id "
        "WHERE w.id = v.id"
    )
    params: list[Any] = [[pk for pk, _ in rows], timezone.now(), *row_params]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return int(cursor.rowcount)
