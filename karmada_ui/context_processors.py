"""Values every page's chrome needs: the navigation, the user's role and the fleet summary line."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.module_loading import import_string

from karmada_ui.navigation import nav_links
from karmada_ui.roles import role_of


def chrome(request: Any) -> dict[str, Any]:
    if not getattr(request, "user", None) or not request.user.is_authenticated:
        return {}
    summary = None
    provider = getattr(settings, "FLEET_SUMMARY_PROVIDER", "")
    if provider:
        summary = import_string(provider)()
    return {
        "nav_links": nav_links(request.path),
        "user_role": role_of(request.user),
        "fleet_summary": summary,
    }
