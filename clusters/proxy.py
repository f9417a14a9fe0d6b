"""The cluster proxy: `.../clusters/NAME/proxy/PATH` answered by the member as its stored credentials."""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

from clusters import k8s, services
from clusters.models import Cluster
from core.roles import OPERATOR, VIEWER, has_role

GROUP = "cluster.karmada.io"
# Kubernetes' verb for each method, as RBAC and its Forbidden messages name them.
VERBS = {"GET": "get", "HEAD": "get", "OPTIONS": "get", "POST": "create", "PUT": "update", "PATCH": "patch"}
STREAM_FLAGS = ("watch", "follow")


class BearerTokenAuthentication(TokenAuthentication):
    """The REST API's tokens, sent as kubectl and the official client send them: `Bearer <token>`."""

    keyword = "Bearer"


def status(code: int, reason: str, message: str, **details: Any) -> HttpResponse:
    """A Kubernetes Status object, as kubectl prints it (`Error from server (Reason): message`)."""
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }
    if details:
        body["details"] = details
    return HttpResponse(json.dumps(body), status=code, content_type="application/json")


def _caller(request: HttpRequest) -> Any:
    try:
        found = BearerTokenAuthentication().authenticate(request)  # type: ignore[arg-type]
    except AuthenticationFailed:
        return None
    return found[0] if found else None


def _refusal(request: HttpRequest, user: Any, name: str, path: str) -> HttpResponse | None:
    """Why this request may not go through (who, which method, which path), or None when it may."""
    method = request.method or "GET"
    if user is None:
        return status(401, "Unauthorized", "Unauthorized: send a bearer token of a karmada-ui user")
    verb = VERBS.get(method, "delete" if method == "DELETE" else method.lower())
    needed = VIEWER if verb == "get" else OPERATOR
    if not has_role(user, needed):
        return status(
            403,
            "Forbidden",
            f'clusters.{GROUP} "{name}" is forbidden: User "{user.get_username()}" cannot {verb} resource '
            f'"clusters/proxy" in API group "{GROUP}" at the cluster scope: the {needed} role is needed',
            name=name,
            group=GROUP,
            kind="clusters",
        )
    if any(segment in (".", "..") for segment in path.split("/")):
        return status(400, "BadRequest", f"the proxied path {path!r} must not hold . or .. segments")
    if "upgrade" in request.headers.get("Connection", "").lower() or request.headers.get("Upgrade"):
        return status(
            400,
            "BadRequest",
            "the cluster proxy does not carry upgraded connections (exec, attach, port-forward); "
            "logs, watches and every other request work",
        )
    return None


@csrf_exempt  # bearer tokens only: no cookie is read, so there is no cross-site request to forge
def cluster_proxy(request: HttpRequest, name: str, path: str = "") -> HttpResponse:
    """Forward the request to member `name`; viewers read (GET), operators and admins also write."""
    user = _caller(request)
    refused = _refusal(request, user, name, path or "")
    if refused is not None:
        return refused
    cluster = Cluster.objects.filter(name=name).first()
    if cluster is None:
        return status(
            404, "NotFound", f'clusters.{GROUP} "{name}" not found', name=name, group=GROUP, kind="clusters"
        )
    stream = any(request.GET.get(flag) in ("true", "1") for flag in STREAM_FLAGS)
    try:
        answer = services.proxy_request(
            cluster,
            request.method or "GET",
            path or "",
            query=request.META.get("QUERY_STRING", ""),
            headers=request.headers,
            body=request.body if request.method not in ("GET", "HEAD") else None,
            stream=stream,
            user=user,
        )
        if stream:
            response: HttpResponse | StreamingHttpResponse = StreamingHttpResponse(
                answer.chunks(), status=answer.status
            )
        else:
            response = HttpResponse(answer.read(), status=answer.status)
    except k8s.KubeError as exc:
        return status(503, "ServiceUnavailable", f"cluster {name}: {exc.message}")
    for header, value in answer.headers.items():
        response[header] = value
    return response  # type: ignore[return-value]
