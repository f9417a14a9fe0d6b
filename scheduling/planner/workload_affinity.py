"""Karmada's WorkloadAffinity and WorkloadAntiAffinity filters: keep a group's workloads together or apart.

A policy's ``placement.workloadAffinity`` names a template label (``groupByLabelKey``); the detector
turns the template's value of it into the binding's group ``<key>=<value>``.  The filters compare a
cluster with the other ResourceBindings of the same namespace and group: an affinity group follows
every scheduled peer, an anti-affinity group avoids every cluster a peer runs on.  A cluster the
binding already runs on always passes, so neither filter ever takes a workload away.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kubesyntax.fieldpaths import join

from .messages import Reason
from .parsing import get_map, get_str

AFFINITY_FILTER = "WorkloadAffinity"
ANTI_AFFINITY_FILTER = "WorkloadAntiAffinity"


@dataclass(frozen=True)
class WorkloadAffinity:
    """``placement.workloadAffinity``: the label keys that group workloads together and apart."""

    affinity_key: str = ""
    anti_affinity_key: str = ""

    @classmethod
    def from_dict(cls, data: Any, path: str) -> WorkloadAffinity | None:
        data = get_map(data, path)
        if data is None:
            return None
        keys = []
        for part in ("affinity", "antiAffinity"):
            term = get_map(data.get(part), join(path, part)) or {}
            keys.append(get_str(term.get("groupByLabelKey"), join(join(path, part), "groupByLabelKey")))
        return cls(affinity_key=keys[0], anti_affinity_key=keys[1])


@dataclass(frozen=True)
class WorkloadPeer:
    """Another ResourceBinding as the filters see it: its identity, groups and ``spec.clusters``.

    ``workload`` names the template for people (``Deployment default/web``); the filters match on
    ``namespace`` and ``name`` (the binding name) as Karmada does.
    """

    namespace: str
    name: str
    affinity_group: str = ""
    anti_affinity_group: str = ""
    clusters: tuple[str, ...] = ()
    workload: str = ""

    @property
    def label(self) -> str:
        return self.workload or f"{self.namespace}/{self.name}"


def affinity_groups(affinity: WorkloadAffinity | None, labels: Mapping[str, str]) -> tuple[str, str]:
    """The binding's (affinityGroup, antiAffinityGroup): ``<key>=<value>`` when the template has the label."""
    if affinity is None:
        return "", ""
    groups = []
    for key in (affinity.affinity_key, affinity.anti_affinity_key):
        groups.append(f"{key}={labels[key]}" if key and key in labels else "")
    return groups[0], groups[1]


def _peers_in_group(
    peers: Sequence[WorkloadPeer], namespace: str, own_name: str, group: str, anti: bool
) -> list[WorkloadPeer]:
    """Peers of the same namespace and group, other than the binding itself, in name order."""
    found = [
        peer
        for peer in peers
        if peer.namespace == namespace
        and peer.name != own_name
        and (peer.anti_affinity_group if anti else peer.affinity_group) == group
    ]
    return sorted(found, key=lambda peer: peer.name)


def filter_workload_affinity(
    cluster: str,
    namespace: str,
    own_name: str,
    group: str,
    previous: frozenset[str],
    peers: Sequence[WorkloadPeer],
) -> Reason | None:
    """The cluster runs every scheduled peer of the affinity group (peers with no clusters do not count)."""
    if cluster in previous or not group:
        return None
    missing = [
        peer
        for peer in _peers_in_group(peers, namespace, own_name, group, anti=False)
        if peer.clusters and cluster not in peer.clusters
    ]
    if not missing:
        return None
    params = {"group": group, "peer": missing[0].label, "others": len(missing) - 1}
    return Reason(AFFINITY_FILTER, "affinity_group_elsewhere", params)


def filter_workload_anti_affinity(
    cluster: str,
    namespace: str,
    own_name: str,
    group: str,
    previous: frozenset[str],
    peers: Sequence[WorkloadPeer],
) -> Reason | None:
    """No peer of the anti-affinity group runs on the cluster."""
    if cluster in previous or not group:
        return None
    present = [
        peer
        for peer in _peers_in_group(peers, namespace, own_name, group, anti=True)
        if cluster in peer.clusters
    ]
    if not present:
        return None
    params = {"group": group, "peer": present[0].label, "others": len(present) - 1}
    return Reason(ANTI_AFFINITY_FILTER, "anti_affinity_group_here", params)
