"""What every store shares: the object metadata the server fills in, and the Store interface."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from django.db.models import Model, QuerySet

from kubeapi import versions
from kubeapi.status import ApiError

# uid for rows that have none of their own (clusters): stable per name and creation.
UID_NAMESPACE = uuid.UUID("0b6f4bde-5d0e-4c38-9a43-4f6cc7c6e1a1")


def timestamp(moment: datetime | None) -> str | None:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if moment else None


def server_metadata(
    metadata: dict[str, Any],
    *,
    uid: Any,
    changed: datetime | None,
    created: datetime | None,
    generation: int | None,
) -> dict[str, Any]:
    """The object's own metadata with uid, resourceVersion, generation and creationTimestamp set."""
    out = dict(metadata)
    out["uid"] = str(uid)
    out["resourceVersion"] = str(versions.of_time(changed))
    if generation is not None:
        out["generation"] = generation
    out["creationTimestamp"] = timestamp(created)
    return out


def read_only(kind: str) -> ApiError:
    return ApiError(405, f"{kind} is derived by the control plane and cannot be written through this API")


class Store:
    """Rows of one served kind. Writes raise ApiError (405) unless the store implements them.

    Writes run inside the view's transaction, which a dry run rolls back: a store never needs to know.

    `changed_field` is the row's last-change timestamp (the resourceVersion), `created_field` its
    creation; `namespace_field` is None for cluster-scoped kinds; `labels_field` the stored labels.
    """

    changed_field = "updated_at"
    created_field = "created_at"
    namespace_field: str | None = "namespace"
    name_field = "name"
    kind_name = ""
    # where the row keeps the labels its document shows, so a list's label selector runs in the
    # database (None: the labels are derived, matched on the documents only)
    labels_field: str | None = None

    def rows(self) -> QuerySet:
        raise NotImplementedError

    def document(self, row: Model) -> dict[str, Any]:
        raise NotImplementedError

    def version(self, row: Model) -> int:
        return versions.of_time(getattr(row, self.changed_field))

    def find(self, namespace: str, name: str) -> Model | None:
        rows = self.rows().filter(**{self.name_field: name})
        if self.namespace_field:
            rows = rows.filter(**{self.namespace_field: namespace})
        return rows.first()

    def create(self, document: dict[str, Any], user: Any) -> Model:
        raise read_only(self.kind_name)

    def replace(self, row: Model, document: dict[str, Any], user: Any) -> Model:
        raise read_only(self.kind_name)

    def replace_status(self, row: Model, document: dict[str, Any], user: Any) -> Model:
        """Status is written by the control plane's controllers; a client's status is kept as given
        only where a store says so. By default the write changes nothing and answers the object."""
        return row

    def delete(self, row: Model, user: Any, propagation: str) -> None:
        raise read_only(self.kind_name)
