"""The planner's inputs from the database, built one way for the scheduler, the previews and the drills:
clusters as Karmada Cluster objects and ClusterSnapshots, a binding as the planner's Binding and Placement,
the namespace's FederatedResourceQuotas with their usage, and the workload affinity peers."""

from __future__ import annotations

import copy
import json
import threading
from fractions import Fraction
from typing import Any

from django.db import connection
from django.db.models import Q
from django.db.models.expressions import RawSQL

from clusters.models import Cluster
from scheduling.karmada.documents import parse_cluster
from scheduling.karmada.interpreter import requirements_from_json
from scheduling.models import RESOURCE_BINDING, FederatedResourceQuota, ResourceBinding
from scheduling.planner import (
    Binding,
    ClusterSnapshot,
    EvictionTask,
    InputError,
    Placement,
    QuotaSnapshot,
    TargetCluster,
    WorkloadPeer,
    add_usage,
    binding_usage,
    division_method_from_annotations,
    parse_resources,
)

CLUSTER_API = "cluster.karmada.io/v1alpha1"


def _conditions(cluster: Cluster, status: dict[str, Any]) -> list[dict[str, Any]]:
    """status.conditions with Ready taken from the health state machine's column, the source of truth."""
    conditions = [
        c for c in status.get("conditions") or [] if isinstance(c, dict) and c.get("type") != "Ready"
    ]
    ready: dict[str, Any] = {"type": "Ready", "status": str(cluster.ready)}
    if cluster.ready_reason:
        ready["reason"] = cluster.ready_reason
    if cluster.ready_message:
        ready["message"] = cluster.ready_message
    if cluster.ready_since:
        ready["lastTransitionTime"] = cluster.ready_since.strftime("%Y-%m-%dT%H:%M:%SZ")
    return [ready, *conditions]


def cluster_document(cluster: Cluster, *, copy_status: bool = True) -> dict[str, Any]:
    """A cluster.karmada.io/v1alpha1 Cluster: spec from the columns, status as collected. No credentials.

    Without `copy_status` the document shares the row's status below its top level (for a reader that
    only parses it)."""
    spec: dict[str, Any] = {"apiEndpoint": cluster.api_endpoint, "syncMode": cluster.sync_mode}
    for key in ("provider", "region", "zone"):
        if getattr(cluster, key):
            spec[key] = getattr(cluster, key)
    if cluster.zones:
        spec["zones"] = list(cluster.zones)
    if cluster.taints:
        spec["taints"] = copy.deepcopy(cluster.taints)
    if cluster.insecure_skip_tls_verify:
        spec["insecureSkipTLSVerification"] = True
    metadata: dict[str, Any] = {"name": cluster.name}
    if cluster.labels:
        metadata["labels"] = dict(sorted(cluster.labels.items()))
    status = copy.deepcopy(cluster.status or {}) if copy_status else dict(cluster.status or {})
    status["conditions"] = _conditions(cluster, status)
    return {
        "apiVersion": CLUSTER_API,
        "kind": "Cluster",
        "metadata": metadata,
        "spec": spec,
        "status": status,
    }


def cluster_snapshot(cluster: Cluster) -> ClusterSnapshot:
    """What the planner knows about one member cluster: labels, topology, taints, status, nodes (parsed
    into the planner's own objects, so the row's status is read without a copy)."""
    return parse_cluster(cluster_document(cluster, copy_status=False))


def cluster_identity(cluster: Cluster) -> ClusterSnapshot:
    """Only what cluster affinities match on (name, labels, provider, region, zones); no status parsed.

    Enough for override rules' targetCluster, and cheap enough to build per Work.
    """
    return ClusterSnapshot(
        name=cluster.name,
        labels=dict(cluster.labels),
        provider=cluster.provider,
        region=cluster.region,
        zones=tuple(cluster.zones),
    )


# What cluster_document reads of a Cluster row (not its credentials, probe times or query columns).
SNAPSHOT_COLUMNS = (
    "name",
    "api_endpoint",
    "sync_mode",
    "provider",
    "region",
    "zone",
    "zones",
    "taints",
    "insecure_skip_tls_verify",
    "labels",
    "status",
    "ready",
    "ready_reason",
    "ready_message",
    "ready_since",
)
# Per cluster id, the snapshot last parsed in this process and the digest of the columns it was parsed
# from (a snapshot of None: a malformed status, left out).
_parsed: dict[int, tuple[str, ClusterSnapshot | None]] = {}
_parsed_lock = threading.Lock()


def _row_digest() -> RawSQL:
    """md5 of a Cluster row's SNAPSHOT_COLUMNS as PostgreSQL prints them: equal digests, equal snapshots."""
    columns = ", ".join(
        connection.ops.quote_name(Cluster._meta.get_field(c).column) for c in SNAPSHOT_COLUMNS
    )
    return RawSQL(f"md5(ROW({columns})::text)", ())  # noqa: S611  (quoted identifiers only, no parameter)


def load_snapshots() -> list[ClusterSnapshot]:
    """Every cluster as the planner sees it; a cluster whose stored status is malformed is left out.

    On PostgreSQL only the rows whose digest moved since this process last parsed them are read and
    parsed again (one short statement reads the digests; decoding and parsing every cluster's status
    took 30-60 ms at 100 clusters, for every schedule pass). Snapshots are frozen: they are shared."""
    if connection.vendor != "postgresql":
        return [s for s in map(_parse, Cluster.objects.only(*SNAPSHOT_COLUMNS)) if s is not None]
    digest = _row_digest()
    current = list(Cluster.objects.annotate(snapshot_digest=digest).values_list("pk", "snapshot_digest"))
    with _parsed_lock:
        stale = [pk for pk, seen in current if _parsed.get(pk, ("", None))[0] != seen]
    fresh = {}
    if stale:
        rows = Cluster.objects.filter(pk__in=stale).only(*SNAPSHOT_COLUMNS).annotate(snapshot_digest=digest)
        fresh = {row.pk: (row.snapshot_digest, _parse(row)) for row in rows}
    with _parsed_lock:
        _parsed.update(fresh)
        for pk in set(_parsed) - {pk for pk, _ in current}:
            del _parsed[pk]
        found = [_parsed[pk][1] for pk, _ in current if pk in _parsed]
    return [snapshot for snapshot in found if snapshot is not None]


def _parse(cluster: Cluster) -> ClusterSnapshot | None:
    try:
        return cluster_snapshot(cluster)
    except InputError:
        return None


def _fresh(binding: ResourceBinding) -> bool:
    """A reschedule was triggered after the last schedule."""
    return bool(
        binding.reschedule_triggered_at
        and binding.last_scheduled_time
        and binding.reschedule_triggered_at > binding.last_scheduled_time
    )


def planner_binding(binding: ResourceBinding) -> Binding:
    template = binding.template
    fresh = _fresh(binding)
    return Binding(
        replicas=binding.replicas,
        requirements=requirements_from_json(binding.replica_requirements),
        previous=tuple(TargetCluster(c["name"], int(c.get("replicas") or 0)) for c in binding.clusters),
        observed_affinity=binding.scheduler_observed_affinity_name,
        uid=str(template.uid),
        api_version=template.api_version,
        kind=template.kind,
        namespace=template.namespace,
        name=template.name,
        eviction_tasks=tuple(
            EvictionTask(
                from_cluster=t["fromCluster"],
                replicas=t.get("replicas"),
                purge_mode=t.get("purgeMode", ""),
                reason=t.get("reason", ""),
                producer=t.get("producer", ""),
            )
            for t in binding.graceful_eviction_tasks
        ),
        fresh=fresh,
        affinity_group=binding.affinity_group,
        anti_affinity_group=binding.anti_affinity_group,
    )


def stored_usage(binding: ResourceBinding) -> dict[str, Fraction]:
    """What one binding uses now: its spec.clusters times its per-replica requests (malformed: nothing)."""
    try:
        requirements = requirements_from_json(binding.replica_requirements)
    except InputError:
        return {}
    clusters = [TargetCluster(c["name"], int(c.get("replicas") or 0)) for c in binding.clusters]
    return binding_usage(requirements, clusters)


def namespace_usage(namespace: str) -> dict[str, Fraction]:
    """The sum of every ResourceBinding's usage in the namespace (status.overallUsed before filtering)."""
    total: dict[str, Fraction] = {}
    rows = ResourceBinding.objects.filter(kind=RESOURCE_BINDING, namespace=namespace).only(
        "replica_requirements", "clusters"
    )
    for row in rows:
        add_usage(total, stored_usage(row))
    return total


def quota_snapshot(quota: FederatedResourceQuota, used: dict[str, Fraction]) -> QuotaSnapshot | None:
    """A stored quota as the planner checks it; None when its stored overall no longer parses."""
    try:
        overall = parse_resources(quota.spec.get("overall"), "spec.overall")
    except InputError:
        return None
    counted = {name: amount for name, amount in used.items() if name in overall}
    return QuotaSnapshot(namespace=quota.namespace, name=quota.name, overall=overall, used=counted)


def load_quotas(namespace: str) -> list[QuotaSnapshot]:
    """The namespace's FederatedResourceQuotas with its usage now; none for cluster-scoped bindings."""
    if not namespace:
        return []
    quotas = list(FederatedResourceQuota.objects.filter(namespace=namespace))
    if not quotas:
        return []
    used = namespace_usage(namespace)
    return [snapshot for snapshot in (quota_snapshot(q, used) for q in quotas) if snapshot is not None]


def binding_quotas(binding: ResourceBinding) -> list[QuotaSnapshot]:
    """The quotas a ResourceBinding's schedule is checked against (ClusterResourceBindings have none)."""
    return load_quotas(binding.namespace) if binding.kind == RESOURCE_BINDING else []


def load_peers(namespace: str, affinity_group: str, anti_affinity_group: str) -> list[WorkloadPeer]:
    """The namespace's ResourceBindings in either group, as the workload affinity filters compare them."""
    if not namespace or not (affinity_group or anti_affinity_group):
        return []
    groups = Q()
    if affinity_group:
        groups |= Q(workload_affinity_groups__affinityGroup=affinity_group)
    if anti_affinity_group:
        groups |= Q(workload_affinity_groups__antiAffinityGroup=anti_affinity_group)
    rows = ResourceBinding.objects.filter(groups, kind=RESOURCE_BINDING, namespace=namespace).select_related(
        "template"
    )
    return [
        WorkloadPeer(
            namespace=row.namespace,
            name=row.name,
            affinity_group=row.affinity_group,
            anti_affinity_group=row.anti_affinity_group,
            clusters=tuple(c["name"] for c in row.clusters),
            workload=f"{row.template.kind} {row.namespace}/{row.template.name}",
        )
        for row in rows
    ]


def binding_peers(binding: ResourceBinding) -> list[WorkloadPeer]:
    """The peers a ResourceBinding's workload affinity groups compare it with."""
    if binding.kind != RESOURCE_BINDING:
        return []
    return load_peers(binding.namespace, binding.affinity_group, binding.anti_affinity_group)


def planner_placement(binding: ResourceBinding) -> Placement:
    annotations = binding.policy.annotations if binding.policy else {}
    return Placement.from_dict(binding.placement, division_method_from_annotations(annotations))


def plan_key(binding: ResourceBinding) -> tuple[Any, ...]:
    """What planner_placement and planner_binding read from a binding (keep the three in step), less its
    name and namespace, which the planner reads only to compare peers and quotas, and, when Duplicated,
    its uid, which only breaks division ties: two bindings with the same key, planned with no peers and
    no quotas over the same clusters, get the same plan (the stored replicaRequirements name the
    namespace, so bindings share keys within one). Raises InputError as planner_placement does."""
    template = binding.template
    placement = binding.placement or {}
    duplicated = (placement.get("replicaScheduling") or {}).get("replicaSchedulingType") == "Duplicated"
    return (
        json.dumps(placement, sort_keys=True),
        division_method_from_annotations(binding.policy.annotations if binding.policy else {}),
        binding.replicas,
        json.dumps(binding.replica_requirements, sort_keys=True),
        tuple((c["name"], int(c.get("replicas") or 0)) for c in binding.clusters),
        binding.scheduler_observed_affinity_name,
        "" if duplicated else str(template.uid),
        template.api_version,
        template.kind,
        json.dumps(binding.graceful_eviction_tasks, sort_keys=True),
        _fresh(binding),
        binding.affinity_group,
        binding.anti_affinity_group,
    )
