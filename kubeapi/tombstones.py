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
    WorkloadRebalancer,
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
    WorkloadRebalancer: ("apps.karmada.io", "WorkloadRebalancer", "apps.karmada.io/v1alpha1"),
}


# Each deletion prunes at most this many expired records: the table stays bounded by the delete rate
# over the watch window, and no delete pays for a backlog.
PRUNE_BATCH = 100


def kind_key(group: str, kind: str) -> str:
    return f"{group}/{kind}"


def _record(sender: type, instance: Any, **_: Any) -> None:
    from kubeapi.models import ManagedFields, Tombstone

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
    # the object's managers go with it: one created later under the name starts with none
    ManagedFields.objects.filter(
        kind_key=kind_key(group, kind), namespace=namespace, name=instance.name
    ).delete()
    Tombstone.objects.create(
        kind_key=kind_key(group, kind),
        namespace=namespace,
        name=instance.name,
        resource_version=version,
        document={"apiVersion": api_version, "kind": kind, "metadata": metadata},
    )
    prune(PRUNE_BATCH)


def connect() -> None:
    for model in (*WATCHED, ResourceTemplate):
        post_delete.connect(_record, sender=model, dispatch_uid=f"kubeapi-tombstone-{model.__name__}")


def prune(limit: int | None = None) -> int:
    """Forget deletions older than the watch window (a watch from before it gets 410 Gone anyway);
    at most `limit` of them, so each delete that prunes does a bounded amount of work."""
    from kubeapi.models import Tombstone

    old = Tombstone.objects.filter(resource_version__lt=versions.oldest_watchable())
    if limit is not None:
        old = Tombstone.objects.filter(
            pk__in=list(old.order_by("resource_version").values_list("pk", flat=True)[:limit])
        )
    return old.delete()[0]
