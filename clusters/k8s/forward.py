"""Raw HTTP to a member's API server with its stored credentials and TLS settings (the cluster proxy)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import urllib3

from clusters.k8s.client import api_client
from clusters.k8s.connection import ClusterConnection
from clusters.k8s.errors import ClusterUnreachable

# Only what describes the request travels on: never the caller's own credentials, cookies or
# impersonation headers, which would let a caller act as someone the member trusts more.
REQUEST_HEADERS = ("Accept", "Content-Type", "User-Agent", "If-Match", "If-None-Match")
RESPONSE_HEADERS = ("Content-Type", "Warning", "Cache-Control", "Content-Disposition", "Audit-Id")
CONNECT_TIMEOUT = 5.0
READ_TIMEOUT = 30.0
# A watch or `logs -f` may stay quiet for a long time; Kubernetes' own watches end within an hour.
STREAM_READ_TIMEOUT = 3600.0
CHUNK = 64 * 1024
# Characters a path may carry unencoded (RFC 3986 pchar and "/"); the rest is percent-encoded again.
PATH_SAFE = "/:@!$&'()*+,;=-._~"


@dataclass
class Forwarded:
    """The member's answer: status, the headers worth passing on, and the body as it arrives."""

    status: int
    headers: dict[str, str]
    response: Any = field(repr=False)

    def chunks(self) -> Iterator[bytes]:
        """The body piece by piece as the member sends it (a watch event, a log line); closes at the end."""
        try:
            yield from self.response.stream(CHUNK, decode_content=False)
        except urllib3.exceptions.HTTPError:
            return  # the member went away mid-stream: the caller sees the stream end, as with a real proxy
        finally:
            self.close()

    def read(self) -> bytes:
        try:
            return bytes(self.response.read(decode_content=False))
        except urllib3.exceptions.HTTPError as exc:
            raise ClusterUnreachable(f"the member stopped answering mid-response: {exc}") from exc
        finally:
            self.close()

    def close(self) -> None:
        self.response.release_conn()


def member_url(conn: ClusterConnection, path: str, query: str = "") -> str:
    """The member's URL for a path under its server (which may carry a path prefix of its own)."""
    url = conn.server.rstrip("/") + "/" + quote(path.lstrip("/"), safe=PATH_SAFE)
    return f"{url}?{query}" if query else url


def forward(
    conn: ClusterConnection,
    method: str,
    path: str,
    *,
    query: str = "",
    headers: Mapping[str, str] | None = None,
    body: bytes | None = None,
    stream: bool = False,
) -> Forwarded:
    """Send one request to the member as its stored credentials, the answer unread (stream it or read it).

    Raises ClusterUnreachable when the member cannot be reached; any HTTP answer, errors included, is
    the member's to give and comes back as it is.
    """
    sent = {name: headers[name] for name in REQUEST_HEADERS if headers and headers.get(name)}
    if conn.token:
        sent["Authorization"] = f"Bearer {conn.token}"
    # The cluster's cached client holds its pool with the CA, client certificate and verification set.
    pool = api_client(conn).rest_client.pool_manager
    timeout = urllib3.Timeout(connect=CONNECT_TIMEOUT, read=STREAM_READ_TIMEOUT if stream else READ_TIMEOUT)
    try:
        response = pool.request(
            method,
            member_url(conn, path, query),
            body=body or None,
            headers=sent,
            preload_content=False,
            redirect=False,
            retries=False,
            timeout=timeout,
        )
    except urllib3.exceptions.HTTPError as exc:
        raise ClusterUnreachable(f"cluster {conn.name} cannot be reached: {exc}") from exc
    kept = {name: response.headers[name] for name in RESPONSE_HEADERS if name in response.headers}
    return Forwarded(response.status, kept, response)
