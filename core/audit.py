"""The audit log: one `record(...)` call per change, with who, what and the diff; never a secret."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder

from core.errors import field_path
from core.models import AuditEntry

REDACTED = "(redacted)"
# Field names whose values are credentials wherever they appear (kubeconfig users, webhook auth, ...).
SENSITIVE_KEY = re.compile(
    r"^(?:.*[-_.])?(?:password|passwd|token|secret|credentials?|api[-_]?key|private[-_]?key|"
    r"client[-_]key(?:[-_]data)?|bearer)$",
    re.IGNORECASE,
)
# A Secret's payload is secret whatever its keys are called.
SECRET_PAYLOADS = ("data", "stringData")
_ABSENT = object()


def placement_delta(before: Mapping[str, int], after: Mapping[str, int]) -> dict[str, dict[str, int]]:
    """{cluster: {before, after}} for every cluster whose replica count changed."""
    delta = {}
    for cluster in sorted(set(before) | set(after)):
        old, new = int(before.get(cluster, 0)), int(after.get(cluster, 0))
        if old != new or (cluster in before) != (cluster in after):
            delta[cluster] = {"before": old, "after": new}
    return delta


def diff(
    old: Mapping[str, Any] | None, new: Mapping[str, Any] | None, *, secret_kind: bool = False
) -> dict[str, dict[str, Any]]:
    """{path: {before, after}} for every leaf that differs; a side is left out where the field is absent.

    Maps are compared key by key, so a label change reads `labels.env`; lists and scalars as a whole.
    `old` None is a creation, `new` None a deletion. Credential-named fields (and, with `secret_kind`,
    a Secret's payload) show that they changed, never their values.
    """
    changes: dict[str, dict[str, Any]] = {}
    walk = _Walk(changes, secret_kind)
    walk("", dict(old) if old is not None else {}, dict(new) if new is not None else {}, False)
    return changes


class _Walk:
    def __init__(self, changes: dict[str, dict[str, Any]], secret_kind: bool) -> None:
        self.changes = changes
        self.secret_kind = secret_kind

    def __call__(self, path: str, old: Any, new: Any, sensitive: bool) -> None:
        if isinstance(old, Mapping) and isinstance(new, Mapping):
            for key in sorted(set(old) | set(new), key=str):
                hidden = sensitive or bool(SENSITIVE_KEY.match(str(key)))
                hidden = hidden or (self.secret_kind and not path and key in SECRET_PAYLOADS)
                self(field_path(path, str(key)), old.get(key, _ABSENT), new.get(key, _ABSENT), hidden)
            return
        if old == new:
            return
        entry = {}
        for side, value in (("before", old), ("after", new)):
            if value is not _ABSENT:
                entry[side] = _masked(value) if sensitive else redact(value)
        self.changes[path or "object"] = entry


def redact(value: Any) -> Any:
    """A copy of `value` with every credential-named field replaced by a marker."""
    if isinstance(value, Mapping):
        return {
            key: _masked(item) if SENSITIVE_KEY.match(str(key)) else redact(item)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact(item) for item in value]
    return value


def _masked(value: Any) -> Any:
    """Keep the shape a reader needs to see what changed (which keys), never the values."""
    if isinstance(value, Mapping):
        return {key: REDACTED for key in value}
    return REDACTED if value not in (None, "") else value


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, cls=DjangoJSONEncoder))


def record(user: Any, action: str, kind: str, name: str, **fields: Any) -> AuditEntry:
    """Write one audit entry (see unsaved for the arguments)."""
    entry = unsaved(user, action, kind, name, **fields)
    entry.save(force_insert=True)
    return entry


def unsaved(
    user: Any,
    action: str,
    kind: str,
    name: str,
    *,
    namespace: str = "",
    summary: str = "",
    old: Mapping[str, Any] | None = None,
    new: Mapping[str, Any] | None = None,
    before: Mapping[str, int] | None = None,
    after: Mapping[str, int] | None = None,
    changes: Mapping[str, Any] | None = None,
) -> AuditEntry:
    """The audit entry `record` writes, not yet saved (for a bulk_create of many); `user` may be None
    (system) or a Django user.

    `old`/`new` are the object's fields before and after the change (None for a creation or a
    deletion): the entry keeps the fields that changed, credentials redacted. `before`/`after` are
    replica maps: the placement delta the change caused. `changes` adds paths of the caller's own
    (say, the placement each captured workload moves to) to the diff.
    """
    known = user if getattr(user, "is_authenticated", False) else None
    found = diff(
        _jsonable(old) if old is not None else None,
        _jsonable(new) if new is not None else None,
        secret_kind=kind == "Secret",
    )
    if before is not None or after is not None:
        delta = placement_delta(before or {}, after or {})
        if old is None and new is None:
            found.update(diff({"replicas": dict(before or {})}, {"replicas": dict(after or {})}))
    else:
        delta = {}
    found.update(redact(_jsonable(dict(changes or {}))))
    return AuditEntry(
        user=known,
        username=known.get_username() if known else "",
        action=action,
        object_kind=kind,
        object_namespace=namespace,
        object_name=name,
        summary=summary,
        changes=found,
        placement_delta=delta,
    )
