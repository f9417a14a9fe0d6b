"""SelfSubjectAccessReview: what the caller's role lets it do, so `kubectl auth can-i` answers."""

from __future__ import annotations

from typing import Any

from kubeapi import catalogue
from kubeapi.auth import allowed, needed_role
from kubeapi.kinds import Kind
from kubeapi.status import ApiError

GROUP = "authorization.k8s.io"
KIND = Kind(GROUP, "v1", "SelfSubjectAccessReview", "selfsubjectaccessreviews", False, verbs=("create",))


def _verbs_of(group: str, plural: str) -> tuple[str, ...] | None:
    for kind in catalogue.all_kinds():
        if (kind.group, kind.plural) == (group, plural):
            return kind.verbs
    return None


def review(user: Any, body: Any) -> dict[str, Any]:
    if not isinstance(body, dict) or not isinstance(body.get("spec"), dict):
        raise ApiError(400, "a SelfSubjectAccessReview needs a spec")
    spec = body["spec"]
    attributes = spec.get("resourceAttributes")
    status: dict[str, Any]
    if isinstance(attributes, dict):
        group, plural = str(attributes.get("group", "")), str(attributes.get("resource", ""))
        verb = str(attributes.get("verb", ""))
        verbs = _verbs_of(group, plural)
        if plural == "*" or verbs is None:
            status = {
                "allowed": False,
                "reason": f"karmada-ui serves no resource {plural!r} in group {group!r}",
            }
        elif verb != "*" and verb not in verbs:
            status = {"allowed": False, "reason": f"{plural} cannot be {verb}d through this API"}
        else:
            checked = verbs if verb == "*" else (verb,)
            ok = all(allowed(user, group, plural, v) for v in checked)
            role = needed_role(group, plural, checked[-1])
            reason = f"the {role} role {'allows' if ok else 'is needed for'} this"
            status = {"allowed": ok, "reason": reason}
    else:
        status = {"allowed": False, "reason": "only resource attributes are reviewed"}
    return {
        "kind": "SelfSubjectAccessReview",
        "apiVersion": f"{GROUP}/v1",
        "metadata": {"creationTimestamp": None},
        "spec": spec,
        "status": status,
    }
