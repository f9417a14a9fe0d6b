"""REST API of scheduling: apply and export YAML."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.parsers import BaseParser, JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from scheduling.documents import DocumentError
from scheduling.exporting import export_documents, to_yaml
from scheduling.services import apply_yaml


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
        responses={200: OpenApiResponse(description="one entry per document"), 400: OpenApiResponse()},
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
            result = apply_yaml(text, user=request.user)
        except DocumentError as exc:
            return Response(exc.as_dict(), status=status.HTTP_400_BAD_REQUEST)
        return Response({"objects": [obj.as_dict() for obj in result.objects]})


class ExportView(APIView):
    """Everything the control plane holds as multi-document Karmada YAML."""

    @extend_schema(responses={(200, "application/yaml"): {"type": "string"}})
    def get(self, request: Request) -> HttpResponse:
        return HttpResponse(to_yaml(export_documents()), content_type="application/yaml; charset=utf-8")
