"""The request and response shapes of the scheduling API; the OpenAPI schema is generated from them."""

from __future__ import annotations

import copy
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from scheduling import summaries
from scheduling.controllers.export import binding_document, propagation_policy_document


class CamelCaseSerializer(serializers.Serializer):
    """Declares fields in snake_case and shows them in camelCase, as Kubernetes and Karmada do."""

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = {}
        for name, field in super().get_fields().items():
            head, *rest = name.split("_")
            camel = head + "".join(part.title() for part in rest)
            if camel != name and field.source is None:
                field.source = name
            if isinstance(field, serializers.SerializerMethodField) and field.method_name is None:
                field.method_name = f"get_{name}"
            fields[camel] = field
        return fields


class RefSerializer(serializers.Serializer):
    kind = serializers.CharField()
    namespace = serializers.CharField(allow_blank=True)
    name = serializers.CharField()


class WorkloadRefSerializer(RefSerializer):
    id = serializers.IntegerField()


class BindingRefSerializer(serializers.Serializer):
    kind = serializers.CharField()
    name = serializers.CharField()


# --------------------------------------------------------------------------------------------- apply


class ApplyRequestSerializer(serializers.Serializer):
    """The JSON form of an apply; the body may also be the YAML itself (application/yaml)."""

    yaml = serializers.CharField(help_text="multi-document Kubernetes and Karmada YAML")


class AppliedSerializer(serializers.Serializer):
    kind = serializers.CharField()
    namespace = serializers.CharField(allow_blank=True)
    name = serializers.CharField()
    action = serializers.ChoiceField(["created", "configured", "unchanged", "skipped"])
    note = serializers.CharField(required=False, help_text="why a document was skipped")

    def to_representation(self, instance: Any) -> dict[str, Any]:
        return instance.as_dict()


class ApplyResultSerializer(serializers.Serializer):
    objects = AppliedSerializer(many=True)


# ------------------------------------------------------------------- priority, suspension and quotas


class SuspensionRequestSerializer(serializers.Serializer):
    """Pause (true) or resume (false) the workload's scheduling, or its dispatching; with cluster,
    dispatching to that one cluster only. Exactly one of scheduling or dispatching."""

    scheduling = serializers.BooleanField(required=False, help_text="true pauses scheduling, false resumes")
    dispatching = serializers.BooleanField(required=False, help_text="true pauses dispatching, false resumes")
    cluster = serializers.CharField(
        required=False, help_text="with dispatching: only this one of the workload's clusters"
    )

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({unknown[0]: ["is not a field of this request"]})
            for key in ("scheduling", "dispatching"):
                if key in data and not isinstance(data[key], bool):
                    raise serializers.ValidationError({key: ["must be true (pause) or false (resume)"]})
        return super().to_internal_value(data)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        chosen = [key for key in ("scheduling", "dispatching") if key in attrs]
        if len(chosen) != 1:
            raise serializers.ValidationError(
                {"scheduling": ["give exactly one of scheduling or dispatching (true pauses, false resumes)"]}
            )
        if "cluster" in attrs and chosen[0] != "dispatching":
            raise serializers.ValidationError({"cluster": ["only dispatching is paused per cluster"]})
        return attrs


class SuspensionSerializer(CamelCaseSerializer):
    """What is held for a workload and by whom (the operator's holds, the policy's suspension)."""

    suspended = serializers.BooleanField()
    scheduling = serializers.BooleanField(help_text="spec.suspension.scheduling")
    dispatching = serializers.BooleanField(help_text="dispatching suspended to every cluster")
    dispatching_on_clusters = serializers.ListField(child=serializers.CharField())
    by_operator = serializers.JSONField(help_text="the operator's holds")
    by_policy = serializers.JSONField(help_text="the policy's own spec.suspension")

    def to_representation(self, instance: Any) -> dict[str, Any]:
        return dict(instance)


class QuotaResourceSerializer(serializers.Serializer):
    resource = serializers.CharField()
    limit = serializers.CharField()
    used = serializers.CharField()
    percent = serializers.IntegerField(help_text="used as a percentage of the limit")
    over = serializers.BooleanField()
    counted = serializers.BooleanField(
        help_text="false for a key Karmada never counts (requests.cpu, pods, ...)"
    )


class QuotaWorkloadSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="template.pk")
    kind = serializers.CharField(source="template.kind")
    name = serializers.CharField(source="template.name")
    usage = serializers.DictField(child=serializers.CharField(), help_text="what it uses of each limit")
    refused = serializers.CharField(allow_blank=True, help_text="the QuotaExceeded message, when refused")


class QuotaSerializer(serializers.Serializer):
    """A FederatedResourceQuota with its status now, used against limit, and its namespace's workloads."""

    namespace = serializers.CharField(source="entry.quota.namespace")
    name = serializers.CharField(source="entry.quota.name")
    document = serializers.JSONField(
        source="entry.document", help_text="the quota as Karmada YAML, with status"
    )
    resources = QuotaResourceSerializer(source="entry.resources", many=True)
    workloads = QuotaWorkloadSerializer(source="panel.workloads", many=True)


# ----------------------------------------------------------------------------------------- workloads


class ClusterReplicasSerializer(serializers.Serializer):
    cluster = serializers.CharField()
    desired = serializers.IntegerField(allow_null=True, help_text="null for a workload without replicas")
    ready = serializers.IntegerField(allow_null=True)
    health = serializers.CharField()
    applied = serializers.BooleanField()
    message = serializers.CharField(allow_blank=True)


class WorkCountsSerializer(serializers.Serializer):
    """A workload's binding counted over its target clusters, from the counts stored on every write."""

    clusters = serializers.IntegerField(help_text="target clusters (spec.clusters)")
    applied = serializers.IntegerField(help_text="target clusters whose Work is applied")
    healthy = serializers.IntegerField(help_text="target clusters reporting Healthy")
    unhealthy = serializers.IntegerField(help_text="target clusters reporting Unhealthy")
    unknown = serializers.IntegerField(help_text="target clusters reporting neither (or not yet)")
    failed = serializers.IntegerField(help_text="target clusters whose apply failed with a reason")
    desired = serializers.IntegerField(help_text="replicas wanted over the targets; 0 without replicas")
    ready = serializers.IntegerField(help_text="ready replicas the targets report")


class WorkloadSerializer(CamelCaseSerializer):
    """One resource template (a WorkloadRow) with its policy and its binding's counts over its clusters;
    the workload's own endpoint adds the per-cluster entries (``clusters``)."""

    id = serializers.IntegerField(source="template.pk")
    api_version = serializers.CharField(source="template.api_version")
    kind = serializers.CharField(source="template.kind")
    namespace = serializers.CharField(source="template.namespace", allow_blank=True)
    name = serializers.CharField(source="template.name")
    uid = serializers.CharField(source="template.uid")
    generation = serializers.IntegerField(source="template.generation")
    status = serializers.JSONField(
        source="template.status",
        help_text="the template's status aggregated from its member copies (replicas, conditions, "
        "observedGeneration), as Karmada writes it",
    )
    policy = RefSerializer(allow_null=True)
    binding = BindingRefSerializer(allow_null=True)
    replicas = serializers.SerializerMethodField()
    scheduled = serializers.JSONField(allow_null=True, help_text="the binding's Scheduled condition")
    summary = serializers.SerializerMethodField()
    schedule_priority = serializers.IntegerField(
        source="priority", allow_null=True, help_text="spec.schedulePriority.priority; null when unset (0)"
    )
    suspension = serializers.SerializerMethodField()
    workload_affinity_groups = serializers.SerializerMethodField()

    @extend_schema_field(serializers.IntegerField())
    def get_replicas(self, row: Any) -> int:
        return row.binding.replicas if row.binding else 0

    @extend_schema_field(WorkCountsSerializer)
    def get_summary(self, row: Any) -> dict[str, int]:
        return dict(row.counts.as_dict())

    @extend_schema_field(SuspensionSerializer(allow_null=True))
    def get_suspension(self, row: Any) -> dict[str, Any] | None:
        return summaries.suspension_summary(row.binding, row.template.policy) if row.binding else None

    @extend_schema_field(
        serializers.JSONField(
            allow_null=True, help_text="{affinityGroup, antiAffinityGroup}: <label>=<value>"
        )
    )
    def get_workload_affinity_groups(self, row: Any) -> dict[str, str] | None:
        return row.binding.workload_affinity_groups if row.binding else None


class WorkSerializer(CamelCaseSerializer):
    cluster = serializers.CharField(source="cluster_name")
    namespace = serializers.CharField()
    name = serializers.CharField()
    applied = serializers.BooleanField(source="in_sync")
    reason = serializers.CharField(source="applied_reason", allow_blank=True)
    message = serializers.CharField(source="applied_message", allow_blank=True)
    desired_hash = serializers.CharField()
    applied_hash = serializers.CharField(allow_blank=True)
    deleting = serializers.BooleanField()
    suspended = serializers.BooleanField()
    health = serializers.CharField()
    status = serializers.JSONField()
    applied_overrides = serializers.JSONField()


class EventSerializer(serializers.Serializer):
    type = serializers.CharField()
    reason = serializers.CharField()
    message = serializers.CharField(allow_blank=True)
    object = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()
    sentences = serializers.SerializerMethodField(help_text="the planner's reasons in words")
    data = serializers.JSONField()

    @extend_schema_field(RefSerializer)
    def get_object(self, event: Any) -> dict[str, str]:
        return {"kind": event.object_kind, "namespace": event.object_namespace, "name": event.object_name}

    @extend_schema_field(serializers.ListField(child=serializers.JSONField()))
    def get_sentences(self, event: Any) -> list[Any]:
        return list(event.data.get("sentences", []))


class WorkloadChainSerializer(WorkloadSerializer):
    """The chain of one workload: its row, why its policy holds it, the binding, works and events."""

    clusters = ClusterReplicasSerializer(many=True, help_text="per target cluster: replicas, health, applied")
    why = serializers.JSONField(allow_null=True, help_text="priority, the selector that matched, rivals")
    strategy = serializers.CharField(allow_null=True, help_text="Duplicated, StaticWeight, DynamicWeight…")
    binding_document = serializers.SerializerMethodField()
    works = WorkSerializer(many=True)
    events = EventSerializer(many=True)

    @extend_schema_field(
        serializers.JSONField(allow_null=True, help_text="the ResourceBinding as Karmada YAML")
    )
    def get_binding_document(self, row: Any) -> dict[str, Any] | None:
        return binding_document(row.binding) if row.binding else None


class RebalancedSerializer(serializers.Serializer):
    rebalanced = serializers.IntegerField(help_text="how many workloads will be rescheduled from scratch")


# ------------------------------------------------------------------------------------------ policies


class PolicyRowSerializer(CamelCaseSerializer):
    """A propagation policy as Karmada YAML (as JSON), with how many workloads it claims and where to
    list them: a policy can claim thousands, so a page of policies never names them."""

    id = serializers.IntegerField(source="pk")
    document = serializers.SerializerMethodField()
    workload_count = serializers.IntegerField(source="claimed", help_text="how many workloads it claims")
    workloads_url = serializers.SerializerMethodField(help_text="the workload list filtered to this policy")

    @extend_schema_field(serializers.JSONField(help_text="the policy as Karmada YAML, as JSON"))
    def get_document(self, policy: Any) -> dict[str, Any]:
        return propagation_policy_document(policy)

    def get_workloads_url(self, policy: Any) -> str:
        return f"/api/v1/workloads/?policy={policy.pk}"


class PolicySerializer(PolicyRowSerializer):
    """One propagation policy as Karmada YAML (as JSON), with every workload it claims."""

    workloads = serializers.SerializerMethodField()

    @extend_schema_field(WorkloadRefSerializer(many=True))
    def get_workloads(self, policy: Any) -> list[dict[str, Any]]:
        return [
            {"id": t.pk, "kind": t.kind, "namespace": t.namespace, "name": t.name}
            for t in policy.templates.all()
        ]


# --------------------------------------------------------------------------------------------- audit


class AuditEntrySerializer(CamelCaseSerializer):
    """Who changed what and when, the fields that changed and how the placement moved."""

    at = serializers.DateTimeField(source="created_at")
    user = serializers.CharField(source="username", allow_blank=True, help_text="empty for the system")
    action = serializers.CharField()
    object = serializers.SerializerMethodField()
    summary = serializers.CharField(allow_blank=True)
    changes = serializers.DictField(
        child=serializers.DictField(), help_text="{field: {before, after}}; a side is absent where it was"
    )
    placement_delta = serializers.DictField(
        child=serializers.DictField(child=serializers.IntegerField()), help_text="{cluster: {before, after}}"
    )

    @extend_schema_field(RefSerializer)
    def get_object(self, entry: Any) -> dict[str, str]:
        return {"kind": entry.object_kind, "namespace": entry.object_namespace, "name": entry.object_name}


# ------------------------------------------------------------------------------------------- preview


class PreviewRequestSerializer(serializers.Serializer):
    policy = serializers.JSONField(
        help_text="the PropagationPolicy or ClusterPropagationPolicy, as YAML text or an object"
    )
    workload = serializers.IntegerField(help_text="the id of a resource template")

    def validate_policy(self, value: Any) -> Any:
        if not isinstance(value, str | dict):
            raise serializers.ValidationError("give the policy as YAML text or as an object")
        return copy.deepcopy(value)


class PreviewSerializer(CamelCaseSerializer):
    """What the policy would do to the workload: the planner's plan in both division methods."""

    workload = WorkloadRefSerializer()
    replicas = serializers.IntegerField()
    replica_requirements = serializers.JSONField(allow_null=True)
    division_method = serializers.CharField()
    plan = serializers.JSONField(help_text="the planner's plan: clusters, reasons per cluster, divisions")
    sentences = serializers.ListField(child=serializers.JSONField(), help_text="the plan's reasons in words")
    current = serializers.DictField(child=serializers.IntegerField(), help_text="replicas per cluster now")
    delta = serializers.DictField(child=serializers.DictField(child=serializers.IntegerField()))
    methods_differ = serializers.BooleanField()
    alternative = serializers.JSONField(help_text="the plan under the other division method")
    quota = serializers.JSONField(allow_null=True, help_text="the FederatedResourceQuota check of the split")
    cost = serializers.JSONField(
        allow_null=True, help_text="the split's cost from the clusters' price labels"
    )


# ------------------------------------------------------------------------------------ staged rollouts


class RolloutStepRequestSerializer(serializers.Serializer):
    """An operator's step on the workload's latest staged rollout."""

    step = serializers.ChoiceField(
        choices=["pause", "resume", "abort"],
        help_text="pause (release nothing more), resume (a paused or halted rollout goes on), "
        "abort (every updated cluster back on the previous revision)",
    )


class RolloutSerializer(CamelCaseSerializer):
    """One rollout of a template revision."""

    id = serializers.IntegerField()
    phase = serializers.CharField(help_text="Progressing, Paused, Halted, Aborted, Complete or Superseded")
    message = serializers.CharField()
    from_revision = serializers.IntegerField(help_text="the template generation held clusters keep")
    to_revision = serializers.IntegerField(help_text="the template generation being rolled out")
    released = serializers.ListField(
        child=serializers.CharField(), help_text="clusters given the new revision"
    )
    failed = serializers.JSONField(
        help_text="the stages that halted it: [{cluster, wave, state, code, message}]"
    )
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)

    def to_representation(self, instance: Any) -> dict[str, Any]:
        data = dict(instance)
        for key in ("startedAt", "finishedAt"):
            if data.get(key) is not None:
                data[key] = serializers.DateTimeField().to_representation(data[key])
        return data


class RolloutSummarySerializer(CamelCaseSerializer):
    """A workload's staged rollout: its settings, the latest rollout wave by wave, the earlier ones."""

    staged = serializers.BooleanField(
        help_text="whether the policy's rollout.karmada-ui.io/waves stages rollouts"
    )
    settings = serializers.JSONField(
        allow_null=True, help_text="{waves, soakSeconds, progressDeadlineSeconds}"
    )
    rollout = RolloutSerializer(allow_null=True)
    waves = serializers.JSONField(
        help_text="[{wave, rule, clusters, state, stages: [{cluster, wave, state, code, message}]}]"
    )
    current_wave = serializers.IntegerField(allow_null=True)
    history = RolloutSerializer(many=True)
    steps = serializers.ListField(
        child=serializers.CharField(), help_text="the steps an operator may take now"
    )

    def to_representation(self, instance: Any) -> dict[str, Any]:
        return {
            "staged": instance["staged"],
            "settings": instance["settings"],
            "rollout": None if instance["rollout"] is None else RolloutSerializer(instance["rollout"]).data,
            "waves": instance["waves"],
            "currentWave": instance["currentWave"],
            "history": [RolloutSerializer(row).data for row in instance["history"]],
            "steps": instance["steps"],
        }
