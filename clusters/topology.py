"""Provider, region and zones of a cluster, read from its nodes' standard topology labels."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from clusters.k8s import NodeInfo

REGION_LABELS = ("topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region")
ZONE_LABELS = ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone")


@dataclass(frozen=True)
class Topology:
    provider: str
    region: str
    zones: tuple[str, ...]


def _first(labels: dict[str, str], keys: tuple[str, ...]) -> str:
    return next((labels[k] for k in keys if labels.get(k)), "")


def topology_of(nodes: list[NodeInfo]) -> Topology:
    """The most common provider (from spec.providerID's scheme) and region; every zone, sorted."""
    providers = Counter(n.provider_id.split("://", 1)[0] for n in nodes if "://" in n.provider_id)
    regions = Counter(r for r in (_first(n.labels, REGION_LABELS) for n in nodes) if r)
    zones = sorted({z for z in (_first(n.labels, ZONE_LABELS) for n in nodes) if z})
    return Topology(
        provider=providers.most_common(1)[0][0] if providers else "",
        region=regions.most_common(1)[0][0] if regions else "",
        zones=tuple(zones),
    )
