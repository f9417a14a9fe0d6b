"""Values every page's chrome needs: the navigation, the user's role and the fleet summary line."""

from __future__ import annotations

from typing import Any

from core.roles import role_of
from karmada_ui.header import fleet_summary
from karmada_ui.navigation import nav_links


def chrome(request: Any) -> dict[str, Any]:
    if not getattr(request, "user", None) or not request.user.is_authenticated:
        return {}
    return {
        "nav_links": nav_links(request.path),
        "user_role": role_of(request.user),
        "fleet_summary": fleet_summary(),
    }
