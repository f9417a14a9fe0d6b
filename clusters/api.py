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

from clusters import editing
from clusters.conventions import lint_clusters, lint_selector, load_rules
from clusters.editing import SpecError, StaleResourceVersion
from clusters.joining import JoinError, connection_from_kubeconfig, join_cluster, unjoin_cluster
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
    field_error,
)
from core import audit
from core.roles import ADMIN, OPERATOR, VIEWER
from kubesyntax.selectors import SelectorError

OPERATOR_ACTIONS = {"labels", "bulk_labels"}

SELECTOR_PARAM = OpenApiParameter(
    "selector",
    str,
    description="label selector, e.g. `env=prod,location/region in (cn-north,cn-east),!deprecated`",
)


def conflict(exc: StaleResourceVersion) -> Response:
    return Response(
        {"detail": str(exc), "resource_version": exc.cluster.resource_version},
        status=status.HTTP_409_CONFLICT,
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
        responses={200: ClusterSerializer(many=True), 400: OpenApiResponse(description="bad selector")},
    )
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        sort = request.query_params.get("sort", "")
        if "sort" in request.query_params and sort not in SORTS:  # an empty sort= is refused too
            return Response(field_error("sort", f"must be one of {', '.join(sorted(SORTS))}"), status=400)
        query = ListQuery(selector=request.query_params.get("selector", ""), sort=sort)
        try:
            ids = filter_clusters(query)
        except SelectorError as exc:
            return Response(
                field_error("selector", f"{exc.message} (at character {exc.position + 1})"), status=400
            )
        order = {pk: index for index, pk in enumerate(ids)}
        page = self.paginate_queryset(ids)
        rows = sorted(Cluster.objects.filter(pk__in=page), key=lambda c: order[c.pk])
        return self.get_paginated_response(self.get_serializer(rows, many=True).data)

    @extend_schema(
        request=JoinSerializer,
        responses={201: ClusterSerializer, 400: OpenApiResponse(description="{field: [reason]}")},
        description="Connect with the kubeconfig context, then register; nothing is saved on failure.",
    )
    def create(self, request: Request) -> Response:
        serializer = JoinSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        try:
            conn = connection_from_kubeconfig(data["kubeconfig"], data.get("context"), files=False)
            cluster, _, _ = join_cluster(
                data["name"],
                conn,
                labels=data["labels"],
                provider=data["provider"],
                region=data["region"],
                zones=data["zones"],
                user=request.user,
            )
        except JoinError as exc:
            return Response(field_error(exc.field, exc.message), status=status.HTTP_400_BAD_REQUEST)
        return Response(ClusterSerializer(cluster).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        parameters=[
            OpenApiParameter("delete_resources", bool, description="first delete karmada.io/managed objects")
        ],
        responses={204: None, 400: OpenApiResponse(description="cleanup failed; nothing removed")},
    )
    def destroy(self, request: Request, name: str) -> Response:
        cluster = get_object_or_404(Cluster, name=name)
        flag = request.query_params.get("delete_resources", "false").lower() in ("1", "true", "yes")
        try:
            unjoin_cluster(cluster, delete_resources=flag, user=request.user)
        except JoinError as exc:
            return Response(field_error(exc.field, exc.message), status=status.HTTP_400_BAD_REQUEST)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        methods=["PUT"],
        request=LabelsReplaceSerializer,
        responses={
            200: ClusterSerializer,
            409: OpenApiResponse(description="changed since resource_version"),
        },
        description="Replace all labels, only if the cluster is still at resource_version.",
    )
    @extend_schema(
        methods=["PATCH"],
        request=LabelsPatchSerializer,
        responses={
            200: ClusterSerializer,
            409: OpenApiResponse(description="changed since resource_version"),
        },
        description="Set some labels and remove others; with resource_version, only if nothing moved.",
    )
    @action(detail=True, methods=["put", "patch"])
    def labels(self, request: Request, name: str) -> Response:
        cluster = get_object_or_404(Cluster, name=name)
        try:
            if request.method == "PUT":
                serializer = LabelsReplaceSerializer(data=request.data)
                serializer.is_valid(raise_exception=True)
                data = serializer.validated_data
                cluster = editing.set_labels(
                    cluster.pk, data["labels"], data["resource_version"], user=request.user
                )
            else:
                serializer = LabelsPatchSerializer(data=request.data)
                serializer.is_valid(raise_exception=True)
                data = serializer.validated_data
                cluster = editing.patch_labels(
                    cluster.pk, data["set"], data["remove"], data.get("resource_version"), user=request.user
                )
        except SpecError as exc:
            return Response(field_error(exc.field, exc.message), status=status.HTTP_400_BAD_REQUEST)
        except StaleResourceVersion as exc:
            return conflict(exc)
        return Response(ClusterSerializer(cluster).data)

    @extend_schema(request=BulkLabelsSerializer, responses={200: ClusterSerializer(many=True)})
    @action(detail=False, methods=["post"], url_path="labels")
    def bulk_labels(self, request: Request) -> Response:
        """Set and remove labels on several clusters at once (each keeps its other labels)."""
        serializer = BulkLabelsSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        found = {c.name: c for c in Cluster.objects.filter(name__in=data["clusters"])}
        missing = [n for n in data["clusters"] if n not in found]
        if missing:
            return Response(field_error("clusters", f"no cluster named {', '.join(missing)}"), status=400)
        try:
            editing.check_label_patch(data["set"], data["remove"])
            changed = [
                editing.patch_labels(found[n].pk, data["set"], data["remove"], user=request.user)
                for n in data["clusters"]
            ]
        except SpecError as exc:
            return Response(field_error(exc.field, exc.message), status=status.HTTP_400_BAD_REQUEST)
        return Response(ClusterSerializer(changed, many=True).data)

    @extend_schema(
        methods=["POST"],
        request=TaintSerializer,
        responses={200: ClusterSerializer, 400: OpenApiResponse(description="{field: [reason]}")},
    )
    @extend_schema(
        methods=["DELETE"],
        parameters=[OpenApiParameter("key", str, required=True), OpenApiParameter("effect", str)],
        responses={200: ClusterSerializer},
    )
    @action(detail=True, methods=["post", "delete"])
    def taints(self, request: Request, name: str) -> Response:
        """Add a taint (NoExecute ones record timeAdded) or remove one by key (and effect)."""
        cluster = get_object_or_404(Cluster, name=name)
        try:
            if request.method == "POST":
                serializer = TaintSerializer(data=request.data)
                serializer.is_valid(raise_exception=True)
                data = serializer.validated_data
                cluster = editing.add_taint(
                    cluster.pk,
                    data["key"],
                    data["value"],
                    data["effect"],
                    data.get("resource_version"),
                    user=request.user,
                )
            else:
                key = request.query_params.get("key", "")
                if not key:
                    return Response(field_error("key", "name the taint key to remove"), status=400)
                effect = request.query_params.get("effect") or None
                cluster = editing.remove_taint(cluster.pk, key, effect, user=request.user)
        except SpecError as exc:
            return Response(field_error(exc.field, exc.message), status=status.HTTP_400_BAD_REQUEST)
        except StaleResourceVersion as exc:
            return conflict(exc)
        return Response(ClusterSerializer(cluster).data)

    @extend_schema(responses={200: FindingSerializer(many=True)})
    @action(detail=True, methods=["get"])
    def lint(self, request: Request, name: str) -> Response:
        """This cluster's label-convention findings, each with its fix when the fix is unambiguous."""
        cluster = get_object_or_404(Cluster, name=name)
        return Response([f.as_dict() for f in lint_clusters([cluster])[cluster.name]])

    @extend_schema(request=None, responses={200: ClusterSerializer})
    @action(detail=True, methods=["post"])
    def cordon(self, request: Request, name: str) -> Response:
        """Add cluster.karmada.io/unschedulable:NoSchedule so nothing new is scheduled here."""
        cluster = get_object_or_404(Cluster, name=name)
        return Response(ClusterSerializer(editing.cordon(cluster.pk, user=request.user)).data)

    @extend_schema(request=None, responses={200: ClusterSerializer})
    @action(detail=True, methods=["post"])
    def uncordon(self, request: Request, name: str) -> Response:
        cluster = get_object_or_404(Cluster, name=name)
        return Response(ClusterSerializer(editing.uncordon(cluster.pk, user=request.user)).data)


class ConventionViewSet(viewsets.ModelViewSet):
    """Label conventions: viewers read; operators add, change and delete rules."""

    serializer_class = ConventionSerializer
    queryset = LabelConvention.objects.all()
    write_role = OPERATOR

    def perform_create(self, serializer: Any) -> None:
        rule = serializer.save()
        audit.record(
            self.request.user, "ConventionSaved", "LabelConvention", rule.key, summary=str(serializer.data)
        )

    def perform_update(self, serializer: Any) -> None:
        rule = serializer.save()
        audit.record(
            self.request.user, "ConventionSaved", "LabelConvention", rule.key, summary=str(serializer.data)
        )

    def perform_destroy(self, instance: LabelConvention) -> None:
        audit.record(self.request.user, "ConventionDeleted", "LabelConvention", instance.key)
        instance.delete()


class LintViewSet(viewsets.ViewSet):
    """Lint of every cluster's labels against the conventions, and of a selector against the fleet."""

    write_role = VIEWER  # linting a selector changes nothing

    @extend_schema(responses={200: FindingSerializer(many=True)}, parameters=[SELECTOR_PARAM])
    def list(self, request: Request) -> Response:
        """Findings for every cluster (or those the selector matches)."""
        try:
            ids = filter_clusters(ListQuery(selector=request.query_params.get("selector", "")))
        except SelectorError as exc:
            return Response(field_error("selector", exc.message), status=400)
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
            return Response(field_error("selector", "give the text form or a LabelSelector map"), status=400)
        return Response(lint_selector(value, Cluster.objects.only("name", "labels"), load_rules()))
