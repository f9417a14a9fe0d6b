"""The network check over the clusters' collected CIDRs, with what it means for flat networking in words."""

from __future__ import annotations

from django.utils.translation import gettext as _

from clusters.models import Cluster
from observability.network import POD, SERVICE, ClusterNetworks, Overlap, Report, check


def fleet_report() -> Report:
    rows = Cluster.objects.values_list("name", "pod_cidrs", "service_cidrs")
    return check(
        ClusterNetworks(name, tuple(pods or ()), tuple(services or ())) for name, pods, services in rows
    )


def kind_label(kind: str) -> str:
    return _("pod CIDR") if kind == POD else _("service CIDR")


def overlap_consequence(overlap: Overlap) -> str:
    kinds = {overlap.kind_a, overlap.kind_b}
    if kinds == {POD}:
        return _("Pods in both clusters can get the same address, so direct pod-to-pod routing is ambiguous.")
    if kinds == {SERVICE}:
        return _("A ClusterIP in the shared range could mean a service in either cluster.")
    return _(
        "A pod address in one cluster is a service address in the other, whose service proxy captures it."
    )


def overlap_sentence(overlap: Overlap) -> str:
    return _(
        "%(kind_a)s %(cidr_a)s of %(a)s overlaps %(kind_b)s %(cidr_b)s of %(b)s (shared: %(shared)s)."
    ) % {
        "kind_a": kind_label(overlap.kind_a),
        "cidr_a": overlap.cidr_a,
        "a": overlap.cluster_a,
        "kind_b": kind_label(overlap.kind_b),
        "cidr_b": overlap.cidr_b,
        "b": overlap.cluster_b,
        "shared": overlap.shared,
    }


def _blocked(overlaps: tuple[Overlap, ...]) -> str:
    return _(
        "Flat networking is not possible (overlapping pairs of ranges: %(count)d): an address in a shared "
        "range would name a pod or service in two clusters at once. Re-address one side, or connect these "
        "clusters through gateways and service export."
    ) % {"count": len(overlaps)}


def verdict(report: Report) -> str:
    """What the overlaps mean for flat networking across the whole fleet."""
    if report.overlaps:
        return _blocked(report.overlaps)
    if report.unknown:
        return _("The ranges of %(names)s are not collected yet, so flat networking cannot be confirmed.") % {
            "names": ", ".join(report.unknown)
        }
    return _(
        "Flat networking is possible: no pod or service ranges overlap between the clusters "
        "(%(count)d checked)."
    ) % {"count": len(report.clusters)}


def cluster_verdict(report: Report, name: str) -> str:
    """What the overlaps mean for flat networking between one cluster and the others."""
    mine = next((c for c in report.clusters if c.name == name), None)
    if mine is None or not mine.known:
        return _("The pod and service CIDRs of %(name)s are not collected yet.") % {"name": name}
    overlaps = report.for_cluster(name)
    if overlaps:
        return _blocked(overlaps)
    return _("No range of %(name)s overlaps another cluster's, so it can take part in flat networking.") % {
        "name": name
    }


def as_data(report: Report, cluster: str | None = None) -> dict:
    """The report as the API returns it, for the fleet or for one cluster."""
    overlaps = report.overlaps if cluster is None else report.for_cluster(cluster)
    clusters = [c for c in report.clusters if cluster is None or c.name == cluster]
    return {
        "flat_networking_possible": not overlaps and all(c.known for c in clusters),
        "summary": verdict(report) if cluster is None else cluster_verdict(report, cluster),
        "clusters": [
            {
                "name": c.name,
                "pod_cidrs": list(c.pod_cidrs),
                "service_cidrs": list(c.service_cidrs),
                "unreadable_cidrs": list(c.unreadable),
                "overlaps": c.overlaps,
            }
            for c in clusters
        ],
        "overlaps": [
            {
                "cluster_a": o.cluster_a,
                "kind_a": o.kind_a,
                "cidr_a": o.cidr_a,
                "cluster_b": o.cluster_b,
                "kind_b": o.kind_b,
                "cidr_b": o.cidr_b,
                "shared": o.shared,
                "meaning": overlap_consequence(o),
            }
            for o in overlaps
        ],
    }
