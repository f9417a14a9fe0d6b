"""One kubernetes ApiClient per (process, connection, timeout), built lazily, with a timeout on every call;
the clients of one connection share one connection pool."""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
import threading
from collections import OrderedDict
from typing import Any

from kubernetes.client import ApiClient, Configuration

from clusters.k8s.connection import ClusterConnection

Timeout = float | tuple[float, float]
DEFAULT_TIMEOUT: tuple[float, float] = (5.0, 30.0)
MAX_CLIENTS = 8192  # old credentials age out; a cluster has one live entry per timeout it is called with
POOL_SIZE = 8

_lock = threading.Lock()
_clients: OrderedDict[tuple[int, ClusterConnection, tuple[float, float]], ApiClient] = OrderedDict()
# A cluster's clients of every timeout share its pool (the timeout goes with each call), so a process
# keeps at most POOL_SIZE idle connections to a cluster, not that many per timeout it calls with.
_pools: OrderedDict[tuple[int, ClusterConnection], Any] = OrderedDict()
_files_dir: dict[int, str] = {}


def normalise_timeout(timeout: Timeout | None) -> tuple[float, float]:
    """(connect, read) seconds; a single number is used for both."""
    if timeout is None:
        return DEFAULT_TIMEOUT
    if isinstance(timeout, int | float):
        return (float(timeout), float(timeout))
    connect, read = timeout
    return (float(connect), float(read))


class TimedApiClient(ApiClient):
    """An ApiClient that never makes a call without a (connect, read) timeout."""

    def __init__(self, configuration: Configuration, timeout: tuple[float, float]) -> None:
        super().__init__(configuration)
        self.timeout = timeout

    def call_api(
        self,
        method: str,
        url: str,
        header_params: Any = None,
        body: Any = None,
        post_params: Any = None,
        _request_timeout: Any = None,
    ) -> Any:
        return super().call_api(
            method, url, header_params, body, post_params, _request_timeout=_request_timeout or self.timeout
        )


def _private_dir() -> str:
    """A 0700 directory of this process for certificate and key files, removed at exit."""
    pid = os.getpid()
    if pid not in _files_dir:
        path = tempfile.mkdtemp(prefix="karmada-ui-certs-")
        os.chmod(path, 0o700)
        _files_dir[pid] = path
        atexit.register(shutil.rmtree, path, True)
    return _files_dir[pid]


def _private_file(data: bytes, suffix: str) -> str:
    """Write data once per content into the private directory (0600) and return its path."""
    name = hashlib.sha256(data).hexdigest()[:32] + suffix
    path = os.path.join(_private_dir(), name)
    if not os.path.exists(path):
        fd, tmp = tempfile.mkstemp(dir=_private_dir())
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    return path


def build_configuration(conn: ClusterConnection) -> Configuration:
    config = Configuration(host=conn.server)
    if conn.token:
        config.api_key = {"BearerToken": conn.token}
        config.api_key_prefix = {"BearerToken": "Bearer"}
    if conn.ca_data:
        config.ca_cert_data = conn.ca_data.decode("ascii", "replace")
    if conn.client_cert_data and conn.client_key_data:
        config.cert_file = _private_file(conn.client_cert_data, ".crt")
        config.key_file = _private_file(conn.client_key_data, ".key")
    config.verify_ssl = not conn.insecure_skip_tls_verify
    # A probe must fail within its own timeout, not after urllib3's three silent retries.
    config.retries = False
    config.connection_pool_maxsize = POOL_SIZE
    return config


def api_client(conn: ClusterConnection, timeout: Timeout | None = None) -> TimedApiClient:
    """The cached client for this connection in this process (a forked worker builds its own)."""
    limits = normalise_timeout(timeout)
    key = (os.getpid(), conn, limits)
    with _lock:
        client = _clients.get(key)
        if client is not None:
            _clients.move_to_end(key)
            return client  # type: ignore[return-value]
        client = TimedApiClient(build_configuration(conn), limits)
        pool_key = (key[0], conn)
        shared = _pools.get(pool_key)
        if shared is None:
            _pools[pool_key] = client.rest_client
        else:
            _pools.move_to_end(pool_key)
            client.rest_client = shared
        _clients[key] = client
        while len(_clients) > MAX_CLIENTS:
            _clients.popitem(last=False)
        while len(_pools) > MAX_CLIENTS:
            _, pool = _pools.popitem(last=False)
            pool.close()  # a client still holding it opens new connections on its next call
        return client
