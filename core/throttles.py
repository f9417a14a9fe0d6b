"""API throttles whose rates are read from settings.API_THROTTLE_RATES on every request."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle


class _SettingsRateThrottle(SimpleRateThrottle):
    # DRF binds THROTTLE_RATES once at import; reading the setting per request lets tests and
    # operators' overrides take effect without a restart of the class machinery.
    def get_rate(self) -> str | None:
        return settings.API_THROTTLE_RATES.get(self.scope)


class AnonymousRateThrottle(_SettingsRateThrottle):
    """Callers who are not signed in, counted per client address."""

    scope = "anonymous"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        if request.user and request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class UserRateThrottle(_SettingsRateThrottle):
    """Signed-in callers (session or token), counted per user."""

    scope = "user"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        if not (request.user and request.user.is_authenticated):
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


class AuthTokenRateThrottle(_SettingsRateThrottle):
    """Token requests, counted per client address whoever they claim to be."""

    scope = "auth-token"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
