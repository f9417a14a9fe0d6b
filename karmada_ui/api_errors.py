"""API errors as JSON with the field and the reason; unexpected errors never leak a traceback."""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import status
from rest_framework.exceptions import AuthenticationFailed, NotAuthenticated, Throttled
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from karmada_ui.throttles import AnonymousRateThrottle

log = logging.getLogger(__name__)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        return Response(detail, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, NotAuthenticated | AuthenticationFailed):
        # DRF checks throttles only after authentication and permissions have passed, so refused
        # anonymous calls (guessed tokens among them) are counted here against the anonymous rate.
        throttle = AnonymousRateThrottle()
        request, view = context.get("request"), context.get("view")
        if request is not None and not throttle.allow_request(request, view):
            exc = Throttled(throttle.wait())
    return drf_exception_handler(exc, context)
