"""The network check: which clusters' pod and service CIDRs overlap, pair by pair (pure, no Django)."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import combinations

POD, SERVICE = "pod", "service"
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True)
class ClusterNetworks:
    name: str
    pod_cidrs: tuple[str, ...] = ()
    service_cidrs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Overlap:
    """Two ranges of two clusters that share addresses; `shared` is the range both contain."""

    cluster_a: str
    kind_a: str
    cidr_a: str
    cluster_b: str
    kind_b: str
    cidr_b: str
    shared: str

    def involves(self, name: str) -> bool:
        return name in (self.cluster_a, self.cluster_b)


@dataclass(frozen=True)
class ClusterVerdict:
    name: str
    pod_cidrs: tuple[str, ...]
    service_cidrs: tuple[str, ...]
    unreadable: tuple[str, ...]
    overlaps: int

    @property
    def known(self) -> bool:
        return bool(self.pod_cidrs or self.service_cidrs)


@dataclass(frozen=True)
class Report:
    clusters: tuple[ClusterVerdict, ...]
    overlaps: tuple[Overlap, ...]
    unknown: tuple[str, ...] = field(default=())

    @property
    def flat_networking_possible(self) -> bool:
        """Flat pod networking needs every pod and service range unique across the clusters."""
        return not self.overlaps and not self.unknown

    def for_cluster(self, name: str) -> tuple[Overlap, ...]:
        return tuple(overlap for overlap in self.overlaps if overlap.involves(name))


def _networks(cidrs: Iterable[str]) -> tuple[list[tuple[str, Network]], list[str]]:
    readable, unreadable = [], []
    for cidr in cidrs:
        try:
            readable.append((cidr, ipaddress.ip_network(cidr.strip(), strict=False)))
        except ValueError:
            unreadable.append(cidr)
    return readable, unreadable


def _shared(a: Network, b: Network) -> str:
    # CIDR blocks either nest or are disjoint, so what both contain is the smaller block.
    return str(a if a.prefixlen >= b.prefixlen else b)


def check(clusters: Iterable[ClusterNetworks]) -> Report:
    """Flag every pair of clusters whose ranges overlap: pod vs pod, service vs service, pod vs service."""
    parsed = {}
    verdict_parts = []
    for cluster in sorted(clusters, key=lambda c: c.name):
        pods, bad_pods = _networks(cluster.pod_cidrs)
        services, bad_services = _networks(cluster.service_cidrs)
        parsed[cluster.name] = [(POD, c, n) for c, n in pods] + [(SERVICE, c, n) for c, n in services]
        verdict_parts.append((cluster, tuple(bad_pods + bad_services)))
    overlaps = []
    for a, b in combinations(sorted(parsed), 2):
        for kind_a, cidr_a, net_a in parsed[a]:
            for kind_b, cidr_b, net_b in parsed[b]:
                if net_a.version == net_b.version and net_a.overlaps(net_b):
                    overlaps.append(Overlap(a, kind_a, cidr_a, b, kind_b, cidr_b, _shared(net_a, net_b)))
    verdicts = tuple(
        ClusterVerdict(
            name=cluster.name,
            pod_cidrs=tuple(cluster.pod_cidrs),
            service_cidrs=tuple(cluster.service_cidrs),
            unreadable=unreadable,
            overlaps=sum(1 for overlap in overlaps if overlap.involves(cluster.name)),
        )
        for cluster, unreadable in verdict_parts
    )
    unknown = tuple(v.name for v in verdicts if not v.known)
    return Report(clusters=verdicts, overlaps=tuple(overlaps), unknown=unknown)
