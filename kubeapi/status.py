"""Kubernetes Status objects: every error this API answers, with the reason, the field and the code."""

from __future__ import annotations

import json
from typing import Any, Protocol

from django.http import HttpResponse

REASONS = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    405: "MethodNotAllowed",
    406: "NotAcceptable",
    409: "Conflict",
    410: "Expired",
    415: "UnsupportedMediaType",
    422: "Invalid",
    500: "InternalError",
}


class ApiError(Exception):
    """An answer other than success: code, Kubernetes reason, message, and the causes (field, reason)."""

    def __init__(
        self,
        code: int,
        message: str,
        reason: str = "",
        *,
        details: dict[str, Any] | None = None,
        causes: list[dict[str, str]] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason or REASONS.get(code, "BadRequest")
        self.details = dict(details or {})
        if causes:
            self.details["causes"] = causes

    def status(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        }
        if self.details:
            body["details"] = self.details
        return body


class KindRef(Protocol):
    """What a Status needs to name an object's kind (a served Kind satisfies it)."""

    @property
    def group(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def plural(self) -> str: ...


def not_found(kind: KindRef, name: str) -> ApiError:
    resource = f"{kind.plural}.{kind.group}" if kind.group else kind.plural
    return ApiError(
        404,
        f'{resource} "{name}" not found',
        details={"name": name, "group": kind.group, "kind": kind.plural},
    )


def invalid(kind: KindRef, name: str, problems: list[dict[str, Any]]) -> ApiError:
    """422 Invalid, each problem as a cause of type FieldValueInvalid with its field path."""
    causes = [
        {"reason": "FieldValueInvalid", "message": str(p.get("reason", "")), "field": str(p.get("field", ""))}
        for p in problems
    ]
    shown = "; ".join(f"{c['field']}: {c['message']}" if c["field"] else c["message"] for c in causes)
    return ApiError(
        422,
        f'{kind.kind} "{name}" is invalid: {shown}',
        details={"name": name, "group": kind.group, "kind": kind.kind},
        causes=causes,
    )


def success(details: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"}
    if details:
        body["details"] = details
    return body


def json_response(body: Any, status: int = 200, content_type: str = "application/json") -> HttpResponse:
    return HttpResponse(json.dumps(body, separators=(",", ":")), status=status, content_type=content_type)


def error_response(error: ApiError) -> HttpResponse:
    return json_response(error.status(), status=error.code)
