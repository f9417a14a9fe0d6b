"""Pod placement: which nodes a pod fits (resources, selectors, affinity, taints) and which one to pick."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from membersim.quantity import QuantityError, to_bytes, to_millicores
from membersim.selectors import Requirement, SelectorError, labels_match, requirements_from_expressions


@dataclass
class NodeUse:
    """What the pods already bound to a node take from it."""

    cpu_m: int = 0
    memory: int = 0
    pods: int = 0
    ips: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Requests:
    cpu_m: int
    memory: int


def container_requests(container: dict[str, Any]) -> Requests:
    """Requests of one container (limits stand in for missing requests)."""
    resources = container.get("resources") or {}
    # Kubernetes defaults a missing request to the limit.
    values = {**(resources.get("limits") or {}), **(resources.get("requests") or {})}
    try:
        cpu = to_millicores(values["cpu"]) if "cpu" in values else 0
        memory = to_bytes(values["memory"]) if "memory" in values else 0
    except QuantityError:
        cpu, memory = 0, 0
    return Requests(cpu, memory)


def pod_requests(pod: dict[str, Any]) -> Requests:
    """Effective requests: the sum over containers, or the largest init container if bigger."""
    spec = pod.get("spec") or {}
    main = [container_requests(c) for c in spec.get("containers") or []]
    init = [container_requests(c) for c in spec.get("initContainers") or []]
    cpu = max([sum(r.cpu_m for r in main), *[r.cpu_m for r in init]])
    memory = max([sum(r.memory for r in main), *[r.memory for r in init]])
    return Requests(cpu, memory)


def node_allocatable(node: dict[str, Any]) -> tuple[int, int, int]:
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    try:
        return (
            to_millicores(allocatable.get("cpu", "0")),
            to_bytes(allocatable.get("memory", "0")),
            int(to_bytes(allocatable.get("pods", "0"))),
        )
    except QuantityError:
        return 0, 0, 0


def node_is_ready(node: dict[str, Any]) -> bool:
    for condition in (node.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return condition.get("status") == "True"
    return False


def tolerates(tolerations: list[dict[str, Any]], taint: dict[str, Any]) -> bool:
    for toleration in tolerations:
        if toleration.get("effect") and toleration["effect"] != taint.get("effect"):
            continue
        operator = toleration.get("operator") or "Equal"
        if operator == "Exists":
            if not toleration.get("key") or toleration["key"] == taint.get("key"):
                return True
        elif toleration.get("key") == taint.get("key") and (toleration.get("value") or "") == (
            taint.get("value") or ""
        ):
            return True
    return False


def untolerated_taint(pod: dict[str, Any], node: dict[str, Any]) -> dict[str, Any] | None:
    tolerations = (pod.get("spec") or {}).get("tolerations") or []
    for taint in (node.get("spec") or {}).get("taints") or []:
        if taint.get("effect") in ("NoSchedule", "NoExecute") and not tolerates(tolerations, taint):
            return taint
    return None


def _term_matches(term: dict[str, Any], node: dict[str, Any]) -> bool:
    labels = node["metadata"].get("labels") or {}
    try:
        label_reqs = requirements_from_expressions(term.get("matchExpressions"))
        field_reqs = requirements_from_expressions(term.get("matchFields"))
    except SelectorError:
        return False
    if not label_reqs and not field_reqs:
        return False  # an empty term matches nothing
    fields = {"metadata.name": node["metadata"]["name"]}
    return labels_match(label_reqs, labels) and all(r.matches(fields) for r in field_reqs)


def matches_node_selection(pod: dict[str, Any], node: dict[str, Any]) -> bool:
    """nodeSelector and requiredDuringSchedulingIgnoredDuringExecution node affinity."""
    spec = pod.get("spec") or {}
    labels = node["metadata"].get("labels") or {}
    selector = spec.get("nodeSelector") or {}
    if not labels_match([Requirement(k, "=", (str(v),)) for k, v in selector.items()], labels):
        return False
    required = (
        ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution"
        )
    ) or {}
    terms = required.get("nodeSelectorTerms")
    if required and terms is not None:
        return any(_term_matches(term, node) for term in terms)
    return True


def fit_failures(pod: dict[str, Any], node: dict[str, Any], use: NodeUse, requests: Requests) -> list[str]:
    """Why ``pod`` cannot go on ``node``, in the scheduler's words; empty when it fits."""
    if not node_is_ready(node):
        return (
            ["node(s) were not ready"]
            if not untolerated_taint(pod, node)
            else ["node(s) had untolerated taint {node.kubernetes.io/not-ready: }"]
        )
    if (node.get("spec") or {}).get("unschedulable"):
        return ["node(s) were unschedulable"]
    if not matches_node_selection(pod, node):
        return ["node(s) didn't match Pod's node affinity/selector"]
    taint = untolerated_taint(pod, node)
    if taint:
        return [f"node(s) had untolerated taint {{{taint.get('key')}: {taint.get('value') or ''}}}"]
    cpu, memory, max_pods = node_allocatable(node)
    failures = []
    if use.pods + 1 > max_pods:
        failures.append("Too many pods")
    if use.cpu_m + requests.cpu_m > cpu:
        failures.append("Insufficient cpu")
    if use.memory + requests.memory > memory:
        failures.append("Insufficient memory")
    return failures


def choose_node(
    pod: dict[str, Any], nodes: list[dict[str, Any]], usage: dict[str, NodeUse]
) -> tuple[str | None, str]:
    """The least-allocated node that fits (ties by fewest "
    "pods, then name), or None and the scheduler's message."""
    requests = pod_requests(pod)
    reasons: Counter[str] = Counter()
    best: tuple[float, int, str] | None = None
    for node in nodes:
        name = node["metadata"]["name"]
        use = usage.setdefault(name, NodeUse())
        failures = fit_failures(pod, node, use, requests)
        if failures:
            reasons.update(failures)
            continue
        cpu, memory, _ = node_allocatable(node)
        score = max(
            (use.cpu_m + requests.cpu_m) / cpu if cpu else 1.0,
            (use.memory + requests.memory) / memory if memory else 1.0,
        )
        if best is None or (score, use.pods, name) < best:
            best = (score, use.pods, name)
    if best is not None:
        return best[2], ""
    detail = ", ".join(
        f"{count} {reason}" for reason, count in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    message = (
        f"0/{len(nodes)} nodes are available: {detail}." if detail else f"0/{len(nodes)} nodes are available."
    )
    return None, message
