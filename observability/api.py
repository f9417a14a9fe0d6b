"""REST API of observability: the alert rules export."""

from __future__ import annotations

from django.http import HttpResponse
from rest_framework.exceptions import ValidationError
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.request import Request
from rest_framework.views import APIView

from observability.export import FILENAMES, FORMATS, PROMETHEUS, export_yaml


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

    def get(self, request: Request) -> HttpResponse:
        fmt = request.query_params.get("format", PROMETHEUS)
        if fmt not in FORMATS:
            raise ValidationError({"format": [f"must be one of {', '.join(FORMATS)}, not {fmt!r}"]})
        return rules_download(fmt, request.query_params.get("namespace", ""))
