"""Cluster (cluster.karmada.io/v1alpha1): labels and taints written through the clusters services."""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import QuerySet

from clusters import services
from clusters.models import Cluster
from core.roles import ADMIN, has_role
from kubeapi.status import ApiError
from kubeapi.stores.base import UID_NAMESPACE, Store, server_metadata
from scheduling.controllers.planner_inputs import cluster_document

# spec fields a join sets from the cluster itself; kubectl may send them back unchanged, never changed.
JOINED_SPEC = (
    "apiEndpoint",
    "syncMode",
    "provider",
    "region",
    "zone",
    "zones",
    "insecureSkipTLSVerification",
)


def _needs_admin(user: Any, what: str) -> None:
    if not has_role(user, ADMIN):
        raise ApiError(403, f"{what} needs the admin role")


class ClusterStore(Store):
    kind_name = "Cluster"
    changed_field = "updated"
    created_field = "created"
    namespace_field = None
    labels_field = "labels"

    def rows(self) -> QuerySet:
        return Cluster.objects.all()

    def document(self, row: Any) -> dict[str, Any]:
        document = cluster_document(row)
        document["metadata"] = server_metadata(
            document["metadata"],
            uid=uuid.uuid5(UID_NAMESPACE, f"{row.name}/{row.created.isoformat()}"),
            changed=row.updated,
            created=row.created,
            generation=row.resource_version,
        )
        return document

    def create(self, document: dict[str, Any], user: Any) -> Any:
        raise ApiError(
            405,
            "a cluster joins with its credentials: use `python manage.py join` or the Join page",
            "MethodNotAllowed",
        )

    def replace(self, row: Any, document: dict[str, Any], user: Any) -> Any:
        current = cluster_document(row)
        given = document.get("spec")
        spec: dict[str, Any] = given if isinstance(given, dict) else {}
        for key in JOINED_SPEC:
            if key in spec and spec[key] != current["spec"].get(key):
                raise ApiError(
                    422,
                    f'Cluster "{row.name}" is invalid: spec.{key}: set when the cluster joins; '
                    "join it again to change it",
                    "Invalid",
                    details={"name": row.name, "group": "cluster.karmada.io", "kind": "Cluster"},
                    causes=[
                        {"reason": "FieldValueForbidden", "field": f"spec.{key}", "message": "set at join"}
                    ],
                )
        labels = (document.get("metadata") or {}).get("labels") or {}
        if labels != row.labels:
            row = services.set_labels(row, labels, row.resource_version, user=user)
        wanted = spec.get("taints") or []
        if wanted != row.taints:
            _needs_admin(user, "changing a cluster's taints")
            row = self._retaint(row, wanted, user)
        return row

    @staticmethod
    def _retaint(row: Any, wanted: list[Any], user: Any) -> Any:
        if not isinstance(wanted, list) or not all(isinstance(t, dict) for t in wanted):
            raise ApiError(422, "spec.taints: must be a list of taints", "Invalid")
        have = {(t.get("key"), t.get("effect")): t for t in row.taints}
        want = {(t.get("key"), t.get("effect")): t for t in wanted}
        for key, effect in have.keys() - want.keys():
            row = services.remove_taint(row, str(key), str(effect), user=user)
        for (key, effect), taint in want.items():
            if (key, effect) not in have or have[(key, effect)].get("value") != taint.get("value"):
                if (key, effect) in have:
                    row = services.remove_taint(row, str(key), str(effect), user=user)
                row = services.add_taint(row, str(key), str(taint.get("value") or ""), str(effect), user=user)
        return row

    def delete(self, row: Any, user: Any, propagation: str) -> None:
        _needs_admin(user, "unjoining a cluster")
        services.unjoin(row, user=user)
