"""REST API of observability: the rules export, alerts, silences, receivers and deliveries."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import HttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.roles import ADMIN, OPERATOR
from kubesyntax.names import dns_label_error
from observability import services
from observability.export import FILENAMES, FORMATS, PROMETHEUS, export_yaml
from observability.forms import check_matchers, check_receiver, parse_emails, silence_seconds
from observability.models import Alert, AlertState, Delivery, Receiver, Silence
from observability.networking import as_data, fleet_report


def rules_download(fmt: str, namespace: str = "") -> HttpResponse:
    response = HttpResponse(export_yaml(fmt, namespace), content_type="application/yaml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{FILENAMES[fmt]}"'
    return response


class FormatIsOurs(DefaultContentNegotiation):
    """Leave `?format=` to the view (it names the rules format here), answering errors as JSON."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class AlertRulesExport(APIView):
    """The alert rules as YAML: `?format=prometheus` (a rules file) or `?format=prometheusrule`."""

    content_negotiation_class = FormatIsOurs

    @extend_schema(
        parameters=[
            OpenApiParameter("format", str, enum=list(FORMATS), default=PROMETHEUS),
            OpenApiParameter("namespace", str, description="metadata.namespace of the PrometheusRule"),
        ],
        responses={
            (200, "application/yaml"): OpenApiResponse(OpenApiTypes.STR, description="the rules as YAML"),
            400: OpenApiResponse(description="an unknown format or a bad namespace"),
        },
    )
    def get(self, request: Request) -> HttpResponse:
        fmt = request.query_params.get("format", PROMETHEUS)
        if fmt not in FORMATS:
            raise ValidationError({"format": [f"must be one of {', '.join(FORMATS)}, not {fmt!r}"]})
        namespace = request.query_params.get("namespace", "")
        if namespace and dns_label_error(namespace):
            raise ValidationError({"namespace": ["must be a lower-case DNS label, e.g. monitoring"]})
        return rules_download(fmt, namespace)


class AlertSerializer(serializers.ModelSerializer):
    class Meta:
        model = Alert
        fields = [
            "id",
            "rule",
            "state",
            "labels",
            "annotations",
            "value",
            "active_since",
            "fired_at",
            "resolved_at",
            "last_evaluated",
        ]
        read_only_fields = fields


class AlertViewSet(viewsets.ReadOnlyModelViewSet):
    """Alerts of the built-in evaluator; `?state=firing|pending|resolved` narrows the list."""

    serializer_class = AlertSerializer

    def get_queryset(self):
        alerts = Alert.objects.all()
        state = self.request.query_params.get("state")
        if state is not None:
            if state not in AlertState.values:
                raise ValidationError(
                    {"state": [f"must be one of {', '.join(AlertState.values)}, not {state!r}"]}
                )
            alerts = alerts.filter(state=state)
        return alerts


class SilenceSerializer(serializers.ModelSerializer):
    duration = serializers.CharField(
        write_only=True, help_text="How long, e.g. 30m, 2h or 1d (at most 30 days)."
    )
    active = serializers.SerializerMethodField()

    class Meta:
        model = Silence
        fields = ["id", "matchers", "comment", "duration", "created_by", "starts_at", "ends_at", "active"]
        read_only_fields = ["created_by", "starts_at", "ends_at"]

    def get_active(self, silence: Silence) -> bool:
        return silence.is_active(timezone.now())

    def validate_matchers(self, value):
        try:
            return check_matchers(value)
        except DjangoValidationError as exc:
            raise ValidationError(exc.messages) from exc

    def validate_duration(self, value):
        try:
            return silence_seconds(value)
        except DjangoValidationError as exc:
            raise ValidationError(exc.messages) from exc

    def create(self, validated_data):
        data = validated_data
        return services.create_silence(
            data["matchers"], data["duration"], data["comment"], self.context["request"].user
        )


class SilenceViewSet(
    mixins.CreateModelMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Silences: operators create them and expire them early; nothing else about them changes."""

    serializer_class = SilenceSerializer
    queryset = Silence.objects.all()
    write_role = OPERATOR

    @action(detail=True, methods=["post"])
    def expire(self, request: Request, pk: str | None = None) -> Response:
        silence = self.get_object()
        services.expire_silence(silence, request.user)
        silence.refresh_from_db()
        return Response(SilenceSerializer(silence).data)


class ReceiverSerializer(serializers.ModelSerializer):
    class Meta:
        model = Receiver
        fields = ["id", "name", "kind", "url", "emails", "send_resolved", "enabled"]

    def validate_emails(self, value):
        if not isinstance(value, list):
            raise ValidationError("must be a list of e-mail addresses")
        try:
            return parse_emails(", ".join(str(v) for v in value))
        except DjangoValidationError as exc:
            raise ValidationError(exc.messages) from exc

    def validate(self, attrs):
        merged = {
            name: attrs.get(name, getattr(self.instance, name, default))
            for name, default in (("kind", ""), ("url", ""), ("emails", []))
        }
        errors = check_receiver(merged["kind"], merged["url"], merged["emails"])
        if errors:
            raise ValidationError({name: [message] for name, message in errors.items()})
        return attrs


class ReceiverViewSet(viewsets.ModelViewSet):
    """Notification receivers; only admins see them (a webhook URL may carry a secret) or change them."""

    serializer_class = ReceiverSerializer
    queryset = Receiver.objects.all()
    read_role = ADMIN
    write_role = ADMIN

    def perform_create(self, serializer: Any) -> None:
        serializer.instance = services.create_receiver(serializer.validated_data, self.request.user)

    def perform_update(self, serializer: Any) -> None:
        serializer.instance = services.update_receiver(
            serializer.instance, serializer.validated_data, self.request.user
        )

    def perform_destroy(self, instance: Receiver) -> None:
        services.delete_receiver(instance, self.request.user)


class DeliverySerializer(serializers.ModelSerializer):
    receiver = serializers.SlugRelatedField(slug_field="name", read_only=True)

    class Meta:
        model = Delivery
        fields = [
            "id",
            "alert",
            "receiver",
            "status",
            "state",
            "attempts",
            "response_code",
            "last_error",
            "created",
            "sent_at",
        ]
        read_only_fields = fields


class DeliveryViewSet(viewsets.ReadOnlyModelViewSet):
    """What was sent to whom, and how it went."""

    serializer_class = DeliverySerializer
    queryset = Delivery.objects.select_related("receiver")


class OverlapSerializer(serializers.Serializer):
    cluster_a = serializers.CharField()
    kind_a = serializers.ChoiceField(["pod", "service"])
    cidr_a = serializers.CharField()
    cluster_b = serializers.CharField()
    kind_b = serializers.ChoiceField(["pod", "service"])
    cidr_b = serializers.CharField()
    shared = serializers.CharField(help_text="the range both contain")
    meaning = serializers.CharField(help_text="what the overlap breaks, in words")


class ClusterNetworksSerializer(serializers.Serializer):
    name = serializers.CharField()
    pod_cidrs = serializers.ListField(child=serializers.CharField())
    service_cidrs = serializers.ListField(child=serializers.CharField())
    unreadable_cidrs = serializers.ListField(child=serializers.CharField())
    overlaps = serializers.IntegerField()


class NetworkCheckSerializer(serializers.Serializer):
    flat_networking_possible = serializers.BooleanField()
    summary = serializers.CharField()
    clusters = ClusterNetworksSerializer(many=True)
    overlaps = OverlapSerializer(many=True)


class NetworkCheck(APIView):
    """Pod and service CIDRs of every cluster, the overlapping pairs and what they mean for flat networking.

    `?cluster=NAME` narrows it to one cluster and the overlaps that involve it."""

    @extend_schema(
        parameters=[OpenApiParameter("cluster", str, description="narrow to one cluster")],
        responses={200: NetworkCheckSerializer, 404: OpenApiResponse(description="no such cluster")},
    )
    def get(self, request: Request) -> Response:
        report = fleet_report()
        name = request.query_params.get("cluster")
        if name is not None and name not in {c.name for c in report.clusters}:
            raise NotFound({"cluster": [f"no cluster is called {name!r}"]})
        return Response(NetworkCheckSerializer(as_data(report, name)).data)
