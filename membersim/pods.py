"""Pod facts every controller and view reads: finished or not, ready or not, the failure it is told to
show, and its QoS class."""

from __future__ import annotations

from typing import Any

# A pod (or pod template) annotation that makes the simulated kubelet report a failure instead:
# CrashLoopBackOff, ImagePullBackOff or ErrImagePull (not ready), or Error (the pod fails).
FAIL_ANNOTATION = "membersim.io/fail"
FAILURES = ("CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "Error")
FINISHED = ("Succeeded", "Failed")


def is_active(pod: dict[str, Any]) -> bool:
    return (pod.get("status") or {}).get("phase") not in FINISHED


def is_ready(pod: dict[str, Any]) -> bool:
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return condition.get("status") == "True"
    return False


def failure_of(pod: dict[str, Any]) -> str | None:
    """The failure the pod is annotated to show, if any."""
    value = (pod["metadata"].get("annotations") or {}).get(FAIL_ANNOTATION)
    if value == "Error" and (pod.get("spec") or {}).get("restartPolicy") != "Never":
        return "CrashLoopBackOff"  # the kubelet restarts a failing container unless told never to
    return value if value in FAILURES else None


def qos_class(spec: dict[str, Any]) -> str:
    containers = [*(spec.get("containers") or []), *(spec.get("initContainers") or [])]
    resources = [c.get("resources") or {} for c in containers]
    if not any(r.get("requests") or r.get("limits") for r in resources):
        return "BestEffort"
    for r in resources:
        limits, requests = r.get("limits") or {}, {**(r.get("limits") or {}), **(r.get("requests") or {})}
        if not all(k in limits for k in ("cpu", "memory")) or any(
            requests.get(k) != limits.get(k) for k in ("cpu", "memory")
        ):
            return "Burstable"
    return "Guaranteed"
