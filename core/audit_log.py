"""The audit log read newest first in keyset pages: no COUNT and no OFFSET over the whole table."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from core.models import AuditEntry

NEWEST_FIRST = ("-created_at", "-id")
OLDEST_FIRST = ("created_at", "id")


class UnknownCursor(ValueError):
    """A page cursor that names no audit entry."""


@dataclass(frozen=True)
class AuditPage:
    """One page of entries and the cursors of the pages beside it (None where there is none)."""

    entries: list[AuditEntry]
    newer: int | None
    older: int | None


def _older_than(entries: QuerySet[AuditEntry], entry: AuditEntry) -> QuerySet[AuditEntry]:
    # created_at <= t bounds the index scan; the tie on t is broken by id.
    return entries.filter(created_at__lte=entry.created_at).exclude(
        created_at=entry.created_at, id__gte=entry.id
    )


def _newer_than(entries: QuerySet[AuditEntry], entry: AuditEntry) -> QuerySet[AuditEntry]:
    return entries.filter(created_at__gte=entry.created_at).exclude(
        created_at=entry.created_at, id__lte=entry.id
    )


def _cursor(raw: str) -> AuditEntry:
    if not raw.isdigit():
        raise UnknownCursor(raw)
    entry = AuditEntry.objects.filter(pk=int(raw)).only("id", "created_at").first()
    if entry is None:
        raise UnknownCursor(raw)
    return entry


def audit_page(entries: QuerySet[AuditEntry], size: int, before: str = "", after: str = "") -> AuditPage:
    """The `size` entries just older than entry `before`, just newer than entry `after`, or the newest;
    at most four indexed queries whatever the length of the log. Raises UnknownCursor."""
    if after:
        newer_side = list(_newer_than(entries, _cursor(after)).order_by(*OLDEST_FIRST)[: size + 1])
        shown = list(reversed(newer_side[:size]))
        has_newer = len(newer_side) > size
        has_older = bool(shown) and _older_than(entries, shown[-1]).exists()
    else:
        rows = _older_than(entries, _cursor(before)) if before else entries
        older_side = list(rows.order_by(*NEWEST_FIRST)[: size + 1])
        shown = older_side[:size]
        has_older = len(older_side) > size
        has_newer = bool(before) and bool(shown) and _newer_than(entries, shown[0]).exists()
    return AuditPage(
        entries=shown,
        newer=shown[0].pk if shown and has_newer else None,
        older=shown[-1].pk if shown and has_older else None,
    )
