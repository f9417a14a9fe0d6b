"""Deletions through any door become tombstones, so a watch can answer DELETED for them."""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_delete

from clusters.models import Cluster
from kubeapi import versions
from scheduling.models import (
    ClusterTaintPolicy,
    FederatedResourceQuota,
    OverridePolicy,
    PropagationPolicy,
    ResourceBinding,
    ResourceTemplate,
    Work,
)

# model -> (group, the kind's name or None to read it from the row's `kind`, apiVersion)
WATCHED: dict[type, tuple[str, str | None, str]] = {
    Cluster: ("cluster.karmada.io", "Cluster", "cluster.karmada.io/v1alpha1"),
    PropagationPolicy: ("policy.karmada.io", None, "policy.karmada.io/v1alpha1"),
    OverridePolicy: ("policy.karmada.io", None, "policy.karmada.io/v1alpha1"),
    ClusterTaintPolicy: ("policy.karmada.io", "ClusterTaintPolicy", "policy.karmada.io/v1alpha1"),
    FederatedResourceQuota: ("policy.karmada.io", "FederatedResourceQuota", "policy.karmada.io/v1alpha1"),
    ResourceBinding: ("work.karmada.io", None, "work.karmada.io/v1alpha2"),
    Work: ("work.karmada.io", "Work", "work.karmada.io/v1alpha1"),
}


def kind_key(group: str, kind: str) -> str:
    return f"{group}/{kind}"


def _record(sender: type, instance: Any, **_: Any) -> None:
    from kubeapi.models import Tombstone

    if sender is ResourceTemplate:
        group, kind, api_version = instance.api_group, instance.kind, instance.api_version
    else:
        group, fixed, api_version = WATCHED[sender]
        kind = fixed or instance.kind
    namespace = getattr(instance, "namespace", "") or ""
    version = versions.current()
    metadata: dict[str, Any] = {"name": instance.name, "resourceVersion": str(version)}
    if namespace:
        metadata["namespace"] = namespace
    Tombstone.objects.create(
        kind_key=kind_key(group, kind),
        namespace=namespace,
        name=instance.name,
        resource_version=version,
        document={"apiVersion": api_version, "kind": kind, "metadata": metadata},
    )


def connect() -> None:
    for model in (*WATCHED, ResourceTemplate):
        post_delete.connect(_record, sender=model, dispatch_uid=f"kubeapi-tombstone-{model.__name__}")


def prune() -> int:
    """Forget deletions older than the watch window (a watch from before it gets 410 Gone anyway)."""
    from kubeapi.models import Tombstone

    return Tombstone.objects.filter(resource_version__lt=versions.oldest_watchable()).delete()[0]
