"""Karmada's policies and quotas (policy.karmada.io/v1alpha1), written as `apply` writes them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import Model, QuerySet

from kubeapi.stores.base import Store, server_metadata
from scheduling import services
from scheduling.controllers import export
from scheduling.models import (
    ClusterTaintPolicy,
    FederatedResourceQuota,
    OverridePolicy,
    PropagationPolicy,
)


class ApplyStore(Store):
    """Rows that `scheduling.services.apply_objects` creates and updates by name."""

    def create(self, document: dict[str, Any], user: Any) -> Model:
        services.apply_objects([document], user)
        namespace = str((document.get("metadata") or {}).get("namespace") or "")
        found = self.find(namespace, document["metadata"]["name"])
        assert found is not None  # apply either stored it or raised
        return found

    def replace(self, row: Model, document: dict[str, Any], user: Any) -> Model:
        services.apply_objects([document], user)
        return type(row).objects.get(pk=row.pk)


class PolicyStore(ApplyStore):
    """PropagationPolicy, ClusterPropagationPolicy, OverridePolicy, ClusterOverridePolicy, or the
    cluster's taint policies and the namespace quotas: one model, one kind, one export function."""

    def __init__(
        self, model: type[Model], kind: str, to_document: Callable[[Any], dict[str, Any]], namespaced: bool
    ) -> None:
        self.model = model
        self.kind_name = kind
        self.to_document = to_document
        self.namespace_field = "namespace" if namespaced else None
        self.labels_field = "labels"

    def rows(self) -> QuerySet:
        rows = self.model._default_manager.all()  # type: ignore[attr-defined]
        if self.model in (PropagationPolicy, OverridePolicy):
            rows = rows.filter(kind=self.kind_name)
        return rows

    def document(self, row: Any) -> dict[str, Any]:
        document = self.to_document(row)
        document["metadata"] = server_metadata(
            document["metadata"],
            uid=row.permanent_id,
            changed=row.updated_at,
            created=row.created_at,
            generation=row.generation,
        )
        return document

    def delete(self, row: Model, user: Any, propagation: str) -> None:
        services.delete_policy(row, user)


def policy_stores() -> dict[str, Store]:
    """The policy.karmada.io stores by kind."""
    return {
        "PropagationPolicy": PolicyStore(
            PropagationPolicy, "PropagationPolicy", export.propagation_policy_document, True
        ),
        "ClusterPropagationPolicy": PolicyStore(
            PropagationPolicy, "ClusterPropagationPolicy", export.propagation_policy_document, False
        ),
        "OverridePolicy": PolicyStore(
            OverridePolicy, "OverridePolicy", export.override_policy_document, True
        ),
        "ClusterOverridePolicy": PolicyStore(
            OverridePolicy, "ClusterOverridePolicy", export.override_policy_document, False
        ),
        "ClusterTaintPolicy": PolicyStore(
            ClusterTaintPolicy, "ClusterTaintPolicy", export.taint_policy_document, False
        ),
        "FederatedResourceQuota": PolicyStore(
            FederatedResourceQuota, "FederatedResourceQuota", export.quota_document, True
        ),
    }
