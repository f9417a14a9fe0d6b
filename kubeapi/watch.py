"""Watch: changes after a resourceVersion as a stream of events, bookmarks, and 410 Gone when too old."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from django.db import close_old_connections, connection
from django.db.models import Max

from kubeapi import managed, selection, tombstones, versions
from kubeapi.kinds import Kind
from kubeapi.models import Tombstone
from kubeapi.objects import rows_in
from kubeapi.status import ApiError

POLL_SECONDS = 0.5
BOOKMARK_SECONDS = 15.0
DEFAULT_TIMEOUT = 300
MAX_TIMEOUT = 1800
# A write's timestamp is taken before its commit: look this far back so a slow commit is not missed.
COMMIT_LAG_US = 3_000_000


def _event(type_: str, document: dict[str, Any]) -> bytes:
    return json.dumps({"type": type_, "object": document}, separators=(",", ":")).encode() + b"\n"


def timeout_of(params: Any) -> float:
    text = params.get("timeoutSeconds", "")
    if not text:
        return DEFAULT_TIMEOUT
    if not text.isdigit():
        raise ApiError(400, f"timeoutSeconds: must be a whole number of seconds, not {text!r}")
    return min(int(text), MAX_TIMEOUT)


def start_of(params: Any) -> int | None:
    """The resourceVersion to follow from; None means "now, after the current objects as ADDED"."""
    text = params.get("resourceVersion", "")
    if text in ("", "0"):
        return None
    version = versions.parse(text)
    if version is None:
        raise ApiError(400, f"resourceVersion: {text!r} is not a resourceVersion this server issued")
    return version


def gone(version: int) -> bytes:
    status = ApiError(410, f"too old resource version: {version}", "Expired").status()
    status["reason"] = "Expired"
    return _event("ERROR", status)


def events(kind: Kind, namespace: str, params: Any) -> Iterator[bytes]:
    """The event stream; selectors and the namespace apply to each event's object."""
    query = selection.query(params)
    deadline = time.monotonic() + timeout_of(params)
    bookmarks = params.get("allowWatchBookmarks") in ("true", "1")
    start = start_of(params)
    key = tombstones.kind_key(kind.group, kind.kind)
    return _stream(kind, namespace, query, start, deadline, bookmarks, key)


def _stream(
    kind: Kind,
    namespace: str,
    query: selection.Query,
    start: int | None,
    deadline: float,
    bookmarks: bool,
    key: str,
) -> Iterator[bytes]:
    store = kind.store
    # An empty first chunk makes the server send the status and headers now, as the API server does: a
    # watch from the current version may have nothing to say for a while, and clients (kubectl rollout
    # status) wait for the response before they act on what their list returned.
    yield b""
    if start is not None and start < versions.oldest_watchable():
        yield gone(start)
        return
    cursor = start if start is not None else versions.current()
    seen: dict[tuple[str, str], int] = {}
    if start is None:
        owners = managed.by_object(kind, namespace)
        for row in rows_in(kind, namespace).iterator(chunk_size=500):
            document = store.document(row)
            seen[_identity(document)] = store.version(row)
            if query.matches(document):
                managed.attach(kind, [document], owners)
                yield _event("ADDED", document)
    last_bookmark = time.monotonic()
    earlier = Tombstone.objects.filter(kind_key=key, resource_version__lte=cursor).aggregate(last=Max("pk"))
    last_tombstone = earlier["last"] or 0
    while time.monotonic() < deadline:
        horizon = versions.current()
        since = versions.to_time(max(cursor - COMMIT_LAG_US, 0))
        changed = rows_in(kind, namespace).filter(**{f"{store.changed_field}__gt": since})
        for row in changed.iterator(chunk_size=500):
            version = store.version(row)
            document = store.document(row)
            identity = _identity(document)
            if version <= (start or 0) or seen.get(identity) == version:
                continue
            known = identity in seen
            seen[identity] = version
            if query.matches(document):
                created = versions.of_time(getattr(row, store.created_field))
                fresh = not known and created > (start if start is not None else cursor - COMMIT_LAG_US)
                managed.attach(kind, [document])
                yield _event("ADDED" if fresh else "MODIFIED", document)
        gone_rows = Tombstone.objects.filter(kind_key=key, pk__gt=last_tombstone)
        if namespace:
            gone_rows = gone_rows.filter(namespace=namespace)
        for tombstone in gone_rows.order_by("pk"):
            last_tombstone = tombstone.pk
            seen.pop((tombstone.namespace, tombstone.name), None)
            if query.matches(tombstone.document):
                yield _event("DELETED", tombstone.document)
        cursor = max(cursor, horizon - COMMIT_LAG_US)
        seen = {k: v for k, v in seen.items() if v > cursor - COMMIT_LAG_US}
        if bookmarks and time.monotonic() - last_bookmark >= BOOKMARK_SECONDS:
            last_bookmark = time.monotonic()
            yield _event(
                "BOOKMARK",
                {
                    "apiVersion": kind.api_version,
                    "kind": kind.kind,
                    "metadata": {"resourceVersion": str(horizon)},
                },
            )
        if not connection.in_atomic_block:
            # A long watch must not pin a connection between polls; inside a transaction (a test's,
            # or ATOMIC_REQUESTS) closing it would end that transaction instead.
            close_old_connections()
        time.sleep(POLL_SECONDS)


def _identity(document: dict[str, Any]) -> tuple[str, str]:
    metadata = document.get("metadata") or {}
    return str(metadata.get("namespace") or ""), str(metadata.get("name") or "")
