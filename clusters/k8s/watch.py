"""List and watch one kind in a member cluster: resourceVersions, bookmarks, and 410 Gone as Expired."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from clusters.k8s import wire
from clusters.k8s.client import api_client
from clusters.k8s.connection import ClusterConnection
from clusters.k8s.errors import KubeError, mapped_errors
from clusters.k8s.objects import object_path, resource_info
from clusters.k8s.rest import LIST_PAGE, decode, get_json

# A watch's read timeout: longer than the gap between two bookmarks, so a quiet stream is not cut.
WATCH_READ_TIMEOUT = 90.0


class Expired(KubeError):
    """The resourceVersion a watch asked for is older than the server keeps (410 Gone): list again."""

    status = 410


@dataclass(frozen=True)
class Listing:
    """Every object of a kind that matched, and the resourceVersion to watch from."""

    items: list[dict[str, Any]] = field(default_factory=list)
    resource_version: str = ""


@dataclass(frozen=True)
class WatchEvent:
    """ADDED, MODIFIED, DELETED or BOOKMARK, with the object (a bookmark's holds only metadata)."""

    type: str
    object: dict[str, Any]

    @property
    def resource_version(self) -> str:
        return str((self.object.get("metadata") or {}).get("resourceVersion") or "")


def list_kind(conn: ClusterConnection, api_version: str, kind: str, label_selector: str = "") -> Listing:
    """A paged list in every namespace; the list's resourceVersion is where a watch picks up."""
    items: list[dict[str, Any]] = []
    version = list_each(conn, api_version, kind, items.append, label_selector)
    return Listing(items, version)


def list_each(
    conn: ClusterConnection,
    api_version: str,
    kind: str,
    each: Callable[[dict[str, Any]], None],
    label_selector: str = "",
) -> str:
    """A paged list in every namespace, each object handed to `each` as its page arrives (so a caller
    that keeps a little of every object never holds the whole listing); the resourceVersion to watch from."""
    info = resource_info(conn, api_version, kind)
    path = object_path(info)
    query: list[tuple[str, Any]] = [("limit", LIST_PAGE)]
    if label_selector:
        query.append(("labelSelector", label_selector))
    version, token = "", ""
    with mapped_errors(conn.server):
        while True:
            page = get_json(api_client(conn), path, query + ([("continue", token)] if token else []))
            meta = page.get("metadata") or {}
            # The first page's version: every page of a list is one snapshot on an API server, but a
            # server that answers a later page from a newer state would otherwise have the watch start
            # past changes the earlier pages did not show (a copy made between two pages was lost).
            version = version or str(meta.get("resourceVersion") or "")
            for item in page.get("items") or []:  # list items carry no apiVersion/kind of their own
                item.setdefault("apiVersion", api_version)
                item.setdefault("kind", kind)
                each(item)
            token = meta.get("continue") or ""
            if not token:
                break
    return version


def watch_kind(
    conn: ClusterConnection,
    api_version: str,
    kind: str,
    resource_version: str,
    label_selector: str = "",
    timeout_seconds: int = 300,
    opened: Callable[[], None] | None = None,
) -> Iterator[WatchEvent]:
    """Events after `resource_version` until the server ends the watch; raises Expired on 410 Gone and
    a KubeError when the connection fails (the caller reconnects). `opened()` is called once the watch
    is open (its headers in), before its first event."""
    info = resource_info(conn, api_version, kind)
    query = watch_query(resource_version, label_selector, timeout_seconds)
    client = api_client(conn, (5.0, WATCH_READ_TIMEOUT))
    with mapped_errors(conn.server):
        response = open_stream(client, object_path(info), query)
        if opened is not None:
            opened()
        try:
            for line in _lines(response.response):
                event = wire.loads(line)
                if event.get("type") == "ERROR":
                    raise error_of(event.get("object") or {}, conn.server)
                obj = event.get("object") or {}
                obj.setdefault("apiVersion", api_version)
                obj.setdefault("kind", kind)
                yield WatchEvent(str(event.get("type")), obj)
        finally:
            response.response.release_conn()


def watch_query(resource_version: str, label_selector: str, timeout_seconds: int) -> list[tuple[str, Any]]:
    """The query of a watch with bookmarks from `resource_version`, ended by the server after the timeout."""
    query: list[tuple[str, Any]] = [
        ("watch", "true"),
        ("allowWatchBookmarks", "true"),
        ("resourceVersion", resource_version),
        ("timeoutSeconds", int(timeout_seconds)),
    ]
    if label_selector:
        query.append(("labelSelector", label_selector))
    return query


def open_stream(client: Any, path: str, query: list[tuple[str, Any]]) -> Any:
    """GET a streamed body; the response once its headers are in (a non-2xx answer raised)."""
    serialized = client.param_serialize(
        "GET",
        path,
        query_params=query,
        header_params={"Accept": "application/json"},
        auth_settings=["BearerToken"],
    )
    response = client.call_api(*serialized)
    if not 200 <= response.status <= 299:
        response.read()
        decode(response)  # raises the server's answer as an ApiException
    return response


def _lines(raw: Any) -> Iterator[bytes]:
    """Newline-delimited JSON from a streamed body, yielded as each line completes."""
    pending = b""
    for chunk in raw.stream(65536, decode_content=True):
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            if line.strip():
                yield line
    if pending.strip():
        yield pending


def error_of(status: dict[str, Any], server: str) -> KubeError:
    """A watch's ERROR event as the error to raise: Expired for 410 Gone."""
    code = int(status.get("code") or 0)
    message = str(status.get("message") or "watch error")
    if code == 410:
        return Expired(message, reason=str(status.get("reason") or "Expired"))
    return KubeError(f"The API server {server} ended the watch: {message}", status=code or None)
