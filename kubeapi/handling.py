"""How every request of the Kubernetes API is handled: the bearer token, and errors as Status objects."""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from core.errors import Conflict, FieldError
from kubeapi.auth import authenticate
from kubeapi.status import ApiError, error_response

logger = logging.getLogger(__name__)


def as_api_error(exc: Exception, what: str = "") -> ApiError:
    """A service's error as the Status the REST API's answer corresponds to (same field, same reason)."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, FieldError):
        causes = [
            {
                "reason": "FieldValueInvalid",
                "field": str(p.get("field", "")),
                "message": str(p.get("reason", "")),
            }
            for p in exc.problems()
        ]
        shown = "; ".join(f"{c['field']}: {c['message']}" if c["field"] else c["message"] for c in causes)
        return ApiError(422, f"{what} is invalid: {shown}" if what else shown, "Invalid", causes=causes)
    if isinstance(exc, Conflict):
        return ApiError(409, f"Operation cannot be fulfilled on {what}: {exc}", "Conflict")
    if isinstance(exc, PermissionDenied):
        return ApiError(403, str(exc) or "forbidden")
    raise exc


def kube_view(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Authenticate by bearer token (request.user), answer every failure as a Status, never a page."""

    @csrf_exempt
    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            request.user = authenticate(request)
            return view(request, *args, **kwargs)
        except (ApiError, FieldError, Conflict, PermissionDenied) as exc:
            return error_response(as_api_error(exc))
        except Exception:
            logger.exception("the Kubernetes API failed on %s %s", request.method, request.path)
            return error_response(ApiError(500, "an internal error occurred; it has been logged"))

    return wrapped
