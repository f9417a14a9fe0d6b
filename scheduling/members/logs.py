"""Logs of a workload's pods in one member cluster: one container's tail (or its previous run), every pod
at once with each line prefixed by its pod, or one container followed. Only pods of the workload are
reachable this way, so the door opens on nothing else of the member."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from clusters.k8s import (
    ClusterConnection,
    KubeError,
    NotFound,
    PodState,
    follow_pod_log,
    list_pod_states,
    objects,
    read_pod_log,
)
from clusters.models import Cluster
from core.errors import FieldError
from scheduling.members.across import CALL_TIMEOUT, identity, pod_selector
from scheduling.models import ResourceTemplate, Work

DEFAULT_TAIL = 100
MAX_TAIL = 5000


@dataclass(frozen=True)
class LogQuery:
    """What the reader asked for, checked: a pod ("" for every pod), a container, tail, previous."""

    cluster: str
    pod: str = ""
    container: str = ""
    tail: int = DEFAULT_TAIL
    previous: bool = False


def parse_query(params: Mapping[str, str]) -> LogQuery:
    """The query string of the logs page and API; FieldError names the field that is wrong."""
    cluster = (params.get("cluster") or "").strip()
    if not cluster:
        raise FieldError("cluster", "choose the member cluster whose pods to read")
    text = (params.get("tail") or "").strip() or str(DEFAULT_TAIL)
    try:
        tail = int(text)
    except ValueError:
        raise FieldError("tail", f"must be a whole number of lines, not {text!r}") from None
    if not 1 <= tail <= MAX_TAIL:
        raise FieldError("tail", f"must be between 1 and {MAX_TAIL} lines")
    previous = (params.get("previous") or "").strip().lower() in ("1", "true", "on", "yes")
    pod = (params.get("pod") or "").strip()
    container = (params.get("container") or "").strip()
    return LogQuery(cluster=cluster, pod=pod, container=container, tail=tail, previous=previous)


@dataclass(frozen=True)
class WorkloadPods:
    conn: ClusterConnection
    namespace: str
    pods: tuple[PodState, ...]


def workload_pods(template: ResourceTemplate, cluster_name: str) -> WorkloadPods:
    """The pods of the workload's copy in the cluster (KubeError when the member cannot be read)."""
    work = Work.objects.filter(binding__template=template, cluster_name=cluster_name, deleting=False).first()
    cluster = Cluster.objects.filter(name=cluster_name).first()
    if work is None or cluster is None:
        raise FieldError("cluster", f"the workload has no copy in a cluster named {cluster_name!r}")
    api_version, kind, name, namespace = identity(work.manifest)
    conn = cluster.connection()
    try:
        live = objects.get_object(conn, api_version, kind, name, namespace, timeout=CALL_TIMEOUT)
    except NotFound:
        return WorkloadPods(conn, namespace, ())
    selector = pod_selector(live)
    if not namespace or not selector:
        return WorkloadPods(conn, namespace, ())
    return WorkloadPods(conn, namespace, tuple(list_pod_states(conn, namespace, selector, CALL_TIMEOUT)))


def _pod(found: WorkloadPods, query: LogQuery) -> PodState:
    for pod in found.pods:
        if pod.name == query.pod:
            if query.container and query.container not in pod.containers:
                raise FieldError(
                    "container",
                    f"{pod.name} has no container {query.container!r}: {', '.join(pod.containers)}",
                )
            return pod
    raise FieldError("pod", f"{query.pod!r} is not a pod of this workload in {query.cluster}")


def _one(found: WorkloadPods, pod: PodState, query: LogQuery) -> str:
    container = query.container or (pod.containers[0] if pod.containers else "")
    try:
        return read_pod_log(
            found.conn, found.namespace, pod.name, container, query.tail, query.previous, timeout=CALL_TIMEOUT
        )
    except KubeError as exc:
        if query.previous and exc.status == 400:  # the kubelet: this container never ran before
            raise FieldError("previous", exc.message) from exc
        raise


def read_logs(template: ResourceTemplate, query: LogQuery) -> str:
    """One pod's container log, or (no pod named) every pod's, lines prefixed `[pod/<name>/<container>]`."""
    found = workload_pods(template, query.cluster)
    if query.pod:
        return _one(found, _pod(found, query), query)
    lines = []
    for pod in found.pods:
        container = query.container if query.container in pod.containers else ""
        container = container or (pod.containers[0] if pod.containers else "")
        try:
            text = _one(found, pod, LogQuery(query.cluster, pod.name, container, query.tail, query.previous))
        except KubeError as exc:
            text = f"({exc.message})\n"
        lines += [f"[pod/{pod.name}/{container}] {line}" for line in text.splitlines()]
    return "\n".join(lines) + ("\n" if lines else "")


def follow_logs(template: ResourceTemplate, query: LogQuery) -> Iterator[str]:
    """The tail of one container, then each new line as the member writes it."""
    found = workload_pods(template, query.cluster)
    if not query.pod:
        raise FieldError("pod", "follow reads one pod: choose which")
    pod = _pod(found, query)
    container = query.container or (pod.containers[0] if pod.containers else "")
    return follow_pod_log(found.conn, found.namespace, pod.name, container, query.tail)
