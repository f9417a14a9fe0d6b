"""Who is calling: a bearer token of the REST API's token model, and what that user's role allows."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from rest_framework.authtoken.models import Token

from core.roles import ADMIN, OPERATOR, VIEWER, has_role
from kubeapi.status import ApiError

READ_VERBS = frozenset({"get", "list", "watch"})
# Writes to clusters that only admins may make (operators edit a cluster's labels, as on the pages).
ADMIN_ONLY = {("cluster.karmada.io", "clusters", "delete"), ("cluster.karmada.io", "clusters", "create")}


def authenticate(request: HttpRequest) -> Any:
    """The user of the request's bearer token; 401 Unauthorized when there is none or it is unknown."""
    header = request.headers.get("Authorization", "")
    scheme, _, key = header.partition(" ")
    if scheme.lower() != "bearer" or not key.strip():
        raise ApiError(401, "Unauthorized: send a bearer token (python manage.py kubeconfig --user NAME)")
    token = Token.objects.select_related("user").filter(key=key.strip()).first()
    if token is None or not token.user.is_active:
        raise ApiError(401, "Unauthorized: the token is not known")
    return token.user


def needed_role(group: str, plural: str, verb: str) -> str:
    if verb in READ_VERBS:
        return VIEWER
    if (group, plural, verb) in ADMIN_ONLY:
        return ADMIN
    return OPERATOR


def allowed(user: Any, group: str, plural: str, verb: str) -> bool:
    return has_role(user, needed_role(group, plural, verb))


def require(user: Any, group: str, plural: str, verb: str, name: str = "", namespace: str = "") -> None:
    """403 Forbidden, worded as Kubernetes words it, when the user's role does not allow the verb."""
    if allowed(user, group, plural, verb):
        return
    resource = f'resource "{plural}" in API group "{group}"'
    where = f' in the namespace "{namespace}"' if namespace else " at the cluster scope"
    target = f'{plural}.{group} "{name}"' if name else resource
    raise ApiError(
        403,
        f'{target} is forbidden: User "{user.get_username()}" cannot {verb} {resource}{where}: '
        f"the {needed_role(group, plural, verb)} role is needed",
        details={"name": name, "group": group, "kind": plural},
    )
