"""The table of API resources membersim serves: group, version, kind, scope, verbs, subresources."""

from __future__ import annotations

from dataclasses import dataclass

READ_VERBS = ("get", "list", "watch")
ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")


@dataclass(frozen=True, eq=False)
class Resource:
    """One served resource type; each is a singleton, compared and hashed by identity (it keys the store)."""

    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ALL_VERBS
    subresources: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    has_status: bool = False
    generation: bool = False
    min_minor: int = 0  # served only by clusters reporting at least this Kubernetes minor

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def key(self) -> str:
        """``deployments.apps``, ``pods``: how Kubernetes names the resource in messages."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def singular(self) -> str:
        return self.kind.lower()


ALL = ("all",)
RESOURCES: tuple[Resource, ...] = (
    Resource(
        "",
        "v1",
        "namespaces",
        "Namespace",
        False,
        ("ns",),
        ("create", "delete", "get", "list", "patch", "update", "watch"),
        ("status",),
        has_status=True,
    ),
    Resource("", "v1", "nodes", "Node", False, ("no",), subresources=("status",), has_status=True),
    Resource(
        "",
        "v1",
        "pods",
        "Pod",
        True,
        ("po",),
        subresources=("status", "log", "eviction"),
        categories=ALL,
        has_status=True,
    ),
    Resource(
        "",
        "v1",
        "services",
        "Service",
        True,
        ("svc",),
        subresources=("status",),
        categories=ALL,
        has_status=True,
    ),
    Resource("", "v1", "configmaps", "ConfigMap", True, ("cm",)),
    Resource("", "v1", "secrets", "Secret", True),
    Resource("", "v1", "events", "Event", True, ("ev",)),
    Resource(
        "apps",
        "v1",
        "deployments",
        "Deployment",
        True,
        ("deploy",),
        subresources=("status", "scale"),
        categories=ALL,
        has_status=True,
        generation=True,
    ),
    Resource(
        "apps",
        "v1",
        "replicasets",
        "ReplicaSet",
        True,
        ("rs",),
        subresources=("status", "scale"),
        categories=ALL,
        has_status=True,
        generation=True,
    ),
    Resource(
        "apps",
        "v1",
        "statefulsets",
        "StatefulSet",
        True,
        ("sts",),
        subresources=("status", "scale"),
        categories=ALL,
        has_status=True,
        generation=True,
    ),
    Resource(
        "apps",
        "v1",
        "daemonsets",
        "DaemonSet",
        True,
        ("ds",),
        subresources=("status",),
        categories=ALL,
        has_status=True,
        generation=True,
    ),
    Resource(
        "batch",
        "v1",
        "jobs",
        "Job",
        True,
        (),
        subresources=("status",),
        categories=ALL,
        has_status=True,
        generation=True,
    ),
    # Read-only and computed from the cluster spec, like the default ServiceCIDR the API server keeps.
    Resource(
        "networking.k8s.io",
        "v1beta1",
        "servicecidrs",
        "ServiceCIDR",
        False,
        (),
        ("get", "list"),
        min_minor=31,
    ),
    Resource(
        "networking.k8s.io", "v1", "servicecidrs", "ServiceCIDR", False, (), ("get", "list"), min_minor=33
    ),
    Resource("metrics.k8s.io", "v1beta1", "nodes", "NodeMetrics", False, (), READ_VERBS),
    Resource("metrics.k8s.io", "v1beta1", "pods", "PodMetrics", True, (), READ_VERBS),
)

ANY_MINOR = 10**6


def served(minor: int = ANY_MINOR) -> list[Resource]:
    return [r for r in RESOURCES if r.min_minor <= minor]


def group_versions(minor: int = ANY_MINOR) -> list[tuple[str, str]]:
    """(group, version) pairs in serving order, core first; within a group the preferred version first."""
    pairs: list[tuple[str, str]] = []
    for r in sorted(served(minor), key=lambda r: (r.group != "", r.group, r.version != "v1")):
        if (r.group, r.version) not in pairs:
            pairs.append((r.group, r.version))
    return pairs


_BY_PATH = {(r.group, r.version, r.plural): r for r in RESOURCES}


def find(group: str, version: str, plural: str, minor: int = ANY_MINOR) -> Resource | None:
    resource = _BY_PATH.get((group, version, plural))
    return resource if resource is not None and resource.min_minor <= minor else None


def stored(group: str, plural: str) -> Resource:
    """The stored (non-computed) resource for a group and plural."""
    return next(r for r in RESOURCES if r.group == group and r.plural == plural)


def in_group_version(group: str, version: str, minor: int = ANY_MINOR) -> list[Resource]:
    return [r for r in served(minor) if r.group == group and r.version == version]


POD = stored("", "pods")
NODE = stored("", "nodes")
NAMESPACE = stored("", "namespaces")
SERVICE = stored("", "services")
EVENT = stored("", "events")
DEPLOYMENT = stored("apps", "deployments")
REPLICASET = stored("apps", "replicasets")
STATEFULSET = stored("apps", "statefulsets")
DAEMONSET = stored("apps", "daemonsets")
JOB = stored("batch", "jobs")
NODE_METRICS = RESOURCES[-2]
POD_METRICS = RESOURCES[-1]
SERVICE_CIDRS = tuple(r for r in RESOURCES if r.plural == "servicecidrs")
STORED = tuple(r for r in RESOURCES if r.group not in ("metrics.k8s.io", "networking.k8s.io"))
