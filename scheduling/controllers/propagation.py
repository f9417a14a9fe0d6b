"""Propagation: the desired Works of each binding, status collected back, drift found in member clusters."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.db.models import BooleanField, ExpressionWrapper, F, Q
from django.utils import timezone

from clusters.k8s import objects
from clusters.models import Cluster
from scheduling.controllers import drift_events, reconcile_digests, render_keys, rollouts
from scheduling.controllers.planner_inputs import cluster_identity
from scheduling.controllers.scheduler import set_condition
from scheduling.controllers.status_writes import StatusWrites
from scheduling.controllers.values_sql import insert_rows, json_rows
from scheduling.karmada import names
from scheduling.karmada.interpreter import dependencies, interpret_health, reflect_status, workload_of
from scheduling.karmada.manifests import member_manifest, needs_replica_revision, retain_member_fields
from scheduling.karmada.overrides import OverrideError, OverrideSource
from scheduling.karmada.status import MemberStatus
from scheduling.karmada.status import aggregate_status as aggregate_template_status
from scheduling.models import (
    COUNT_COLUMNS,
    HEALTHY,
    UNHEALTHY,
    OverridePolicy,
    ResourceBinding,
    ResourceTemplate,
    Work,
)
from scheduling.planner import InputError
from scheduling.planner.waves import WAVES_ANNOTATION


@dataclass
class Inputs:
    """What plans of many bindings read once: their target clusters and the override policies that can
    apply to each namespace (cluster-scoped ones and the namespace's own), with the digests render keys
    are made of."""

    asked: set[str]  # the cluster names read (those not registered are missing from `clusters`)
    clusters: dict[str, Cluster]
    sources: dict[str, list[OverrideSource]]
    cluster_digests: dict[str, str] = field(default_factory=dict)
    source_digests: dict[str, str] = field(default_factory=dict)

    @classmethod
    def load(cls, bindings: list[ResourceBinding]) -> Inputs:
        names = {name for binding in bindings for name in binding.target_replicas()}
        # only what a member copy is rendered from (cluster_identity), not the collected status
        rows = Cluster.objects.filter(name__in=names).only(*IDENTITY) if names else []
        clusters = {c.name: c for c in rows}
        namespaces = {binding.template.namespace for binding in bindings}
        policies = [
            OverrideSource(r.kind, r.namespace, r.name, r.spec)
            for r in OverridePolicy.objects.filter(namespace__in=["", *namespaces]).order_by("kind", "name")
        ]
        sources = {ns: [r for r in policies if r.namespace in ("", ns)] for ns in namespaces}
        return cls(
            names,
            clusters,
            sources,
            {name: render_keys.cluster_digest(c) for name, c in clusters.items()},
            {ns: render_keys.sources_digest(found) for ns, found in sources.items()},
        )

    def covers(self, bindings: list[ResourceBinding]) -> bool:
        """Whether every target cluster and namespace of these bindings was read."""
        return all(
            b.template.namespace in self.sources and self.asked.issuperset(b.target_replicas())
            for b in bindings
        )

    def render_key(self, binding: ResourceBinding, works: Iterable[tuple[Any, ...]]) -> str:
        """The binding's render key with these inputs (they must cover it) and these Works' states."""
        return render_keys.render_key(
            binding, self.cluster_digests, self.source_digests[binding.template.namespace], works
        )


IDENTITY = ("pk", "name", "labels", "provider", "region", "zones")


def suspended_clusters(binding: ResourceBinding, targets: list[str]) -> set[str]:
    """Clusters whose dispatching is suspended (everywhere, or by name)."""
    suspension = binding.suspension or {}
    if suspension.get("dispatching"):
        return set(targets)
    return set((suspension.get("dispatchingOnClusters") or {}).get("clusterNames") or []) & set(targets)


def kept_by_eviction(binding: ResourceBinding) -> set[str]:
    """Clusters an eviction task keeps running until the new ones are healthy (not purged directly)."""
    return {t["fromCluster"] for t in binding.graceful_eviction_tasks if t.get("purgeMode") != "Directly"}


@dataclass
class WorkPlan:
    """What a binding's Works must become: changed or new states, failures, Works leaving the placement;
    the inputs it was computed with, and whether every target rendered (only then can a key stand for it)."""

    works: dict[str, Work]
    inputs: Inputs
    changes: list[tuple[Work, tuple[Any, ...]]] = field(default_factory=list)
    failures: list[tuple[Work, str]] = field(default_factory=list)
    leaving: list[Work] = field(default_factory=list)
    rendered: bool = True

    @property
    def settled(self) -> bool:
        return not (self.changes or self.failures or self.leaving)

    def pending(self) -> list[int]:
        """Works a member call must act on: out of sync (unless suspended) or to be removed."""
        return [
            w.pk for w in self.works.values() if w.pk and (w.deleting or (not w.suspended and not w.in_sync))
        ]

    def render_key(self, binding: ResourceBinding) -> str:
        """The key of this plan once written ("" when a target failed to render or a Work is unsaved)."""
        if not self.rendered or any(w.pk is None for w in self.works.values()):
            return ""
        return self.inputs.render_key(binding, [render_keys.work_state(w) for w in self.works.values()])


def plan_works(
    binding: ResourceBinding, works: dict[str, Work], inputs: Inputs | None = None
) -> WorkPlan | None:
    """Compute every target's member copy and compare it with the stored Works; writes nothing.
    `inputs` are the clusters and override policies a batch read already (read here when not given)."""
    template = binding.template
    targets = binding.target_replicas()
    suspended = suspended_clusters(binding, list(targets))
    if inputs is None or not inputs.covers([binding]):
        inputs = Inputs.load([binding])
    clusters = inputs.clusters
    sources = inputs.sources[template.namespace]
    try:
        workload = workload_of(template)
    except InputError:
        return None
    revise = needs_replica_revision(binding)
    work_name = names.work_name(template.namespace, template.name, template.kind)
    held = rollouts.held_templates(binding)
    try:
        # overrides select a held cluster's copy by the revision it runs, not the one it waits for
        held_workloads = {name: workload_of(revision) for name, revision in held.items()}
    except InputError:
        return None
    plan = WorkPlan(works=dict(works), inputs=inputs)
    for cluster_name, replicas in targets.items():
        cluster = clusters.get(cluster_name)
        if cluster is None:
            continue
        work = works.get(cluster_name) or Work(
            binding=binding,
            cluster_name=cluster_name,
            namespace=names.execution_namespace(cluster_name),
            name=work_name,
            permanent_id=uuid.uuid4(),
        )
        try:
            manifest, applied = member_manifest(
                binding=binding,
                template=held.get(cluster_name, template),
                workload=held_workloads[cluster_name] if cluster_name in held else workload,
                cluster=cluster_identity(cluster),
                replicas=replicas if revise else None,
                sources=sources,
                work_name=work_name,
                work_id=work.permanent_id,
            )
        except (OverrideError, InputError) as exc:
            plan.rendered = False
            if (work.applied_reason, work.applied_message) != ("OverrideFailed", str(exc)):
                plan.failures.append((work, str(exc)))
            continue
        state = (manifest, names.content_hash(manifest), False, cluster_name in suspended, applied)
        current = (work.manifest, work.desired_hash, work.deleting, work.suspended, work.applied_overrides)
        if work.pk is None or state != current:
            plan.changes.append((work, state))
        plan.works[cluster_name] = work
    keep = set(targets) | kept_by_eviction(binding)
    plan.leaving = [w for name, w in works.items() if name not in keep and not w.deleting]
    return plan


def sync_binding(binding_id: int) -> list[int]:
    """sync_bindings for one binding: the ids of its Works to act on."""
    return sync_bindings([binding_id]).pending.get(binding_id, [])


@dataclass
class Synced:
    """A sync's outcome: per binding, the ids of the Works to act on (bindings that are gone are left
    out); and the bindings whose render key held, so that nothing was rendered, written or changed."""

    pending: dict[int, list[int]] = field(default_factory=dict)
    unchanged: set[int] = field(default_factory=set)


def _works_of(bindings: list[ResourceBinding]) -> dict[int, dict[str, Work]]:
    """The bindings' Works by binding and cluster, in one read."""
    found: dict[int, dict[str, Work]] = {b.pk: {} for b in bindings}
    if bindings:
        for work in Work.objects.filter(binding_id__in=list(found)):
            found[work.binding_id][work.cluster_name] = work
    return found


@dataclass
class StoredWorks:
    """A binding's Works as a render key and the member calls see them, without their manifests: each
    one's WORK_STATE columns, and the ids of those a member call must act on."""

    states: list[tuple[Any, ...]] = field(default_factory=list)
    pending: list[int] = field(default_factory=list)


def _stored_works(bindings: list[ResourceBinding]) -> dict[int, StoredWorks]:
    """StoredWorks of each binding, in one read of a few columns (no model instances: a batch's bindings
    hold thousands of Works)."""
    found = {b.pk: StoredWorks() for b in bindings}
    if not bindings:
        return found
    columns = ("binding_id", "applied", "applied_hash", *render_keys.WORK_STATE)
    rows = Work.objects.filter(binding_id__in=list(found)).values_list(*columns)
    for binding_id, applied, applied_hash, *state in rows:
        stored = found[binding_id]
        stored.states.append(tuple(state))
        values = dict(zip(render_keys.WORK_STATE, state, strict=True))
        in_sync = applied and applied_hash == values["desired_hash"]
        if values["deleting"] or (not values["suspended"] and not in_sync):
            stored.pending.append(values["pk"])
    return found


def sync_bindings(binding_ids: list[int], shared: str | None = None) -> Synced:
    """Bring each binding's Works to what its clusters, template and overrides say.

    A binding nothing has moved for since this step last settled it is left as it is (left_as_settled):
    its Works to act on are read, nothing else.
    The bindings, their Works, the target clusters and the override policies are read once for the
    batch. A binding whose render key (render_keys.py) is the one stored when its Works were last
    brought in line has nothing to render: its Works are read without their manifests and nothing is
    written. The others are rendered without a lock; only a binding with a change takes its lock, is
    planned again under it (with the batch's inputs) and written in bulk. The keys found are stored in
    one statement at the end: a key says these Works are right for these inputs whenever it is written.

    Each binding synced is recorded settled (reconcile_digests), so that the safety net does not sync it
    again until an input moves; `shared`: the shared digest as a reconcile pass read it.
    """
    settled = reconcile_digests.Settled(reconcile_digests.SYNC, binding_ids, shared)
    result = Synced()
    left = left_as_settled(settled.unmoved())
    result.pending, result.unchanged = dict(left), set(left)
    binding_ids = [pk for pk in binding_ids if pk not in result.pending]
    if not binding_ids:
        settled.store_inputs(left)  # what idle() tests (stored once after the upgrade that added it)
        return result
    # not the member status (every target's entry: ~73 kB a binding at 100 clusters), which a sync
    # neither renders from nor writes; a locked sync reads its row in full
    bindings = list(
        ResourceBinding.objects.select_related("template__policy", "policy")
        .defer("aggregated_status")
        .filter(pk__in=binding_ids)
    )
    inputs = Inputs.load(bindings)
    stored = _stored_works(bindings)
    render: list[ResourceBinding] = []
    changed: list[int] = []
    for binding in bindings:
        works = stored[binding.pk]
        # retiring, writing other bindings, or scheduled without Works yet (a new workload: Works to
        # create): planned once, under the lock
        if (
            binding.template.deleting_since is not None
            or binding.propagate_deps
            or (binding.clusters and not works.states)
        ):
            changed.append(binding.pk)
        elif (
            binding.rendered_key
            and render_keys.keyed(binding)
            and binding.rendered_key == inputs.render_key(binding, works.states)
        ):
            result.pending[binding.pk] = works.pending
            result.unchanged.add(binding.pk)
        else:
            render.append(binding)
    keys: dict[int, str] = {}
    full = _works_of(render)
    for binding in render:
        plan = plan_works(binding, full[binding.pk], inputs)
        if plan is None:
            result.pending[binding.pk] = []
        elif plan.settled and rollouts.due_start(binding, plan.works) is None:
            result.pending[binding.pk] = plan.pending()
            keys[binding.pk] = plan.render_key(binding) if render_keys.keyed(binding) else ""
        else:
            changed.append(binding.pk)
    for binding_id in changed:
        locked = _sync_locked(binding_id, inputs)
        if locked is not None:
            result.pending[binding_id], keys[binding_id] = locked
    _store_keys({pk: key for pk, key in keys.items() if key})
    settled.store(pk for pk in result.pending if pk not in left)
    settled.store_inputs(result.pending)  # what idle() tests (of those left too: their inputs held)
    return result


# A Work a member call must act on: to remove, or out of sync and not suspended (as _stored_works finds)
PENDING = Q(deleting=True) | (Q(suspended=False) & ~Q(applied=True, applied_hash=F("desired_hash")))


def left_as_settled(unmoved: set[int]) -> dict[int, list[int]]:
    """Of the `unmoved` bindings (nothing the sync reads or writes moved since it last settled them: their
    digest, as the periodic reconcile skips them), those a sync would leave as they are, each with its
    Works to act on: a render key stands for them, and they are not retiring, writing other bindings or
    staged by a rollout (those are rendered on every sync). A re-plan that changed nothing marks every
    binding of a fleet: their syncs cost a statement or two instead of reading every Work and rendering
    its key."""
    if not unmoved:
        return {}
    keyed = (
        ResourceBinding.objects.filter(pk__in=unmoved, propagate_deps=False)
        .filter(template__deleting_since__isnull=True)
        .exclude(rendered_key="")
        .exclude(policy__annotations__has_key=WAVES_ANNOTATION)
    )
    left: dict[int, list[int]] = {pk: [] for pk in keyed.values_list("pk", flat=True)}
    if left:
        works = Work.objects.filter(PENDING, binding_id__in=list(left)).order_by("pk")
        for binding_id, work_id in works.values_list("binding_id", "pk"):
            left[binding_id].append(work_id)
    return left


def idle(binding_ids: list[int]) -> set[int]:
    """Those of these bindings a sync would leave exactly as they are: left as settled with no Work to act
    on and no rollout in progress. A schedule pass queues them no sync, whether it did not write them or
    only reordered their clusters (a re-plan that changed nothing, Karmada's every-reconcile trigger of a
    Duplicated fleet, queued a hundred syncs for a thousand bindings that only read what the pass could
    read once; one that reordered every binding, a sync and a status digest each).

    Tested on the sync's inputs alone (Settled.inputs_unmoved): a Work whose desired state was changed
    behind the engine's back is left to the periodic reconcile, which compares the whole digest."""
    if not binding_ids:
        return set()
    left = left_as_settled(reconcile_digests.Settled(reconcile_digests.SYNC, binding_ids).inputs_unmoved())
    quiet = {pk for pk, works in left.items() if not works}
    return quiet - set(rollouts.active_binding_ids(binding_ids=sorted(quiet))) if quiet else set()


def _store_keys(keys: dict[int, str]) -> None:
    """The render keys found in one statement; updated_at (the resourceVersion) does not move."""
    if keys:
        rows = [ResourceBinding(pk=pk, rendered_key=key) for pk, key in keys.items()]
        ResourceBinding.objects.bulk_update(rows, ["rendered_key"], batch_size=BULK)


@transaction.atomic
def _sync_locked(binding_id: int, inputs: Inputs) -> tuple[list[int], str] | None:
    """One binding planned again and written under its lock (one lock per transaction: a statement
    that marks many bindings at once locks them in its own order, and must not meet a second lock of
    ours); the ids of its Works to act on and its render key ("" when none stands for it), None when
    the binding is gone."""
    binding = (
        ResourceBinding.objects.select_for_update(of=("self",))
        .select_related("template__policy", "policy")
        .filter(pk=binding_id)
        .first()
    )
    if binding is None:
        return None
    works = {w.cluster_name: w for w in binding.works.select_for_update().order_by("pk")}
    if binding.template.deleting_since is not None:
        return _retire_all(binding, works), ""
    if rollouts.spec_of(binding) is not None:  # only a staged policy starts rollouts
        rollouts.start_if_needed(binding, works)
    plan = plan_works(binding, works, inputs)  # reads its own inputs if scheduled again meanwhile
    if plan is None:
        return [], ""
    writes = WorkWrites()
    writes.add(plan)
    writes.save()
    if binding.propagate_deps:
        distribute_dependencies(binding)
    return plan.pending(), plan.render_key(binding) if render_keys.keyed(binding) else ""


# Work fields a plan's change sets (with updated_at, which bulk writes do not touch by themselves).
CHANGED_FIELDS = ["manifest", "desired_hash", "deleting", "suspended", "applied_overrides", "updated_at"]
BULK = 500


class WorkWrites:
    """The writes of a plan, made in a few statements: new Works in one insert, changed ones in one
    update, failures grouped by message, Works leaving the placement in one update."""

    def __init__(self) -> None:
        self.created: list[Work] = []
        self.updated: list[Work] = []
        self.failures: dict[tuple[str, str], list[Work]] = {}
        self.leaving: list[Work] = []

    def add(self, plan: WorkPlan) -> None:
        now = timezone.now()
        for work, state in plan.changes:
            work.manifest, work.desired_hash, work.deleting, work.suspended, work.applied_overrides = state
            if work.pk is None:
                self.created.append(work)
            else:
                work.updated_at = now
                self.updated.append(work)
        for work, message in plan.failures:
            if work.pk is not None:
                work.applied, work.applied_reason, work.applied_message = False, "OverrideFailed", message
                self.failures.setdefault(("OverrideFailed", message), []).append(work)
        for work in plan.leaving:
            work.deleting, work.preserve_on_delete = True, False
            self.leaving.append(work)

    def save(self) -> None:
        now = timezone.now()
        insert_rows(Work, self.created, key="permanent_id", batch_size=BULK)
        for start in range(0, len(self.updated), BULK):
            _update_changed(self.updated[start : start + BULK])
        for (reason, message), works in self.failures.items():
            Work.objects.filter(pk__in=[w.pk for w in works]).update(
                applied=False, applied_reason=reason, applied_message=message, updated_at=now
            )
        if self.leaving:
            Work.objects.filter(pk__in=[w.pk for w in self.leaving]).update(
                deleting=True, preserve_on_delete=False, updated_at=now
            )


def _update_changed(works: list[Work]) -> None:
    """CHANGED_FIELDS of these Works in one UPDATE … FROM the rows as one JSON parameter (json_rows) on
    PostgreSQL (Django's bulk_update builds a CASE per column and row, much of a binding's update time);
    bulk_update elsewhere."""
    if not works:
        return
    if connection.vendor != "postgresql":
        Work.objects.bulk_update(works, CHANGED_FIELDS)
        return
    table = connection.ops.quote_name(Work._meta.db_table)
    values, params = json_rows(
        ("bigint", "jsonb", "text", "boolean", "boolean", "jsonb", "timestamptz"),
        (
            (w.pk, w.manifest, w.desired_hash, w.deleting, w.suspended, w.applied_overrides, w.updated_at)
            for w in works
        ),
    )
    # Only a quoted identifier and placeholders are interpolated; every value is a parameter.
    sql = (
        f"UPDATE {table} AS w SET manifest = v.manifest, desired_hash = v.hash, "  # noqa: S608
        "deleting = v.deleting, suspended = v.suspended, applied_overrides = v.overrides, updated_at = v.at "
        f"FROM ({values}) AS v(id, manifest, hash, deleting, suspended, overrides, at) "
        "WHERE w.id = v.id"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def _retire_all(binding: ResourceBinding, works: dict[str, Work]) -> list[int]:
    """Template deleted: every Work goes (released instead when preserved), then the binding and template."""
    if not works:
        template = binding.template
        binding.delete()
        template.delete()
        return []
    for work in works.values():
        if not work.deleting or work.preserve_on_delete != binding.preserve_resources_on_deletion:
            work.deleting, work.preserve_on_delete = True, binding.preserve_resources_on_deletion
            work.save(update_fields=["deleting", "preserve_on_delete", "updated_at"])
    return [w.pk for w in works.values()]


def distribute_dependencies(binding: ResourceBinding) -> None:
    """propagateDeps: referenced ConfigMaps and Secrets follow the workload as bindings of their own."""
    from scheduling.controllers.detector import upsert_binding

    template = binding.template
    wanted = dependencies(template.manifest)
    entry = {"name": binding.name, "namespace": binding.namespace, "clusters": binding.clusters}
    for _, kind, name in wanted:
        dependency = ResourceTemplate.objects.filter(
            api_group="", kind=kind, namespace=template.namespace, name=name, deleting_since__isnull=True
        ).first()
        if dependency is None or dependency.policy_id is not None:
            continue  # missing, or propagated by a policy of its own
        attached = ResourceBinding.objects.filter(template=dependency).first()
        required = [r for r in (attached.required_by if attached else []) if r["name"] != binding.name]
        required.append(entry)
        union: dict[str, int] = {}
        for item in required:
            for cluster in item["clusters"]:
                union[cluster["name"]] = 0
        spec = {"required_by": required, "placement": {}, "replicas": 0, "replica_requirements": None}
        attached = upsert_binding(dependency, spec, None)
        clusters = [{"name": name} for name in sorted(union)]
        if attached.clusters != clusters:
            attached.clusters = clusters
            attached.save(update_fields=["clusters", "updated_at"])


# ------------------------------------------------------------------------ status back, drift repair


FULLY_APPLIED = "FullyApplied"


def _fully_applied(targets: list[dict[str, Any]], entries: list[dict[str, Any]]) -> tuple[bool, str, str]:
    """Karmada's FullyApplied condition: every scheduled cluster has its Work applied."""
    scheduled = {t["name"] for t in targets}
    applied = {e["clusterName"] for e in entries if e.get("applied")}
    if scheduled and applied == scheduled and len(entries) == len(scheduled):
        return True, "FullyAppliedSuccess", "All works have been successfully applied"
    return False, "FullyAppliedFailed", "Failed to apply all works, see status.aggregatedStatus for details"


@dataclass(frozen=True, slots=True)
class WorkState:
    """What aggregation reads of a Work: a row of a few columns, not a model (a binding at 100 clusters
    reads 100 of them each time one of its Works' status changes), its booleans worked out by the
    database (no hashes or timestamps to carry and convert)."""

    cluster_name: str
    deleting: bool
    in_sync: bool
    applied_message: str
    health: str
    status: dict[str, Any]
    reported: bool  # a member status was ever recorded (status_at is set)


def work_states(binding_ids: Iterable[int]) -> dict[int, list[WorkState]]:
    """The aggregation's view of every Work of these bindings, by binding id, in one query."""
    found: dict[int, list[WorkState]] = {}
    rows = (
        Work.objects.filter(binding_id__in=list(binding_ids))
        .annotate(
            synced=ExpressionWrapper(Q(applied=True, applied_hash=F("desired_hash")), BooleanField()),
            reported=ExpressionWrapper(Q(status_at__isnull=False), BooleanField()),
        )
        .values_list(
            "binding_id",
            "cluster_name",
            "deleting",
            "synced",
            "applied_message",
            "health",
            "status",
            "reported",
        )
    )
    for binding_id, cluster, deleting, synced, message, health, status, reported in rows.order_by("pk"):
        found.setdefault(binding_id, []).append(
            WorkState(cluster, bool(deleting), bool(synced), message, health, status, bool(reported))
        )
    return found


def aggregate_status(
    binding: ResourceBinding, now: datetime | None = None, works_of: Iterable[WorkState] | None = None
) -> None:
    """status.aggregatedStatus: per target cluster, applied or not, the reflected status and health; and
    from the same Works the template's own status (replicas, conditions, observedGeneration).
    `works_of`: the binding's Works as read already (work_states), else they are read."""
    entries = []
    members = []
    if works_of is None:
        works_of = work_states([binding.pk]).get(binding.pk, [])
    works = {w.cluster_name: w for w in works_of}
    # by cluster name, as Karmada's status aggregation sorts them: a re-plan that only reorders the
    # target clusters leaves the status as it is
    for target in sorted(binding.clusters, key=lambda target: str(target["name"])):
        work = works.get(target["name"])
        if work is None or work.deleting:
            members.append(MemberStatus(target["name"], None))
            continue
        entry: dict[str, Any] = {
            "clusterName": work.cluster_name,
            "applied": work.in_sync,
            "health": work.health,
        }
        if work.status:
            entry["status"] = work.status
        if not work.in_sync and work.applied_message:
            entry["appliedMessage"] = work.applied_message
        entries.append(entry)
        members.append(MemberStatus(work.cluster_name, work.status if work.reported else None))
    before = binding.condition(FULLY_APPLIED)
    set_condition(binding, FULLY_APPLIED, *_fully_applied(binding.clusters, entries), now or timezone.now())
    stored = binding.counts
    if entries != binding.aggregated_status or binding.condition(FULLY_APPLIED) != before:
        binding.aggregated_status = entries
        binding.refresh_counts()
        # updated_at is the resourceVersion the Kubernetes API's watches follow
        ResourceBinding.objects.filter(pk=binding.pk).update(
            aggregated_status=entries,
            conditions=binding.conditions,
            updated_at=timezone.now(),
            **_count_columns(binding),
        )
    else:
        binding.refresh_counts()
        if binding.counts != stored:  # the status is unchanged, the stored counts were not in step
            ResourceBinding.objects.filter(pk=binding.pk).update(**_count_columns(binding))
    _aggregate_template_status(binding.template, members, now or timezone.now())


def _count_columns(binding: ResourceBinding) -> dict[str, int]:
    return {column: getattr(binding, column) for column in COUNT_COLUMNS}


def _aggregate_template_status(
    template: ResourceTemplate, members: list[MemberStatus], now: datetime
) -> None:
    status = aggregate_template_status(
        template.manifest,
        template.generation,
        template.status or {},
        members,
        now.strftime("%Y-%m-%dT%H:%M:%SZ"),
    )
    if status != template.status:
        # A status write is a change of the object as Kubernetes clients watch it (not of its spec), so it
        # moves updated_at, the resourceVersion, to the moment of the write.
        ResourceTemplate.objects.filter(pk=template.pk).update(status=status, updated_at=timezone.now())
        template.status = status


# bindings aggregated together: their Works are read in one query a batch (a batch, not all of them)
AGGREGATE_BATCH = 100


def aggregate_bindings(binding_ids: Iterable[int], now: datetime | None = None) -> None:
    """Aggregate the bindings whose Works' status just changed (after a dispatch or a member read),
    AGGREGATE_BATCH at a time, in id order as every writer of many bindings takes them; each recorded
    settled (reconcile_digests) with the status as written, so that the safety net leaves it alone until
    an input moves."""
    ids = sorted(set(binding_ids))
    for start in range(0, len(ids), AGGREGATE_BATCH):
        part = ids[start : start + AGGREGATE_BATCH]
        settled = reconcile_digests.Settled(reconcile_digests.AGGREGATE, part)
        bindings = ResourceBinding.objects.filter(pk__in=part).select_related("template")
        # the Works' status columns only, as rows: not their manifests, not whole models
        states = work_states(part)
        for binding in bindings.order_by("pk"):
            aggregate_status(binding, now, states.get(binding.pk, []))
        settled.store(part)


def aggregate_binding(binding_id: int) -> None:
    """aggregate_status for one binding by id (gone already: nothing to do)."""
    binding = ResourceBinding.objects.filter(pk=binding_id).first()
    if binding is not None:
        aggregate_status(binding)


def all_healthy(binding: ResourceBinding) -> bool:
    """Every cluster in spec.clusters reports Healthy (the graceful-eviction release condition)."""
    reported = {e["clusterName"]: e.get("health") for e in binding.aggregated_status}
    return bool(binding.clusters) and all(reported.get(c["name"]) == HEALTHY for c in binding.clusters)


REPAIR, STATUS = "repair", "status"


def copy_key(manifest: dict[str, Any]) -> tuple[str, str, str, str]:
    """apiVersion, kind, namespace and name: how a Work finds its member copy in a listing."""
    meta = manifest.get("metadata") or {}
    return (
        str(manifest.get("apiVersion")),
        str(manifest.get("kind")),
        str(meta.get("namespace") or ""),
        str(meta.get("name")),
    )


def observe_copy(
    work: Work, current: dict[str, Any] | None, now: datetime, writes: StatusWrites | None = None
) -> str:
    """Compare a Work with its member copy as last seen (None: absent) and record what follows:
    REPAIR when the copy is missing or was changed by hand (re-apply it), STATUS when its status or
    health changed (written now, or with `writes` when that is flushed), "" when nothing did."""
    if current is None or not objects.is_subset(retain_member_fields(current, work.manifest), current):
        drift_events.record_drift(work, current, now)
        if work.in_sync:
            Work.objects.filter(pk=work.pk).update(applied=False, applied_hash="", updated_at=timezone.now())
            work.applied, work.applied_hash = False, ""
        return REPAIR if work.applied_reason != "ConflictResolution" else ""
    return observe_status(work, current, now, writes)


def observe_status(
    work: Work, current: dict[str, Any], now: datetime, writes: StatusWrites | None = None
) -> str:
    """The second half of observe_copy, for a copy known to match its Work: STATUS when its status or
    health changed (recorded as observe_copy does), "" when neither did."""
    status, health = reflect_status(current), interpret_health(current)
    if (status, health) == (work.status, work.health):
        return ""
    since = (work.unhealthy_since or now) if health == UNHEALTHY else None
    work.status, work.health, work.status_at, work.unhealthy_since = status, health, now, since
    if writes is not None:
        writes.add(work)
    else:
        Work.objects.filter(pk=work.pk).update(
            status=status, health=health, status_at=now, unhealthy_since=since, updated_at=timezone.now()
        )
    return STATUS


def sync_cluster_objects(cluster: Cluster, now: datetime | None = None) -> list[int]:
    """Read every member copy this cluster should hold: record status and health, and return the ids of
    Works whose copy is missing or was changed by hand (to re-apply)."""
    now = now or timezone.now()
    works = list(Work.objects.filter(cluster_name=cluster.name, deleting=False, suspended=False))
    kinds = {(w.manifest["apiVersion"], w.manifest["kind"]) for w in works}
    conn = cluster.connection()
    live: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for api_version, kind in kinds:
        for item in objects.list_objects(
            conn, api_version, kind, label_selector=f"{names.MANAGED_LABEL}=true"
        ):
            live[copy_key(item)] = item
    repair = []
    changed: set[int] = set()
    writes = StatusWrites()
    for work in works:
        found = observe_copy(work, live.get(copy_key(work.manifest)), now, writes)
        if found == REPAIR:
            repair.append(work.pk)
        elif found == STATUS:
            changed.add(work.binding_id)
    writes.flush()
    aggregate_bindings(changed, now)
    return repair
