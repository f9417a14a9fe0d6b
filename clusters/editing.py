"""Changes to a cluster's spec — labels, taints, cordon — with optimistic concurrency on resource_version."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clusters.models import Cluster, ClusterEvent
from core import audit
from kubesyntax.labels import LabelSyntaxError, check_labels
from kubesyntax.names import label_key_error
from kubesyntax.taints import EFFECTS, NO_EXECUTE, NO_SCHEDULE, Taint, taint_errors

UNSCHEDULABLE_TAINT = "cluster.karmada.io/unschedulable"
CAS_ATTEMPTS = 5


class StaleResourceVersion(Exception):
    """The cluster changed since the caller read it; nothing was written."""

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


class SpecError(ValueError):
    """A spec change that is not valid; `field` names what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


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
                    audit.record(user, event[0], "Cluster", cluster.name, summary=event[1])
                cluster.refresh_from_db()
                return cluster
        if expected_version is not None:
            raise StaleResourceVersion(Cluster.objects.get(pk=cluster_id), expected_version)
    raise StaleResourceVersion(Cluster.objects.get(pk=cluster_id), cluster.resource_version)


def _checked_labels(labels: Any) -> dict[str, str]:
    try:
        return check_labels(labels)
    except LabelSyntaxError as exc:
        raise SpecError("labels", str(exc)) from exc


def set_labels(cluster_id: int, labels: dict[str, str], expected_version: int, user: Any = None) -> Cluster:
    """Replace the whole label map, only if nobody changed the cluster since `expected_version`."""
    wanted = _checked_labels(labels)
    return update_spec(
        cluster_id,
        lambda c: {"labels": wanted},
        expected_version,
        event=("LabelsChanged", _("Labels set to %(labels)s") % {"labels": format_labels(wanted) or "—"}),
        user=user,
    )


def check_label_patch(set_: dict[str, str] | None, remove: list[str] | tuple[str, ...]) -> dict[str, str]:
    """Validate a label patch before it is applied anywhere (so a bulk edit is all or nothing)."""
    additions = _checked_labels(set_ or {})
    for key in remove:
        if label_key_error(key):
            raise SpecError("remove", str(label_key_error(key)))
    if not additions and not remove:
        raise SpecError("set", _("Nothing to change: give labels to set or keys to remove."))
    return additions


def patch_labels(
    cluster_id: int,
    set_: dict[str, str] | None = None,
    remove: list[str] | tuple[str, ...] = (),
    expected_version: int | None = None,
    user: Any = None,
) -> Cluster:
    """Add or change some labels and remove others, keeping the rest as they are now."""
    additions = check_label_patch(set_, remove)

    def change(cluster: Cluster) -> dict[str, Any]:
        labels = {k: v for k, v in cluster.labels.items() if k not in remove}
        labels.update(additions)
        return {"labels": labels}

    parts = [f"{k}={v}" for k, v in additions.items()] + [f"-{k}" for k in remove]
    return update_spec(
        cluster_id,
        change,
        expected_version,
        event=("LabelsChanged", _("Labels changed: %(c)s") % {"c": ", ".join(parts)}),
        user=user,
    )


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


def add_taint(
    cluster_id: int, key: str, value: str, effect: str, expected_version: int | None = None, user: Any = None
) -> Cluster:
    """Add a taint; NoExecute taints record when they were added (tolerationSeconds count from then)."""
    check_taint(key, value, effect)
    now = timezone.now().replace(microsecond=0)
    taint = Taint(key, value, effect, now if effect == NO_EXECUTE else None)
    return update_spec(
        cluster_id,
        lambda c: {"taints": with_taint(c.taints, taint)},
        expected_version,
        event=("TaintAdded", _("Taint %(t)s added") % {"t": taint}),
        user=user,
    )


def remove_taint(
    cluster_id: int,
    key: str,
    effect: str | None = None,
    expected_version: int | None = None,
    user: Any = None,
) -> Cluster:
    if not key:
        raise SpecError("key", _("Name the taint key to remove."))
    if effect is not None and effect not in EFFECTS:
        raise SpecError("effect", _("The effect must be one of %(e)s.") % {"e": ", ".join(EFFECTS)})
    what = f"{key}:{effect}" if effect else key
    return update_spec(
        cluster_id,
        lambda c: {"taints": without_taint(c.taints, key, effect)},
        expected_version,
        event=("TaintRemoved", _("Taint %(t)s removed") % {"t": what}),
        user=user,
    )


def cordon(cluster_id: int, user: Any = None) -> Cluster:
    """Stop new scheduling to the cluster, as `karmadactl cordon` does."""
    return add_taint(cluster_id, UNSCHEDULABLE_TAINT, "", NO_SCHEDULE, user=user)


def uncordon(cluster_id: int, user: Any = None) -> Cluster:
    return remove_taint(cluster_id, UNSCHEDULABLE_TAINT, NO_SCHEDULE, user=user)


def describe_taint(taint: dict[str, Any]) -> str:
    """A stored taint as kubectl writes it: `key=value:effect`."""
    return str(Taint(str(taint.get("key")), taint.get("value") or "", str(taint.get("effect"))))
