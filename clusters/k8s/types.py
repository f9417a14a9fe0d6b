"""Plain dataclasses that clusters.k8s returns, so nothing outside it sees kubernetes client models."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Resources:
    """CPU in millicores, memory in bytes, and a pod count."""

    cpu_milli: int = 0
    memory_bytes: int = 0
    pods: int = 0

    def __add__(self, other: Resources) -> Resources:
        return Resources(
            self.cpu_milli + other.cpu_milli, self.memory_bytes + other.memory_bytes, self.pods + other.pods
        )

    def __sub__(self, other: Resources) -> Resources:
        return Resources(
            self.cpu_milli - other.cpu_milli, self.memory_bytes - other.memory_bytes, self.pods - other.pods
        )

    def as_dict(self) -> dict[str, int]:
        return {"cpu": self.cpu_milli, "memory": self.memory_bytes, "pods": self.pods}


@dataclass(frozen=True)
class VersionInfo:
    git_version: str
    major: str = ""
    minor: str = ""
    platform: str = ""


@dataclass(frozen=True)
class HealthProbe:
    """One /readyz (or /healthz) probe: reachable means any HTTP answer came back."""

    ok: bool
    reachable: bool
    status: int | None
    path: str
    latency: float
    message: str = ""


@dataclass(frozen=True)
class NodeInfo:
    name: str
    ready: bool
    labels: dict[str, str] = field(default_factory=dict)
    taints: tuple[dict[str, str], ...] = ()
    allocatable: Resources = Resources()
    capacity: Resources = Resources()
    pod_cidrs: tuple[str, ...] = ()
    unschedulable: bool = False
    provider_id: str = ""


@dataclass(frozen=True)
class PodInfo:
    """A pod that is not finished; `requests` is what the scheduler reserves for it."""

    namespace: str
    name: str
    node_name: str
    phase: str
    requests: Resources


@dataclass(frozen=True)
class NodeMetric:
    name: str
    cpu_milli: int
    memory_bytes: int


@dataclass(frozen=True)
class APIEnablement:
    """One group/version and the resources it serves (Karmada's `apiEnablements` entry)."""

    group_version: str
    resources: tuple[tuple[str, str], ...]  # (plural name, kind)


@dataclass(frozen=True)
class APIDiscovery:
    enablements: tuple[APIEnablement, ...]
    complete: bool
    failed_groups: tuple[str, ...] = ()


@dataclass(frozen=True)
class PodState:
    """A pod as the workload page shows it: phase, readiness, restarts, node, and why it is not ready."""

    namespace: str
    name: str
    phase: str
    ready_containers: int
    containers: tuple[str, ...]
    restarts: int
    node_name: str
    created: str  # RFC 3339, as the member wrote it
    reason: str = ""  # empty when the pod is ready
    owners: tuple[tuple[str, str], ...] = ()  # (kind, name) of its ownerReferences

    @property
    def ready(self) -> bool:
        return bool(self.containers) and self.ready_containers == len(self.containers)


@dataclass(frozen=True)
class ClusterEvent:
    """One core/v1 Event of a member cluster, about one of its objects."""

    type: str
    reason: str
    message: str
    object_kind: str
    object_name: str
    namespace: str
    count: int
    last_seen: str  # RFC 3339: lastTimestamp, else eventTime, else creationTimestamp
    source: str = ""


@dataclass(frozen=True)
class ObjectSummary:
    """What a search shows of any object: identity, labels and annotations, never its contents."""

    api_version: str
    kind: str
    namespace: str
    name: str
    created: str
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
