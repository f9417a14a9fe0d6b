"""The verbs that change clusters and label conventions: pages, the REST API and the commands call
these, and each write leaves one audit entry with who, what and the diff (never a credential)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, cast

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clusters import k8s, signals
from clusters.conventions import Finding, convention_errors, lint_clusters
from clusters.credentials import CredentialsUnreadable
from clusters.editing import (
    UNSCHEDULABLE_TAINT,
    SpecError,
    StaleResourceVersion,
    check_label_patch,
    check_taint,
    checked_labels,
    format_labels,
    update_spec,
    with_taint,
    without_taint,
)
from clusters.joining import (
    JOIN_TIMEOUT,
    MANAGED_SELECTOR,
    JoinError,
    JoinPreview,
    JoinRequest,
    enqueue_collection,
    preview,
    preview_many,
)
from clusters.k8s.cleanup import delete_labelled
from clusters.k8s.forward import Forwarded, forward
from clusters.models import Cluster, ClusterEvent, LabelConvention, ReadyState
from clusters.names import cluster_name_error
from core import audit
from core.errors import FieldErrors
from kubesyntax.labels import LabelSyntaxError, check_labels
from kubesyntax.taints import EFFECTS, NO_EXECUTE, NO_SCHEDULE, Taint

__all__ = [
    "JoinError",
    "SpecError",
    "StaleResourceVersion",
    "add_taint",
    "bulk_patch_labels",
    "cordon",
    "create_convention",
    "delete_convention",
    "fix_finding",
    "join",
    "join_many",
    "patch_labels",
    "proxy_request",
    "remove_taint",
    "set_labels",
    "uncordon",
    "unjoin",
    "update_convention",
]

# What an audit entry shows of a cluster's registration: never the credentials themselves.
REGISTRATION_FIELDS = (
    "api_endpoint",
    "insecure_skip_tls_verify",
    "provider",
    "region",
    "zone",
    "zones",
    "labels",
)
CONVENTION_FIELDS = ("key", "description", "required", "allowed_values", "pattern", "example", "aliases")


def _registration(cluster: Cluster, conn: k8s.ClusterConnection | None = None) -> dict[str, Any]:
    state: dict[str, Any] = {field: getattr(cluster, field) for field in REGISTRATION_FIELDS}
    if conn is not None:
        state["authentication"] = "client certificate" if conn.client_cert_data else "token"
    return state


# ------------------------------------------------------------------------------------ join and unjoin


def _fill(
    cluster: Cluster,
    conn: k8s.ClusterConnection,
    seen: JoinPreview,
    labels: dict[str, str],
    provider: str,
    region: str,
    zones: list[str] | None,
    now: Any,
) -> None:
    """Write a join's connection, topology, labels and first observation into the row (unsaved)."""
    created = cluster.pk is None
    topology = seen.topology
    spec = {
        "provider": provider or topology.provider,
        "region": region or topology.region,
        "zones": list(zones) if zones else list(topology.zones),
    }
    spec["zone"] = spec["zones"][0] if len(spec["zones"]) == 1 else ""
    cluster.set_connection(conn)
    for field, value in spec.items():
        setattr(cluster, field, value)
    cluster.labels = {**(cluster.labels if not created else {}), **labels}
    if created:
        # Karmada uses a new cluster's first observation directly, without a threshold.
        cluster.ready, cluster.ready_reason = ReadyState.TRUE, "ClusterReady"
        cluster.ready_message = "cluster is healthy and ready to accept workloads"
        cluster.ready_since = cluster.observed_since = now
        cluster.observed, cluster.observed_reason = ReadyState.TRUE, "ClusterReady"
    else:
        cluster.resource_version += 1
    cluster.kubernetes_version = seen.version
    cluster.nodes_total, cluster.nodes_ready = seen.nodes_total, seen.nodes_ready


def _joined_message(seen: JoinPreview) -> str:
    return _("Joined: %(v)s, %(r)s/%(t)s nodes Ready") % {
        "v": seen.version,
        "r": seen.nodes_ready,
        "t": seen.nodes_total,
    }


def join(
    name: str,
    conn: k8s.ClusterConnection,
    *,
    labels: dict[str, str] | None = None,
    provider: str = "",
    region: str = "",
    zones: list[str] | None = None,
    update: bool = False,
    user: Any = None,
) -> tuple[Cluster, JoinPreview, bool]:
    """Register `name` (or, with update, refresh an existing one); returns (cluster, preview, created).

    Connects first: nothing is saved when the cluster does not answer.
    """
    reason = cluster_name_error(name)
    if reason:
        raise JoinError("name", reason)
    try:
        wanted_labels = check_labels(labels or {})
    except LabelSyntaxError as exc:
        raise JoinError("labels", str(exc)) from exc
    existing = Cluster.objects.filter(name=name).first()
    if existing and not update:
        raise JoinError("name", _("A cluster named %(name)s is already joined.") % {"name": name})

    seen = preview(conn)
    now = timezone.now()
    try:
        with transaction.atomic():
            cluster = existing or Cluster(name=name)
            created = existing is None
            old = None if created else _registration(cluster, cluster.connection())
            _fill(cluster, conn, seen, wanted_labels, provider, region, zones, now)
            cluster.full_clean(exclude=["credentials"])
            cluster.save()
            message = _joined_message(seen)
            reason = "Joined" if created else "Updated"
            ClusterEvent.objects.create(cluster=cluster, at=now, reason=reason, message=message)
            audit.record(
                user,
                reason,
                "Cluster",
                name,
                summary=f"{message}; endpoint {conn.server}",
                old=old,
                new=_registration(cluster, conn),
            )
    except IntegrityError as exc:
        raise JoinError("name", _("A cluster named %(name)s is already joined.") % {"name": name}) from exc
    transaction.on_commit(lambda: enqueue_collection(cluster.pk))
    return cluster, seen, created


def join_many(requests: list[JoinRequest], *, user: Any = None) -> list[tuple[Cluster, JoinPreview]]:
    """Register many new clusters in one transaction: all of them, or none with JoinError naming which.

    Connects to every cluster first (several at a time); the rows, their events and audit entries are
    written in bulk and the bindings they concern are found and marked once (signals.clusters_joined).
    """
    problems = []
    names = [request.name for request in requests]
    for request in requests:
        reason = cluster_name_error(request.name)
        if reason:
            problems.append(f"{request.name}: {reason}")
    repeated = sorted(name for name, count in Counter(names).items() if count > 1)
    if repeated:
        problems.append(_("named twice: %(names)s") % {"names": ", ".join(repeated)})
    wanted: dict[str, dict[str, str]] = {}
    for request in requests:
        try:
            wanted[request.name] = check_labels(request.labels)
        except LabelSyntaxError as exc:
            problems.append(f"{request.name}: {exc}")
    if problems:
        raise JoinError("name", "; ".join(problems))
    taken = sorted(Cluster.objects.filter(name__in=names).values_list("name", flat=True))
    if taken:
        raise JoinError("name", _("Already joined: %(names)s.") % {"names": ", ".join(taken)})

    seen = preview_many(requests)
    failed = [f"{name}: {result.message}" for name, result in seen.items() if isinstance(result, JoinError)]
    if failed:
        raise JoinError("kubeconfig", "; ".join(failed))
    now = timezone.now()
    joined: list[tuple[Cluster, JoinPreview]] = []
    for request in requests:
        result = cast(JoinPreview, seen[request.name])
        cluster = Cluster(name=request.name)
        labels = wanted[request.name]
        _fill(cluster, request.conn, result, labels, request.provider, request.region, request.zones, now)
        cluster.full_clean(exclude=["credentials"], validate_unique=False)
        joined.append((cluster, result))
    try:
        with transaction.atomic():
            clusters = Cluster.objects.bulk_create([cluster for cluster, _ in joined])
            ClusterEvent.objects.bulk_create(
                ClusterEvent(cluster=cluster, at=now, reason="Joined", message=_joined_message(result))
                for cluster, result in joined
            )
            for (cluster, result), request in zip(joined, requests, strict=True):
                audit.record(
                    user,
                    "Joined",
                    "Cluster",
                    cluster.name,
                    summary=f"{_joined_message(result)}; endpoint {request.conn.server}",
                    new=_registration(cluster, request.conn),
                )
            signals.clusters_joined.send(sender=Cluster, clusters=clusters)
    except IntegrityError as exc:
        raise JoinError("name", _("Another join took one of these names; nothing was saved.")) from exc
    for cluster in clusters:
        transaction.on_commit(lambda pk=cluster.pk: enqueue_collection(pk))
    return joined


def unjoin(cluster: Cluster, delete_resources: bool = False, user: Any = None) -> list[str]:
    """Remove the cluster; with delete_resources, first delete what karmada-ui placed there."""
    deleted: list[str] = []
    if delete_resources:
        try:
            deleted = delete_labelled(cluster.connection(), MANAGED_SELECTOR, JOIN_TIMEOUT)
        except k8s.KubeError as exc:
            raise JoinError("delete_resources", exc.message) from exc
    name, old = cluster.name, _registration(cluster)
    with transaction.atomic():
        cluster.delete()
        audit.record(
            user, "Unjoined", "Cluster", name, summary=f"deleted {len(deleted)} managed objects", old=old
        )
    return deleted


# ------------------------------------------------------------------------------------------- labels


def set_labels(cluster: Cluster, labels: dict[str, str], expected_version: int, user: Any = None) -> Cluster:
    """Replace the whole label map, only if nobody changed the cluster since `expected_version`."""
    wanted = checked_labels(labels)
    return update_spec(
        cluster.pk,
        lambda c: {"labels": wanted},
        expected_version,
        event=("LabelsChanged", _("Labels set to %(labels)s") % {"labels": format_labels(wanted) or "—"}),
        user=user,
    )


def patch_labels(
    cluster: Cluster,
    set_: dict[str, str] | None = None,
    remove: list[str] | tuple[str, ...] = (),
    expected_version: int | None = None,
    user: Any = None,
) -> Cluster:
    """Add or change some labels and remove others, keeping the rest as they are now."""
    additions = check_label_patch(set_, remove)

    def change(current: Cluster) -> dict[str, Any]:
        labels = {k: v for k, v in current.labels.items() if k not in remove}
        labels.update(additions)
        return {"labels": labels}

    parts = [f"{k}={v}" for k, v in additions.items()] + [f"-{k}" for k in remove]
    return update_spec(
        cluster.pk,
        change,
        expected_version,
        event=("LabelsChanged", _("Labels changed: %(c)s") % {"c": ", ".join(parts)}),
        user=user,
    )


def bulk_patch_labels(
    names: list[str], set_: dict[str, str] | None, remove: list[str] | tuple[str, ...], user: Any = None
) -> list[Cluster]:
    """The same label patch on several clusters, all or nothing; an audit entry per cluster changed."""
    if not names:
        raise SpecError("clusters", _("Select at least one cluster."))
    found = {c.name: c for c in Cluster.objects.filter(name__in=names)}
    missing = [n for n in names if n not in found]
    if missing:
        raise SpecError("clusters", _("No cluster named %(names)s.") % {"names": ", ".join(missing)})
    check_label_patch(set_, remove)
    with transaction.atomic():
        return [patch_labels(found[name], set_, remove, user=user) for name in dict.fromkeys(names)]


def fix_finding(cluster: Cluster, code: str, key: str, user: Any = None) -> Finding | None:
    """Apply the fix of one lint finding, recomputed now so a stale page never applies a stale fix.

    Returns the finding fixed, or None when it is gone or has no unambiguous fix any more.
    """
    cluster = Cluster.objects.get(pk=cluster.pk)
    current = lint_clusters([cluster])[cluster.name]
    finding = next((f for f in current if f.code == code and f.key == key and f.fix), None)
    if finding is None or finding.fix is None:
        return None
    patch_labels(cluster, finding.fix["set"], finding.fix["remove"], user=user)
    return finding


# ------------------------------------------------------------------------------------- taints, cordon


def add_taint(
    cluster: Cluster,
    key: str,
    value: str,
    effect: str,
    expected_version: int | None = None,
    user: Any = None,
) -> Cluster:
    """Add a taint; NoExecute taints record when they were added (tolerationSeconds count from then)."""
    check_taint(key, value, effect)
    now = timezone.now().replace(microsecond=0)
    taint = Taint(key, value, effect, now if effect == NO_EXECUTE else None)
    return update_spec(
        cluster.pk,
        lambda c: {"taints": with_taint(c.taints, taint)},
        expected_version,
        event=("TaintAdded", _("Taint %(t)s added") % {"t": taint}),
        user=user,
    )


def remove_taint(
    cluster: Cluster,
    key: str,
    effect: str | None = None,
    expected_version: int | None = None,
    user: Any = None,
) -> Cluster:
    """Remove the taints with `key` (and `effect`, when given)."""
    if not key:
        raise SpecError("key", _("Name the taint key to remove."))
    if effect is not None and effect not in EFFECTS:
        raise SpecError("effect", _("The effect must be one of %(e)s.") % {"e": ", ".join(EFFECTS)})
    what = f"{key}:{effect}" if effect else key
    return update_spec(
        cluster.pk,
        lambda c: {"taints": without_taint(c.taints, key, effect)},
        expected_version,
        event=("TaintRemoved", _("Taint %(t)s removed") % {"t": what}),
        user=user,
    )


def cordon(cluster: Cluster, user: Any = None) -> Cluster:
    """Stop new scheduling to the cluster, as `karmadactl cordon` does (a NoSchedule taint)."""
    return add_taint(cluster, UNSCHEDULABLE_TAINT, "", NO_SCHEDULE, user=user)


def uncordon(cluster: Cluster, user: Any = None) -> Cluster:
    """Let the scheduler place workloads on the cluster again."""
    return remove_taint(cluster, UNSCHEDULABLE_TAINT, NO_SCHEDULE, user=user)


# ------------------------------------------------------------------------------------ label conventions


def _convention_state(rule: LabelConvention) -> dict[str, Any]:
    return {field: getattr(rule, field) for field in CONVENTION_FIELDS}


def _checked_convention(fields: dict[str, Any], pk: int | None) -> dict[str, Any]:
    data = {field: fields[field] for field in CONVENTION_FIELDS if field in fields}
    errors = convention_errors(
        data.get("key", ""),
        data.get("allowed_values", []),
        data.get("pattern", ""),
        data.get("aliases", []),
        data.get("example", ""),
    )
    if not errors and LabelConvention.objects.filter(key=data.get("key")).exclude(pk=pk).exists():
        errors["key"] = [_("There is already a convention for %(key)s.") % {"key": data["key"]}]
    if errors:
        raise FieldErrors(errors)
    return data


def create_convention(fields: dict[str, Any], user: Any = None) -> LabelConvention:
    """Add a rule for one label key; FieldErrors name every field that is wrong."""
    data = _checked_convention(fields, None)
    with transaction.atomic():
        rule = LabelConvention.objects.create(**data)
        audit.record(user, "ConventionSaved", "LabelConvention", rule.key, summary=rule.description, new=data)
    return rule


def update_convention(rule: LabelConvention, fields: dict[str, Any], user: Any = None) -> LabelConvention:
    """Change a rule (only the fields given); FieldErrors name every field that is wrong."""
    old = _convention_state(rule)
    data = _checked_convention({**old, **fields}, rule.pk)
    with transaction.atomic():
        for field, value in data.items():
            setattr(rule, field, value)
        rule.save()
        audit.record(user, "ConventionSaved", "LabelConvention", rule.key, old=old, new=data)
    return rule


def delete_convention(rule: LabelConvention, user: Any = None) -> None:
    """Remove a rule; clusters are linted without it from now on."""
    old = _convention_state(rule)
    with transaction.atomic():
        rule.delete()
        audit.record(user, "ConventionDeleted", "LabelConvention", old["key"], old=old)


# Methods that read through the cluster proxy; any other one changes the member and is audited.
PROXY_READS = ("GET", "HEAD", "OPTIONS")


def proxy_request(
    cluster: Cluster,
    method: str,
    path: str,
    *,
    query: str = "",
    headers: Mapping[str, str] | None = None,
    body: bytes | None = None,
    stream: bool = False,
    user: Any = None,
) -> Forwarded:
    """Forward one request to the member as its stored credentials (which never leave this process).

    Raises ClusterUnreachable, or KubeError when the stored credentials cannot be read. A write is
    audited with the method, path and the member's answer code, whatever that answer was.
    """
    try:
        conn = cluster.connection()
    except CredentialsUnreadable as exc:  # a key rotated away: the member cannot be reached as itself
        raise k8s.KubeError(f"the credentials of cluster {cluster.name} cannot be read") from exc
    answer = forward(conn, method, path, query=query, headers=headers, body=body, stream=stream)
    if method.upper() not in PROXY_READS:
        audit.record(
            user,
            "ClusterProxyWrite",
            "Cluster",
            cluster.name,
            summary=f"{method.upper()} /{path.lstrip('/')} through the cluster proxy: {answer.status}",
            changes={
                "proxy": {"method": method.upper(), "path": "/" + path.lstrip("/"), "code": answer.status}
            },
        )
    return answer
