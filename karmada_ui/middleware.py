"""Login everywhere: pages redirect to the login form, the API and /metrics answer for themselves."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.middleware import LoginRequiredMiddleware as DjangoLoginRequired

# The API authenticates by session or token and answers 401/403 as JSON through DRF;
# /metrics is protected by its own token setting; the Kubernetes API (/k8s) answers 401/403 as
# Status objects; static files and i18n switching are public.
OPEN_PREFIXES = ("/api/", "/k8s/", "/metrics", "/static/", "/i18n/", "/healthz")


class LoginRequiredMiddleware(DjangoLoginRequired):
    def process_view(self, request: Any, view_func: Any, view_args: Any, view_kwargs: Any) -> Any:
        if request.path.startswith(OPEN_PREFIXES):
            return None
        return super().process_view(request, view_func, view_args, view_kwargs)
