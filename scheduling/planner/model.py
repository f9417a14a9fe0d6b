"""Frozen input and output dataclasses of the planner: clusters, nodes, the binding and the plan."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any

from kubesyntax.fieldpaths import join
from kubesyntax.quantities import QuantityError, milli_units, quantity_amount, whole_units
from kubesyntax.taints import NO_SCHEDULE, Taint

from .errors import InputError
from .parsing import get_map
from .placement import NodeClaim
from .resource_models import ResourceModel, parse_modelings

NOT_READY_TAINT = Taint("cluster.karmada.io/not-ready", "", NO_SCHEDULE)
UNREACHABLE_TAINT = Taint("cluster.karmada.io/unreachable", "", NO_SCHEDULE)

Resources = dict[str, Fraction]


def parse_resources(data: Any, path: str) -> Resources:
    """A ResourceList such as ``{"cpu": "500m", "memory": "1Gi"}`` with exact values."""
    mapping = get_map(data, path) or {}
    result = {}
    for name, value in mapping.items():
        try:
            result[str(name)] = quantity_amount(value)
        except QuantityError as exc:
            raise InputError(join(path, str(name)), str(exc)) from None
    return result


@dataclass(frozen=True)
class ResourceSummary:
    """``status.resourceSummary`` of a cluster (allocatable, allocated, allocating, allocatableModelings).

    ``allocatable_modelings`` holds (grade, node count) pairs for the cluster's resource models.
    """

    allocatable: Resources = field(default_factory=dict)
    allocated: Resources = field(default_factory=dict)
    allocating: Resources = field(default_factory=dict)
    allocatable_modelings: tuple[tuple[int, int], ...] = ()

    @classmethod
    def from_dict(cls, data: Any, path: str = "") -> ResourceSummary | None:
        data = get_map(data, path)
        if data is None:
            return None
        return cls(
            allocatable=parse_resources(data.get("allocatable"), join(path, "allocatable")),
            allocated=parse_resources(data.get("allocated"), join(path, "allocated")),
            allocating=parse_resources(data.get("allocating"), join(path, "allocating")),
            allocatable_modelings=parse_modelings(
                data.get("allocatableModelings"), join(path, "allocatableModelings")
            ),
        )

    @cached_property
    def free_units(self) -> dict[str, tuple[int, int]]:
        """Per resource, allocatable - allocated - allocating in (whole units, millis), rounded up."""
        zero = Fraction(0)
        result = {}
        for name, amount in self.allocatable.items():
            free = amount - self.allocated.get(name, zero) - self.allocating.get(name, zero)
            result[name] = (whole_units(free), milli_units(free))
        return result

    @cached_property
    def free_pods(self) -> int:
        """Karmada's allowed pod number: whole allocatable - allocated - allocating pods, floored at 0."""
        zero = Fraction(0)
        pods = (
            whole_units(self.allocatable.get("pods", zero))
            - whole_units(self.allocated.get("pods", zero))
            - whole_units(self.allocating.get("pods", zero))
        )
        return max(pods, 0)


@dataclass(frozen=True)
class Node:
    """A member-cluster node for the node-level estimator: allocatable minus requests already placed."""

    name: str
    labels: dict[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    allocatable: Resources = field(default_factory=dict)
    allocated: Resources = field(default_factory=dict)
    ready: bool = True
    unschedulable: bool = False

    @cached_property
    def rooms(self) -> dict[tuple[tuple[str, int, int], ...], int]:
        """The estimator's memo of replicas that fit here, by request: a pass plans many workloads with
        the same requests against the same nodes (filled by estimator.node_room)."""
        return {}


@dataclass(frozen=True)
class ClusterSnapshot:
    """What the scheduler knows about one member cluster.

    ``ready`` is the Ready condition status ("True", "False", "Unknown") or None when the cluster
    reports none; the controller's automatic NoSchedule taints follow from it.
    ``api_enablements`` is a set of (groupVersion, kind); None means the API list is not modelled
    and every API counts as enabled.  ``nodes`` None means no node list is known.
    ``resource_models`` are the ``spec.resourceModels`` grades.
    """

    name: str
    labels: dict[str, str] = field(default_factory=dict)
    provider: str = ""
    region: str = ""
    zones: tuple[str, ...] = ()
    taints: tuple[Taint, ...] = ()
    ready: str | None = "True"
    deleting: bool = False
    api_enablements: frozenset[tuple[str, str]] | None = None
    api_enablements_complete: bool = False
    resource_summary: ResourceSummary | None = None
    nodes: tuple[Node, ...] | None = None
    resource_models: tuple[ResourceModel, ...] = ()

    @property
    def effective_taints(self) -> tuple[Taint, ...]:
        """Spec taints plus the NoSchedule taint the cluster controller adds for an unhealthy cluster."""
        if self.ready == "True":
            return self.taints
        extra = UNREACHABLE_TAINT if self.ready == "Unknown" else NOT_READY_TAINT
        if extra in self.taints:
            return self.taints
        return (*self.taints, extra)


def request_key(request: Resources) -> tuple[tuple[str, int, int], ...]:
    """A request as a key of Node.rooms (plain numbers: a Fraction is hashed anew at each lookup)."""
    return tuple((name, amount.numerator, amount.denominator) for name, amount in request.items())


@dataclass(frozen=True)
class ReplicaRequirements:
    """Per-replica needs read from the pod template: resource requests and node constraints."""

    resource_request: Resources = field(default_factory=dict)
    node_claim: NodeClaim | None = None

    @cached_property
    def room_key(self) -> tuple[tuple[str, int, int], ...]:
        """request_key of the resource request, made once for every node a plan estimates."""
        return request_key(self.resource_request)

    @cached_property
    def request_units(self) -> dict[str, tuple[int, int]]:
        """Each positive request in (whole units, millis), rounded up as Karmada's Quantity does."""
        return {
            name: (whole_units(amount), milli_units(amount))
            for name, amount in self.resource_request.items()
            if whole_units(amount) > 0
        }


@dataclass(frozen=True)
class TargetCluster:
    """One entry of ``spec.clusters``."""

    name: str
    replicas: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "replicas": self.replicas}


@dataclass(frozen=True)
class EvictionTask:
    """A ``spec.gracefulEvictionTasks`` entry; the scheduler only needs ``from_cluster``."""

    from_cluster: str
    replicas: int | None = None
    purge_mode: str = ""
    reason: str = ""
    producer: str = ""


@dataclass(frozen=True)
class Binding:
    """The workload being scheduled, as its ResourceBinding carries it.

    ``previous`` is ``spec.clusters`` in order; ``fresh`` means a reschedule was triggered
    (``rescheduleTriggeredAt`` later than ``lastScheduledTime``).  ``affinity_group`` and
    ``anti_affinity_group`` are ``spec.workloadAffinityGroups`` (``<label key>=<value>``).
    """

    replicas: int = 0
    requirements: ReplicaRequirements | None = None
    previous: tuple[TargetCluster, ...] = ()
    observed_affinity: str = ""
    uid: str = ""
    api_version: str = "apps/v1"
    kind: str = "Deployment"
    namespace: str = ""
    name: str = ""
    eviction_tasks: tuple[EvictionTask, ...] = ()
    fresh: bool = False
    affinity_group: str = ""
    anti_affinity_group: str = ""

    @property
    def binding_name(self) -> str:
        """The ResourceBinding's name as Karmada derives it: ``lower(<name>-<kind>)``, ``:`` as ``.``."""
        return f"{self.name}-{self.kind}".lower().replace(":", ".")

    @property
    def is_workload(self) -> bool:
        """Karmada IsWorkload: replicas > 0 or replica requirements present."""
        return self.replicas > 0 or self.requirements is not None

    def assigned(self, cluster: str) -> int:
        """Replicas the previous result holds on ``cluster``."""
        for target in self.previous:
            if target.name == cluster:
                return target.replicas
        return 0


@dataclass(frozen=True)
class PlanError:
    """Why a plan failed: reason NoClusterFit, Unschedulable or SchedulerError, and Karmada's message."""

    reason: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"reason": self.reason, "message": self.message}


@dataclass(frozen=True)
class Plan:
    """The outcome of ``plan()``.

    ``clusters`` is the resulting ``spec.clusters`` in Karmada's order: on NoClusterFit it is empty,
    on Unschedulable or SchedulerError it is the previous result, which Karmada keeps.
    """

    clusters: tuple[TargetCluster, ...]
    error: PlanError | None
    observed_affinity: str
    strategy: str
    explanation: dict[str, Any]

    @property
    def ok(self) -> bool:
        return self.error is None

    def replicas(self) -> dict[str, int]:
        """The result as {cluster: replicas}."""
        return {target.name: target.replicas for target in self.clusters}

    def as_dict(self) -> dict[str, Any]:
        return {
            "clusters": [target.as_dict() for target in self.clusters],
            "error": None if self.error is None else self.error.as_dict(),
            "observed_affinity": self.observed_affinity,
            "strategy": self.strategy,
            "explanation": self.explanation,
        }
