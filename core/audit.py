"""The audit log: one `record(...)` call per change, usable by every app."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.models import AuditEntry


def placement_delta(before: Mapping[str, int], after: Mapping[str, int]) -> dict[str, dict[str, int]]:
    """{cluster: {before, after}} for every cluster whose replica count changed."""
    delta = {}
    for cluster in sorted(set(before) | set(after)):
        old, new = int(before.get(cluster, 0)), int(after.get(cluster, 0))
        if old != new or (cluster in before) != (cluster in after):
            delta[cluster] = {"before": old, "after": new}
    return delta


def record(
    user: Any,
    action: str,
    kind: str,
    name: str,
    *,
    namespace: str = "",
    summary: str = "",
    before: Mapping[str, int] | None = None,
    after: Mapping[str, int] | None = None,
) -> AuditEntry:
    """Write one audit entry; `user` may be None (system) or a Django user.

    Pass `before`/`after` replica maps to record the placement delta the change caused.
    """
    known = user if getattr(user, "is_authenticated", False) else None
    delta = placement_delta(before or {}, after or {}) if before is not None or after is not None else {}
    return AuditEntry.objects.create(
        user=known,
        username=known.get_username() if known else "",
        action=action,
        object_kind=kind,
        object_namespace=namespace,
        object_name=name,
        summary=summary,
        placement_delta=delta,
    )
