"""The desired state of propagation: templates, policies, bindings, works, events and taint policies."""

from __future__ import annotations

import uuid
from typing import Any

from django.db import models

from core.json_field import JSONField
from scheduling.karmada import names
from scheduling.karmada.names import (
    CLUSTER_OVERRIDE_POLICY,
    CLUSTER_PROPAGATION_POLICY,
    CLUSTER_RESOURCE_BINDING,
    HEALTHY,
    OVERRIDE_POLICY,
    PROPAGATION_POLICY,
    RESOURCE_BINDING,
    UNHEALTHY,
    UNKNOWN,
)
from scheduling.karmada.work_counts import FIELD_NAMES as COUNT_NAMES
from scheduling.karmada.work_counts import WorkCounts, count_works

__all__ = [
    "CLUSTER_OVERRIDE_POLICY",
    "CLUSTER_PROPAGATION_POLICY",
    "CLUSTER_RESOURCE_BINDING",
    "HEALTHY",
    "OVERRIDE_POLICY",
    "PROPAGATION_POLICY",
    "RESOURCE_BINDING",
    "UNHEALTHY",
    "UNKNOWN",
    "ClusterTaintPolicy",
    "Event",
    "FederatedResourceQuota",
    "OverridePolicy",
    "PlacementKey",
    "PropagationPolicy",
    "ResourceBinding",
    "ResourceTemplate",
    "Rollout",
    "TemplateRevision",
    "Work",
]


class ResourceTemplate(models.Model):
    """A Kubernetes object on the control plane, stored as its manifest, that policies propagate."""

    uid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    api_version = models.CharField(max_length=253)
    api_group = models.CharField(max_length=253, blank=True)
    kind = models.CharField(max_length=63)
    namespace = models.CharField(max_length=63, blank=True, help_text="Empty for cluster-scoped kinds.")
    name = models.CharField(max_length=253)
    manifest = JSONField(help_text="The object as applied, without server-populated fields.")
    generation = models.PositiveBigIntegerField(default=1)
    # status aggregated from the member copies (karmada/status.py), as Karmada writes it on the template
    status = JSONField(default=dict, blank=True)
    # The detector's claim: which policy holds this template (Karmada's claim labels on the template).
    policy = models.ForeignKey(
        "PropagationPolicy", null=True, blank=True, on_delete=models.SET_NULL, related_name="templates"
    )
    # Set when a template is deleted: its binding and works go first, then the row.
    deleting_since = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["api_group", "kind", "namespace", "name"], name="template_identity"
            )
        ]
        ordering = ["namespace", "name", "kind"]

    def __str__(self) -> str:
        return f"{self.kind} {self.namespace + '/' if self.namespace else ''}{self.name}"

    @property
    def labels(self) -> dict[str, str]:
        return dict((self.manifest.get("metadata") or {}).get("labels") or {})

    @property
    def annotations(self) -> dict[str, str]:
        return dict((self.manifest.get("metadata") or {}).get("annotations") or {})

    def claim_metadata(self) -> tuple[dict[str, str], dict[str, str]]:
        """The claim labels and annotations Karmada's detector puts on a claimed template."""
        policy = self.policy
        if policy is None:
            return {}, {}
        if policy.is_cluster_scoped:
            return {names.CPP_PERMANENT_ID: str(policy.permanent_id)}, {names.CPP_NAME: policy.name}
        return (
            {names.PP_PERMANENT_ID: str(policy.permanent_id)},
            {names.PP_NAME: policy.name, names.PP_NAMESPACE: policy.namespace},
        )


class PolicyBase(models.Model):
    """Fields shared by propagation and override policies: identity, metadata and the Karmada spec."""

    kind = models.CharField(max_length=40)
    namespace = models.CharField(max_length=63, blank=True, help_text="Empty for cluster-scoped policies.")
    name = models.CharField(max_length=253)
    permanent_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    labels = JSONField(default=dict, blank=True)
    annotations = JSONField(default=dict, blank=True)
    spec = JSONField(help_text="The Karmada spec, with webhook defaults applied.")
    generation = models.PositiveBigIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True
        ordering = ["namespace", "name"]

    def __str__(self) -> str:
        return f"{self.kind} {self.namespace + '/' if self.namespace else ''}{self.name}"

    @property
    def is_cluster_scoped(self) -> bool:
        return self.kind.startswith("Cluster")

    @property
    def resource_selectors(self) -> list[dict[str, Any]]:
        return list(self.spec.get("resourceSelectors") or [])


class PropagationPolicy(PolicyBase):
    """A PropagationPolicy (namespaced) or ClusterPropagationPolicy (cluster-scoped)."""

    priority = models.IntegerField(default=0)
    preemption = models.CharField(max_length=10, default="Never")
    scheduler_name = models.CharField(max_length=253, default="default-scheduler")
    conflict_resolution = models.CharField(max_length=10, default="Abort")
    propagate_deps = models.BooleanField(default=False)
    activation_preference = models.CharField(max_length=10, blank=True)

    class Meta(PolicyBase.Meta):
        constraints = [
            models.UniqueConstraint(fields=["kind", "namespace", "name"], name="propagation_policy_identity")
        ]

    @property
    def placement(self) -> dict[str, Any]:
        return dict(self.spec.get("placement") or {})

    @property
    def permanent_id_label(self) -> str:
        return names.CPP_PERMANENT_ID if self.is_cluster_scoped else names.PP_PERMANENT_ID


class OverridePolicy(PolicyBase):
    """An OverridePolicy (namespaced) or ClusterOverridePolicy (cluster-scoped)."""

    class Meta(PolicyBase.Meta):
        constraints = [
            models.UniqueConstraint(fields=["kind", "namespace", "name"], name="override_policy_identity")
        ]


COUNT_COLUMNS = tuple(f"summary_{name}" for name in COUNT_NAMES)
COUNTED_FROM = {"clusters", "replicas", "aggregated_status"}


class ResourceBinding(models.Model):
    """A ResourceBinding or ClusterResourceBinding: one template, its policy's placement, the schedule."""

    kind = models.CharField(max_length=40, default=RESOURCE_BINDING)
    namespace = models.CharField(max_length=63, blank=True)
    name = models.CharField(max_length=253)
    permanent_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    template = models.OneToOneField(ResourceTemplate, on_delete=models.CASCADE, related_name="binding")
    policy = models.ForeignKey(
        PropagationPolicy, null=True, blank=True, on_delete=models.SET_NULL, related_name="bindings"
    )
    generation = models.PositiveBigIntegerField(default=1)
    # the template generation the spec was last derived from (activationPreference: Lazy waits for a new one)
    template_generation = models.PositiveBigIntegerField(default=0)
    # spec
    replicas = models.IntegerField(default=0)
    replica_requirements = JSONField(null=True, blank=True)
    placement = JSONField(default=dict, blank=True)
    clusters = JSONField(default=list, blank=True, help_text="spec.clusters: [{name, replicas}]")
    graceful_eviction_tasks = JSONField(default=list, blank=True)
    reschedule_triggered_at = models.DateTimeField(null=True, blank=True)
    scheduler_name = models.CharField(max_length=253, default="default-scheduler")
    conflict_resolution = models.CharField(max_length=10, default="Abort")
    propagate_deps = models.BooleanField(default=False)
    preserve_resources_on_deletion = models.BooleanField(default=False)
    suspension = JSONField(null=True, blank=True)
    # karmada-ui: an operator's own holds on this workload {scheduling, dispatching, dispatchingOnClusters},
    # merged into spec.suspension with the policy's (karmada/suspension.py)
    suspension_holds = JSONField(default=dict, blank=True)
    # spec.schedulePriority.priority, resolved from the policy's PriorityClass; None when the policy sets none
    schedule_priority = models.IntegerField(null=True, blank=True, db_index=True)
    # spec.workloadAffinityGroups {affinityGroup, antiAffinityGroup}: "<label key>=<value>" of the template
    workload_affinity_groups = JSONField(null=True, blank=True)
    failover = JSONField(null=True, blank=True)
    required_by = JSONField(
        default=list, blank=True, help_text="Bindings whose workloads reference this dependency."
    )
    # metadata.annotations[policy.karmada.io/applied-placement]
    applied_placement = JSONField(null=True, blank=True)
    # status
    conditions = JSONField(default=list, blank=True)
    scheduler_observed_affinity_name = models.CharField(max_length=63, blank=True)
    scheduler_observed_generation = models.PositiveBigIntegerField(default=0)
    last_scheduled_time = models.DateTimeField(null=True, blank=True)
    aggregated_status = JSONField(default=list, blank=True)
    # karmada-ui: the counts a workload row shows (karmada/work_counts.py), kept by save() and by every
    # write of aggregatedStatus (a bulk write must call refresh_counts()), so lists never decode
    # spec.clusters or aggregatedStatus
    summary_clusters = models.PositiveIntegerField(default=0)
    summary_applied = models.PositiveIntegerField(default=0)
    summary_healthy = models.PositiveIntegerField(default=0)
    summary_unhealthy = models.PositiveIntegerField(default=0)
    summary_failed = models.PositiveIntegerField(default=0)
    summary_desired = models.PositiveBigIntegerField(default=0)
    summary_ready = models.PositiveBigIntegerField(default=0)
    # the reschedule-policy extension: when this workload last shed replicas off a hot cluster
    last_load_move_at = models.DateTimeField(null=True, blank=True)
    # the work queue keyed by object: set when an event may change this binding, cleared by the task
    # that takes it; one task is queued per marking, so a binding marked twice is worked on once
    dirty_since = models.DateTimeField(null=True, blank=True, db_index=True)
    # propagation's skip: the digest of what the Works were last rendered from and of the Works as they were
    # left (controllers/render_keys.py); a sync that computes the same key has nothing to render
    rendered_key = models.CharField(max_length=64, blank=True, default="")
    # the periodic pass's skips: the digest of what detection, sync and aggregation read for this binding
    # when each last found it settled (controllers/reconcile_digests.py); a pass that reads the same
    # digest leaves the step out
    detect_digest = models.CharField(max_length=32, blank=True, default="")
    sync_digest = models.CharField(max_length=32, blank=True, default="")
    aggregate_digest = models.CharField(max_length=32, blank=True, default="")
    # of the sync's digest, the part of what it reads (its inputs) when it last settled the binding: a
    # schedule pass tests on it alone whether a sync would do anything, without digesting every Work
    sync_inputs_digest = models.CharField(max_length=32, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["kind", "namespace", "name"], name="binding_identity")]
        ordering = ["namespace", "name"]

    def __str__(self) -> str:
        return f"{self.kind} {self.namespace + '/' if self.namespace else ''}{self.name}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Saves, keeping the stored counts in step with spec.clusters, spec.replicas and aggregatedStatus."""
        update_fields = kwargs.get("update_fields")
        if update_fields is None or COUNTED_FROM & set(update_fields):
            changed = self.refresh_counts()
            if update_fields is not None:
                kwargs["update_fields"] = [*update_fields, *changed]
        super().save(*args, **kwargs)

    @property
    def is_cluster_scoped(self) -> bool:
        return self.kind == CLUSTER_RESOURCE_BINDING

    @property
    def permanent_id_label(self) -> str:
        return names.CRB_PERMANENT_ID if self.is_cluster_scoped else names.RB_PERMANENT_ID

    @property
    def priority(self) -> int:
        """The scheduling queue's priority: spec.schedulePriority.priority, 0 when unset."""
        return self.schedule_priority or 0

    @property
    def affinity_group(self) -> str:
        return str((self.workload_affinity_groups or {}).get("affinityGroup") or "")

    @property
    def anti_affinity_group(self) -> str:
        return str((self.workload_affinity_groups or {}).get("antiAffinityGroup") or "")

    def refresh_counts(self) -> list[str]:
        """Recount from spec and status; returns the count columns (all of them, for update_fields)."""
        for name, value in (
            count_works(self.clusters, self.replicas, self.aggregated_status).as_dict().items()
        ):
            if name in COUNT_NAMES:
                setattr(self, f"summary_{name}", value)
        return list(COUNT_COLUMNS)

    @property
    def counts(self) -> WorkCounts:
        """The stored counts, as a workload row shows them."""
        return WorkCounts(*(getattr(self, column) for column in COUNT_COLUMNS))

    def target_replicas(self) -> dict[str, int]:
        """spec.clusters as {cluster: replicas}."""
        return {entry["name"]: int(entry.get("replicas") or 0) for entry in self.clusters}

    def condition(self, type_: str) -> dict[str, Any] | None:
        for condition in self.conditions:
            if condition.get("type") == type_:
                return condition
        return None


class PlacementKey(models.Model):
    """One cluster label, field or name a binding's placement selects on (karmada/selection.py): the
    index that finds the bindings a cluster change can affect without reading every placement."""

    binding = models.ForeignKey(ResourceBinding, on_delete=models.CASCADE, related_name="placement_keys")
    key = models.CharField(max_length=400)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["key", "binding"], name="placement_key_identity")]

    def __str__(self) -> str:
        return f"{self.binding_id} selects on {self.key}"


class Work(models.Model):
    """What one member cluster should hold for a binding: the final manifest and its apply state."""

    binding = models.ForeignKey(ResourceBinding, on_delete=models.CASCADE, related_name="works")
    cluster_name = models.CharField(max_length=253)
    namespace = models.CharField(max_length=253)
    name = models.CharField(max_length=253)
    permanent_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    manifest = JSONField()
    desired_hash = models.CharField(max_length=64)
    applied_hash = models.CharField(max_length=64, blank=True)
    applied = models.BooleanField(default=False)
    applied_reason = models.CharField(max_length=63, blank=True)
    applied_message = models.TextField(blank=True)
    applied_at = models.DateTimeField(null=True, blank=True)
    # desired absence: the member copy is deleted (or released, when preserved) and then the row
    deleting = models.BooleanField(default=False)
    preserve_on_delete = models.BooleanField(default=False)
    suspended = models.BooleanField(default=False)
    # the applied-(cluster-)overrides annotations: {"cluster": [...], "namespaced": [...]}
    applied_overrides = JSONField(default=dict, blank=True)
    # status collected back from the member cluster
    health = models.CharField(max_length=10, default=UNKNOWN)
    # since when the member copy has been Unhealthy without a break (application failover counts from it)
    unhealthy_since = models.DateTimeField(null=True, blank=True)
    status = JSONField(default=dict, blank=True)
    status_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["namespace", "name"], name="work_identity")]
        indexes = [models.Index(fields=["cluster_name"])]
        ordering = ["binding_id", "cluster_name"]

    def __str__(self) -> str:
        return f"Work {self.namespace}/{self.name}"

    @property
    def in_sync(self) -> bool:
        return self.applied and self.applied_hash == self.desired_hash


class Event(models.Model):
    """Something that happened to an object, with the data behind it (e.g. the planner's explanation)."""

    NORMAL = "Normal"
    WARNING = "Warning"

    object_kind = models.CharField(max_length=63)
    object_namespace = models.CharField(max_length=253, blank=True)
    object_name = models.CharField(max_length=253)
    object_uid = models.CharField(max_length=64, blank=True, db_index=True)
    type = models.CharField(max_length=10, default=NORMAL)
    reason = models.CharField(max_length=63)
    message = models.TextField()
    data = JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["object_kind", "object_namespace", "object_name"])]

    def __str__(self) -> str:
        return f"{self.type} {self.reason}: {self.message}"


class ClusterTaintPolicy(models.Model):
    """Adds or removes taints on target clusters as their conditions change (Karmada ClusterTaintPolicy)."""

    name = models.CharField(max_length=253, unique=True)
    permanent_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    labels = JSONField(default=dict, blank=True)
    annotations = JSONField(default=dict, blank=True)
    spec = JSONField()
    generation = models.PositiveBigIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"ClusterTaintPolicy {self.name}"


class WorkloadRebalancer(models.Model):
    """A request for a fresh reschedule of named workloads (Karmada's apps.karmada.io WorkloadRebalancer):
    each workload's outcome is kept as Karmada's status reports it."""

    name = models.CharField(max_length=253, unique=True)
    permanent_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    labels = JSONField(default=dict, blank=True)
    annotations = JSONField(default=dict, blank=True)
    # spec.workloads: [{apiVersion, kind, name, namespace}]
    workloads = JSONField(default=list)
    ttl_seconds_after_finished = models.PositiveIntegerField(null=True, blank=True)
    # status.observedWorkloads: [{workload, result: Successful|Failed, reason}]
    observed_workloads = JSONField(default=list, blank=True)
    observed_generation = models.PositiveBigIntegerField(default=0)
    finish_time = models.DateTimeField(null=True, blank=True)
    generation = models.PositiveBigIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"WorkloadRebalancer {self.name}"


class FederatedResourceQuota(models.Model):
    """A FederatedResourceQuota (policy.karmada.io/v1alpha1): an overall limit for one namespace.

    ``spec.overall`` limits the sum over the namespace's ResourceBindings of replicas times per-replica
    requests; the scheduler refuses a result that would exceed it.  The status (overall, overallUsed)
    is derived from the bindings whenever it is read.
    """

    namespace = models.CharField(max_length=63)
    name = models.CharField(max_length=253)
    permanent_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    labels = JSONField(default=dict, blank=True)
    annotations = JSONField(default=dict, blank=True)
    spec = JSONField(help_text="The Karmada spec: overall and, optionally, staticAssignments.")
    generation = models.PositiveBigIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["namespace", "name"], name="federated_quota_identity")]
        ordering = ["namespace", "name"]

    def __str__(self) -> str:
        return f"FederatedResourceQuota {self.namespace}/{self.name}"

    @property
    def overall(self) -> dict[str, str]:
        return dict(self.spec.get("overall") or {})


class DriftEvent(models.Model):
    """A member copy found changed by someone else: what differed, which field managers set it, the
    diff, and whether it was put back (by the repair, or an operator's re-apply) or the repair is held."""

    REPAIRING = "repairing"
    PUT_BACK = "put-back"
    HELD = "held"
    STATES = [(REPAIRING, "repairing"), (PUT_BACK, "put back"), (HELD, "held")]

    binding = models.ForeignKey(ResourceBinding, on_delete=models.CASCADE, related_name="drift_events")
    work = models.ForeignKey(Work, on_delete=models.SET_NULL, null=True, related_name="drift_events")
    cluster_name = models.CharField(max_length=253, db_index=True)
    object_kind = models.CharField(max_length=63)
    object_namespace = models.CharField(max_length=253, blank=True)
    object_name = models.CharField(max_length=253)
    detected_at = models.DateTimeField(db_index=True)
    changes = JSONField(default=list, help_text="[{path, desired, live, managers}]")
    managers = JSONField(default=list, help_text="[{manager, operation, time}] of the changed fields")
    diff = models.TextField(blank=True, help_text="unified diff of our manifest against the live copy")
    state = models.CharField(max_length=16, choices=STATES, default=REPAIRING)
    held_reason = models.TextField(blank=True)
    put_back_at = models.DateTimeField(null=True, blank=True)
    put_back_by = models.CharField(max_length=150, blank=True)

    class Meta:
        ordering = ["-detected_at", "-id"]
        indexes = [models.Index(fields=["work", "put_back_at"])]

    def __str__(self) -> str:
        return f"drift of {self.object_kind} {self.object_name} in {self.cluster_name} ({self.state})"


class TemplateRevision(models.Model):
    """A template's manifest at one generation, kept so a staged rollout can hold clusters on it or
    abort back to it."""

    template = models.ForeignKey(ResourceTemplate, on_delete=models.CASCADE, related_name="revisions")
    generation = models.PositiveBigIntegerField()
    manifest = JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["template", "generation"], name="template_revision_identity")
        ]
        ordering = ["template_id", "-generation"]

    def __str__(self) -> str:
        return f"{self.template} revision {self.generation}"


class Rollout(models.Model):
    """A staged rollout of one template revision over a binding's clusters, wave by wave (karmada-ui).

    ``released`` holds the clusters already moved to the new revision, with when; every other target
    cluster keeps ``from_revision``. The binding's latest rollout is the one that holds clusters back.
    """

    binding = models.ForeignKey(ResourceBinding, on_delete=models.CASCADE, related_name="rollouts")
    from_revision = models.ForeignKey(TemplateRevision, on_delete=models.CASCADE, related_name="+")
    to_revision = models.ForeignKey(TemplateRevision, on_delete=models.CASCADE, related_name="+")
    phase = models.CharField(max_length=16, default="Progressing", db_index=True)
    released = JSONField(default=dict, blank=True, help_text="{cluster: ISO time it was updated}")
    failed = JSONField(default=list, blank=True, help_text="The stages that halted it.")
    message = models.TextField(blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-pk"]

    def __str__(self) -> str:
        return f"Rollout of {self.binding} to revision {self.to_revision.generation}"
