"""DRF and view permissions by role: viewers read, operators change workloads, admins change clusters."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.core.exceptions import PermissionDenied
from rest_framework.permissions import SAFE_METHODS, BasePermission

from core.roles import OPERATOR, VIEWER, has_role


class RolePermission(BasePermission):
    """Read needs viewer; writes need the view's `write_role` (operator unless the view says admin)."""

    message = "Your role does not allow this."

    def has_permission(self, request: Any, view: Any) -> bool:
        if not request.user or not request.user.is_authenticated:
            return False
        if request.method in SAFE_METHODS:
            return has_role(request.user, getattr(view, "read_role", VIEWER))
        return has_role(request.user, getattr(view, "write_role", OPERATOR))


def role_required(role: str) -> Callable:
    """Decorate a page view so that only users with at least `role` may use it (403 otherwise)."""

    def decorator(view: Callable) -> Callable:
        @wraps(view)
        def wrapped(request: Any, *args: Any, **kwargs: Any) -> Any:
            if not has_role(request.user, role):
                raise PermissionDenied(f"This needs the {role} role.")
            return view(request, *args, **kwargs)

        return wrapped

    return decorator
