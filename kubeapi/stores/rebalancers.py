"""WorkloadRebalancer (apps.karmada.io/v1alpha1): creating or updating one rebalances its workloads
through scheduling.services; the status says how each went."""

from __future__ import annotations

from typing import Any

from django.db.models import Model, QuerySet

from kubeapi.stores.base import Store, server_metadata, timestamp
from scheduling import services
from scheduling.models import WorkloadRebalancer

API_VERSION = "apps.karmada.io/v1alpha1"


def rebalancer_document(row: WorkloadRebalancer) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": row.name}
    if row.labels:
        metadata["labels"] = dict(row.labels)
    if row.annotations:
        metadata["annotations"] = dict(row.annotations)
    spec: dict[str, Any] = {"workloads": list(row.workloads)}
    if row.ttl_seconds_after_finished is not None:
        spec["ttlSecondsAfterFinished"] = row.ttl_seconds_after_finished
    status: dict[str, Any] = {"observedWorkloads": list(row.observed_workloads)}
    if row.observed_generation:
        status["observedGeneration"] = row.observed_generation
    if row.finish_time:
        status["finishTime"] = timestamp(row.finish_time)
    return {
        "apiVersion": API_VERSION,
        "kind": "WorkloadRebalancer",
        "metadata": server_metadata(
            metadata,
            uid=row.permanent_id,
            changed=row.updated_at,
            created=row.created_at,
            generation=row.generation,
        ),
        "spec": spec,
        "status": status,
    }


class RebalancerStore(Store):
    kind_name = "WorkloadRebalancer"
    namespace_field = None
    labels_field = "labels"

    def rows(self) -> QuerySet:
        return WorkloadRebalancer.objects.all()

    def document(self, row: Any) -> dict[str, Any]:
        return rebalancer_document(row)

    def create(self, document: dict[str, Any], user: Any) -> Model:
        return services.save_rebalancer(document, user)

    def replace(self, row: Model, document: dict[str, Any], user: Any) -> Model:
        return services.save_rebalancer(document, user)

    def delete(self, row: Model, user: Any, propagation: str) -> None:
        services.delete_rebalancer(row, user)  # type: ignore[arg-type]
