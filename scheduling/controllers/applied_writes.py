"""Write many applied outcomes back to their Works at once, each only if its desired state did not move on."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from django.db import connection
from django.utils import timezone

from scheduling.controllers.values_sql import json_rows
from scheduling.karmada.interpreter import interpret_health, reflect_status
from scheduling.models import UNHEALTHY, Work

APPLIED_REASON = "AppliedSuccessful"
APPLIED_MESSAGE = "Manifest has been successfully applied"
# Rows per statement (five parameters each).
ROWS = 500
# What a set-based write sets, from the rows `v` (id, hash, status, health, since) and five parameters:
# the reason, the message, applied_at and updated_at (the record's time), status_at (the answer's)
SET_APPLIED = (
    "SET applied = true, applied_hash = v.hash, applied_reason = %s, applied_message = %s, "
    "applied_at = %s, updated_at = %s, status = v.status, health = v.health, status_at = %s, "
    "unhealthy_since = v.since"
)


def record_applied(applied: list[tuple[Work, dict[str, Any]]], now: datetime) -> set[int]:
    """Mark each Work applied at the hash it was applied with, with the status and health its member copy
    answered; the ids written. A Work whose desired_hash changed meanwhile is not written: it stays out
    of sync and is applied again. applied_at is the time of this record, after the member write (a
    listing asked for before it cannot judge the copy)."""
    rows = []
    for work, live in applied:
        health = interpret_health(live)
        since = (work.unhealthy_since or now) if health == UNHEALTHY else None
        rows.append((work.pk, work.desired_hash, reflect_status(live), health, since))
    written: set[int] = set()
    for start in range(0, len(rows), ROWS):
        part = rows[start : start + ROWS]
        if connection.vendor == "postgresql":
            written |= _update_postgresql(part, now)
        elif connection.vendor == "sqlite":
            written |= _update_sqlite(part, now)
        else:
            written |= _update_each(part, now)
    return written


def _update_each(
    rows: list[tuple[int, str, dict[str, Any], str, datetime | None]], now: datetime
) -> set[int]:
    written = set()
    for pk, desired_hash, status, health, since in rows:
        if Work.objects.filter(pk=pk, desired_hash=desired_hash).update(
            applied=True,
            applied_hash=desired_hash,
            applied_reason=APPLIED_REASON,
            applied_message=APPLIED_MESSAGE,
            applied_at=timezone.now(),
            updated_at=timezone.now(),
            status=status,
            health=health,
            status_at=now,
            unhealthy_since=since,
        ):
            written.add(pk)
    return written


def _update_sqlite(
    rows: list[tuple[int, str, dict[str, Any], str, datetime | None]], now: datetime
) -> set[int]:
    """One UPDATE … FROM the rows as one JSON parameter (SQLite's json_each), as on PostgreSQL: a row a
    statement was half of an in-process apply's time with the demo's database. Each value is prepared as
    the model's field prepares it for SQLite (the status as JSON text, times as text)."""
    quote = connection.ops.quote_name
    table = quote(Work._meta.db_table)
    status_field = Work._meta.get_field("status")
    time_value = connection.ops.adapt_datetimefield_value
    data = json.dumps(
        [
            [pk, desired_hash, status_field.get_db_prep_save(status, connection), health, time_value(since)]
            for pk, desired_hash, status, health, since in rows
        ]
    )
    # Only quoted identifiers and placeholders are interpolated; every value is a parameter.
    sql = (
        f"UPDATE {table} {SET_APPLIED} "  # noqa: S608
        "FROM (SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS hash, "
        "json_extract(value, '$[2]') AS status, json_extract(value, '$[3]') AS health, "
        "json_extract(value, '$[4]') AS since FROM json_each(%s)) AS v "
        f"WHERE {table}.id = v.id AND {table}.desired_hash = v.hash RETURNING {table}.id"
    )
    recorded = time_value(timezone.now())
    params: list[Any] = [APPLIED_REASON, APPLIED_MESSAGE, recorded, recorded, time_value(now), data]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return {row[0] for row in cursor.fetchall()}


def _update_postgresql(
    rows: list[tuple[int, str, dict[str, Any], str, datetime | None]], now: datetime
) -> set[int]:
    """One UPDATE … FROM the rows as one JSON parameter (json_rows) with the desired_hash condition,
    RETURNING the ids written."""
    quote = connection.ops.quote_name
    table = quote(Work._meta.db_table)
    values, row_params = json_rows(("bigint", "text", "jsonb", "text", "timestamptz"), rows)
    # Only quoted identifiers and placeholders are interpolated; every value is a parameter.
    sql = (
        f"UPDATE {table} AS w {SET_APPLIED} "
        f"FROM ({values}) AS v(id, hash, status, health, since) "
        "WHERE w.id = v.id AND w.desired_hash = v.hash RETURNING w.id"
    )
    recorded = timezone.now()
    params: list[Any] = [APPLIED_REASON, APPLIED_MESSAGE, recorded, recorded, now, *row_params]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return {row[0] for row in cursor.fetchall()}
