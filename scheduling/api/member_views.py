"""REST API that looks into the member clusters: a workload's copies, pods and events, and pod logs."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from clusters.k8s import KubeError
from core.api_errors import ErrorSerializer, body
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
