"""The simulated container runtime: what each container of a started pod does (runs, completes, fails,
crash-loops with the kubelet's back-off), the log lines it writes and the kubelet's events about it."""

from __future__ import annotations

import time
from typing import Any

from membersim import meta
from membersim.controllers.context import Context
from membersim.logs import LogStore
from membersim.pods import FAIL_ANNOTATION
from membersim.resources import POD

COMPONENT = "kubelet"
# How long a crash-looping container runs before it fails again, and the kubelet's restart back-off:
# 10 s doubling up to 5 min (a pod may ask for a shorter start with membersim.io/backoff-seconds).
CRASH_AFTER_SECONDS = 1.0
BACKOFF_ANNOTATION = "membersim.io/backoff-seconds"
INITIAL_BACKOFF_SECONDS = 10.0
MAX_BACKOFF_SECONDS = 300.0


def go_duration(seconds: float) -> str:
    """A duration as Go prints it: 10s, 1m20s, 5m0s, 500ms."""
    if seconds < 1:
        return f"{round(seconds * 1000)}ms"
    minutes, rest = divmod(round(seconds, 3), 60)
    text = f"{rest:g}s"
    return f"{int(minutes)}m{text}" if minutes else text


def backoff(pod: dict[str, Any], restarts: int) -> float:
    """Seconds the kubelet waits before restart number ``restarts + 1`` of a failed container."""
    try:
        initial = float((pod["metadata"].get("annotations") or {}).get(BACKOFF_ANNOTATION, ""))
    except ValueError:
        initial = INITIAL_BACKOFF_SECONDS
    if not 0 < initial <= MAX_BACKOFF_SECONDS:
        initial = INITIAL_BACKOFF_SECONDS
    return min(initial * 2 ** min(restarts, 20), MAX_BACKOFF_SECONDS)


def new_container_id() -> str:
    """A container runtime's 64-hex-digit id; not a secret, so no system call for randomness."""
    return f"containerd://{meta.random_bits(256):064x}"


def terminated(exit_code: int, reason: str, started: str, finished: str, container_id: str) -> dict[str, Any]:
    return {
        "terminated": {
            "exitCode": exit_code,
            "reason": reason,
            "startedAt": started,
            "finishedAt": finished,
            "containerID": container_id,
        }
    }


class ContainerRuntime:
    """Runs containers for the kubelets: their state, their logs and the events a kubelet records."""

    def __init__(self, context: Context, logs: LogStore) -> None:
        self.context = context
        self.logs = logs

    def _event(self, pod: dict[str, Any], type_: str, reason: str, message: str) -> None:
        self.context.record(pod, type_, reason, message, COMPONENT, host=pod["spec"].get("nodeName", ""))

    def _write(self, pod: dict[str, Any], container: str, text: str, *, finish: bool = False) -> None:
        self.logs.write(pod["metadata"]["namespace"], pod["metadata"]["name"], container, text, finish=finish)

    def _launch(self, pod: dict[str, Any], container: dict[str, Any], container_id: str) -> None:
        """A new run of ``container``: the runtime's events and the lines the program writes first."""
        namespace, name = pod["metadata"]["namespace"], pod["metadata"]["name"]
        self.logs.start(namespace, name, container["name"], container_id)
        self._event(pod, "Normal", "Created", f"Created container: {container['name']}")
        self._event(pod, "Normal", "Started", f"Started container {container['name']}")
        image = container.get("image", "")
        self._write(
            pod, container["name"], f"starting {container['name']} ({image}) on {pod['spec']['nodeName']}"
        )
        for port in container.get("ports") or []:
            self._write(
                pod,
                container["name"],
                f"listening on :{port.get('containerPort')}/{port.get('protocol', 'TCP')}",
            )

    def start(
        self, pod: dict[str, Any], container: dict[str, Any], failure: str | None, job: bool, when: str
    ) -> dict[str, Any]:
        """The first run of ``container`` in a pod its kubelet just started: its containerStatus."""
        image = container.get("image", "")
        name = container["name"]
        self._event(pod, "Normal", "Pulling", f'Pulling image "{image}"')
        status: dict[str, Any] = {
            "name": name,
            "image": image,
            "imageID": f"{image}@sha256:{meta.template_hash(image)}",
            "ready": False,
            "restartCount": 0,
            "started": False,
            "lastState": {},
        }
        if failure in ("ImagePullBackOff", "ErrImagePull"):
            self._event(pod, "Warning", "Failed", f'Failed to pull image "{image}": not found')
            self._event(pod, "Normal", "BackOff", f'Back-off pulling image "{image}"')
            self._event(pod, "Warning", "Failed", f"Error: {failure}")
            return {
                **status,
                "state": {"waiting": {"reason": failure, "message": f'Back-off pulling image "{image}"'}},
            }
        self._event(
            pod, "Normal", "Pulled", f'Successfully pulled image "{image}" in 0s (0s including waiting)'
        )
        container_id = new_container_id()
        self._launch(pod, container, container_id)
        status["containerID"] = container_id
        if failure == "Error":
            self._write(
                pod,
                name,
                f"error: simulated failure ({FAIL_ANNOTATION}=Error), exiting with code 1",
                finish=True,
            )
            return {**status, "state": terminated(1, "Error", when, when, container_id)}
        if job:
            self._write(pod, name, "completed, exiting with code 0", finish=True)
            return {**status, "state": terminated(0, "Completed", when, when, container_id)}
        if failure == "CrashLoopBackOff":
            self.requeue(pod, time.time() + CRASH_AFTER_SECONDS)
        else:
            self._write(pod, name, "ready to serve")
        return {**status, "started": True, "state": {"running": {"startedAt": when}}}

    def requeue(self, pod: dict[str, Any], when: float) -> None:
        self.context.requeue_at(POD, pod["metadata"]["namespace"], pod["metadata"]["name"], when)

    def crash_loop(self, pod: dict[str, Any], now: float) -> list[dict[str, Any]] | None:
        """The containerStatuses of a crash-looping pod after what is due at ``now`` (a failure of the
        running run, or a restart once the back-off has passed); None when nothing is due yet."""
        statuses = (pod.get("status") or {}).get("containerStatuses") or []
        containers = {c["name"]: c for c in pod["spec"].get("containers") or []}
        changed, result, next_due = False, [], float("inf")
        for status in statuses:
            state = status.get("state") or {}
            container = containers.get(status["name"])
            if container is None:
                result.append(status)
                continue
            if "running" in state:
                # startedAt keeps whole seconds: the run began within that second, so it is due a
                # full CRASH_AFTER_SECONDS after the second's end, never a moment after it started.
                due = meta.parse_time(state["running"].get("startedAt")) + 1 + CRASH_AFTER_SECONDS
                if now >= due:
                    status, due = self._crash(pod, status, now), now + backoff(pod, status["restartCount"])
                    changed = True
            elif (state.get("waiting") or {}).get("reason") == "CrashLoopBackOff":
                finished = ((status.get("lastState") or {}).get("terminated") or {}).get("finishedAt")
                due = meta.parse_time(finished) + backoff(pod, status["restartCount"])
                if now >= due:
                    status, due = self._restart(pod, container, status), now + CRASH_AFTER_SECONDS
                    changed = True
            else:
                due = float("inf")
            next_due = min(next_due, due)
            result.append(status)
        if next_due != float("inf"):
            self.requeue(pod, next_due)
        return result if changed else None

    def _crash(self, pod: dict[str, Any], status: dict[str, Any], now: float) -> dict[str, Any]:
        name = status["name"]
        when = meta.now()
        self._write(
            pod,
            name,
            f"fatal: simulated crash ({FAIL_ANNOTATION}=CrashLoopBackOff), exiting with code 1",
            finish=True,
        )
        metadata = pod["metadata"]
        who = f"{metadata['name']}_{metadata['namespace']}({metadata['uid']})"
        wait = go_duration(backoff(pod, status["restartCount"]))
        self._event(pod, "Warning", "BackOff", f"Back-off restarting failed container {name} in pod {who}")
        started = (status["state"].get("running") or {}).get("startedAt", when)
        return {
            **status,
            "started": False,
            "state": {
                "waiting": {
                    "reason": "CrashLoopBackOff",
                    "message": f"back-off {wait} restarting failed container={name} pod={who}",
                }
            },
            "lastState": terminated(1, "Error", started, when, status.get("containerID", "")),
        }

    def _restart(
        self, pod: dict[str, Any], container: dict[str, Any], status: dict[str, Any]
    ) -> dict[str, Any]:
        container_id = new_container_id()
        self._event(
            pod,
            "Normal",
            "Pulled",
            f'Container image "{container.get("image", "")}" already present on machine',
        )
        self._launch(pod, container, container_id)
        return {
            **status,
            "containerID": container_id,
            "restartCount": status["restartCount"] + 1,
            "started": True,
            "state": {"running": {"startedAt": meta.now()}},
        }

    def stop(self, pod: dict[str, Any]) -> None:
        """The pod was deleted: its running containers get SIGTERM and their logs go."""
        namespace, name = pod["metadata"]["namespace"], pod["metadata"]["name"]
        for status in (pod.get("status") or {}).get("containerStatuses") or []:
            if "running" in (status.get("state") or {}):
                self._write(pod, status["name"], "received SIGTERM, shutting down", finish=True)
        self.logs.forget(namespace, name)
