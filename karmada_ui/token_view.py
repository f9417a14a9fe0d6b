"""POST /api/v1/auth/token/: DRF's token view, which has no throttle of its own, with one per address."""

from __future__ import annotations

from rest_framework.authtoken.views import ObtainAuthToken

from karmada_ui.throttles import AuthTokenRateThrottle


class ThrottledObtainAuthToken(ObtainAuthToken):
    throttle_classes = [AuthTokenRateThrottle]


obtain_auth_token = ThrottledObtainAuthToken.as_view()
