"""REST API of scheduling: YAML in and out, workloads and their chain, policies, audit, rebalance, preview."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.parsers import BaseParser, JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.models import AuditEntry
from core.pagination import StrictLimitOffsetPagination
from core.roles import VIEWER
from scheduling import quotas, services, summaries
from scheduling.api import schema as doc
from scheduling.controllers.apply import ApplyError
from scheduling.controllers.export import (
    binding_document,
    export_documents,
    propagation_policy_document,
    to_yaml,
)
from scheduling.controllers.preview import PreviewError, preview
from scheduling.models import PropagationPolicy, ResourceBinding, ResourceTemplate


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
        request={"application/yaml": {"type": "string"}},
        responses={200: doc.APPLY_RESULT, 400: doc.bad_request(doc.DOCUMENT_ERROR)},
    )
    def post(self, request: Request) -> Response:
        text = request.data
        if isinstance(text, dict):
            text = text.get("yaml")
        if not isinstance(text, str) or not text.strip():
            return Response(
                {"document": 0, "field": "", "reason": 'send YAML as the body, or JSON {"yaml": "..."}'},
                status=status.HTTP_400_BAD_REQUEST,
            )
        try:
            result = services.apply_yaml(text, user=request.user)
        except ApplyError as exc:
            return Response(exc.as_dict(), status=status.HTTP_400_BAD_REQUEST)
        return Response({"objects": [obj.as_dict() for obj in result.objects]})


class ExportView(APIView):
    """Everything the control plane holds as multi-document Karmada YAML."""

    @extend_schema(responses={(200, "application/yaml"): {"type": "string"}})
    def get(self, request: Request) -> HttpResponse:
        return HttpResponse(to_yaml(export_documents()), content_type="application/yaml; charset=utf-8")


def _paginate(view: APIView, request: Request, items: Any, convert: Any) -> Response:
    paginator = StrictLimitOffsetPagination()
    page = paginator.paginate_queryset(items, request, view=view) or []
    return paginator.get_paginated_response([convert(item) for item in page])


def _workload_detail(template: ResourceTemplate) -> dict[str, Any]:
    chain = summaries.workload_chain(template)
    binding = chain["binding"]
    row = summaries.WorkloadRow(template, binding, chain["clusters"]).as_dict()
    row.update(
        {
            "why": chain["why"],
            "strategy": chain["strategy"],
            "bindingDocument": binding_document(binding) if binding else None,
            "works": [
                {
                    "cluster": w.cluster_name,
                    "namespace": w.namespace,
                    "name": w.name,
                    "applied": w.in_sync,
                    "reason": w.applied_reason,
                    "message": w.applied_message,
                    "desiredHash": w.desired_hash,
                    "appliedHash": w.applied_hash,
                    "deleting": w.deleting,
                    "suspended": w.suspended,
                    "health": w.health,
                    "status": w.status,
                    "appliedOverrides": w.applied_overrides,
                }
                for w in chain["works"]
            ],
            "events": [summaries.event_dict(e) for e in chain["binding_events"] + chain["template_events"]],
        }
    )
    return row


class WorkloadListView(APIView):
    """Every resource template with its policy and replicas per cluster (desired / ready)."""

    @extend_schema(
        operation_id="v1_workloads_list",
        parameters=[
            OpenApiParameter("q", str, description="filter by name, namespace or kind"),
            *doc.PAGE_PARAMETERS,
        ],
        responses={200: doc.page_of(doc.WORKLOAD), 400: doc.PAGE_ERROR},
    )
    def get(self, request: Request) -> Response:
        templates = summaries.filter_workloads(
            summaries.templates_with_bindings(), request.query_params.get("q", "")
        )
        rows = summaries.workload_rows(templates.order_by("namespace", "name", "kind"))
        return _paginate(self, request, rows, lambda row: row.as_dict())


class WorkloadDetailView(APIView):
    """The chain of one workload: template, policy and why, binding, works, member status, events."""

    @extend_schema(responses={200: doc.WORKLOAD_CHAIN, 404: doc.NOT_FOUND})
    def get(self, request: Request, pk: int) -> Response:
        template = get_object_or_404(ResourceTemplate.objects.select_related("policy"), pk=pk)
        return Response(_workload_detail(template))

    @extend_schema(responses={202: None, 404: doc.NOT_FOUND})
    def delete(self, request: Request, pk: int) -> Response:
        """Delete the template; member copies go too (or are released, with preserveResourcesOnDeletion)."""
        template = get_object_or_404(ResourceTemplate, pk=pk, deleting_since__isnull=True)
        services.delete_template(template, user=request.user)
        return Response(status=status.HTTP_202_ACCEPTED)


class WorkloadRebalanceView(APIView):
    """Fresh reschedule of one workload (WorkloadRebalancer semantics); operator role."""

    @extend_schema(request=None, responses={202: doc.REBALANCED, 404: doc.NOT_FOUND})
    def post(self, request: Request, pk: int) -> Response:
        template = get_object_or_404(ResourceTemplate, pk=pk)  # pk=, unlike template_id=, survives huge ids
        binding = get_object_or_404(ResourceBinding.objects.select_related("template"), template=template)
        return Response({"rebalanced": services.rebalance([binding], user=request.user)}, status=202)


class WorkloadSuspensionView(APIView):
    """Pause or resume a workload's scheduling or dispatching (per cluster too); operator role, audited."""

    @extend_schema(
        request={"application/json": doc.SUSPENSION_REQUEST},
        responses={200: doc.SUSPENSION, 400: doc.bad_request(), 404: doc.NOT_FOUND},
    )
    def post(self, request: Request, pk: int) -> Response:
        template = get_object_or_404(ResourceTemplate, pk=pk)
        rows = ResourceBinding.objects.select_related("template", "policy")
        binding = get_object_or_404(rows, template=template)
        data = request.data if isinstance(request.data, dict) else None
        problem = _hold_problem(data, binding)
        if problem is not None:
            return Response({"field": problem[0], "reason": problem[1]}, status=400)
        assert data is not None
        what = services.SCHEDULING if "scheduling" in data else services.DISPATCHING
        services.set_hold(binding, what, data[what], cluster=data.get("cluster", ""), user=request.user)
        binding.refresh_from_db()
        return Response(summaries.suspension_summary(binding))


def _hold_problem(data: dict[str, Any] | None, binding: ResourceBinding) -> tuple[str, str] | None:
    """The first problem of a suspension request, as (field, reason), or None."""
    if data is None:
        return ("", 'send a JSON object such as {"scheduling": true}')
    unknown = sorted(set(data) - {"scheduling", "dispatching", "cluster"})
    if unknown:
        return (unknown[0], "is not a field of this request (scheduling, dispatching, cluster)")
    chosen = [key for key in ("scheduling", "dispatching") if key in data]
    if len(chosen) != 1:
        return ("scheduling", "give exactly one of scheduling or dispatching (true pauses, false resumes)")
    if not isinstance(data[chosen[0]], bool):
        return (chosen[0], "must be true (pause) or false (resume)")
    if "cluster" in data:
        cluster = data["cluster"]
        if chosen[0] != "dispatching":
            return ("cluster", "only dispatching is paused per cluster")
        if not isinstance(cluster, str) or cluster not in binding.target_replicas():
            return ("cluster", "must be one of the workload's clusters")
    return None


def _quota_dict(panel: quotas.NamespacePanel, entry: quotas.QuotaPanel) -> dict[str, Any]:
    return {
        "namespace": entry.quota.namespace,
        "name": entry.quota.name,
        "document": entry.document,
        "resources": [use.__dict__ for use in entry.resources],
        "workloads": [
            {"id": w.template.pk, "kind": w.template.kind, "name": w.template.name, "usage": w.usage}
            | ({"refused": w.refused} if w.refused else {})
            for w in panel.workloads
        ],
    }


class QuotaListView(APIView):
    """Every FederatedResourceQuota with its status now, used against limit, and the workloads using it."""

    @extend_schema(
        operation_id="v1_quotas_list",
        parameters=[
            OpenApiParameter("namespace", str, description="only this namespace"),
            *doc.PAGE_PARAMETERS,
        ],
        responses={200: doc.page_of(doc.QUOTA), 400: doc.PAGE_ERROR},
    )
    def get(self, request: Request) -> Response:
        panels = quotas.quota_panels(request.query_params.get("namespace", ""))
        items = [(panel, entry) for panel in panels for entry in panel.quotas]
        return _paginate(self, request, items, lambda item: _quota_dict(*item))


class QuotaDetailView(APIView):
    """One FederatedResourceQuota with its status now and the workloads of its namespace that use it."""

    @extend_schema(responses={200: doc.QUOTA, 404: doc.NOT_FOUND})
    def get(self, request: Request, namespace: str, name: str) -> Response:
        for panel in quotas.quota_panels(namespace):
            for entry in panel.quotas:
                if entry.quota.name == name:
                    return Response(_quota_dict(panel, entry))
        return Response({"detail": "No FederatedResourceQuota matches the given query."}, status=404)


class PolicyListView(APIView):
    """Propagation policies with the workloads each claims."""

    @extend_schema(
        operation_id="v1_policies_list",
        parameters=doc.PAGE_PARAMETERS,
        responses={200: doc.page_of(doc.POLICY), 400: doc.PAGE_ERROR},
    )
    def get(self, request: Request) -> Response:
        rows = PropagationPolicy.objects.prefetch_related("templates").order_by("kind", "namespace", "name")
        return _paginate(self, request, rows, _policy_dict)


class PolicyDetailView(APIView):
    """One propagation policy as Karmada YAML (as JSON) with the workloads it claims."""

    @extend_schema(responses={200: doc.POLICY, 404: doc.NOT_FOUND})
    def get(self, request: Request, pk: int) -> Response:
        return Response(_policy_dict(get_object_or_404(PropagationPolicy, pk=pk)))


class PolicyRebalanceView(APIView):
    """Fresh reschedule of every workload a policy claims; operator role."""

    @extend_schema(request=None, responses={202: doc.REBALANCED, 404: doc.NOT_FOUND})
    def post(self, request: Request, pk: int) -> Response:
        policy = get_object_or_404(PropagationPolicy, pk=pk)
        return Response({"rebalanced": services.rebalance_policy(policy, user=request.user)}, status=202)


def _policy_dict(policy: PropagationPolicy) -> dict[str, Any]:
    return {
        "id": policy.pk,
        "document": propagation_policy_document(policy),
        "workloads": [
            {"id": t.pk, "kind": t.kind, "namespace": t.namespace, "name": t.name}
            for t in policy.templates.all()
        ],
    }


class AuditListView(APIView):
    """The audit log, newest first: who, when, what, and the placement delta."""

    @extend_schema(
        parameters=doc.PAGE_PARAMETERS, responses={200: doc.page_of(doc.AUDIT_ENTRY), 400: doc.PAGE_ERROR}
    )
    def get(self, request: Request) -> Response:
        entries = AuditEntry.objects.order_by("-created_at", "-id")
        return _paginate(
            self,
            request,
            entries,
            lambda e: {
                "at": e.created_at,
                "user": e.username,
                "action": e.action,
                "object": {"kind": e.object_kind, "namespace": e.object_namespace, "name": e.object_name},
                "summary": e.summary,
                "placementDelta": e.placement_delta,
            },
        )


class PreviewView(APIView):
    """What a policy would do to a workload, without saving anything: the planner's plan and its reasons.

    Body: {"policy": <PropagationPolicy YAML text or object>, "workload": <template id>} (viewer role).
    """

    write_role = VIEWER

    @extend_schema(
        request={"application/json": doc.PREVIEW_REQUEST},
        responses={200: doc.PREVIEW, 400: doc.bad_request()},
    )
    def post(self, request: Request) -> Response:
        data = request.data if isinstance(request.data, dict) else {}
        workload = data.get("workload")
        template = (
            ResourceTemplate.objects.filter(pk=workload).first()
            if isinstance(workload, int) and not isinstance(workload, bool)
            else None
        )
        if template is None:
            return Response(
                {"field": "workload", "reason": "must be the id of a resource template"}, status=400
            )
        try:
            result = preview(data.get("policy"), template)
        except PreviewError as exc:
            return Response({"field": exc.field, "reason": exc.reason}, status=400)
        return Response(result)
