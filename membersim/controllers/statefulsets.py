"""The stateful set controller: pods NAME-0..N-1 of the current revision, replaced when stale or gone."""

from __future__ import annotations

from typing import Any

from membersim import meta
from membersim.controllers.context import Context
from membersim.pods import is_active
from membersim.resources import POD, STATEFULSET

COMPONENT = "statefulset-controller"


def revision_of(sts: dict[str, Any]) -> str:
    return f"{sts['metadata']['name']}-{meta.template_hash(sts['spec'].get('template'))}"


class StatefulSetController:
    def __init__(self, context: Context) -> None:
        self.context = context

    def run(self) -> bool:
        changed = False
        for sts in self.context.visit(STATEFULSET):
            changed |= self.sync(sts)
        return changed

    def sync(self, sts: dict[str, Any]) -> bool:
        context = self.context
        changed = False
        name = sts["metadata"]["name"]
        desired = sts["spec"].get("replicas", 1)
        revision = revision_of(sts)
        pods = {p["metadata"]["name"]: p for p in context.owned(POD, sts)}
        for pod_name, pod in pods.items():
            ordinal = pod_name.rsplit("-", 1)[-1]
            stale = (pod["metadata"].get("labels") or {}).get("controller-revision-hash") != revision
            if not ordinal.isdigit() or int(ordinal) >= desired or stale or not is_active(pod):
                context.delete(POD, pod, sts, COMPONENT)
                changed = True
        for ordinal in range(desired):
            pod_name = f"{name}-{ordinal}"
            if (
                pod_name in pods
                and context.store.get(POD, sts["metadata"]["namespace"], pod_name) is not None
            ):
                continue
            labels = {
                "controller-revision-hash": revision,
                "statefulset.kubernetes.io/pod-name": pod_name,
                "apps.kubernetes.io/pod-index": str(ordinal),
            }
            extra = {"hostname": pod_name}
            if sts["spec"].get("serviceName"):
                extra["subdomain"] = sts["spec"]["serviceName"]
            context.create_pod(sts, sts["spec"].get("template") or {}, pod_name, labels, COMPONENT, extra)
            changed = True
        return changed
