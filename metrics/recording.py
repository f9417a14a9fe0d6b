"""Record counters and histogram observations in the database, shared by every process (see Tally)."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from datetime import datetime, timedelta

from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import F, Sum
from django.utils import timezone

from metrics.catalogue import BY_NAME, COUNTER, HISTOGRAM, MetricDef
from metrics.models import COMPACTED, Tally

log = logging.getLogger(__name__)

RETENTION = timedelta(hours=1)  # minute rows kept for windowed increases; older ones are compacted


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
    _bump(name, labels_key(labels), "", by, 0.0)


def observe(name: str, value: float, labels: Mapping[str, str]) -> None:
    """Record one observation of a histogram, e.g. a duration in seconds."""
    metric = _metric(name, HISTOGRAM, labels)
    bucket = next((bound for bound in metric.buckets if value <= bound), None)
    _bump(name, labels_key(labels), "+Inf" if bucket is None else repr(bucket), 1, float(value))


def _bump(name: str, key: str, le: str, by: float, value: float, window: datetime | None = None) -> None:
    """Atomically add to the row of this minute, creating it on first use; never fail the caller."""
    window = window or timezone.now().replace(second=0, microsecond=0)
    row = Tally.objects.filter(name=name, labels=key, le=le, window=window)
    try:
        with transaction.atomic():
            if row.update(count=F("count") + by, total=F("total") + value):
                return
            try:
                with transaction.atomic():
                    Tally.objects.create(name=name, labels=key, le=le, window=window, count=by, total=value)
            except IntegrityError:  # another process created it between our update and insert
                row.update(count=F("count") + by, total=F("total") + value)
    except DatabaseError:
        log.warning("could not record %s %s", name, key, exc_info=True)


def compact(now: datetime | None = None) -> int:
    """Fold minute rows older than RETENTION into one row per series; returns how many rows went."""
    cutoff = (now or timezone.now()) - RETENTION
    with transaction.atomic():
        # Lock the rows first so that two compactions at once cannot both fold the same minutes.
        ids = list(
            Tally.objects.select_for_update()
            .filter(window__lt=cutoff)
            .exclude(window=COMPACTED)
            .values_list("id", flat=True)
        )
        old = Tally.objects.filter(id__in=ids)
        groups = list(old.values("name", "labels", "le").annotate(n=Sum("count"), s=Sum("total")))
        for group in groups:
            _bump(group["name"], group["labels"], group["le"], group["n"], group["s"], window=COMPACTED)
        deleted, _ = old.delete()
    return deleted
