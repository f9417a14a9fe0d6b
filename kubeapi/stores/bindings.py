"""ResourceBinding, ClusterResourceBinding (work.karmada.io/v1alpha2) and Work (v1alpha1), read as
Karmada writes them; the scheduler and the propagation own them. Of a binding, users write what
Karmada lets them: `spec.suspension.scheduling` (pause and resume its scheduling, as third-party
queueing systems do) and `spec.rescheduleTriggeredAt` (a fresh reschedule), through
scheduling.services; any other change is refused with its field."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Model, QuerySet
from django.utils.dateparse import parse_datetime

from kubeapi.status import ApiError
from kubeapi.stores.base import Store, server_metadata, timestamp
from scheduling import services
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

    def replace(self, row: Model, document: dict[str, Any], user: Any) -> Model:
        try:
            return self._write_user_fields(row, document, user)
        except ApiError as error:
            # named as the API server names an invalid object: `The ResourceBinding "x" is invalid`
            error.details.update(
                {"name": getattr(row, "name", ""), "group": "work.karmada.io", "kind": self.kind_name}
            )
            raise

    def _write_user_fields(self, row: Model, document: dict[str, Any], user: Any) -> Model:
        current = self.document(row)
        spec = _mapping(document.get("spec"), "spec")
        have = current.get("spec") or {}
        for key in sorted(set(spec) | set(have)):
            if key not in WRITABLE and spec.get(key) != have.get(key):
                raise _derived(f"spec.{key}", "set by the scheduler and the policy")
        wanted = _mapping(spec.get("suspension"), "spec.suspension")
        held = have.get("suspension") or {}
        for key in sorted(set(wanted) | set(held)):
            if key != "scheduling" and wanted.get(key) != held.get(key):
                raise _derived(f"spec.suspension.{key}", "follows the policy's suspension")
        for key in ("labels", "annotations"):
            if ((document.get("metadata") or {}).get(key) or {}) != (current["metadata"].get(key) or {}):
                raise _derived(f"metadata.{key}", "set by the control plane on bindings")
        pause = wanted.get("scheduling")
        if pause not in (None, True, False):
            raise _invalid("spec.suspension.scheduling", "must be true or false")
        if bool(pause) != bool(held.get("scheduling")):
            services.set_hold(row, services.SCHEDULING, bool(pause), user=user)  # type: ignore[arg-type]
        triggered = spec.get("rescheduleTriggeredAt")
        if triggered and triggered != have.get("rescheduleTriggeredAt"):
            services.rebalance([row], user=user, now=_moment(triggered))  # type: ignore[list-item]
        return row


# spec fields a user may write on a binding (Karmada's API says so for each)
WRITABLE = frozenset({"suspension", "rescheduleTriggeredAt"})


def _invalid(
    field: str, message: str, reason: str = "FieldValueInvalid", word: str = "Invalid value"
) -> ApiError:
    return ApiError(
        422,
        f"{field}: {word}: {message}",
        "Invalid",
        causes=[{"reason": reason, "field": field, "message": f"{word}: {message}"}],
    )


def _derived(field: str, message: str) -> ApiError:
    return _invalid(field, f"cannot be changed: {message}", "FieldValueForbidden", "Forbidden")


def _mapping(value: Any, field: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _invalid(field, "must be an object")
    return value


def _moment(text: Any) -> datetime:
    moment = parse_datetime(str(text))
    if moment is None or moment.tzinfo is None:
        raise _invalid("spec.rescheduleTriggeredAt", f"{text!r} is not an RFC 3339 time")
    return moment


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
