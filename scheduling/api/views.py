"""REST API of scheduling: YAML in and out, workloads and their chain, policies, audit, rebalance, preview."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Prefetch, QuerySet
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.parsers import BaseParser, JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api_errors import ErrorSerializer
from core.errors import FieldError
from core.models import AuditEntry
from core.roles import VIEWER
from scheduling import quotas, services, summaries
from scheduling.api.serializers import (
    ApplyRequestSerializer,
    ApplyResultSerializer,
    AuditEntrySerializer,
    PolicyRowSerializer,
    PolicySerializer,
    PreviewRequestSerializer,
    PreviewSerializer,
    QuotaSerializer,
    RebalancedSerializer,
    RolloutStepRequestSerializer,
    RolloutSummarySerializer,
    SuspensionRequestSerializer,
    SuspensionSerializer,
    WorkloadChainSerializer,
    WorkloadSerializer,
)
from scheduling.controllers.apply import ApplyError
from scheduling.controllers.export import export_documents, to_yaml
from scheduling.controllers.preview import PreviewError, preview
from scheduling.models import Event, PropagationPolicy, ResourceBinding, ResourceTemplate, Rollout, Work

NO_BODY = 'send YAML as the body, or JSON {"yaml": "..."}'
APPLY_ERROR = OpenApiResponse(
    ErrorSerializer, description="the document (its index), the field and the reason; nothing was saved"
)

# the largest id PostgreSQL's bigint holds
LARGEST_ID = 2**63 - 1


class YAMLTextParser(BaseParser):
    """Hands the raw YAML text to the view; the documents are parsed by the apply service."""

    media_type = "application/yaml"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> str:
        return stream.read().decode("utf-8", errors="replace")


class TextYAMLParser(YAMLTextParser):
    media_type = "text/yaml"


class PlainTextParser(YAMLTextParser):
    media_type = "text/plain"


class ApplyView(APIView):
    """Create or update templates and policies from multi-document YAML (operator role)."""

    parser_classes = [YAMLTextParser, TextYAMLParser, PlainTextParser, JSONParser]

    @extend_schema(
        request={"application/yaml": OpenApiTypes.STR, "application/json": ApplyRequestSerializer},
        responses={200: ApplyResultSerializer, 400: APPLY_ERROR},
    )
    def post(self, request: Request) -> Response:
        text = request.data
        if isinstance(text, dict):
            text = text.get("yaml")
        if not isinstance(text, str) or not text.strip():
            raise ApplyError(0, "", NO_BODY)
        result = services.apply_yaml(text, user=request.user)
        return Response(ApplyResultSerializer(result).data)


class ExportView(APIView):
    """Everything the control plane holds as multi-document Karmada YAML."""

    @extend_schema(responses={(200, "application/yaml"): OpenApiTypes.STR})
    def get(self, request: Request) -> HttpResponse:
        return HttpResponse(to_yaml(export_documents()), content_type="application/yaml; charset=utf-8")


@extend_schema(
    parameters=[
        OpenApiParameter("q", str, description="filter by name, kind=, namespace=, policy="),
        OpenApiParameter("policy", int, description="only the workloads this policy (by id) claims"),
    ]
)
class WorkloadListView(generics.ListAPIView):
    """Every resource template with its policy and its binding's counts (clusters applied and healthy,
    replicas desired and ready); the per-cluster entries are on the workload's own endpoint."""

    serializer_class = WorkloadSerializer

    def get_queryset(self) -> QuerySet[ResourceTemplate]:
        templates = summaries.filter_workloads(
            summaries.templates_with_bindings(), self.request.query_params.get("q", "")
        )
        policies = self.request.query_params.getlist("policy")
        if policies:
            if len(policies) > 1 or not policies[0].isdigit():
                raise FieldError("policy", "must be the id of one propagation policy, a whole number")
            # an id past the database's bigint matches no policy rather than failing the query
            wanted = int(policies[0])
            templates = templates.filter(policy_id=wanted) if wanted <= LARGEST_ID else templates.none()
        return templates.order_by("namespace", "name", "kind")

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        page = self.paginate_queryset(self.get_queryset()) or []
        rows = summaries.workload_rows(page)
        return self.get_paginated_response(self.get_serializer(rows, many=True).data)


@dataclass
class WorkloadChain(summaries.WorkloadRow):
    """A workload row with the rest of its chain, as WorkloadChainSerializer shows it."""

    why: dict[str, Any] | None = None
    strategy: str | None = None
    works: list[Work] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)


def workload_chain(template: ResourceTemplate) -> WorkloadChain:
    chain = summaries.workload_chain(template)
    return WorkloadChain(
        template,
        chain["binding"],
        chain["clusters"],
        why=chain["why"],
        strategy=chain["strategy"],
        works=chain["works"],
        events=chain["binding_events"] + chain["template_events"],
    )


class WorkloadDetailView(APIView):
    """The chain of one workload: template, policy and why, binding, works, member status, events."""

    @extend_schema(responses={200: WorkloadChainSerializer})
    def get(self, request: Request, pk: int) -> Response:
        template = get_object_or_404(ResourceTemplate.objects.select_related("policy"), pk=pk)
        return Response(WorkloadChainSerializer(workload_chain(template)).data)

    @extend_schema(responses={202: None})
    def delete(self, request: Request, pk: int) -> Response:
        """Delete the template; member copies go too (or are released, with preserveResourcesOnDeletion)."""
        template = get_object_or_404(ResourceTemplate, pk=pk, deleting_since__isnull=True)
        services.delete_template(template, user=request.user)
        return Response(status=status.HTTP_202_ACCEPTED)


class WorkloadRebalanceView(APIView):
    """Fresh reschedule of one workload (WorkloadRebalancer semantics); operator role."""

    @extend_schema(request=None, responses={202: RebalancedSerializer})
    def post(self, request: Request, pk: int) -> Response:
        template = get_object_or_404(ResourceTemplate, pk=pk)  # pk=, unlike template_id=, survives huge ids
        binding = get_object_or_404(ResourceBinding.objects.select_related("template"), template=template)
        count = services.rebalance([binding], user=request.user)
        return Response(RebalancedSerializer({"rebalanced": count}).data, status=status.HTTP_202_ACCEPTED)


class WorkloadSuspensionView(APIView):
    """Pause or resume a workload's scheduling or dispatching (per cluster too); operator role, audited."""

    @extend_schema(request=SuspensionRequestSerializer, responses={200: SuspensionSerializer})
    def post(self, request: Request, pk: int) -> Response:
        template = get_object_or_404(ResourceTemplate, pk=pk)
        binding = get_object_or_404(
            ResourceBinding.objects.select_related("template", "policy"), template=template
        )
        serializer = SuspensionRequestSerializer(
            data=request.data if isinstance(request.data, dict) else None
        )
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        what = services.SCHEDULING if "scheduling" in data else services.DISPATCHING
        cluster = data.get("cluster", "")
        if cluster and cluster not in binding.target_replicas():
            raise FieldError("cluster", "must be one of the workload's clusters")
        services.set_hold(binding, what, data[what], cluster=cluster, user=request.user)
        binding.refresh_from_db()
        return Response(SuspensionSerializer(summaries.suspension_summary(binding)).data)


class WorkloadRolloutView(APIView):
    """The workload's staged rollout (GET), and an operator's pause, resume or abort of it (POST)."""

    @extend_schema(responses={200: RolloutSummarySerializer})
    def get(self, request: Request, pk: int) -> Response:
        binding = _binding_of(pk)
        return Response(RolloutSummarySerializer(summaries.rollout_summary(binding)).data)

    @extend_schema(
        request=RolloutStepRequestSerializer,
        responses={200: RolloutSummarySerializer, 400: OpenApiResponse(ErrorSerializer)},
    )
    def post(self, request: Request, pk: int) -> Response:
        binding = _binding_of(pk)
        serializer = RolloutStepRequestSerializer(
            data=request.data if isinstance(request.data, dict) else None
        )
        serializer.is_valid(raise_exception=True)
        rollout = Rollout.objects.filter(binding=binding).first()
        if rollout is None:
            raise FieldError("step", "the workload has no rollout: one starts when its template changes")
        services.step_rollout(rollout, serializer.validated_data["step"], user=request.user)
        return Response(RolloutSummarySerializer(summaries.rollout_summary(binding)).data)


def _binding_of(pk: int) -> ResourceBinding:
    template = get_object_or_404(ResourceTemplate, pk=pk)
    return get_object_or_404(ResourceBinding.objects.select_related("template", "policy"), template=template)


@dataclass
class QuotaItem:
    """One quota of a namespace's panel, as QuotaSerializer shows it."""

    panel: quotas.NamespacePanel
    entry: quotas.QuotaPanel


@extend_schema(parameters=[OpenApiParameter("namespace", str, description="only this namespace")])
class QuotaListView(generics.ListAPIView):
    """Every FederatedResourceQuota with its status now, used against limit, and the workloads using it."""

    serializer_class = QuotaSerializer

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        panels = quotas.quota_panels(request.query_params.get("namespace", ""))
        items = [QuotaItem(panel, entry) for panel in panels for entry in panel.quotas]
        page = self.paginate_queryset(items) or []
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


class QuotaDetailView(APIView):
    """One FederatedResourceQuota with its status now and the workloads of its namespace that use it."""

    @extend_schema(responses={200: QuotaSerializer})
    def get(self, request: Request, namespace: str, name: str) -> Response:
        for panel in quotas.quota_panels(namespace):
            for entry in panel.quotas:
                if entry.quota.name == name:
                    return Response(QuotaSerializer(QuotaItem(panel, entry)).data)
        raise Http404("No FederatedResourceQuota matches the given query.")


# the claimed workloads as the policy's `workloads` names them: never their manifests
CLAIMED = Prefetch(
    "templates", queryset=ResourceTemplate.objects.only("pk", "kind", "namespace", "name", "policy_id")
)


class PolicyListView(generics.ListAPIView):
    """Propagation policies with how many workloads each claims (listed by `/api/v1/workloads/?policy=`)."""

    serializer_class = PolicyRowSerializer

    def get_queryset(self) -> QuerySet[PropagationPolicy]:
        return PropagationPolicy.objects.annotate(claimed=Count("templates")).order_by(
            "kind", "namespace", "name"
        )


class PolicyDetailView(generics.RetrieveAPIView):
    """One propagation policy as Karmada YAML (as JSON) with every workload it claims."""

    serializer_class = PolicySerializer
    queryset = PropagationPolicy.objects.annotate(claimed=Count("templates")).prefetch_related(CLAIMED)


class PolicyRebalanceView(APIView):
    """Fresh reschedule of every workload a policy claims; operator role."""

    @extend_schema(request=None, responses={202: RebalancedSerializer})
    def post(self, request: Request, pk: int) -> Response:
        policy = get_object_or_404(PropagationPolicy, pk=pk)
        count = services.rebalance_policy(policy, user=request.user)
        return Response(RebalancedSerializer({"rebalanced": count}).data, status=status.HTTP_202_ACCEPTED)


class AuditListView(generics.ListAPIView):
    """The audit log, newest first: who, when, what, the fields that changed and the placement delta."""

    serializer_class = AuditEntrySerializer
    queryset = AuditEntry.objects.order_by("-created_at", "-id")


class PreviewView(APIView):
    """What a policy would do to a workload, without saving anything: the planner's plan and its reasons.

    The planner gets exactly what the scheduler would give it once the policy holds the workload (the
    binding's previous result, eviction tasks and a pending rebalance included). Viewer role.
    """

    write_role = VIEWER

    @extend_schema(request=PreviewRequestSerializer, responses={200: PreviewSerializer})
    def post(self, request: Request) -> Response:
        serializer = PreviewRequestSerializer(data=request.data if isinstance(request.data, dict) else {})
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        template = ResourceTemplate.objects.filter(pk=data["workload"]).first()
        if template is None:
            raise PreviewError("workload", "must be the id of a resource template")
        return Response(PreviewSerializer(preview(data["policy"], template)).data)
