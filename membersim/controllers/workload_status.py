"""Workload status, as each workload controller reports it: replica counts, revisions, the
Available/Progressing conditions (with progress deadlines) and job completion."""

from __future__ import annotations

import time
from typing import Any

from membersim import meta
from membersim.controllers.conditions import condition, drop_zero, percent_or_int
from membersim.controllers.context import Context
from membersim.controllers.daemonsets import daemon_node, eligible_nodes
from membersim.controllers.deployments import newest_replica_set
from membersim.controllers.jobs import phase_count
from membersim.controllers.statefulsets import revision_of
from membersim.pods import is_active, is_ready
from membersim.resources import DAEMONSET, DEPLOYMENT, JOB, NODE, POD, REPLICASET, STATEFULSET
from membersim.selectors import SelectorError, labels_match, requirements_from_label_selector


def progressing(deployment: dict[str, Any], rs_name: str, updated: int, available: int) -> dict[str, Any]:
    """Progressing while pods keep coming up; False once none has for progressDeadlineSeconds."""
    old_status = deployment.get("status") or {}
    old = old_status.get("conditions")
    previous = next((c for c in old or [] if c.get("type") == "Progressing"), None)
    progressed = (old_status.get("availableReplicas", 0), old_status.get("updatedReplicas", 0)) != (
        available,
        updated,
    )
    if previous and previous.get("reason") == "ProgressDeadlineExceeded" and not progressed:
        return previous
    current = condition(
        old,
        "Progressing",
        "True",
        "ReplicaSetUpdated",
        f'ReplicaSet "{rs_name}" is progressing.',
        update_time=True,
    )
    if progressed:
        current = {**current, "lastUpdateTime": meta.now()}
    deadline = deployment["spec"].get("progressDeadlineSeconds", 600)
    if time.time() - meta.parse_time(current["lastUpdateTime"]) > deadline:
        message = f'ReplicaSet "{rs_name}" has timed out progressing.'
        return condition(old, "Progressing", "False", "ProgressDeadlineExceeded", message, update_time=True)
    return current


class WorkloadStatusController:
    def __init__(self, context: Context) -> None:
        self.context = context

    def run(self) -> bool:
        context = self.context
        changed = False
        for rs in context.visit(REPLICASET):
            changed |= self.replica_set(rs)
        for deployment in context.visit(DEPLOYMENT):
            changed |= self.deployment(deployment)
        for sts in context.visit(STATEFULSET):
            changed |= self.stateful_set(sts)
        for ds in context.visit(DAEMONSET):
            changed |= self.daemon_set(ds)
        for job in context.visit(JOB):
            changed |= self.job(job)
        return changed

    def _active_pods(self, owner: dict[str, Any]) -> list[dict[str, Any]]:
        return [p for p in self.context.owned(POD, owner) if is_active(p)]

    def replica_set(self, rs: dict[str, Any]) -> bool:
        pods = self._active_pods(rs)
        ready = sum(1 for p in pods if is_ready(p))
        try:
            selector = requirements_from_label_selector(rs["spec"].get("selector"))
        except SelectorError:
            selector = []
        status = {
            "replicas": len(pods),
            "fullyLabeledReplicas": sum(
                1 for p in pods if labels_match(selector, p["metadata"].get("labels"))
            ),
            "readyReplicas": ready,
            "availableReplicas": ready,
            "observedGeneration": rs["metadata"].get("generation", 1),
        }
        return self.context.write_status(REPLICASET, rs, status)

    def deployment(self, deployment: dict[str, Any]) -> bool:
        spec = deployment["spec"]
        desired = spec.get("replicas", 1)
        owned = self.context.owned(REPLICASET, deployment)
        newest = newest_replica_set(deployment, owned)
        total = ready = updated = 0
        for rs in owned:
            pods = self._active_pods(rs)
            total += len(pods)
            ready += sum(1 for p in pods if is_ready(p))
            if rs is newest:
                updated = len(pods)
        available = ready
        old = (deployment.get("status") or {}).get("conditions")
        max_unavailable = percent_or_int(
            ((spec.get("strategy") or {}).get("rollingUpdate") or {}).get("maxUnavailable", "25%"),
            desired,
            round_up=False,
        )
        if spec.get("strategy", {}).get("type") == "Recreate":
            max_unavailable = desired
        if available >= desired - max_unavailable:
            availability = ("True", "MinimumReplicasAvailable", "Deployment has minimum availability.")
        else:
            availability = (
                "False",
                "MinimumReplicasUnavailable",
                "Deployment does not have minimum availability.",
            )
        conditions = [condition(old, "Available", *availability, update_time=True)]
        rs_name = newest["metadata"]["name"] if newest else deployment["metadata"]["name"]
        if spec.get("paused"):
            conditions.append(
                condition(
                    old,
                    "Progressing",
                    "Unknown",
                    "DeploymentPaused",
                    "Deployment is paused",
                    update_time=True,
                )
            )
        elif newest and updated == desired and available >= desired and total == desired:
            message = f'ReplicaSet "{rs_name}" has successfully progressed.'
            conditions.append(
                condition(old, "Progressing", "True", "NewReplicaSetAvailable", message, update_time=True)
            )
        else:
            current = progressing(deployment, rs_name, updated, available)
            conditions.append(current)
            if current.get("reason") == "ReplicaSetUpdated":
                # Looked at again when the progress deadline passes, not on every tick until then.
                deadline = (
                    meta.parse_time(current["lastUpdateTime"]) + spec.get("progressDeadlineSeconds", 600) + 1
                )
                metadata = deployment["metadata"]
                self.context.requeue_at(DEPLOYMENT, metadata["namespace"], metadata["name"], deadline)
        status: dict[str, Any] = {
            "observedGeneration": deployment["metadata"].get("generation", 1),
            "replicas": total,
            "updatedReplicas": updated,
            "readyReplicas": ready,
            "availableReplicas": available,
        }
        if total - available > 0 or desired - available > 0:
            status["unavailableReplicas"] = max(total, desired) - available
        status["conditions"] = conditions
        return self.context.write_status(
            DEPLOYMENT,
            deployment,
            drop_zero(status, ("readyReplicas", "availableReplicas", "updatedReplicas", "replicas")),
        )

    def stateful_set(self, sts: dict[str, Any]) -> bool:
        revision = revision_of(sts)
        pods = self._active_pods(sts)
        ready = sum(1 for p in pods if is_ready(p))
        current = sum(
            1 for p in pods if (p["metadata"].get("labels") or {}).get("controller-revision-hash") == revision
        )
        status = {
            "observedGeneration": sts["metadata"].get("generation", 1),
            "replicas": len(pods),
            "readyReplicas": ready,
            "currentReplicas": current,
            "updatedReplicas": current,
            "availableReplicas": ready,
            "currentRevision": revision,
            "updateRevision": revision,
            "collisionCount": 0,
        }
        return self.context.write_status(
            STATEFULSET,
            sts,
            drop_zero(status, ("readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas")),
        )

    def daemon_set(self, ds: dict[str, Any]) -> bool:
        eligible = set(eligible_nodes(ds, list(self.context.store.iter(NODE))))
        pods = self._active_pods(ds)
        scheduled = [p for p in pods if (p.get("spec") or {}).get("nodeName")]
        ready = sum(1 for p in scheduled if is_ready(p))
        revision = meta.template_hash(ds["spec"].get("template"))
        desired = len(eligible | {daemon_node(p) for p in pods})
        status = {
            "currentNumberScheduled": len(scheduled),
            "numberMisscheduled": 0,
            "desiredNumberScheduled": desired,
            "numberReady": ready,
            "observedGeneration": ds["metadata"].get("generation", 1),
            "updatedNumberScheduled": sum(
                1
                for p in scheduled
                if (p["metadata"].get("labels") or {}).get("controller-revision-hash") == revision
            ),
            "numberAvailable": ready,
            "numberUnavailable": desired - ready,
        }
        return self.context.write_status(
            DAEMONSET,
            ds,
            drop_zero(status, ("numberAvailable", "numberUnavailable", "updatedNumberScheduled")),
        )

    def job(self, job: dict[str, Any]) -> bool:
        pods = self.context.owned(POD, job)
        old = job.get("status") or {}
        old_conditions = old.get("conditions")
        succeeded = phase_count(pods, "Succeeded")
        failed = phase_count(pods, "Failed")
        active = [p for p in pods if is_active(p)]
        status: dict[str, Any] = {}
        if not job["spec"].get("suspend"):
            status["startTime"] = old.get("startTime") or meta.now()
        if active:
            status["active"] = len(active)
        status["ready"] = sum(1 for p in active if is_ready(p))
        if succeeded:
            status["succeeded"] = succeeded
        if failed:
            status["failed"] = failed
        status["terminating"] = 0
        status["uncountedTerminatedPods"] = {}
        if succeeded >= (job["spec"].get("completions") or 1):
            status["completionTime"] = old.get("completionTime") or meta.now()
            message = "Reached expected number of succeeded pods"
            status["conditions"] = [
                condition(old_conditions, "SuccessCriteriaMet", "True", "CompletionsReached", message),
                condition(old_conditions, "Complete", "True", "CompletionsReached", message),
            ]
            status["conditions"] = [
                {
                    **c,
                    "lastProbeTime": next(
                        (o.get("lastProbeTime") for o in old_conditions or [] if o.get("type") == c["type"]),
                        c["lastTransitionTime"],
                    ),
                }
                for c in status["conditions"]
            ]
        elif failed > job["spec"].get("backoffLimit", 6):
            message = "Job has reached the specified backoff limit"
            status["conditions"] = [
                condition(old_conditions, "FailureTarget", "True", "BackoffLimitExceeded", message),
                condition(old_conditions, "Failed", "True", "BackoffLimitExceeded", message),
            ]
        elif job["spec"].get("suspend"):
            status["conditions"] = [
                condition(old_conditions, "Suspended", "True", "JobSuspended", "Job suspended")
            ]
        return self.context.write_status(JOB, job, status)
