"""A pod container's log through the pods/log subresource: the tail at once, or followed line by line."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import urllib3.exceptions
from kubernetes.client.exceptions import ApiException

from clusters.k8s.client import Timeout, api_client
from clusters.k8s.connection import ClusterConnection
from clusters.k8s.errors import mapped_errors, translate
from clusters.k8s.rest import decode, request

# A followed log stays open this long without a line before the stream ends (the page reconnects).
FOLLOW_IDLE_SECONDS = 25.0


def _log_path(namespace: str, pod: str) -> str:
    return f"/api/v1/namespaces/{quote(namespace, safe='')}/pods/{quote(pod, safe='')}/log"


def _query(container: str, tail_lines: int | None, previous: bool, follow: bool, since: str = "") -> list:
    query: list[tuple[str, Any]] = []
    if container:
        query.append(("container", container))
    if tail_lines is not None:
        query.append(("tailLines", tail_lines))
    if previous:
        query.append(("previous", "true"))
    if follow:
        query.append(("follow", "true"))
    if since:
        query.append(("sinceTime", since))
    return query


def read_pod_log(
    conn: ClusterConnection,
    namespace: str,
    pod: str,
    container: str = "",
    tail_lines: int | None = None,
    previous: bool = False,
    timeout: Timeout | None = None,
) -> str:
    """The log as text; NotFound for an unknown pod or container, Invalid/ServerError as the member says
    (a `previous` log of a container that never restarted is the kubelet's 400)."""
    with mapped_errors(conn.server):
        response = request(
            api_client(conn, timeout),
            "GET",
            _log_path(namespace, pod),
            _query(container, tail_lines, previous, follow=False),
            headers={"Accept": "*/*"},
        )
        if not 200 <= response.status <= 299:
            decode(response)  # raises the member's Status as an ApiException, mapped above
        return bytes(response.data or b"").decode("utf-8", "replace")


def follow_pod_log(
    conn: ClusterConnection,
    namespace: str,
    pod: str,
    container: str = "",
    tail_lines: int | None = None,
    idle_seconds: float = FOLLOW_IDLE_SECONDS,
) -> Iterator[str]:
    """Lines of the log as the member writes them (`follow=true`), until the pod's container stops or
    no line came for `idle_seconds`; errors before the first byte are raised as our own."""
    client = api_client(conn, (5.0, idle_seconds))
    serialized = client.param_serialize(
        "GET",
        _log_path(namespace, pod),
        query_params=_query(container, tail_lines, previous=False, follow=True),
        header_params={"Accept": "*/*"},
        auth_settings=["BearerToken"],
    )
    with mapped_errors(conn.server):
        response = client.call_api(*serialized)
        if not 200 <= response.status <= 299:
            response.read()
            decode(response)
    raw = response.response
    pending = b""
    try:
        for chunk in raw.stream(4096, decode_content=True):
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                yield line.decode("utf-8", "replace")
        if pending:
            yield pending.decode("utf-8", "replace")
    except (urllib3.exceptions.ReadTimeoutError, urllib3.exceptions.ProtocolError):
        return  # idle for too long, or the member closed the stream: the reader reconnects
    except (ApiException, urllib3.exceptions.HTTPError, OSError) as exc:
        raise translate(exc, conn.server) from exc
    finally:
        raw.release_conn()
