"""Connecting to a cluster before it joins: the kubeconfig read, the first look, why a join fails."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from clusters import k8s
from clusters.topology import Topology, topology_of
from core.errors import FieldError

log = logging.getLogger(__name__)

JOIN_TIMEOUT = (5.0, 20.0)
MANAGED_SELECTOR = "karmada.io/managed=true"


class JoinError(FieldError):
    """Why a join did not happen; `field` is the input to fix (name, kubeconfig, context, labels)."""


@dataclass(frozen=True)
class JoinPreview:
    """What the cluster reported when we connected."""

    version: str
    nodes_total: int
    nodes_ready: int
    topology: Topology


@dataclass(frozen=True)
class JoinRequest:
    """One cluster of a bulk join: its name, connection and what the operator gave for it."""

    name: str
    conn: k8s.ClusterConnection
    labels: dict[str, str] = field(default_factory=dict)
    provider: str = ""
    region: str = ""
    zones: list[str] = field(default_factory=list)


# How many clusters a bulk join connects to at once.
PREVIEW_CONNECTIONS = 16


def preview_many(requests: list[JoinRequest]) -> dict[str, JoinPreview | JoinError]:
    """preview() of every request, PREVIEW_CONNECTIONS at a time: by name, what it reported or why not."""

    def look(request: JoinRequest) -> JoinPreview | JoinError:
        try:
            return preview(request.conn)
        except JoinError as exc:
            return exc

    with ThreadPoolExecutor(max_workers=PREVIEW_CONNECTIONS) as pool:
        return dict(zip((r.name for r in requests), pool.map(look, requests), strict=True))


def connection_from_kubeconfig(
    text: str, context: str | None, *, base_dir: str | None = None, files: bool = False
) -> k8s.ClusterConnection:
    try:
        return k8s.from_kubeconfig(text, context or None, base_dir=base_dir, files=files)
    except k8s.InvalidKubeconfig as exc:
        field = "context" if "context" in exc.message and "no context" in exc.message else "kubeconfig"
        raise JoinError(field, exc.message) from exc


def preview(conn: k8s.ClusterConnection) -> JoinPreview:
    """Connect and read the version and nodes; JoinError with the reason when that fails."""
    try:
        version = k8s.get_version(conn, JOIN_TIMEOUT)
        nodes = k8s.list_nodes(conn, JOIN_TIMEOUT)
    except k8s.KubeError as exc:
        raise JoinError("kubeconfig", exc.message) from exc
    return JoinPreview(
        version=version.git_version,
        nodes_total=len(nodes),
        nodes_ready=sum(1 for n in nodes if n.ready),
        topology=topology_of(nodes),
    )


def enqueue_collection(cluster_id: int) -> None:
    """Ask a worker for a first full collection now; the periodic fan-out catches up if this is lost."""
    from clusters.tasks import collect_cluster_task

    try:
        collect_cluster_task.delay(cluster_id)
    except Exception:  # the broker may be down; the next beat cycle collects anyway
        log.warning("could not enqueue the first collection of cluster %s", cluster_id, exc_info=True)
