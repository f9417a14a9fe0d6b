"""API shapes of clusters: what is shown (never credentials) and what join, labels and taints accept."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from clusters.models import Cluster
from clusters.names import cluster_name_error
from kubesyntax.taints import EFFECTS


class ClusterSerializer(serializers.ModelSerializer):
    """A cluster as the API shows it; credentials are write-only at join and never returned."""

    nodes = serializers.SerializerMethodField()
    resources = serializers.SerializerMethodField()
    usage = serializers.SerializerMethodField()

    class Meta:
        model = Cluster
        fields = [
            "name",
            "api_endpoint",
            "sync_mode",
            "provider",
            "region",
            "zone",
            "zones",
            "labels",
            "taints",
            "resource_version",
            "ready",
            "ready_reason",
            "ready_message",
            "ready_since",
            "kubernetes_version",
            "nodes",
            "resources",
            "usage",
            "pod_cidrs",
            "service_cidrs",
            "probe_latency_ms",
            "last_probe_at",
            "last_success_at",
            "status",
            "created",
            "updated",
        ]
        read_only_fields = fields

    def get_nodes(self, obj: Cluster) -> dict[str, int]:
        return {"total": obj.nodes_total, "ready": obj.nodes_ready}

    def get_resources(self, obj: Cluster) -> dict[str, dict[str, int]]:
        """Allocatable and allocated: CPU in millicores, memory in bytes, pods."""
        return {
            "allocatable": {
                "cpu": obj.cpu_allocatable,
                "memory": obj.memory_allocatable,
                "pods": obj.pods_allocatable,
            },
            "allocated": {
                "cpu": obj.cpu_allocated,
                "memory": obj.memory_allocated,
                "pods": obj.pods_allocated,
            },
        }

    def get_usage(self, obj: Cluster) -> dict[str, int | None]:
        """CPU (millicores) and memory (bytes) in use, from metrics.k8s.io; null without a metrics server."""
        return {"cpu": obj.cpu_usage, "memory": obj.memory_usage}


class LabelMap(serializers.DictField):
    child = serializers.CharField(allow_blank=True, max_length=63)


class JoinSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=48)
    kubeconfig = serializers.CharField(help_text="kubeconfig YAML with inline credentials (token or *-data)")
    context = serializers.CharField(required=False, allow_blank=True, help_text="default: current-context")
    labels = LabelMap(required=False, default=dict)
    provider = serializers.CharField(required=False, allow_blank=True, default="", max_length=63)
    region = serializers.CharField(required=False, allow_blank=True, default="", max_length=63)
    zones = serializers.ListField(child=serializers.CharField(max_length=63), required=False, default=list)

    def validate_name(self, value: str) -> str:
        reason = cluster_name_error(value)
        if reason:
            raise serializers.ValidationError(reason)
        return value


class LabelsReplaceSerializer(serializers.Serializer):
    labels = LabelMap()
    resource_version = serializers.IntegerField(
        min_value=1, help_text="the version you read; 409 if it moved"
    )


class LabelsPatchSerializer(serializers.Serializer):
    set = LabelMap(required=False, default=dict)
    remove = serializers.ListField(child=serializers.CharField(), required=False, default=list)
    resource_version = serializers.IntegerField(min_value=1, required=False)


class BulkLabelsSerializer(LabelsPatchSerializer):
    clusters = serializers.ListField(child=serializers.CharField(), min_length=1)
    resource_version = None  # type: ignore[assignment]


class TaintSerializer(serializers.Serializer):
    key = serializers.CharField()
    value = serializers.CharField(required=False, allow_blank=True, default="")
    effect = serializers.ChoiceField(choices=EFFECTS)
    resource_version = serializers.IntegerField(min_value=1, required=False)


class ConventionSerializer(serializers.ModelSerializer):
    class Meta:
        from clusters.models import LabelConvention

        model = LabelConvention
        fields = [
            "id",
            "key",
            "description",
            "required",
            "allowed_values",
            "pattern",
            "example",
            "aliases",
            "updated",
        ]
        read_only_fields = ["id", "updated"]

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        from clusters.conventions import convention_errors

        merged = {
            name: attrs.get(name, getattr(self.instance, name, default) if self.instance else default)
            for name, default in (
                ("key", ""),
                ("allowed_values", []),
                ("pattern", ""),
                ("aliases", []),
                ("example", ""),
            )
        }
        errors = convention_errors(
            merged["key"], merged["allowed_values"], merged["pattern"], merged["aliases"], merged["example"]
        )
        if errors:
            raise serializers.ValidationError(errors)
        return attrs


class FindingSerializer(serializers.Serializer):
    cluster = serializers.CharField()
    severity = serializers.ChoiceField(choices=["error", "warning"])
    code = serializers.CharField(help_text="missing, value, form or duplicate")
    key = serializers.CharField()
    message = serializers.CharField()
    fix = serializers.DictField(
        allow_null=True, help_text="labels to set and keys to remove, when unambiguous"
    )


class SelectorLintRequest(serializers.Serializer):
    selector = serializers.JSONField(help_text="text form (env=prod,tier in (a,b)) or a LabelSelector map")


class SelectorFindingSerializer(serializers.Serializer):
    severity = serializers.CharField()
    code = serializers.CharField(help_text="syntax, unknown-key, unknown-value, matches-none or matches-all")
    key = serializers.CharField()
    message = serializers.CharField()
    suggestion = serializers.CharField()
