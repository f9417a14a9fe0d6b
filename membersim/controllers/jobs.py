"""The job controller: up to parallelism pods until completions succeed or backoffLimit is passed."""

from __future__ import annotations

from typing import Any

from membersim import meta
from membersim.controllers.context import Context
from membersim.pods import is_active
from membersim.resources import JOB, POD

COMPONENT = "job-controller"


def phase_count(pods: list[dict[str, Any]], phase: str) -> int:
    return sum(1 for p in pods if (p.get("status") or {}).get("phase") == phase)


class JobController:
    def __init__(self, context: Context) -> None:
        self.context = context

    def run(self) -> bool:
        changed = False
        for job in self.context.visit(JOB):
            changed |= self.sync(job)
        return changed

    def sync(self, job: dict[str, Any]) -> bool:
        context = self.context
        spec = job["spec"]
        pods = context.owned(POD, job)
        changed = False
        if spec.get("suspend"):
            for pod in pods:
                if is_active(pod):
                    context.delete(POD, pod, job, COMPONENT)
                    changed = True
            return changed
        completions = spec.get("completions") or 1
        succeeded = phase_count(pods, "Succeeded")
        failed = phase_count(pods, "Failed")
        active = sum(1 for p in pods if is_active(p))
        if failed > spec.get("backoffLimit", 6):
            return False
        want = min(spec.get("parallelism", 1), completions - succeeded) - active
        name, uid = job["metadata"]["name"], job["metadata"]["uid"]
        labels = {
            "batch.kubernetes.io/job-name": name,
            "job-name": name,
            "batch.kubernetes.io/controller-uid": uid,
            "controller-uid": uid,
        }
        for _ in range(max(0, want)):
            context.create_pod(job, spec.get("template") or {}, f"{name}-{meta.suffix()}", labels, COMPONENT)
            changed = True
        return changed
