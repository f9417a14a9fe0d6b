"""Kubernetes ``Status`` errors as exceptions the HTTP layer turns into responses."""

from __future__ import annotations

from typing import Any

from membersim.resources import Resource


class ApiError(Exception):
    """An error answered with a ``meta/v1 Status`` body."""

    def __init__(self, code: int, reason: str, message: str, details: dict[str, Any] | None = None):
        super().__init__(message)
        self.code, self.reason, self.message, self.details = code, reason, message, details

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


def _details(resource: Resource, name: str | None) -> dict[str, Any]:
    details: dict[str, Any] = {"kind": resource.plural}
    if name:
        details["name"] = name
    if resource.group:
        details["group"] = resource.group
    return details


def not_found(resource: Resource, name: str) -> ApiError:
    return ApiError(404, "NotFound", f'{resource.key} "{name}" not found', _details(resource, name))


def already_exists(resource: Resource, name: str) -> ApiError:
    return ApiError(409, "AlreadyExists", f'{resource.key} "{name}" already exists', _details(resource, name))


def conflict(resource: Resource, name: str) -> ApiError:
    message = (
        f'Operation cannot be fulfilled on {resource.key} "{name}": the object has been modified; '
        "please apply your changes to the latest version and try again"
    )
    return ApiError(409, "Conflict", message, _details(resource, name))


def invalid(resource: Resource, name: str, causes: list[tuple[str, str, str]]) -> ApiError:
    """``causes`` are (field, reason, message), e.g. "
    "("metadata.name", "FieldValueRequired", "Required value")."""
    kind = f"{resource.kind}.{resource.group}" if resource.group else resource.kind
    summary = ", ".join(f"{f}: {m}" for f, _, m in causes)
    details = {
        "name": name,
        "kind": resource.kind,
        "causes": [{"reason": r, "message": m, "field": f} for f, r, m in causes],
    }
    if resource.group:
        details["group"] = resource.group
    return ApiError(422, "Invalid", f'{kind} "{name}" is invalid: {summary}', details)


def invalid_kind(kind: str, name: str, causes: list[tuple[str, str, str]]) -> ApiError:
    """422 for a request body or options object that is not a stored resource (PodLogOptions)."""
    summary = ", ".join(f"{field}: {message}" for field, _, message in causes)
    details = {
        "name": name,
        "kind": kind,
        "causes": [
            {"reason": reason, "message": message, "field": field} for field, reason, message in causes
        ],
    }
    return ApiError(422, "Invalid", f'{kind} "{name}" is invalid: {summary}', details)


def bad_request(message: str) -> ApiError:
    return ApiError(400, "BadRequest", message)


def forbidden(resource: Resource, name: str, message: str) -> ApiError:
    target = f'{resource.key} "{name}"' if name else resource.key
    return ApiError(403, "Forbidden", f"{target} is forbidden: {message}", _details(resource, name))


def unauthorized() -> ApiError:
    return ApiError(401, "Unauthorized", "Unauthorized")


def method_not_allowed(method: str) -> ApiError:
    return ApiError(
        405, "MethodNotAllowed", f"the server does not allow this method on the requested resource ({method})"
    )


def path_not_found() -> ApiError:
    return ApiError(404, "NotFound", "the server could not find the requested resource")


def gone(message: str) -> ApiError:
    return ApiError(410, "Expired", message)


def unsupported_media_type(content_type: str) -> ApiError:
    return ApiError(
        415,
        "UnsupportedMediaType",
        "the body of the request was in an unknown format - accepted "
        "media types include: application/json-patch+json, "
        "application/merge-patch+json, application/apply-patch+yaml, "
        f"application/strategic-merge-patch+json (got {content_type!r})",
    )


def unavailable(code: int = 503) -> ApiError:
    reason = "ServiceUnavailable" if code == 503 else "InternalError"
    return ApiError(code, reason, "the simulated cluster is failing requests (membersim fault 'errors')")
