"""Container logs as a cluster's kubelets keep them: timestamped lines per container instance, a bounded
ring each, the current and the last terminated instance of every container, and waiting for more."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime

MAX_LINES = 1000  # per container instance: the oldest go first, as a rotated log file would
INSTANCES = 2  # the current instance and the one before it, which is what ``previous`` reads


def timestamp(when_ns: int) -> str:
    """RFC 3339 with nine fraction digits, as the kubelet writes ``timestamps=true`` prefixes."""
    seconds, nanos = divmod(when_ns, 10**9)
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S") + f".{nanos:09d}Z"


class Instance:
    """The output of one run of one container."""

    __slots__ = ("container_id", "dropped", "finished", "gone", "lines")

    def __init__(self, container_id: str) -> None:
        self.container_id = container_id
        # "TIMESTAMP text": fixed-width timestamps sort as they compare, so since-filters slice text
        self.lines: list[str] = []
        self.dropped = 0  # lines that fell out of the ring, so followers keep their place
        self.finished = False  # the container exited: no line follows
        self.gone = False  # the pod was deleted: followers stop

    def since(self, index: int) -> tuple[list[str], int]:
        """Lines from absolute position ``index`` on (what is left of them) and the next position."""
        start = max(0, index - self.dropped)
        return self.lines[start:], self.dropped + len(self.lines)


class LogStore:
    """One cluster's container logs, by (namespace, pod, container); written by the kubelets."""

    def __init__(self) -> None:
        self._pods: dict[tuple[str, str], dict[str, list[Instance]]] = {}
        self.changed = threading.Condition()

    def start(self, namespace: str, pod: str, container: str, container_id: str) -> None:
        """A new run of ``container`` begins; the previous run is kept for ``previous``."""
        with self.changed:
            instances = self._pods.setdefault((namespace, pod), {}).setdefault(container, [])
            for old in instances:
                old.finished = True
            instances.append(Instance(container_id))
            del instances[:-INSTANCES]
            self.changed.notify_all()

    def write(self, namespace: str, pod: str, container: str, text: str, *, finish: bool = False) -> None:
        """Append a line to the current run (and end it when ``finish``)."""
        with self.changed:
            instances = self._pods.get((namespace, pod), {}).get(container)
            if not instances:
                return
            current = instances[-1]
            current.lines.append(f"{timestamp(time.time_ns())} {text}")
            if len(current.lines) > MAX_LINES:
                excess = len(current.lines) - MAX_LINES
                del current.lines[:excess]
                current.dropped += excess
            current.finished = current.finished or finish
            self.changed.notify_all()

    def forget(self, namespace: str, pod: str) -> None:
        """The pod is gone: its logs go with it, and whoever follows them stops."""
        with self.changed:
            for instances in self._pods.pop((namespace, pod), {}).values():
                for instance in instances:
                    instance.gone = True
            self.changed.notify_all()

    def instance(self, namespace: str, pod: str, container: str, container_id: str) -> Instance | None:
        with self.changed:
            for candidate in self._pods.get((namespace, pod), {}).get(container, ()):
                if candidate.container_id == container_id:
                    return candidate
        return None
