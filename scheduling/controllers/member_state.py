"""Member state into Works: a listing or a batch of watch events becomes status, health and drift."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models.fields.json import KeyTextTransform, KeyTransform
from django.utils import timezone

from clusters.k8s import objects
from scheduling.controllers.propagation import REPAIR, STATUS, copy_key, observe_copy, observe_status
from scheduling.controllers.status_writes import StatusWrites
from scheduling.karmada import names
from scheduling.karmada.manifests import retain_member_fields
from scheduling.models import Work

# Works read with their manifests per query when a listing re-judges copies
JUDGED_CHUNK = 500


@dataclass
class Observed:
    """Works to re-apply (copy missing or edited by hand), bindings whose Works' status changed, and the
    latest event of each copy whose Work had an apply on its way (by the Work's permanent id)."""

    repair: list[int] = field(default_factory=list)
    changed: set[int] = field(default_factory=set)
    waiting: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    judged: set[str] = field(default_factory=set)  # permanent ids whose latest event was compared

    def add(self, work: Work, found: str) -> None:
        if found == REPAIR:
            self.repair.append(work.pk)
        elif found == STATUS:
            self.changed.add(work.binding_id)


# (cluster, apiVersion, kind) of the copies a listing reports
KindKey = tuple[str, str, str]
# The Work columns an event judged by its spec mark needs: no manifest, the heaviest column to decode.
LIGHT_FIELDS = (
    "pk",
    "permanent_id",
    "binding_id",
    "cluster_name",
    "desired_hash",
    "applied",
    "applied_hash",
    "applied_reason",
    "status",
    "health",
    "unhealthy_since",
    "status_at",
)


PLAIN_FIELDS = frozenset(("apiVersion", "kind", "metadata", "spec", "status"))


def spec_mark(copy: Mapping[str, Any] | None) -> tuple[Any, ...] | None:
    """What tells whether a copy's spec and metadata are as when last judged, without comparing them:
    its uid (a copy deleted and created again is another), its generation (the server moves it on
    every spec change) and its labels and annotations (which do not move it). None for a copy without
    a generation (a ConfigMap's data moves none): such a copy is always compared in full."""
    metadata = (copy or {}).get("metadata") or {}
    generation, uid = metadata.get("generation"), metadata.get("uid")
    if not isinstance(generation, int) or generation < 1 or not uid:
        return None
    labels, annotations = metadata.get("labels") or {}, metadata.get("annotations") or {}
    try:  # in the order the server sends them: another order only costs a full comparison
        marks = hash(tuple(labels.items())), hash(tuple(annotations.items()))
    except (TypeError, AttributeError):
        return None
    extra = tuple(key for key in copy or {} if key not in PLAIN_FIELDS)
    return (str(uid), generation, *marks, extra)


# The kind of a held copy that came from a listing, not an event (see observe_listing).
LISTED = "LISTED"


def older(version: str, than: str) -> bool:
    """Whether a copy at resourceVersion `version` is older than one at `than`. A cluster's versions
    are its store's revisions, integers that grow with every write (etcd's, and membersim's); versions
    that are not integers are not compared (never older)."""
    try:
        return int(version) < int(than)
    except (TypeError, ValueError):
        return False


def older_copy(copy: Mapping[str, Any], than: Mapping[str, Any]) -> bool:
    """`older` for two copies of one object."""
    return older(
        str((copy.get("metadata") or {}).get("resourceVersion") or ""),
        str((than.get("metadata") or {}).get("resourceVersion") or ""),
    )


@dataclass
class Judged:
    """The member copies last judged in step with their Works: by (cluster, apiVersion, kind), Work id ->
    (the copy's resourceVersion, the Work's desired hash, the copy's spec_mark). A copy whose
    resourceVersion and Work are both unchanged since gives the same verdict again, so a listing
    re-reads and re-compares only the others: the resync of a quiet fleet reads no manifest. An event
    whose copy has the same spec mark under the same desired hash changed at most its status, so only
    that is judged (without the Work's manifest). Kept by one watcher in memory; a new watcher starts
    empty and judges everything once."""

    kinds: dict[KindKey, dict[int, tuple[str, str, tuple[Any, ...] | None]]] = field(default_factory=dict)

    def holds(self, key: KindKey, work_id: int, version: str, desired_hash: str) -> bool:
        return bool(version) and self.kinds.get(key, {}).get(work_id, ())[:2] == (version, desired_hash)

    def same_spec(self, key: KindKey, work_id: int, mark: tuple[Any, ...] | None, desired_hash: str) -> bool:
        """The copy last judged in step for this Work had this spec mark, under this desired hash."""
        judged = self.kinds.get(key, {}).get(work_id)
        return mark is not None and judged is not None and judged[1:] == (desired_hash, mark)

    def newer_than(self, key: KindKey, work_id: int, copy: Mapping[str, Any]) -> bool:
        """The copy last judged for this Work is newer than `copy`."""
        judged = self.kinds.get(key, {}).get(work_id)
        version = str((copy.get("metadata") or {}).get("resourceVersion") or "")
        return judged is not None and older(version, judged[0])

    def record(
        self, key: KindKey, work: Work, copy: dict[str, Any] | None, found: str, mark: Any = False
    ) -> None:
        """Remember a copy found in step (its status written or unchanged; `mark` its spec_mark when
        known); forget one to repair."""
        version = str(((copy or {}).get("metadata") or {}).get("resourceVersion") or "")
        judged = self.kinds.setdefault(key, {})
        if copy is None or found == REPAIR or not version:
            judged.pop(work.pk, None)
        else:
            judged[work.pk] = (version, work.desired_hash, spec_mark(copy) if mark is False else mark)

    def size(self) -> int:
        return sum(len(judged) for judged in self.kinds.values())


def kind_key(cluster: str, manifest: Mapping[str, Any]) -> KindKey:
    return (cluster, str(manifest.get("apiVersion")), str(manifest.get("kind")))


def watched_works(cluster: str) -> Any:
    """The Works whose member copies a watch in this cluster reports on."""
    return Work.objects.filter(cluster_name=cluster, deleting=False, suspended=False)


def watched_kinds(clusters: Iterable[str], after: int | None = None) -> set[tuple[str, str, str]]:
    """(cluster, apiVersion, kind) for every kind the Works of these clusters hold (`after`: of the Works
    with a greater id only, those created since a read)."""
    works = Work.objects.filter(cluster_name__in=list(clusters), deleting=False)
    if after is not None:
        works = works.filter(pk__gt=after)
    rows = works.values_list("cluster_name", "manifest__apiVersion", "manifest__kind").distinct()
    return {(str(c), str(v), str(k)) for c, v, k in rows}


def copy_kinds(permanent_ids: Iterable[str]) -> set[KindKey]:
    """(cluster, apiVersion, kind) of the copies of these Works (by permanent id)."""
    rows = Work.objects.filter(permanent_id__in=list(permanent_ids)).values_list(
        "cluster_name", "manifest__apiVersion", "manifest__kind"
    )
    return {(str(c), str(v), str(k)) for c, v, k in rows.distinct()}


def observe_listing(
    cluster: str,
    api_version: str,
    kind: str,
    items: list[dict[str, Any]],
    now: datetime | None = None,
    listed_at: datetime | None = None,
    judged: Judged | None = None,
) -> Observed:
    """A full listing of one kind: every Work of that kind is compared with its copy, or its absence.
    This is the resync that repairs whatever an event missed. With `judged`, a copy whose
    resourceVersion and Work are as when last judged in step is not compared again.

    Only Works in sync are judged: one out of sync has an apply on its way (or the reconcile re-drives
    it), which writes its copy anyway. A listing asked for at `listed_at` may predate a copy written
    after it, so it judges only the Works whose last apply was recorded before then (a record follows
    its member write); the watch that follows the listing reports the later ones.

    But a copy may have been written, and its status moved, before the listing was asked, while its
    apply was recorded after: the watch that follows reports nothing more of it, and the event that
    did may be lost with the stream the listing replaced. So the copies of those Works (and of Works
    still applying) are returned in `waiting`, as LISTED, for `observe_applied` once the apply is
    recorded, like an event held meanwhile. A copy older than the one last judged (a listing that
    waited behind newer events) judges nothing."""
    now = now or timezone.now()
    live = {copy_key(item): item for item in items}
    observed = Observed()
    works = watched_works(cluster).filter(manifest__apiVersion=api_version, manifest__kind=kind)
    key = (cluster, api_version, kind)
    remembered = judged.kinds.get(key, {}) if judged is not None else {}
    kept: dict[int, tuple[str, str, tuple[Any, ...] | None]] = {}
    again: list[int] = []
    # First only what finds each copy and tells whether it changed since last judged (no manifest).
    rows = works.annotate(
        copy_namespace=KeyTextTransform("namespace", KeyTransform("metadata", "manifest")),
        copy_name=KeyTextTransform("name", KeyTransform("metadata", "manifest")),
    ).values_list(
        "pk",
        "permanent_id",
        "desired_hash",
        "applied",
        "applied_hash",
        "applied_at",
        "copy_namespace",
        "copy_name",
    )
    for pk, permanent_id, desired_hash, applied, applied_hash, applied_at, namespace, name in rows.order_by(
        "pk"
    ):
        copy = live.get((api_version, kind, str(namespace or ""), str(name)))
        settled = applied and applied_hash == desired_hash
        version = str(((copy or {}).get("metadata") or {}).get("resourceVersion") or "")
        if not settled or (listed_at is not None and applied_at is not None and applied_at > listed_at):
            if pk in remembered:  # kept: a copy held now is still compared with the one judged
                kept[pk] = remembered[pk]
                if copy is not None and older(version, remembered[pk][0]):
                    continue  # older than that one: the listing waited behind newer events
            if copy is not None:
                observed.waiting[str(permanent_id)] = (LISTED, copy)
            continue
        if copy is not None and version and remembered.get(pk, ())[:2] == (version, desired_hash):
            kept[pk] = remembered[pk]
        elif copy is not None and pk in remembered and older(version, remembered[pk][0]):
            kept[pk] = remembered[pk]
        else:
            again.append(pk)
    if judged is not None:
        judged.kinds[key] = kept  # Works gone or out of sync since are forgotten with the old map
    writes = StatusWrites()
    for start in range(0, len(again), JUDGED_CHUNK):
        for work in Work.objects.filter(pk__in=again[start : start + JUDGED_CHUNK]).order_by("pk"):
            copy = live.get(copy_key(work.manifest))
            found = observe_copy(work, copy, now, writes)
            observed.add(work, found)
            if judged is not None:
                judged.record(key, work, copy, found)
        writes.flush()
    return observed


def observe_events(
    cluster: str, events: Iterable[tuple[str, dict[str, Any]]], now: datetime | None = None
) -> Observed:
    """Watch events (type, object) of one cluster: `observe_cluster_events` for that cluster alone."""
    return observe_cluster_events({cluster: events}, now)


def observe_cluster_events(
    events: Mapping[str, Iterable[tuple[str, dict[str, Any]]]],
    now: datetime | None = None,
    judged: Judged | None = None,
) -> Observed:
    """Watch events (type, object) by cluster, the last per object counting, their Works read in one
    query. A Work with an apply on its way (not in sync) is left to that apply: its copy is about to
    change anyway; its event is returned in `waiting`, for `observe_applied` once the apply is recorded."""
    now = now or timezone.now()
    latest: dict[str, tuple[str, str, dict[str, Any]]] = {}
    for cluster, items in events.items():
        for kind, obj in items:
            labels = (obj.get("metadata") or {}).get("labels") or {}
            try:
                work_id = uuid.UUID(str(labels.get(names.WORK_PERMANENT_ID)))
            except ValueError:
                continue  # not one of ours, or its label was edited: the next listing judges it
            latest[str(work_id)] = (cluster, kind, obj)
    observed = Observed()
    if not latest:
        return observed
    works = Work.objects.filter(deleting=False, suspended=False)
    writes = StatusWrites()
    # First the light columns: an in-sync Work whose copy kept its spec mark has only its status judged.
    compare: list[int] = []
    for work in works.filter(permanent_id__in=list(latest)).only(*LIGHT_FIELDS).order_by("pk"):
        key = str(work.permanent_id)
        cluster, kind, obj = latest[key]
        if work.cluster_name != cluster:
            continue  # a copy carrying another cluster's Work id: not this Work's copy
        if not work.in_sync:
            observed.waiting[key] = (kind, obj)
            continue
        copy_kind, mark = kind_key(cluster, obj), spec_mark(obj)
        if judged is not None and judged.newer_than(copy_kind, work.pk, obj):
            continue  # an event that came before a listing of one batch (judged first) is older than it
        if (
            judged is None
            or kind == "DELETED"
            or not judged.same_spec(copy_kind, work.pk, mark, work.desired_hash)
        ):
            compare.append(work.pk)
            continue
        observed.judged.add(key)
        found = observe_status(work, obj, now, writes)
        observed.add(work, found)
        judged.record(copy_kind, work, obj, found, mark)
    # The others whole, their copies compared with their manifests.
    for work in works.filter(pk__in=compare).order_by("pk") if compare else []:
        key = str(work.permanent_id)
        cluster, kind, obj = latest[key]
        if not work.in_sync:  # its apply began since the light read
            observed.waiting[key] = (kind, obj)
            continue
        observed.judged.add(key)
        copy = None if kind == "DELETED" else obj
        found = observe_copy(work, copy, now, writes)
        observed.add(work, found)
        if judged is not None:
            judged.record(kind_key(cluster, work.manifest), work, copy, found)
    writes.flush()  # every status this batch found, in one statement
    return observed


def observe_applied(
    waiting: dict[str, tuple[str, dict[str, Any]]],
    now: datetime | None = None,
    judged: Judged | None = None,
) -> Observed:
    """Events held while their Works' applies were on their way. An apply records the copy as its write
    returned it, before the member's controllers moved its status (a new Deployment becomes available
    just after): once the Work is in sync, the held copy's status is written, if that copy is the one
    applied. A copy that differs is dropped (the next event or listing judges it); Works still applying
    stay in `waiting`."""
    now = now or timezone.now()
    observed = Observed()
    if not waiting:
        return observed
    held = [key for key, (kind, _) in waiting.items() if kind != "DELETED"]
    works = Work.objects.filter(deleting=False, suspended=False)
    # First only whether each apply is recorded: the Works still applying are not read with manifests
    # (a seeding fleet holds thousands, looked at again every few HELD_CHECKs).
    state = list(
        works.filter(permanent_id__in=held).values_list(
            "permanent_id", "applied", "applied_hash", "desired_hash"
        )
    )
    ready = {
        str(pid)
        for pid, applied, applied_hash, desired_hash in state
        if applied and applied_hash == desired_hash
    }
    applying = {str(pid) for pid, *_ in state} - ready
    found = (
        {str(work.permanent_id): work for work in works.filter(permanent_id__in=sorted(ready))}
        if ready
        else {}
    )
    writes = StatusWrites()
    for key, (kind, obj) in waiting.items():
        work = found.get(key)
        if key in applying or (work is not None and not work.in_sync):
            observed.waiting[key] = (kind, obj)
        elif work is None or kind == "DELETED":
            continue
        elif judged is not None and judged.newer_than(
            kind_key(work.cluster_name, work.manifest), work.pk, obj
        ):
            continue  # held while a newer copy was judged (a listing that waited behind its events)
        elif objects.is_subset(retain_member_fields(obj, work.manifest), obj):
            verdict = observe_status(work, obj, now, writes)  # just compared: the copy is the one applied
            observed.add(work, verdict)
            if judged is not None:
                judged.record(kind_key(work.cluster_name, work.manifest), work, obj, verdict)
    writes.flush()
    return observed
