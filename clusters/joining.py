"""Join (register) and unjoin member clusters: connect first, save only what answered."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clusters import k8s
from clusters.k8s.cleanup import delete_labelled
from clusters.models import Cluster, ClusterEvent, ReadyState
from clusters.names import cluster_name_error
from clusters.topology import Topology, topology_of
from core import audit
from kubesyntax.labels import LabelSyntaxError, check_labels

log = logging.getLogger(__name__)

JOIN_TIMEOUT = (5.0, 20.0)
MANAGED_SELECTOR = "karmada.io/managed=true"


class JoinError(Exception):
    """Why a join did not happen; `field` is the input to fix (name, kubeconfig, context, labels)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


@dataclass(frozen=True)
class JoinPreview:
    """What the cluster reported when we connected."""

    version: str
    nodes_total: int
    nodes_ready: int
    topology: Topology


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


def join_cluster(
    name: str,
    conn: k8s.ClusterConnection,
    *,
    labels: dict[str, str] | None = None,
    provider: str = "",
    region: str = "",
    zones: list[str] | None = None,
    update: bool = False,
    user: Any = None,
) -> tuple[Cluster, JoinPreview, bool]:
    """Register `name` (or, with update, refresh an existing one); returns (cluster, preview, created)."""
    reason = cluster_name_error(name)
    if reason:
        raise JoinError("name", reason)
    try:
        wanted_labels = check_labels(labels or {})
    except LabelSyntaxError as exc:
        raise JoinError("labels", str(exc)) from exc
    existing = Cluster.objects.filter(name=name).first()
    if existing and not update:
        raise JoinError("name", _("A cluster named %(name)s is already joined.") % {"name": name})

    seen = preview(conn)
    topology = seen.topology
    now = timezone.now()
    spec = {
        "provider": provider or topology.provider,
        "region": region or topology.region,
        "zones": list(zones) if zones else list(topology.zones),
    }
    spec["zone"] = spec["zones"][0] if len(spec["zones"]) == 1 else ""
    try:
        with transaction.atomic():
            cluster = existing or Cluster(name=name)
            created = existing is None
            cluster.set_connection(conn)
            for field, value in spec.items():
                setattr(cluster, field, value)
            cluster.labels = {**(cluster.labels if not created else {}), **wanted_labels}
            if created:
                # Karmada uses a new cluster's first observation directly, without a threshold.
                cluster.ready, cluster.ready_reason = ReadyState.TRUE, "ClusterReady"
                cluster.ready_message = "cluster is healthy and ready to accept workloads"
                cluster.ready_since = cluster.observed_since = now
                cluster.observed, cluster.observed_reason = ReadyState.TRUE, "ClusterReady"
            else:
                cluster.resource_version += 1
            cluster.kubernetes_version = seen.version
            cluster.nodes_total, cluster.nodes_ready = seen.nodes_total, seen.nodes_ready
            cluster.full_clean(exclude=["credentials"])
            cluster.save()
            message = _("Joined: %(v)s, %(r)s/%(t)s nodes Ready") % {
                "v": seen.version,
                "r": seen.nodes_ready,
                "t": seen.nodes_total,
            }
            reason = "Joined" if created else "Updated"
            ClusterEvent.objects.create(cluster=cluster, at=now, reason=reason, message=message)
            audit.record(user, reason, "Cluster", name, summary=f"{message}; endpoint {conn.server}")
    except IntegrityError as exc:
        raise JoinError("name", _("A cluster named %(name)s is already joined.") % {"name": name}) from exc
    transaction.on_commit(lambda: enqueue_collection(cluster.pk))
    return cluster, seen, created


def enqueue_collection(cluster_id: int) -> None:
    """Ask a worker for a first full collection now; the periodic fan-out catches up if this is lost."""
    from clusters.tasks import collect_cluster_task

    try:
        collect_cluster_task.delay(cluster_id)
    except Exception:  # the broker may be down; the next beat cycle collects anyway
        log.warning("could not enqueue the first collection of cluster %s", cluster_id, exc_info=True)


def unjoin_cluster(cluster: Cluster, delete_resources: bool = False, user: Any = None) -> list[str]:
    """Remove the cluster; with delete_resources, first delete what karmada-ui placed there."""
    deleted: list[str] = []
    if delete_resources:
        try:
            deleted = delete_labelled(cluster.connection(), MANAGED_SELECTOR, JOIN_TIMEOUT)
        except k8s.KubeError as exc:
            raise JoinError("delete_resources", exc.message) from exc
    name = cluster.name
    cluster.delete()
    audit.record(user, "Unjoined", "Cluster", name, summary=f"deleted {len(deleted)} managed objects")
    return deleted
