"""How a cluster's spec changes: a compare-and-swap on resource_version, audited, and the taint and label
rules the verbs in `clusters.services` use."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clusters import signals
from clusters.models import Cluster, ClusterEvent
from core import audit
from core.errors import Conflict, FieldError
from kubesyntax.labels import LabelSyntaxError, check_labels
from kubesyntax.names import label_key_error
from kubesyntax.taints import EFFECTS, Taint, taint_errors

UNSCHEDULABLE_TAINT = "cluster.karmada.io/unschedulable"
CAS_ATTEMPTS = 5


class StaleResourceVersion(Conflict):
    """The cluster changed since the caller read it; nothing was written."""

    field = "resource_version"

    def __init__(self, cluster: Cluster, expected: int) -> None:
        self.cluster = cluster
        self.expected = expected
        super().__init__(
            _(
                "Cluster %(name)s was changed by someone else (version %(expected)s is now %(current)s). "
                "Reload to see the change, then apply yours again."
            )
            % {"name": cluster.name, "expected": expected, "current": cluster.resource_version}
        )

    def extra(self) -> dict[str, Any]:
        return {"resource_version": self.cluster.resource_version}


class SpecError(FieldError):
    """A spec change that is not valid; `field` names what is wrong."""


def update_spec(
    cluster_id: int,
    change: Callable[[Cluster], dict[str, Any]],
    expected_version: int | None = None,
    event: tuple[str, str] | None = None,
    user: Any = None,
) -> Cluster:
    """Apply `change` (cluster -> new field values) with a compare-and-swap on resource_version.

    With `expected_version` the caller's view must still be current (else StaleResourceVersion);
    without it the change is re-read and retried, so concurrent writers never overwrite each other.
    An `event` (reason, message) is recorded on the cluster and in the audit log under `user`.
    """
    for _attempt in range(CAS_ATTEMPTS):
        cluster = Cluster.objects.get(pk=cluster_id)
        if expected_version is not None and cluster.resource_version != expected_version:
            raise StaleResourceVersion(cluster, expected_version)
        values = change(cluster)
        if all(getattr(cluster, field) == value for field, value in values.items()):
            return cluster  # nothing to change: level-triggered callers may call this every cycle
        with transaction.atomic():
            written = Cluster.objects.filter(pk=cluster_id, resource_version=cluster.resource_version).bump(
                **values, updated=timezone.now()
            )
            if written:
                if event:
                    ClusterEvent.objects.create(
                        cluster_id=cluster_id, at=timezone.now(), reason=event[0], message=event[1]
                    )
                    audit.record(
                        user,
                        event[0],
                        "Cluster",
                        cluster.name,
                        summary=event[1],
                        old={field: getattr(cluster, field) for field in values},
                        new=values,
                    )
                old = {field: getattr(cluster, field) for field in values}
                cluster.refresh_from_db()
                signals.spec_changed.send(sender=Cluster, cluster=cluster.name, old=old, new=dict(values))
                return cluster
        if expected_version is not None:
            raise StaleResourceVersion(Cluster.objects.get(pk=cluster_id), expected_version)
    raise StaleResourceVersion(Cluster.objects.get(pk=cluster_id), cluster.resource_version)


def checked_labels(labels: Any) -> dict[str, str]:
    try:
        return check_labels(labels)
    except LabelSyntaxError as exc:
        raise SpecError("labels", str(exc)) from exc


def check_label_patch(set_: dict[str, str] | None, remove: list[str] | tuple[str, ...]) -> dict[str, str]:
    """Validate a label patch before it is applied anywhere (so a bulk edit is all or nothing)."""
    additions = checked_labels(set_ or {})
    for key in remove:
        if label_key_error(key):
            raise SpecError("remove", str(label_key_error(key)))
    if not additions and not remove:
        raise SpecError("set", _("Nothing to change: give labels to set or keys to remove."))
    return additions


def format_labels(labels: dict[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(labels.items()))


def check_taint(key: str, value: str, effect: str) -> None:
    """Kubernetes' rules for one taint; SpecError names the first field at fault."""
    for field, reason in taint_errors(key, value, effect):
        if field == "effect":
            reason = _("The effect must be one of %(e)s.") % {"e": ", ".join(EFFECTS)}
        raise SpecError(field, reason)


def with_taint(taints: list[dict[str, Any]], taint: Taint) -> list[dict[str, Any]]:
    """The taint list with `taint` added, replacing one with the same key and effect."""
    kept = [t for t in taints if (t.get("key"), t.get("effect")) != (taint.key, taint.effect)]
    same = [
        t
        for t in taints
        if (t.get("key"), t.get("effect"), t.get("value", "")) == (taint.key, taint.effect, taint.value)
    ]
    return taints if same else [*kept, taint.as_dict()]


def without_taint(taints: list[dict[str, Any]], key: str, effect: str | None = None) -> list[dict[str, Any]]:
    return [t for t in taints if not (t.get("key") == key and (effect is None or t.get("effect") == effect))]


def describe_taint(taint: dict[str, Any]) -> str:
    """A stored taint as kubectl writes it: `key=value:effect`."""
    return str(Taint(str(taint.get("key")), taint.get("value") or "", str(taint.get("effect"))))
