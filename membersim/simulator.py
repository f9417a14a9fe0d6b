"""Simulator: serves a set of clusters over HTTP(S), writes their kubeconfig and applies faults."""

from __future__ import annotations

import base64
import errno
import ipaddress
import json
import os
import secrets
import socket
import threading
import time
from pathlib import Path
from typing import Any

import yaml

from membersim.cluster import Cluster
from membersim.server import CONTROL_PREFIX, MemberServer
from membersim.spec import ClusterSpec, SpecError

TICK_SECONDS = 1.0
ACTIONS = ("down", "refuse", "up", "slow", "errors", "load", "node-notready", "node-ready")


def control_file_for(kubeconfig: str | os.PathLike[str]) -> Path:
    """Where the control token and URLs live: next to the kubeconfig, readable by its owner only."""
    path = Path(kubeconfig)
    return path.with_name(path.name + ".membersim.json")


class Simulator:
    """Serves simulated member clusters; see the package docstring for the stable API."""

    def __init__(
        self,
        clusters: list[ClusterSpec],
        host: str = "127.0.0.1",
        port: int = 0,
        single_port: bool = False,
        tls: bool = False,
        verbose: bool = False,
        anonymous: bool | None = None,
        advertise_host: str | None = None,
        strict_port: bool = False,
    ) -> None:
        names = [spec.name for spec in clusters]
        if not names:
            raise SpecError("at least one cluster is needed")
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise SpecError(f"cluster names must be unique: {', '.join(duplicates)}")
        if not 0 <= port <= 65535:
            raise SpecError(f"port must be between 0 and 65535, got {port}")
        self.specs = list(clusters)
        # A taken port is replaced by a free one (and reported in ``moved``) unless strict_port.
        self.strict_port = strict_port
        self.moved: dict[str, tuple[int, int]] = {}
        self.host, self.port, self.single_port, self.tls, self.verbose = host, port, single_port, tls, verbose
        # The host written into endpoints and the kubeconfig: listening on 0.0.0.0 is reached as
        # 127.0.0.1 locally, or as advertise_host (e.g. a compose service name) from elsewhere.
        self.advertise_host = advertise_host or _reachable((host, 0))[0]
        # kubectl (client-go's kubeconfig loader) sends credentials only over TLS, so plain-HTTP clusters
        # accept requests without a token, as the old insecure port did; a wrong token is still a 401.
        self.anonymous = (not tls) if anonymous is None else anonymous
        self.clusters: dict[str, Cluster] = {}
        self.control_token = secrets.token_urlsafe(24)
        self.stopping = threading.Event()
        self._servers: dict[str | None, MemberServer] = {}  # by cluster name; None for the single port
        self._threads: dict[str | None, threading.Thread] = {}
        self._context: Any = None
        self._ticker = threading.Thread()
        self._endpoints: dict[str, str] = {}
        self._ca_pem: bytes | None = None
        self._started = False

    # ------------------------------------------------------------ lifecycle

    def start(self) -> Simulator:
        if self._started:
            return self
        self.stopping.clear()
        for spec in self.specs:
            self.clusters[spec.name] = Cluster(spec)
        if self.tls:
            from membersim.tls import make_certificates, server_context

            self._ca_pem, cert_pem, key_pem = make_certificates(self.advertise_host)
            self._context = server_context(cert_pem, key_pem)
        scheme = "https" if self.tls else "http"
        display_host = f"[{self.advertise_host}]" if ":" in self.advertise_host else self.advertise_host
        try:
            if self.single_port:
                server = self._listen_preferred(None, self.port, list(self.clusters))
                for name in self.clusters:
                    self._endpoints[name] = (
                        f"{scheme}://{display_host}:{server.server_address[1]}/clusters/{name}"
                    )
            else:
                for index, name in enumerate(self.clusters):
                    server = self._listen_preferred(name, self.port + index if self.port else 0, [name])
                    self._endpoints[name] = f"{scheme}://{display_host}:{server.server_address[1]}"
        except OSError as error:
            for server in self._servers.values():
                server.server_close()
            self._servers.clear()
            raise OSError(
                error.errno,
                f"cannot listen on {self.host}:{self.port or 'ephemeral ports'}: {error.strerror}",
            ) from None
        for key in self._servers:
            self._serve(key)
        self._ticker = threading.Thread(target=self._tick, name="membersim-ticker", daemon=True)
        self._ticker.start()
        self._started = True
        return self

    def _tick(self) -> None:
        """Re-run what time changes: crash-loop restarts, progress deadlines, toleration expiries."""
        while not self.stopping.wait(TICK_SECONDS):
            now = time.time()
            for cluster in list(self.clusters.values()):
                if self.stopping.is_set():
                    return
                cluster.controller.tick(now)

    def _listen_preferred(self, key: str | None, port: int, names: list[str]) -> MemberServer:
        """Listen on ``port``; when another program holds it, on a free port instead (noted in moved)."""
        try:
            return self._listen(key, port)
        except OSError as error:
            if self.strict_port or not port or error.errno != errno.EADDRINUSE:
                raise
        server = self._listen(key, 0)
        for name in names:
            self.moved[name] = (port, server.server_address[1])
        return server

    def _listen(self, name: str | None, port: int) -> MemberServer:
        server = MemberServer((self.host, port), self, name, self._context)
        self._servers[name] = server
        return server

    def _serve(self, key: str | None) -> None:
        thread = threading.Thread(
            target=self._servers[key].serve_forever,
            kwargs={"poll_interval": 0.5},
            name=f"membersim-{key or 'all'}",
            daemon=True,
        )
        thread.start()
        self._threads[key] = thread

    def _close(self, servers: list[MemberServer]) -> None:
        stoppers = [threading.Thread(target=server.shutdown, daemon=True) for server in servers]
        for stopper in stoppers:
            stopper.start()
        for server in servers:
            # A connection wakes serve_forever's select at once instead of after its poll interval.
            try:
                socket.create_connection(_reachable(server.server_address), timeout=0.2).close()
            except OSError:
                pass
        for stopper in stoppers:
            stopper.join(5)
        for server in servers:
            server.close_connections()
            server.server_close()

    def stop(self) -> None:
        """Stop serving; hung, slow and watching requests end promptly."""
        if not self._started:
            return
        self.stopping.set()
        for cluster in self.clusters.values():
            cluster.store.close()
            with cluster.fault_changed:
                cluster.fault_changed.notify_all()
        self._close(list(self._servers.values()))
        for thread in [*self._threads.values(), self._ticker]:
            thread.join(5)
        self._servers.clear()
        self._threads.clear()
        self._started = False

    def __enter__(self) -> Simulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------ access

    @property
    def names(self) -> list[str]:
        return [spec.name for spec in self.specs]

    def cluster(self, name: str) -> Cluster:
        try:
            return self.clusters[name]
        except KeyError:
            raise KeyError(f"no cluster named {name!r}") from None

    def endpoint(self, name: str) -> str:
        self.cluster(name)
        return self._endpoints[name]

    def token(self, name: str, role: str = "admin") -> str:
        """The bearer token of ``name``; role "viewer" gives a read-only token (writes get 403)."""
        cluster = self.cluster(name)
        if role not in ("admin", "viewer"):
            raise ValueError("role must be 'admin' or 'viewer'")
        return cluster.token if role == "admin" else cluster.viewer_token

    def ca_pem(self) -> str | None:
        return self._ca_pem.decode() if self._ca_pem else None

    def control_url(self, name: str) -> str:
        endpoint = self.endpoint(name)
        base = endpoint.split("/clusters/")[0] if self.single_port else endpoint
        return f"{base}{CONTROL_PREFIX}{name}"

    # ------------------------------------------------------------ kubeconfig

    def kubeconfig(self) -> dict[str, Any]:
        """One context per cluster, each with its own cluster entry and token user, all named after it."""
        clusters, users, contexts = [], [], []
        for name in self.names:
            entry: dict[str, Any] = {"server": self.endpoint(name)}
            if self._ca_pem:
                entry["certificate-authority-data"] = base64.b64encode(self._ca_pem).decode()
            clusters.append({"name": name, "cluster": entry})
            users.append({"name": name, "user": {"token": self.token(name)}})
            contexts.append(
                {"name": name, "context": {"cluster": name, "user": name, "namespace": "default"}}
            )
        return {
            "apiVersion": "v1",
            "kind": "Config",
            "preferences": {},
            "clusters": clusters,
            "users": users,
            "contexts": contexts,
            "current-context": self.names[0],
        }

    def write_kubeconfig(self, path: str | os.PathLike[str]) -> Path:
        """Write the kubeconfig (mode 0600) and, next to it, the control file ``ctl`` reads."""
        if not self._started:
            raise RuntimeError("start the simulator before writing its kubeconfig")
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        control = {
            "token": self.control_token,
            "ca": self.ca_pem(),
            "clusters": {name: self.control_url(name) for name in self.names},
        }
        _write_private(control_file_for(target), json.dumps(control, indent=2) + "\n")
        # The kubeconfig goes last: its appearance tells a supervisor that every cluster is serving.
        _write_private(target, yaml.safe_dump(self.kubeconfig(), sort_keys=False))
        return target

    # ------------------------------------------------------------ faults

    def control(self, name: str, action: str, *args: Any) -> dict[str, Any]:
        """Apply a fault or fix: down, up, slow SECONDS, errors "
        "[CODE], load FACTOR, node-notready NODE, node-ready NODE."""
        cluster = self.cluster(name)
        if action not in ACTIONS:
            raise ValueError(f"unknown action {action!r}; use one of {', '.join(ACTIONS)}")
        needs = {"slow": "SECONDS", "load": "FACTOR", "node-notready": "NODE", "node-ready": "NODE"}
        if action in needs and len(args) != 1:
            raise ValueError(f"{action} needs exactly one argument ({needs[action]})")
        if action in ("down", "refuse", "up") and args:
            raise ValueError(f"{action} takes no argument")
        if action in ("down", "up", "errors"):
            self._reopen(name)
        if action == "down":
            cluster.fault.mode = "down"
        elif action == "refuse":
            cluster.fault.mode = "refuse"
            if not self.single_port and name in self._servers:
                # Close the cluster's listening socket: new connections are refused outright.
                self._close([self._servers.pop(name)])
                self._threads.pop(name).join(5)
        elif action == "up":
            cluster.fault.mode, cluster.fault.delay = "up", 0.0
        elif action == "slow":
            cluster.fault.delay = _number(args[0], "slow SECONDS", maximum=3600)
        elif action == "errors":
            if len(args) > 1:
                raise ValueError("errors takes at most one argument (the HTTP status, 500 or 503)")
            code = int(_number(args[0], "errors CODE")) if args else 503
            if code not in (500, 502, 503, 504):
                raise ValueError(f"errors CODE must be 500, 502, 503 or 504, got {code}")
            cluster.fault.mode, cluster.fault.error_code = "errors", code
        elif action == "load":
            cluster.load = _number(args[0], "load FACTOR", maximum=1000)
        else:
            try:
                cluster.set_node_ready(str(args[0]), action == "node-ready")
            except KeyError:
                raise ValueError(f'cluster {name} has no node "{args[0]}"') from None
        with cluster.fault_changed:
            cluster.fault_changed.notify_all()
        cluster.store.wake_watchers()  # open watches act on the fault now, not at their next check
        return self.describe(name)

    def _reopen(self, name: str) -> None:
        """Listen again on the port a ``refuse`` closed."""
        if self.single_port or name in self._servers or not self._started:
            return
        port = int(self.endpoint(name).rsplit(":", 1)[1])
        try:
            self._listen(name, port)
        except OSError as error:
            raise ValueError(f"cannot listen on {self.host}:{port} again: {error.strerror}") from None
        self._serve(name)

    def idle_handler_threads(self) -> int:
        """Threads kept for the next connection's handler, serving none now (membersim.handler_threads)."""
        return sum(server.handlers.idle() for server in list(self._servers.values()))

    def describe(self, name: str) -> dict[str, Any]:
        cluster = self.cluster(name)
        return {
            "cluster": name,
            "endpoint": self.endpoint(name),
            **cluster.fault.describe(),
            "load": cluster.load,
        }


def _reachable(address: tuple[Any, ...]) -> tuple[str, int]:
    """Where to connect to reach a listening address (an unspecified one means loopback)."""
    host, port = str(address[0]), int(address[1])
    try:
        unspecified = ipaddress.ip_address(host).is_unspecified
    except ValueError:
        unspecified = False
    if unspecified:
        return ("::1" if ":" in host else "127.0.0.1"), port
    return host, port


def _number(value: Any, what: str, maximum: float | None = None) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number, got {value!r}") from None
    if number < 0 or number != number or (maximum is not None and number > maximum):
        raise ValueError(f"{what} must be between 0 and {maximum}, got {value!r}")
    return number


def _write_private(path: Path, text: str) -> None:
    """Write atomically (temp file + rename) with mode 0600, so readers never see half a file."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(text)
    os.replace(temporary, path)
