"""Resource templates: any Kubernetes kind stored on the control plane for policies to propagate."""

from __future__ import annotations

from typing import Any

from django.db.models import Model, QuerySet

from kubeapi.stores.base import server_metadata
from kubeapi.stores.policies import ApplyStore
from scheduling import services
from scheduling.controllers.export import template_document
from scheduling.models import ResourceTemplate


class TemplateStore(ApplyStore):
    """The templates of one group and kind (namespaced or not, as the kind is)."""

    def __init__(self, group: str, kind: str, namespaced: bool) -> None:
        self.group = group
        self.kind_name = kind
        self.namespace_field = "namespace" if namespaced else None
        self.labels_field = "manifest__metadata__labels"

    def rows(self) -> QuerySet:
        return ResourceTemplate.objects.filter(
            api_group=self.group, kind=self.kind_name, deleting_since__isnull=True
        ).select_related("policy")

    def document(self, row: Any) -> dict[str, Any]:
        document = template_document(row)
        document["metadata"] = server_metadata(
            document.get("metadata") or {},
            uid=row.uid,
            changed=row.updated_at,
            created=row.created_at,
            generation=row.generation,
        )
        return document

    def delete(self, row: Model, user: Any, propagation: str) -> None:
        services.delete_template(row, user)  # type: ignore[arg-type]
