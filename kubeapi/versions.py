"""resourceVersion: the microseconds of an object's last change, so every door's writes order one way."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.utils import timezone

# How far back a watch may start; older resourceVersions answer 410 Gone, as after an etcd compaction.
WATCH_WINDOW = timedelta(minutes=15)
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def of_time(moment: datetime | None) -> int:
    """The resourceVersion of a change made at `moment`."""
    if moment is None:
        return 1
    delta = moment - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def to_time(version: int) -> datetime:
    return EPOCH + timedelta(microseconds=version)


def current() -> int:
    """The resourceVersion of a list answered now: every change committed so far is at or below it."""
    return of_time(timezone.now())


def parse(text: str) -> int | None:
    """A client's resourceVersion, or None when it is not one of ours (an unparsable one is a 400)."""
    if not text or not text.isdigit() or len(text) > 19:
        return None
    return int(text)


def oldest_watchable() -> int:
    return of_time(timezone.now() - WATCH_WINDOW)
