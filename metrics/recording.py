"""Record counters and histogram observations in the database, shared by every process (see Tally)."""

from __future__ import annotations

import atexit
import json
import logging
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime, timedelta

from django.db import DatabaseError, connection, transaction
from django.db.models import Sum
from django.utils import timezone

from metrics.catalogue import BY_NAME, COUNTER, HISTOGRAM, MetricDef
from metrics.models import COMPACTED, Tally

log = logging.getLogger(__name__)

RETENTION = timedelta(hours=1)  # minute rows kept for windowed increases; older ones are compacted

# (name, labels key, le, window) -> [count, total]: increments waiting for the work's transaction to end.
Key = tuple[str, str, str, datetime]
_pending: dict[Key, list[float]] = {}
_pending_lock = threading.Lock()
_together = threading.local()  # depth of `together()` blocks in this thread


def labels_key(labels: Mapping[str, str]) -> str:
    return json.dumps(sorted((str(k), str(v)) for k, v in labels.items()), separators=(",", ":"))


def labels_from_key(key: str) -> dict[str, str]:
    return dict(json.loads(key))


def _metric(name: str, kind: str, labels: Mapping[str, str]) -> MetricDef:
    metric = BY_NAME.get(name)
    if metric is None or metric.kind != kind:
        raise ValueError(f"{name} is not a {kind} in metrics.catalogue")
    if set(labels) != set(metric.labels):
        raise ValueError(
            f"{name} takes the labels {', '.join(metric.labels)}, not {', '.join(sorted(labels))}"
        )
    return metric


def count(name: str, labels: Mapping[str, str], by: float = 1) -> None:
    """Add `by` to a counter, e.g. count("karmada_scheduler_schedule_attempts_total", {...})."""
    _metric(name, COUNTER, labels)
    _record(name, labels_key(labels), "", by, 0.0)


def observe(name: str, value: float, labels: Mapping[str, str]) -> None:
    """Record one observation of a histogram, e.g. a duration in seconds."""
    metric = _metric(name, HISTOGRAM, labels)
    bucket = next((bound for bound in metric.buckets if value <= bound), None)
    _record(name, labels_key(labels), "+Inf" if bucket is None else repr(bucket), 1, float(value))


def _inside_work_transaction() -> bool:
    """True inside a transaction the code opened; a test case's wrapping transaction is no unit of work
    (Django's own durable=True check ignores it the same way)."""
    return any(not getattr(block, "_from_testcase", False) for block in connection.atomic_blocks)


def _record(name: str, key: str, le: str, by: float, value: float) -> None:
    """Never inside the work's transaction: a row written there stays locked until the work commits, and
    two workers recording for different series in opposite orders deadlock on each other's rows."""
    window = timezone.now().replace(second=0, microsecond=0)
    _add_pending({(name, key, le, window): [by, value]})
    if not getattr(_together, "depth", 0):
        _flush_when_free()


def _flush_when_free() -> None:
    if _inside_work_transaction():
        # Written once the work commits; if it rolls back, the next write from this process takes them.
        transaction.on_commit(flush, robust=True)
    else:
        flush()


@contextmanager
def together() -> Iterator[None]:
    """Records made inside leave in one write when the block ends (a collection's two histograms, the
    outcomes of an apply chunk's many transactions), or when the transaction it ends in commits."""
    _together.depth = getattr(_together, "depth", 0) + 1
    try:
        yield
    finally:
        _together.depth -= 1
        if not _together.depth:
            _flush_when_free()


def _add_pending(increments: Mapping[Key, list[float]]) -> None:
    with _pending_lock:
        for key, (by, value) in increments.items():
            slot = _pending.setdefault(key, [0.0, 0.0])
            slot[0] += by
            slot[1] += value


def flush() -> None:
    """Write every waiting increment of this process in one upsert; kept for the next try if it fails.

    Does nothing inside a work transaction (see _record). Readers call it so a process sees its own
    records at once.
    """
    if _inside_work_transaction():
        return
    with _pending_lock:
        if not _pending:
            return
        taken = dict(_pending)
        _pending.clear()
    try:
        upsert(sorted(taken.items()))
    except DatabaseError:
        log.warning("could not record %d metric increments yet; kept for the next write", len(taken))
        _add_pending(taken)


def upsert(rows: Iterable[tuple[Key, list[float]]]) -> None:
    """Add to the rows in one atomic statement, creating the missing ones.

    `INSERT … ON CONFLICT DO UPDATE` (PostgreSQL and SQLite alike) has no read-then-write gap, so
    concurrent writers on any number of machines never lose an increment or hit a unique violation;
    rows go in sorted order so two statements lock shared rows in the same order and cannot deadlock.
    """
    rows = list(rows)
    if not rows:
        return
    if connection.vendor == "postgresql":
        _upsert_postgresql(rows)
        return
    quote = connection.ops.quote_name
    table = quote(Tally._meta.db_table)
    name, labels, le, window, count_, total = (
        quote(column) for column in ("name", "labels", "le", "window", "count", "total")
    )
    values = ", ".join(["(%s, %s, %s, %s, %s, %s)"] * len(rows))
    # Only quoted identifiers and placeholders are interpolated; every value is a parameter.
    sql = (
        f"INSERT INTO {table} ({name}, {labels}, {le}, {window}, {count_}, {total}) VALUES {values} "  # noqa: S608
        f"ON CONFLICT ({name}, {labels}, {le}, {window}) DO UPDATE SET "
        f"{count_} = {table}.{count_} + EXCLUDED.{count_}, {total} = {table}.{total} + EXCLUDED.{total}"
    )
    params: list[object] = []
    for (metric, key, bound, when), (by, value) in rows:
        params += [metric, key, bound, connection.ops.adapt_datetimefield_value(when), by, value]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def _upsert_postgresql(rows: list[tuple[Key, list[float]]]) -> None:
    """upsert's statement with the rows as one JSON parameter: psycopg binds one value instead of
    adapting six per row in Python (an apply chunk's rows are one per member cluster)."""
    table = connection.ops.quote_name(Tally._meta.db_table)
    encoded = json.dumps([[*key[:3], key[3].isoformat(), by, value] for key, (by, value) in rows])
    # Only the quoted name of the model's own table is interpolated; the rows are the one parameter.
    sql = (
        f'INSERT INTO {table} (name, labels, le, "window", count, total) '  # noqa: S608
        "SELECT e->>0, e->>1, e->>2, (e->>3)::timestamptz, (e->>4)::double precision, "
        "(e->>5)::double precision FROM json_array_elements(%s::json) WITH ORDINALITY AS t(e, i) "
        "ORDER BY i "
        'ON CONFLICT (name, labels, le, "window") DO UPDATE SET '
        f"count = {table}.count + EXCLUDED.count, total = {table}.total + EXCLUDED.total"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [encoded])


def compact(now: datetime | None = None) -> int:
    """Fold minute rows older than RETENTION into one row per series; returns how many rows went."""
    flush()
    cutoff = (now or timezone.now()) - RETENTION
    with transaction.atomic():
        # Lock the rows first so that two compactions at once cannot both fold the same minutes. Nobody
        # else writes minutes this old, so holding their locks to the commit blocks no recorder.
        ids = list(
            Tally.objects.select_for_update()
            .filter(window__lt=cutoff)
            .exclude(window=COMPACTED)
            .order_by("id")
            .values_list("id", flat=True)
        )
        old = Tally.objects.filter(id__in=ids)
        groups = old.values("name", "labels", "le").annotate(n=Sum("count"), s=Sum("total"))
        upsert(sorted(((g["name"], g["labels"], g["le"], COMPACTED), [g["n"], g["s"]]) for g in groups))
        deleted, _ = old.delete()
    return deleted


atexit.register(flush)  # what a rolled-back transaction left waiting is not lost when the process ends
