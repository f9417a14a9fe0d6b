"""ResourceBinding, ClusterResourceBinding (work.karmada.io/v1alpha2) and Work (v1alpha1), read as
Karmada writes them; the scheduler and the propagation own them."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from kubeapi.stores.base import Store, server_metadata, timestamp
from scheduling.controllers.export import binding_document
from scheduling.karmada import names
from scheduling.models import ResourceBinding, Work

WORK_API = "work.karmada.io/v1alpha1"


class BindingStore(Store):
    def __init__(self, kind: str) -> None:
        self.kind_name = kind
        self.namespace_field = None if kind == names.CLUSTER_RESOURCE_BINDING else "namespace"

    def rows(self) -> QuerySet:
        return ResourceBinding.objects.filter(kind=self.kind_name).select_related("template", "policy")

    def document(self, row: Any) -> dict[str, Any]:
        document = binding_document(row)
        document["metadata"] = server_metadata(
            document["metadata"],
            uid=row.permanent_id,
            changed=row.updated_at,
            created=row.created_at,
            generation=row.generation,
        )
        return document


def work_document(work: Work) -> dict[str, Any]:
    """A Work: the member manifest, Applied as Karmada's execution controller reports it, and the status
    and health collected back from the member."""
    applied: dict[str, Any] = {
        "type": "Applied",
        "status": "True" if work.applied else "False",
        "reason": work.applied_reason or ("AppliedSuccessful" if work.applied else "AppliedPending"),
        "message": work.applied_message or "",
    }
    if work.applied_at:
        applied["lastTransitionTime"] = timestamp(work.applied_at)
    manifest = work.manifest or {}
    metadata = manifest.get("metadata") or {}
    identifier = {
        "ordinal": 0,
        "group": str(manifest.get("apiVersion", "")).rpartition("/")[0],
        "version": str(manifest.get("apiVersion", "")).rpartition("/")[2],
        "kind": manifest.get("kind", ""),
        "namespace": metadata.get("namespace", ""),
        "name": metadata.get("name", ""),
    }
    manifest_status: dict[str, Any] = {"identifier": identifier, "health": work.health}
    if work.status:
        manifest_status["status"] = work.status
    spec: dict[str, Any] = {"workload": {"manifests": [manifest]}}
    if work.suspended:
        spec["suspendDispatching"] = True
    if work.preserve_on_delete:
        spec["preserveResourcesOnDeletion"] = True
    return {
        "apiVersion": WORK_API,
        "kind": "Work",
        "metadata": server_metadata(
            {
                "name": work.name,
                "namespace": work.namespace,
                "labels": {names.WORK_PERMANENT_ID: str(work.permanent_id)},
            },
            uid=work.permanent_id,
            changed=work.updated_at,
            created=work.created_at,
            generation=1,
        ),
        "spec": spec,
        "status": {"conditions": [applied], "manifestStatuses": [manifest_status]},
    }


class WorkStore(Store):
    kind_name = "Work"

    def rows(self) -> QuerySet:
        return Work.objects.all()

    def document(self, row: Any) -> dict[str, Any]:
        return work_document(row)
