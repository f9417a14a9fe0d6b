"""Test support: simulated member clusters registered as Cluster rows, and a synchronous reconcile loop."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from clusters.k8s import ClusterConnection, list_nodes, list_pods, objects
from clusters.models import Cluster
from membersim import ClusterSpec, Simulator
from tests.support.eager import eager_tasks

# The seed's cities and their regions: a member named after one is placed there unless told otherwise.
REGIONS = {"beijing": "cn-north", "shanghai": "cn-east", "guangzhou": "cn-south"}


def member_spec(
    name: str,
    *,
    nodes: int = 2,
    labels: dict[str, str] | None = None,
    region: str | None = None,
    zones: list[str] | None = None,
    **fields: Any,
) -> ClusterSpec:
    """A simulated cluster; by default in its city's region (if it is one) and that region's zone `-a`."""
    region = REGIONS.get(name, "") if region is None else region
    if zones is None:
        zones = [f"{region}-a"] if region else []
    return ClusterSpec(
        name=name, nodes=nodes, labels=dict(labels or {}), region=region, zones=zones, **fields
    )


# beijing and shanghai env=prod with two nodes each, guangzhou env=staging with one: the `members` fixture's
# default, the smallest fleet on which the seed's 7:3 split and its env=prod selectors mean something.
THREE_CITIES = (
    member_spec("beijing", labels={"env": "prod"}),
    member_spec("shanghai", labels={"env": "prod"}),
    member_spec("guangzhou", nodes=1, labels={"env": "staging"}),
)


@contextlib.contextmanager
def started_members(
    specs: Iterable[ClusterSpec],
    *,
    propagate: bool = True,
    cluster_labels: Mapping[str, dict[str, str]] | None = None,
) -> Iterator[dict[str, Cluster]]:
    """The specs simulated and registered as Ready clusters (by name), tasks eager; all stopped after.

    `propagate` is the eager switch's: False records a failing task as a worker would instead of raising.
    `cluster_labels` gives Cluster labels by name where they differ from the spec's (which the nodes keep).
    """
    specs = list(specs)
    with Simulator(specs) as sim, eager_tasks(propagate):
        yield register_all(sim, specs, cluster_labels)


def register_all(
    sim: Simulator, specs: Iterable[ClusterSpec], cluster_labels: Mapping[str, dict[str, str]] | None = None
) -> dict[str, Cluster]:
    """`register` for each of the simulator's specs, by name, with its `cluster_labels` if given."""
    labels = cluster_labels or {}
    return {spec.name: register(sim, spec, labels.get(spec.name)) for spec in specs}


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
