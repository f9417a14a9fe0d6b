"""The three roles — viewer, operator, admin — as Django groups, and how a user's role is read."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, Group

VIEWER = "viewer"
OPERATOR = "operator"
ADMIN = "admin"
ROLES = (VIEWER, OPERATOR, ADMIN)
RANK = {VIEWER: 1, OPERATOR: 2, ADMIN: 3}


def ensure_role_groups(**_: Any) -> None:
    for name in ROLES:
        Group.objects.get_or_create(name=name)


def role_of(user: AbstractBaseUser | AnonymousUser) -> str | None:
    """The highest role a user holds; superusers are admins, any other signed-in user at least a viewer."""
    if not user.is_authenticated:
        return None
    if getattr(user, "is_superuser", False):
        return ADMIN
    cached = getattr(user, "_karmada_role", None)
    if cached is not None:
        return cached
    names = set(user.groups.values_list("name", flat=True))  # type: ignore[attr-defined]
    role = max((r for r in ROLES if r in names), key=RANK.__getitem__, default=VIEWER)
    user._karmada_role = role  # type: ignore[union-attr]
    return role


def has_role(user: AbstractBaseUser | AnonymousUser, needed: str) -> bool:
    role = role_of(user)
    return role is not None and RANK[role] >= RANK[needed]


def grant(user: Any, role: str) -> None:
    """Put a user in exactly one role group."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}; expected one of {', '.join(ROLES)}")
    ensure_role_groups()
    user.groups.remove(*Group.objects.filter(name__in=ROLES))
    user.groups.add(Group.objects.get(name=role))
    if hasattr(user, "_karmada_role"):
        del user._karmada_role
