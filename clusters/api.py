"""REST API of clusters: list (label selector), detail, join, unjoin, labels, taints, cordon."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from clusters import services
from clusters.conventions import lint_clusters, lint_selector, load_rules
from clusters.joining import connection_from_kubeconfig
from clusters.listing import SORTS, ListQuery, filter_clusters
from clusters.models import Cluster, LabelConvention
from clusters.serializers import (
    BulkLabelsSerializer,
    ClusterSerializer,
    ConventionSerializer,
    FindingSerializer,
    JoinSerializer,
    LabelsPatchSerializer,
    LabelsReplaceSerializer,
    SelectorFindingSerializer,
    SelectorLintRequest,
    TaintSerializer,
)
from core.api_errors import ErrorSerializer
from core.errors import FieldError
from core.roles import ADMIN, OPERATOR, VIEWER
from kubesyntax.selectors import SelectorError

OPERATOR_ACTIONS = {"labels", "bulk_labels"}
ERROR = OpenApiResponse(ErrorSerializer, description="the field and the reason")
CONFLICT = OpenApiResponse(
    ErrorSerializer, description="changed since resource_version (the current one is given)"
)

SELECTOR_PARAM = OpenApiParameter(
    "selector",
    str,
    description="label selector, e.g. `env=prod,location/region in (cn-north,cn-east),!deprecated`",
)


class ClusterViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Member clusters. Viewers read; operators edit labels; admins join, unjoin, taint and cordon."""

    serializer_class = ClusterSerializer
    lookup_field = "name"
    lookup_value_regex = "[a-z0-9-]+"
    queryset = Cluster.objects.all()

    @property
    def write_role(self) -> str:
        return OPERATOR if self.action in OPERATOR_ACTIONS else ADMIN

    def get_queryset(self) -> QuerySet[Cluster]:
        return Cluster.objects.all()

    @extend_schema(
        parameters=[SELECTOR_PARAM, OpenApiParameter("sort", str, enum=sorted(SORTS))],
        responses={200: ClusterSerializer(many=True), 400: ERROR},
    )
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        sort = request.query_params.get("sort", "")
        if "sort" in request.query_params and sort not in SORTS:  # an empty sort= is refused too
            raise FieldError("sort", f"must be one of {', '.join(sorted(SORTS))}")
        query = ListQuery(selector=request.query_params.get("selector", ""), sort=sort)
        try:
            ids = filter_clusters(query)
        except SelectorError as exc:
            raise FieldError("selector", f"{exc.message} (at character {exc.position + 1})") from None
        order = {pk: index for index, pk in enumerate(ids)}
        page = self.paginate_queryset(ids)
        rows = sorted(Cluster.objects.filter(pk__in=page), key=lambda c: order[c.pk])
        return self.get_paginated_response(self.get_serializer(rows, many=True).data)

    @extend_schema(
        request=JoinSerializer,
        responses={201: ClusterSerializer, 400: ERROR},
        description="Connect with the kubeconfig context, then register; nothing is saved on failure.",
    )
    def create(self, request: Request) -> Response:
        serializer = JoinSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        conn = connection_from_kubeconfig(data["kubeconfig"], data.get("context"), files=False)
        cluster, _, _ = services.join(
            data["name"],
            conn,
            labels=data["labels"],
            provider=data["provider"],
            region=data["region"],
            zones=data["zones"],
            user=request.user,
        )
        return Response(ClusterSerializer(cluster).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        parameters=[
            OpenApiParameter("delete_resources", bool, description="first delete karmada.io/managed objects")
        ],
        responses={
            204: None,
            400: OpenApiResponse(ErrorSerializer, description="cleanup failed; nothing removed"),
            404: ERROR,
        },
    )
    def destroy(self, request: Request, name: str) -> Response:
        cluster = get_object_or_404(Cluster, name=name)
        flag = request.query_params.get("delete_resources", "false").lower() in ("1", "true", "yes")
        services.unjoin(cluster, delete_resources=flag, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        methods=["PUT"],
        request=LabelsReplaceSerializer,
        responses={200: ClusterSerializer, 400: ERROR, 404: ERROR, 409: CONFLICT},
        description="Replace all labels, only if the cluster is still at resource_version.",
    )
    @extend_schema(
        methods=["PATCH"],
        request=LabelsPatchSerializer,
        responses={200: ClusterSerializer, 400: ERROR, 404: ERROR, 409: CONFLICT},
        description="Set some labels and remove others; with resource_version, only if nothing moved.",
    )
    @action(detail=True, methods=["put", "patch"])
    def labels(self, request: Request, name: str) -> Response:
        cluster = get_object_or_404(Cluster, name=name)
        if request.method == "PUT":
            serializer = LabelsReplaceSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            data = serializer.validated_data
            cluster = services.set_labels(
                cluster, data["labels"], data["resource_version"], user=request.user
            )
        else:
            serializer = LabelsPatchSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            data = serializer.validated_data
            cluster = services.patch_labels(
                cluster, data["set"], data["remove"], data.get("resource_version"), user=request.user
            )
        return Response(ClusterSerializer(cluster).data)

    @extend_schema(request=BulkLabelsSerializer, responses={200: ClusterSerializer(many=True), 400: ERROR})
    @action(detail=False, methods=["post"], url_path="labels")
    def bulk_labels(self, request: Request) -> Response:
        """Set and remove labels on several clusters at once (each keeps its other labels); all or none."""
        serializer = BulkLabelsSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        changed = services.bulk_patch_labels(data["clusters"], data["set"], data["remove"], user=request.user)
        return Response(ClusterSerializer(changed, many=True).data)

    @extend_schema(
        methods=["POST"],
        request=TaintSerializer,
        responses={200: ClusterSerializer, 400: ERROR, 404: ERROR, 409: CONFLICT},
    )
    @extend_schema(
        methods=["DELETE"],
        parameters=[OpenApiParameter("key", str, required=True), OpenApiParameter("effect", str)],
        responses={200: ClusterSerializer, 400: ERROR, 404: ERROR},
    )
    @action(detail=True, methods=["post", "delete"])
    def taints(self, request: Request, name: str) -> Response:
        """Add a taint (NoExecute ones record timeAdded) or remove one by key (and effect)."""
        cluster = get_object_or_404(Cluster, name=name)
        if request.method == "POST":
            serializer = TaintSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            data = serializer.validated_data
            cluster = services.add_taint(
                cluster,
                data["key"],
                data["value"],
                data["effect"],
                data.get("resource_version"),
                user=request.user,
            )
        else:
            key = request.query_params.get("key", "")
            if not key:
                raise FieldError("key", "name the taint key to remove")
            effect = request.query_params.get("effect") or None
            cluster = services.remove_taint(cluster, key, effect, user=request.user)
        return Response(ClusterSerializer(cluster).data)

    @extend_schema(responses={200: FindingSerializer(many=True)})
    @action(detail=True, methods=["get"], pagination_class=None)
    def lint(self, request: Request, name: str) -> Response:
        """This cluster's label-convention findings, each with its fix when the fix is unambiguous."""
        cluster = get_object_or_404(Cluster, name=name)
        return Response([f.as_dict() for f in lint_clusters([cluster])[cluster.name]])

    @extend_schema(request=None, responses={200: ClusterSerializer})
    @action(detail=True, methods=["post"])
    def cordon(self, request: Request, name: str) -> Response:
        """Add cluster.karmada.io/unschedulable:NoSchedule so nothing new is scheduled here."""
        cluster = get_object_or_404(Cluster, name=name)
        return Response(ClusterSerializer(services.cordon(cluster, user=request.user)).data)

    @extend_schema(request=None, responses={200: ClusterSerializer})
    @action(detail=True, methods=["post"])
    def uncordon(self, request: Request, name: str) -> Response:
        cluster = get_object_or_404(Cluster, name=name)
        return Response(ClusterSerializer(services.uncordon(cluster, user=request.user)).data)


class ConventionViewSet(viewsets.ModelViewSet):
    """Label conventions: viewers read; operators add, change and delete rules."""

    serializer_class = ConventionSerializer
    queryset = LabelConvention.objects.all()
    write_role = OPERATOR

    def perform_create(self, serializer: Any) -> None:
        serializer.instance = services.create_convention(serializer.validated_data, user=self.request.user)

    def perform_update(self, serializer: Any) -> None:
        serializer.instance = services.update_convention(
            serializer.instance, serializer.validated_data, user=self.request.user
        )

    def perform_destroy(self, instance: LabelConvention) -> None:
        services.delete_convention(instance, user=self.request.user)


class LintViewSet(viewsets.ViewSet):
    """Lint of every cluster's labels against the conventions, and of a selector against the fleet."""

    write_role = VIEWER  # linting a selector changes nothing

    @extend_schema(responses={200: FindingSerializer(many=True)}, parameters=[SELECTOR_PARAM])
    def list(self, request: Request) -> Response:
        """Findings for every cluster (or those the selector matches)."""
        try:
            ids = filter_clusters(ListQuery(selector=request.query_params.get("selector", "")))
        except SelectorError as exc:
            raise FieldError("selector", exc.message) from None
        findings = lint_clusters(Cluster.objects.filter(pk__in=ids))
        return Response([f.as_dict() for name in sorted(findings) for f in findings[name]])

    @extend_schema(request=SelectorLintRequest, responses={200: SelectorFindingSerializer(many=True)})
    @action(detail=False, methods=["post"])
    def selector(self, request: Request) -> Response:
        """Would this selector match no cluster, every cluster, or use a key no cluster has?"""
        serializer = SelectorLintRequest(data=request.data)
        serializer.is_valid(raise_exception=True)
        value = serializer.validated_data["selector"]
        if not isinstance(value, str | dict) and value is not None:
            raise FieldError("selector", "give the text form or a LabelSelector map")
        return Response(lint_selector(value, Cluster.objects.only("name", "labels"), load_rules()))
