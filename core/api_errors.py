"""The one error shape of /api/v1/: a code, a sentence, and every problem as {field, reason}.

```
{"code": "invalid", "detail": "labels: ...", "field": "labels", "reason": "...",
 "errors": [{"field": "labels", "reason": "..."}]}
```
`field` and `reason` repeat the first problem for callers that show one; an apply error adds the
`document` index (top level and per problem); a conflict adds what the caller needs to retry.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

from core.errors import Conflict, FieldError, field_path
from core.throttles import AnonymousRateThrottle

log = logging.getLogger(__name__)

CODES = {
    400: "invalid",
    401: "not_authenticated",
    403: "permission_denied",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    415: "unsupported_media_type",
    429: "throttled",
}


class ProblemSerializer(serializers.Serializer):
    field = serializers.CharField(allow_blank=True, help_text="the field's path; empty for the whole input")
    reason = serializers.CharField()
    document = serializers.IntegerField(required=False, help_text="apply: the index of the document")


class ErrorSerializer(serializers.Serializer):
    """What every /api/v1/ endpoint answers when it refuses a request."""

    code = serializers.CharField(help_text="invalid, not_found, conflict, permission_denied, ...")
    detail = serializers.CharField(help_text="the problem in one sentence")
    field = serializers.CharField(allow_blank=True, help_text="the first problem's field")
    reason = serializers.CharField(help_text="the first problem's reason")
    document = serializers.IntegerField(required=False, help_text="apply: the index of the bad document")
    errors = ProblemSerializer(many=True)


def body(code: str, problems: list[dict[str, Any]], detail: str = "", **extra: Any) -> dict[str, Any]:
    """The error body for `problems` (each {field, reason}, perhaps document); at least one is given."""
    problems = problems or [{"field": "", "reason": detail or code}]
    first = problems[0]
    if not detail:
        detail = f"{first['field']}: {first['reason']}" if first["field"] else first["reason"]
        if "document" in first:
            detail = f"document {first['document']}: {detail}"
    data: dict[str, Any] = {
        "code": code,
        "detail": detail,
        "field": first["field"],
        "reason": first["reason"],
    }
    if "document" in first:
        data["document"] = first["document"]
    data["errors"] = problems
    data.update(extra)
    return data


def flatten(detail: Any, path: str = "") -> list[dict[str, Any]]:
    """DRF's nested error detail ({field: [reason]}, lists of them, {index: ...}) as {field, reason} rows."""
    if isinstance(detail, dict):
        rows = []
        for key, value in detail.items():
            whole = key in ("non_field_errors", "detail")
            rows.extend(flatten(value, path if whole else field_path(path, str(key))))
        return rows
    if isinstance(detail, list):
        if all(not isinstance(item, dict | list) for item in detail):
            return [{"field": path, "reason": str(item)} for item in detail]
        rows = []
        for index, item in enumerate(detail):
            if item:  # DRF puts an empty {} for list items that were fine
                rows.extend(flatten(item, f"{path}[{index}]"))
        return rows
    return [{"field": path, "reason": str(detail)}]


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Answer every refusal in the one shape; anything unexpected is left to Django (a logged 500)."""
    if isinstance(exc, FieldError | Conflict | DjangoValidationError):
        set_rollback()  # as DRF does for its own exceptions, when requests are atomic
    if isinstance(exc, FieldError):
        return Response(body("invalid", exc.problems()), status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, Conflict):
        problems = [{"field": exc.field, "reason": str(exc)}]
        return Response(body("conflict", problems, str(exc), **exc.extra()), status=status.HTTP_409_CONFLICT)
    if isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        return Response(body("invalid", flatten(detail)), status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
        # DRF checks throttles only after authentication and permissions have passed, so refused
        # anonymous calls (guessed tokens among them) are counted here against the anonymous rate.
        throttle = AnonymousRateThrottle()
        request, view = context.get("request"), context.get("view")
        if request is not None and not throttle.allow_request(request, view):
            exc = exceptions.Throttled(throttle.wait())
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    code = CODES.get(response.status_code, "error")
    if isinstance(exc, exceptions.APIException) and not isinstance(exc, exceptions.ValidationError):
        code = str(getattr(exc, "default_code", code))
        if isinstance(exc.detail, str):
            response.data = body(code, [], str(exc.detail))
            return response
    response.data = body(code, flatten(response.data))
    return response


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """The project's 404: in the error shape under /api/ (a path no route matches), the page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse(body("not_found", [], "No API endpoint has this path."), status=404)
    return defaults.page_not_found(request, exception)
