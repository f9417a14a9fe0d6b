"""Cluster names: DNS-1123 labels of at most 48 characters, as Karmada requires."""

from __future__ import annotations

from kubesyntax.names import dns_label_error

CLUSTER_NAME_MAX = 48


def cluster_name_error(name: str) -> str | None:
    """Why `name` cannot name a cluster, or None when it can."""
    return dns_label_error(name, CLUSTER_NAME_MAX, "a cluster name")
