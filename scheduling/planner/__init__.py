"""Karmada-faithful multi-cluster scheduler: frozen dataclasses in, a plan with a reason per cluster out.

Pure Python: no Django, Celery, kubernetes or plotly; no clock and no randomness.  The
behaviour follows ``spec/karmada-scheduling.md`` (Karmada v1.16+), plus two extensions: the
``largest-remainder`` division method and node claims with a node-level estimator.

Stable public API
-----------------

Inputs
    ``ClusterSnapshot(name, labels, provider, region, zones, taints, ready, deleting,
    api_enablements, api_enablements_complete, resource_summary, nodes, resource_models)`` — one
    member cluster; ``resource_models`` are ``spec.resourceModels`` grades (``ResourceModel``).
    ``ready`` is the Ready condition ("True"/"False"/"Unknown", None = no condition); the
    controller's NoSchedule taints follow from it.  ``api_enablements`` is a frozenset of
    (groupVersion, kind) or None when not modelled (then every API counts as enabled).
    ``ResourceSummary(allocatable, allocated, allocating, allocatable_modelings)`` (with modelings
    reported, the general estimator counts the modelled nodes as Karmada does) and ``Node(...)`` hold exact
    quantities (``kubesyntax.quantities.quantity_amount("500m")``); ``nodes=None``: no node list known.

    ``Placement.from_dict(placement_dict, division_method="webster")`` — a Karmada placement with
    webhook defaults applied (missing replicaScheduling → Duplicated; Divided with no preference →
    Weighted; spread constraints default to field ``cluster`` and minGroups 1; maxGroups is NOT
    defaulted).  ``division_method_from_annotations(policy_annotations)`` reads
    ``scheduling.karmada-ui.io/division-method``.  The extension field
    ``placement.resource.nodeClaim {nodeSelector, tolerations}`` is parsed too.

    ``Binding(replicas, requirements, previous, observed_affinity, uid, api_version, kind,
    namespace, name, eviction_tasks, fresh, affinity_group, anti_affinity_group)`` — the workload
    as its ResourceBinding carries it;
    ``requirements`` is ``ReplicaRequirements(resource_request, node_claim)`` or None,
    ``previous`` the previous ``spec.clusters`` as ``TargetCluster`` tuples, ``fresh`` True when
    a reschedule was triggered (WorkloadRebalancer), the groups ``spec.workloadAffinityGroups``
    (``affinity_groups(placement.workload_affinity, template_labels)`` derives them as the detector does).

    ``WorkloadPeer(namespace, name, affinity_group, anti_affinity_group, clusters, workload)`` — another
    ResourceBinding for the WorkloadAffinity / WorkloadAntiAffinity filters.
    ``QuotaSnapshot(namespace, name, overall, used)`` — a FederatedResourceQuota and the namespace's
    usage now (``binding_usage(requirements, clusters)`` per binding, summed).

Entry points
    ``plan(clusters, placement, binding, *, peers=(), quotas=()) -> Plan`` with ``Plan.clusters``
    (TargetCluster tuple in Karmada's order), ``Plan.error`` (None or ``PlanError(reason, message)``
    with reason ``NoClusterFit`` — clusters cleared —, ``Unschedulable``, ``SchedulerError`` or
    ``QuotaExceeded`` — previous result kept), ``Plan.observed_affinity``, ``Plan.strategy`` and
    ``Plan.explanation``.

    ``split_cost(clusters, requirements, proposed, current)`` — the hourly cost of a split from the
    clusters' ``cost.karmada-ui.io/cpu-hour`` and ``memory-gib-hour`` labels.

    ``rollout_spec_from_annotations(policy_annotations)``, ``plan_waves(spec, clusters, targets)`` and
    ``plan_rollout(spec, waves, revision, statuses, released, phase, now)`` — staged rollouts (the
    ``rollout.karmada-ui.io/*`` annotations): the wave plan, and where a rollout stands per cluster.

    ``validate_placement(placement_dict) -> [(field_path, message)]`` — webhook validation.

    ``describe(plan.explanation) -> [str]`` — English sentences for an explanation; every string
    lives in ``scheduling.planner.messages``.

Explanation (JSON-serialisable dict)
    ``strategy``, ``mode`` (steady/fresh), ``division_method``, ``workload``, ``clusters`` (one per
    cluster, sorted by name: ``outcome`` excluded/not_selected/selected/assigned, ``reasons`` (why
    excluded or not selected)
    [{filter, code, params, message}], ``score``, ``allocatable``, ``available``, ``capacity``
    {general, nodes, eligible_nodes, total_nodes}, ``weight``, ``overflow_order``, ``replicas``),
    ``candidate_order``, ``selection`` (method all/cluster/region, regions, chosen_regions, limit,
    swaps), ``divisions`` (per division: method, replicas, weights, result and ``seats`` — the
    contested replicas in hand-out order as {replica, cluster, priority, runner_up,
    runner_up_priority, tie_break}), ``error``, ``result_kept``, optional ``phase``, ``tiers``,
    ``aggregated_prefix``, ``affinity_terms`` [{name, error, reason}] and ``quota`` (with quotas:
    {before, after, proposed, exceeded, message, quotas: [{namespace, name, unchanged, exceeded,
    resources: [{resource, limit, used, change, projected, over}]}]}).
"""

from kubesyntax.taints import Taint, Toleration

from .cost import CPU_HOUR_LABEL, MEMORY_GIB_HOUR_LABEL, cluster_price, split_cost
from .errors import NO_CLUSTER_FIT, SCHEDULER_ERROR, UNSCHEDULABLE, InputError
from .messages import describe
from .model import (
    Binding,
    ClusterSnapshot,
    EvictionTask,
    Node,
    Plan,
    PlanError,
    ReplicaRequirements,
    ResourceSummary,
    TargetCluster,
    parse_resources,
)
from .pipeline import plan
from .placement import (
    DIVISION_ANNOTATION,
    LARGEST_REMAINDER,
    WEBSTER,
    NodeClaim,
    Placement,
    division_method_from_annotations,
)
from .placement_validation import validate_placement
from .quota import QUOTA_EXCEEDED, QuotaExceededError, QuotaSnapshot, add_usage, binding_usage, check_quota
from .resource_models import ResourceModel
from .waves import (
    MemberStatus,
    RolloutPlan,
    RolloutSpec,
    Wave,
    plan_rollout,
    plan_waves,
    rollout_spec_from_annotations,
)
from .workload_affinity import WorkloadAffinity, WorkloadPeer, affinity_groups

__all__ = [
    "CPU_HOUR_LABEL",
    "DIVISION_ANNOTATION",
    "LARGEST_REMAINDER",
    "MEMORY_GIB_HOUR_LABEL",
    "NO_CLUSTER_FIT",
    "QUOTA_EXCEEDED",
    "SCHEDULER_ERROR",
    "UNSCHEDULABLE",
    "WEBSTER",
    "Binding",
    "ClusterSnapshot",
    "EvictionTask",
    "InputError",
    "MemberStatus",
    "Node",
    "NodeClaim",
    "Placement",
    "Plan",
    "PlanError",
    "QuotaExceededError",
    "QuotaSnapshot",
    "ReplicaRequirements",
    "ResourceModel",
    "ResourceSummary",
    "RolloutPlan",
    "RolloutSpec",
    "Taint",
    "TargetCluster",
    "Toleration",
    "Wave",
    "WorkloadAffinity",
    "WorkloadPeer",
    "add_usage",
    "affinity_groups",
    "binding_usage",
    "check_quota",
    "cluster_price",
    "describe",
    "division_method_from_annotations",
    "parse_resources",
    "plan",
    "plan_rollout",
    "plan_waves",
    "rollout_spec_from_annotations",
    "split_cost",
    "validate_placement",
]
