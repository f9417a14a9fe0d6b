"""Test support: simulated member clusters registered as Cluster rows, and a synchronous reconcile loop."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from clusters.k8s import ClusterConnection, list_nodes, list_pods, objects
from clusters.models import Cluster
from karmada_ui.celery import app
from membersim import ClusterSpec, Simulator


def register(sim: Simulator, spec: ClusterSpec, labels: dict[str, str] | None = None) -> Cluster:
    """A Ready Cluster row for a simulated cluster, with its status observed once."""
    cluster = Cluster(
        name=spec.name,
        provider=spec.provider,
        region=spec.region,
        zones=list(spec.zones),
        labels=dict(labels if labels is not None else spec.labels),
        ready="True",
    )
    cluster.set_connection(
        ClusterConnection(name=spec.name, server=sim.endpoint(spec.name), token=sim.token(spec.name))
    )
    cluster.save()
    observe(cluster)
    return cluster


def observe(cluster: Cluster, summary: bool = True) -> None:
    """Fill status.nodes (and, unless told not to, status.resourceSummary) from nodes and pods."""
    conn = cluster.connection()
    nodes, pods = list_nodes(conn), list_pods(conn)
    used: dict[str, list[int]] = {}
    for pod in pods:
        if pod.node_name:
            entry = used.setdefault(pod.node_name, [0, 0, 0])
            entry[0] += pod.requests.cpu_milli
            entry[1] += pod.requests.memory_bytes
            entry[2] += 1
    node_status = []
    totals = [0, 0, 0, 0, 0, 0]
    for node in nodes:
        cpu, memory, count = used.get(node.name, [0, 0, 0])
        node_status.append(
            {
                "name": node.name,
                "labels": node.labels,
                "taints": list(node.taints),
                "ready": node.ready,
                "unschedulable": node.unschedulable,
                "allocatable": {
                    "cpu": f"{node.allocatable.cpu_milli}m",
                    "memory": str(node.allocatable.memory_bytes),
                    "pods": str(node.allocatable.pods),
                },
                "allocated": {"cpu": f"{cpu}m", "memory": str(memory), "pods": str(count)},
            }
        )
        for i, value in enumerate(
            (
                node.allocatable.cpu_milli,
                node.allocatable.memory_bytes,
                node.allocatable.pods,
                cpu,
                memory,
                count,
            )
        ):
            totals[i] += value
    status = {**(cluster.status or {}), "nodes": node_status}
    if summary:
        status["resourceSummary"] = {
            "allocatable": {"cpu": f"{totals[0]}m", "memory": str(totals[1]), "pods": str(totals[2])},
            "allocated": {"cpu": f"{totals[3]}m", "memory": str(totals[4]), "pods": str(totals[5])},
        }
    cluster.status = status
    cluster.save(update_fields=["status"])


def store_node_list(cluster: Cluster) -> None:
    """Add the member's node list as status.nodes (the planner's node-level estimator reads it).

    The clusters app's collector keeps resourceSummary but not the node list, so node claims need this.
    """
    observe(cluster, summary=False)


@contextlib.contextmanager
def eager_tasks() -> Iterator[None]:
    """Run .delay() inline, so a transaction's on_commit chain completes before the call returns."""
    saved = (app.conf.task_always_eager, app.conf.task_eager_propagates)
    app.conf.task_always_eager, app.conf.task_eager_propagates = True, True
    try:
        yield
    finally:
        app.conf.task_always_eager, app.conf.task_eager_propagates = saved


def converge(rounds: int = 2) -> None:
    """Run the periodic reconcile task synchronously a few times (each pass is idempotent)."""
    from scheduling import tasks

    for _ in range(rounds):
        tasks.reconcile()


def member_object(
    cluster: Cluster, api_version: str, kind: str, name: str, namespace: str = "default"
) -> Any:
    """The object as the member cluster holds it, or None."""
    try:
        return objects.get_object(cluster.connection(), api_version, kind, name, namespace)
    except objects.NotFound:
        return None
