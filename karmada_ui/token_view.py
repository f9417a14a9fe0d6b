"""POST /api/v1/auth/token/: DRF's token view with a throttle per address and the sign-in lockout."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from rest_framework.authtoken.views import ObtainAuthToken

from core.throttles import AuthTokenRateThrottle

LOCKOUT_MARKS = ("axes_locked_out", "axes_credentials")


class ThrottledObtainAuthToken(ObtainAuthToken):
    throttle_classes = [AuthTokenRateThrottle]  # DRF's own view has none

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response = super().dispatch(request, *args, **kwargs)
        # The lockout backend marks the DRF request it was given; the lockout middleware, which turns a
        # lockout into its answer, reads Django's own request.
        for mark in LOCKOUT_MARKS:
            if hasattr(self.request, mark):
                setattr(request, mark, getattr(self.request, mark))
        return response


obtain_auth_token = ThrottledObtainAuthToken.as_view()
