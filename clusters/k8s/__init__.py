"""The only door to the Kubernetes API: connections, clients, reads and errors as our own types."""

from clusters.k8s.client import api_client
from clusters.k8s.connection import ClusterConnection, contexts, current_context, from_kubeconfig
from clusters.k8s.errors import (
    AlreadyExists,
    ClusterUnreachable,
    Conflict,
    Forbidden,
    Invalid,
    InvalidKubeconfig,
    KubeError,
    NotFound,
    ServerError,
    Unauthorized,
)
from clusters.k8s.logs import follow_pod_log, read_pod_log
from clusters.k8s.pods import list_events, list_pod_states
from clusters.k8s.reads import (
    get_version,
    list_api_enablements,
    list_node_metrics,
    list_nodes,
    list_pods,
    list_service_cidrs,
    probe_health,
)
from clusters.k8s.types import (
    APIDiscovery,
    APIEnablement,
    ClusterEvent,
    HealthProbe,
    NodeInfo,
    NodeMetric,
    PodInfo,
    PodState,
    Resources,
    VersionInfo,
)

__all__ = [
    "APIDiscovery",
    "APIEnablement",
    "AlreadyExists",
    "ClusterConnection",
    "ClusterEvent",
    "ClusterUnreachable",
    "Conflict",
    "Forbidden",
    "HealthProbe",
    "Invalid",
    "InvalidKubeconfig",
    "KubeError",
    "NodeInfo",
    "NodeMetric",
    "NotFound",
    "PodInfo",
    "PodState",
    "Resources",
    "ServerError",
    "Unauthorized",
    "VersionInfo",
    "api_client",
    "contexts",
    "current_context",
    "follow_pod_log",
    "from_kubeconfig",
    "get_version",
    "list_api_enablements",
    "list_events",
    "list_node_metrics",
    "list_nodes",
    "list_pod_states",
    "list_pods",
    "list_service_cidrs",
    "probe_health",
    "read_pod_log",
]
