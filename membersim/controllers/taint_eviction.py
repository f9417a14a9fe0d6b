"""Taint-based eviction (the node lifecycle controller's taint manager): pods on a node with a NoExecute
taint they do not tolerate go at once, or when their tolerationSeconds run out."""

from __future__ import annotations

import time
from typing import Any

from membersim import meta
from membersim.controllers.context import Context
from membersim.placement import tolerates
from membersim.pods import is_active
from membersim.resources import NODE, POD

COMPONENT = "taint-eviction-controller"
# The DefaultTolerationSeconds admission plugin gives every pod this long on a not-ready or
# unreachable node.
DEFAULT_TOLERATION_SECONDS = 300


def toleration_seconds(pod: dict[str, Any], taint: dict[str, Any]) -> float | None:
    """How long ``pod`` may stay on a node with a NoExecute ``taint``; None means for ever."""
    for toleration in (pod.get("spec") or {}).get("tolerations") or []:
        if tolerates([toleration], taint):
            seconds = toleration.get("tolerationSeconds")
            return None if seconds is None else max(0.0, float(seconds))
    if taint.get("key") in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"):
        return float(DEFAULT_TOLERATION_SECONDS)
    return 0.0


class TaintEvictionController:
    def __init__(self, context: Context) -> None:
        self.context = context

    def run(self) -> bool:
        context = self.context
        changed = False
        now = time.time()
        pods: list[dict[str, Any]] | None = None
        for node in context.store.iter(NODE):
            taints = [
                t for t in (node.get("spec") or {}).get("taints") or [] if t.get("effect") == "NoExecute"
            ]
            if not taints:
                continue
            pods = pods if pods is not None else context.visit(POD)
            for pod in pods:
                if (pod.get("spec") or {}).get("nodeName") != node["metadata"]["name"] or not is_active(pod):
                    continue
                for taint in taints:
                    seconds = toleration_seconds(pod, taint)
                    if seconds is None:
                        continue
                    expires = meta.parse_time(taint.get("timeAdded")) + seconds
                    if seconds and now < expires:
                        # Looked at again when the toleration runs out, not on every tick until then.
                        context.requeue_at(
                            POD, pod["metadata"]["namespace"], pod["metadata"]["name"], expires
                        )
                        continue
                    where = f"{pod['metadata']['namespace']}/{pod['metadata']['name']}"
                    context.record(
                        pod, "Normal", "TaintManagerEviction", f"Marking for deletion Pod {where}", COMPONENT
                    )
                    context.delete(POD, pod, None, COMPONENT)
                    changed = True
                    break
        return changed
