"""REST API that looks into the member clusters: a workload's copies, pods and events, pod logs, drift,
and the fleet search."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from clusters.k8s import KubeError
from core.api_errors import ErrorSerializer, body
from core.errors import FieldError
from scheduling.karmada.drift import masked
from scheduling.members import drift, search
from scheduling.members import logs as pod_logs
from scheduling.members.across import across_document, workload_across
from scheduling.models import ResourceTemplate


class PodSerializer(serializers.Serializer):
    name = serializers.CharField()
    phase = serializers.CharField()
    ready = serializers.CharField(help_text="ready containers / containers, as kubectl prints it")
    isReady = serializers.BooleanField()
    restarts = serializers.IntegerField()
    node = serializers.CharField()
    created = serializers.CharField(help_text="creationTimestamp (RFC 3339)")
    age = serializers.CharField(help_text="as kubectl's AGE column: 42s, 5m, 3h, 2d")
    reason = serializers.CharField(help_text="why the pod is not ready; empty when it is")
    containers = serializers.ListField(child=serializers.CharField())


class MemberCopySerializer(serializers.Serializer):
    cluster = serializers.CharField()
    reachable = serializers.BooleanField(help_text="false when the cluster did not answer in time")
    error = serializers.CharField(help_text="why the cluster could not be read")
    found = serializers.BooleanField(help_text="whether the cluster holds the copy")
    status = serializers.JSONField(help_text="the copy's status fields Karmada reflects")
    health = serializers.CharField(help_text="Healthy, Unhealthy or Unknown")
    pods = PodSerializer(many=True)


class MemberEventSerializer(serializers.Serializer):
    cluster = serializers.CharField()
    type = serializers.CharField()
    reason = serializers.CharField()
    message = serializers.CharField()
    object = serializers.JSONField(help_text="{kind, name} of the object the event is about")
    count = serializers.IntegerField()
    lastSeen = serializers.CharField()
    source = serializers.CharField()


class WorkloadMembersSerializer(serializers.Serializer):
    clusters = MemberCopySerializer(many=True)
    events = MemberEventSerializer(many=True, help_text="copy and pod events, newest first")


class WorkloadMembersView(APIView):
    """Per member cluster the live copy, its pods, and the events of both merged newest first."""

    @extend_schema(responses={200: WorkloadMembersSerializer})
    def get(self, request: Request, pk: int) -> Response:
        template = get_object_or_404(ResourceTemplate, pk=pk)
        return Response(WorkloadMembersSerializer(across_document(workload_across(template))).data)


class WorkloadLogsView(APIView):
    """A pod's container log as text, or every pod's of the workload in one cluster (lines prefixed)."""

    @extend_schema(
        parameters=[
            OpenApiParameter("cluster", str, required=True, description="the member cluster"),
            OpenApiParameter("pod", str, description="one pod; every pod of the workload when absent"),
            OpenApiParameter("container", str, description="the container; the pod's first when absent"),
            OpenApiParameter("tail", int, description="the last N lines (1 to 5000, 100 by default)"),
            OpenApiParameter("previous", bool, description="the previous run of a restarted container"),
        ],
        responses={
            (200, "text/plain"): OpenApiTypes.STR,
            502: OpenApiResponse(ErrorSerializer, description="the member cluster could not be read"),
        },
    )
    def get(self, request: Request, pk: int) -> HttpResponse | Response:
        template = get_object_or_404(ResourceTemplate, pk=pk)
        query = pod_logs.parse_query(request.query_params)
        try:
            text = pod_logs.read_logs(template, query)
        except KubeError as exc:
            return Response(body("member_unreachable", [], detail=exc.message), status=502)
        return HttpResponse(text, content_type="text/plain; charset=utf-8")


class SearchHitSerializer(serializers.Serializer):
    cluster = serializers.CharField()
    apiVersion = serializers.CharField()
    kind = serializers.CharField()
    namespace = serializers.CharField()
    name = serializers.CharField()
    labels = serializers.DictField(child=serializers.CharField())
    created = serializers.CharField()
    managed = serializers.BooleanField(help_text="carries karmada.io/managed=true")
    template = serializers.JSONField(allow_null=True, help_text="{id, kind, namespace, name} it comes from")


class SearchFailureSerializer(serializers.Serializer):
    cluster = serializers.CharField()
    error = serializers.CharField()


class SearchSerializer(serializers.Serializer):
    results = SearchHitSerializer(many=True)
    answered = serializers.ListField(child=serializers.CharField())
    timedOut = serializers.ListField(child=serializers.CharField(), help_text="no answer within the deadline")
    failed = SearchFailureSerializer(many=True, help_text="answered with an error")


class SearchView(APIView):
    """Any object by kind, namespace, name or label selector in every member cluster, at once."""

    @extend_schema(
        parameters=[
            OpenApiParameter("kind", str, description="Deployment, deploy, pods, crontabs.example.com…"),
            OpenApiParameter("namespace", str, description="one namespace; every namespace when absent"),
            OpenApiParameter("name", str, description="part of the name, any case"),
            OpenApiParameter("selector", str, description="a label selector: app=shop,tier in (web)"),
            OpenApiParameter("q", str, description="the header box: kind:deploy ns:default shop app=shop"),
        ],
        responses={200: SearchSerializer},
    )
    def get(self, request: Request) -> Response:
        query = search.parse_query(request.query_params)
        if query.empty:
            raise FieldError("", "give a kind, a namespace, part of a name or a label selector")
        return Response(SearchSerializer(search.search_document(list(search.search_fleet(query)))).data)


class DriftEventSerializer(serializers.Serializer):
    detectedAt = serializers.DateTimeField(source="detected_at")
    changes = serializers.JSONField(help_text="[{path, desired, live, managers}]")
    managers = serializers.JSONField(help_text="[{manager, operation, time}] from managedFields")
    diff = serializers.CharField()
    state = serializers.CharField(help_text="repairing, put-back or held")
    heldReason = serializers.CharField(source="held_reason")
    putBackAt = serializers.DateTimeField(source="put_back_at", allow_null=True)
    putBackBy = serializers.CharField(source="put_back_by")


class CopyDriftSerializer(serializers.Serializer):
    cluster = serializers.CharField()
    reachable = serializers.BooleanField()
    error = serializers.CharField()
    found = serializers.BooleanField(help_text="whether the cluster holds the copy")
    manifest = serializers.SerializerMethodField(help_text="what karmada-ui applies there, Secrets masked")
    changes = serializers.JSONField(help_text="where the live copy differs from it, now")
    diff = serializers.CharField()
    held = serializers.CharField(help_text="why the repair waits; empty when it goes ahead")
    events = DriftEventSerializer(many=True)

    @extend_schema_field(serializers.JSONField())
    def get_manifest(self, row: Any) -> dict[str, Any]:
        return masked(row.work.manifest)


class WorkloadDriftView(APIView):
    """Per member cluster the manifest we apply, the live diff, the hold and the drift events."""

    @extend_schema(responses={200: CopyDriftSerializer(many=True)})
    def get(self, request: Request, pk: int) -> Response:
        template = get_object_or_404(ResourceTemplate, pk=pk)
        return Response(CopyDriftSerializer(drift.copies_drift(template), many=True).data)
