"""Karmada and Kubernetes YAML documents turned into planner inputs."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any

import yaml

from core import useryaml
from kubesyntax.quantities import milli_units, whole_units
from scheduling.planner import (
    Binding,
    ClusterSnapshot,
    EvictionTask,
    InputError,
    Node,
    NodeClaim,
    Placement,
    QuotaSnapshot,
    ReplicaRequirements,
    ResourceSummary,
    RolloutSpec,
    TargetCluster,
    WorkloadPeer,
    affinity_groups,
    division_method_from_annotations,
    parse_resources,
    rollout_spec_from_annotations,
    validate_placement,
)
from scheduling.planner.parsing import (
    get_bool,
    get_int,
    get_list,
    get_map,
    get_str,
    get_str_map,
    join,
    require_map,
)
from scheduling.planner.resource_models import parse_resource_models
from scheduling.planner.selectors import LabelSelector
from scheduling.planner.taints import parse_taints, parse_tolerations

CLUSTER_KIND = "Cluster"
POLICY_KINDS = ("PropagationPolicy", "ClusterPropagationPolicy")
BINDING_KINDS = ("ResourceBinding", "ClusterResourceBinding")
QUOTA_KIND = "FederatedResourceQuota"
PRIORITY_CLASS_KIND = "PriorityClass"
IGNORED_KINDS = ("OverridePolicy", "ClusterOverridePolicy")
CLUSTER_SCOPED_KINDS = {
    "Namespace",
    "ClusterRole",
    "ClusterRoleBinding",
    "CustomResourceDefinition",
    "PersistentVolume",
    "StorageClass",
    "PriorityClass",
    "IngressClass",
    "Node",
}
# Karmada's default interpreter reads replicas and pod-template requirements for these kinds only.
REPLICA_KINDS = {
    ("apps/v1", "Deployment"),
    ("apps/v1", "ReplicaSet"),
    ("apps/v1", "StatefulSet"),
    ("batch/v1", "Job"),
    ("v1", "Pod"),
}
NATIVE_RESOURCES = ("cpu", "memory", "ephemeral-storage")


class DocumentError(ValueError):
    """Invalid input, located: the source file, the document's position, kind and name, and the field."""

    def __init__(self, location: str, path: str, message: str) -> None:
        super().__init__(f"{location}: {path}: {message}" if path else f"{location}: {message}")


@dataclass
class Document:
    """One YAML document and where it came from."""

    source: str
    index: int
    data: dict[str, Any]

    @property
    def kind(self) -> str:
        return self.data.get("kind") or ""

    @property
    def name(self) -> str:
        metadata = self.data.get("metadata")
        return (metadata.get("name") or "") if isinstance(metadata, dict) else ""

    @property
    def location(self) -> str:
        what = " ".join(part for part in (self.kind, self.name) if part)
        return f"{self.source} document {self.index}" + (f" ({what})" if what else "")

    def fail(self, path: str, message: str) -> DocumentError:
        return DocumentError(self.location, path, message)


@dataclass
class ResourceSelector:
    """One ``spec.resourceSelectors`` entry."""

    api_version: str
    kind: str
    namespace: str
    name: str
    label_selector: LabelSelector | None

    def priority(self, workload: Workload) -> int:
        """Karmada's implicit priority: 3 name match, 2 label-selector match, 1 kind-only, 0 no match."""
        if self.api_version != workload.api_version or self.kind != workload.kind:
            return 0
        if self.namespace and self.namespace != workload.namespace:
            return 0
        if self.name:
            return 3 if self.name == workload.name else 0
        if self.label_selector is None:
            return 1
        return 2 if self.label_selector.matches(workload.labels) else 0


@dataclass
class Policy:
    """A PropagationPolicy or ClusterPropagationPolicy as the detector needs it."""

    kind: str
    name: str
    namespace: str
    priority: int
    selectors: list[ResourceSelector]
    placement: Placement
    document: Document
    schedule_priority: dict[str, Any] | None = None
    rollout: RolloutSpec | None = None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


@dataclass
class Workload:
    """The resource template being propagated."""

    api_version: str
    kind: str
    name: str
    namespace: str
    labels: dict[str, str]
    uid: str
    replicas: int
    requirements: ReplicaRequirements | None
    document: Document

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


@dataclass
class PreviousResult:
    """What a ResourceBinding says about the last scheduling."""

    clusters: tuple[TargetCluster, ...] = ()
    observed_affinity: str = ""
    eviction_tasks: tuple[EvictionTask, ...] = ()
    reschedule_triggered: bool = False


@dataclass
class Inputs:
    """Everything read from the documents."""

    workload: Workload
    clusters: list[ClusterSnapshot] = field(default_factory=list)
    policies: list[Policy] = field(default_factory=list)
    previous: PreviousResult = field(default_factory=PreviousResult)
    quotas: list[QuotaSnapshot] = field(default_factory=list)
    peers: list[WorkloadPeer] = field(default_factory=list)
    priority_classes: dict[str, dict[str, Any]] = field(default_factory=dict)


def load_documents(source: str, text: str) -> list[Document]:
    """Every non-empty YAML document of one file, numbered from 1."""
    try:
        raw = useryaml.load_all(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "cannot be parsed"
        raise DocumentError(source, "", f"invalid YAML: {problem}{where}") from None
    documents = []
    for index, data in enumerate(raw, start=1):
        if data is None:
            continue
        document = Document(source, index, data if isinstance(data, dict) else {})
        if not isinstance(data, dict):
            raise document.fail("", "must be a mapping (a Kubernetes object)")
        if not document.kind:
            raise document.fail("kind", "is required")
        documents.append(document)
    return documents


def read_inputs(documents: list[Document]) -> Inputs:
    """Sort the documents into clusters, policies, one workload and an optional previous result.

    Besides: FederatedResourceQuotas (their ``status.overallUsed`` is the namespace's usage),
    PriorityClasses, and ResourceBindings of other workloads (the workload affinity peers).
    """
    clusters: list[ClusterSnapshot] = []
    policies: list[Policy] = []
    quotas: list[QuotaSnapshot] = []
    priority_classes: dict[str, dict[str, Any]] = {}
    workloads = []
    bindings = []
    for document in documents:
        try:
            if document.kind == CLUSTER_KIND:
                clusters.append(parse_cluster(document.data))
            elif document.kind in POLICY_KINDS:
                policies.append(parse_policy(document))
            elif document.kind in BINDING_KINDS:
                bindings.append(document)
            elif document.kind == QUOTA_KIND:
                quotas.append(parse_quota(document))
            elif document.kind == PRIORITY_CLASS_KIND and str(document.data.get("apiVersion", "")).startswith(
                "scheduling.k8s.io/"
            ):
                priority_classes[document.name] = document.data
            elif document.kind not in IGNORED_KINDS:
                workloads.append(document)
        except InputError as exc:
            raise document.fail(exc.path, exc.message) from None
    names = [cluster.name for cluster in clusters]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise DocumentError("input", "", f"cluster {duplicates[0]} is defined twice")
    if len(workloads) > 1:
        # A Namespace shipped beside the workload is context, not the workload being planned.
        workloads = [d for d in workloads if d.kind != "Namespace"] or workloads
    if len(workloads) != 1:
        found = ", ".join(d.location for d in workloads) or "none"
        raise DocumentError("input", "", f"exactly one workload document is needed, found {found}")
    try:
        workload = parse_workload(workloads[0])
    except InputError as exc:
        raise workloads[0].fail(exc.path, exc.message) from None
    inputs = Inputs(
        workload=workload,
        clusters=clusters,
        policies=policies,
        quotas=quotas,
        priority_classes=priority_classes,
    )
    own = []
    for document in bindings:
        try:
            if _describes(document, workload):
                own.append(document)
            else:
                inputs.peers.append(parse_peer(document))
        except InputError as exc:
            raise document.fail(exc.path, exc.message) from None
    if len(own) > 1:
        raise own[1].fail("", "only one ResourceBinding may describe the previous result")
    if own:
        try:
            inputs.previous = parse_binding(own[0], workload)
        except InputError as exc:
            raise own[0].fail(exc.path, exc.message) from None
    return inputs


def _describes(document: Document, workload: Workload) -> bool:
    """The binding is the workload's own (its spec.resource names it, or names nothing)."""
    spec = get_map(document.data.get("spec"), "spec") or {}
    resource = get_map(spec.get("resource"), "spec.resource") or {}
    name = get_str(resource.get("name"), "spec.resource.name")
    kind = get_str(resource.get("kind"), "spec.resource.kind")
    namespace = get_str(resource.get("namespace"), "spec.resource.namespace")
    if not name:
        return True
    return (
        name == workload.name
        and (not kind or kind == workload.kind)
        and (not namespace or namespace == workload.namespace)
    )


def parse_peer(document: Document) -> WorkloadPeer:
    """Another workload's ResourceBinding: its workloadAffinityGroups and the clusters it runs on."""
    data = document.data
    metadata = _metadata(data)
    spec = get_map(data.get("spec"), "spec") or {}
    resource = get_map(spec.get("resource"), "spec.resource") or {}
    groups = get_map(spec.get("workloadAffinityGroups"), "spec.workloadAffinityGroups") or {}
    clusters = []
    for i, item in enumerate(get_list(spec.get("clusters"), "spec.clusters") or []):
        item = require_map(item, join("spec.clusters", i))
        clusters.append(get_str(item.get("name"), join(join("spec.clusters", i), "name")))
    namespace = get_str(metadata.get("namespace"), "metadata.namespace") or get_str(
        resource.get("namespace"), "spec.resource.namespace"
    )
    kind = get_str(resource.get("kind"), "spec.resource.kind")
    name = get_str(resource.get("name"), "spec.resource.name")
    return WorkloadPeer(
        namespace=namespace or "default",
        name=get_str(metadata.get("name"), "metadata.name") or f"{name}-{kind}".lower(),
        affinity_group=get_str(groups.get("affinityGroup"), "spec.workloadAffinityGroups.affinityGroup"),
        anti_affinity_group=get_str(
            groups.get("antiAffinityGroup"), "spec.workloadAffinityGroups.antiAffinityGroup"
        ),
        clusters=tuple(c for c in clusters if c),
        workload=f"{kind} {namespace or 'default'}/{name}" if name else "",
    )


def parse_quota(document: Document) -> QuotaSnapshot:
    """A FederatedResourceQuota: spec.overall and, as the namespace's usage, status.overallUsed."""
    data = document.data
    metadata = _metadata(data)
    name = get_str(metadata.get("name"), "metadata.name")
    if not name:
        raise InputError("metadata.name", "is required")
    spec = require_map(data.get("spec"), "spec")
    if spec.get("overall") is None:
        raise InputError("spec.overall", "is required")
    status = get_map(data.get("status"), "status") or {}
    return QuotaSnapshot(
        namespace=get_str(metadata.get("namespace"), "metadata.namespace") or "default",
        name=name,
        overall=parse_resources(spec.get("overall"), "spec.overall"),
        used=parse_resources(status.get("overallUsed"), "status.overallUsed"),
    )


def _metadata(data: dict[str, Any]) -> dict[str, Any]:
    return get_map(data.get("metadata"), "metadata") or {}


def _condition(conditions: list[Any], kind: str) -> str | None:
    for condition in conditions:
        if isinstance(condition, dict) and condition.get("type") == kind:
            return str(condition.get("status"))
    return None


def parse_cluster(data: dict[str, Any]) -> ClusterSnapshot:
    """A cluster.karmada.io/v1alpha1 Cluster.

    What-if input may leave out ``status``: without ``status.conditions`` the cluster counts as
    Ready, and without ``status.apiEnablements`` every API counts as enabled.
    """
    metadata = _metadata(data)
    name = get_str(metadata.get("name"), "metadata.name")
    if not name:
        raise InputError("metadata.name", "is required")
    spec = get_map(data.get("spec"), "spec") or {}
    status = get_map(data.get("status"), "status") or {}
    conditions = get_list(status.get("conditions"), "status.conditions")
    ready: str | None = "True"
    complete = False
    if conditions is not None:
        ready = _condition(conditions, "Ready")
        complete = _condition(conditions, "CompleteAPIEnablements") == "True"
    enablements = None
    raw_enablements = get_list(status.get("apiEnablements"), "status.apiEnablements")
    if raw_enablements is not None:
        enablements = set()
        for i, entry in enumerate(raw_enablements):
            path = join("status.apiEnablements", i)
            entry = require_map(entry, path)
            group_version = get_str(entry.get("groupVersion"), join(path, "groupVersion"))
            for j, resource in enumerate(get_list(entry.get("resources"), join(path, "resources")) or []):
                resource = require_map(resource, join(join(path, "resources"), j))
                enablements.add((group_version, get_str(resource.get("kind"), join(path, "resources"))))
    return ClusterSnapshot(
        name=name,
        labels=get_str_map(metadata.get("labels"), "metadata.labels"),
        provider=get_str(spec.get("provider"), "spec.provider"),
        region=get_str(spec.get("region"), "spec.region"),
        zones=tuple(get_str(z, "spec.zones") for z in get_list(spec.get("zones"), "spec.zones") or []),
        taints=parse_taints(spec.get("taints"), "spec.taints"),
        ready=ready,
        deleting=metadata.get("deletionTimestamp") is not None,
        api_enablements=None if enablements is None else frozenset(enablements),
        api_enablements_complete=complete,
        resource_summary=ResourceSummary.from_dict(status.get("resourceSummary"), "status.resourceSummary"),
        nodes=_parse_nodes(status.get("nodes"), "status.nodes"),
        resource_models=parse_resource_models(spec.get("resourceModels"), "spec.resourceModels"),
    )


def _parse_nodes(data: Any, path: str) -> tuple[Node, ...] | None:
    """The karmada-ui extension ``status.nodes``: the member cluster's nodes for the node estimator."""
    items = get_list(data, path)
    if items is None:
        return None
    nodes = []
    for i, item in enumerate(items):
        node_path = join(path, i)
        item = require_map(item, node_path)
        nodes.append(
            Node(
                name=get_str(item.get("name"), join(node_path, "name")),
                labels=get_str_map(item.get("labels"), join(node_path, "labels")),
                taints=parse_taints(item.get("taints"), join(node_path, "taints")),
                allocatable=parse_resources(item.get("allocatable"), join(node_path, "allocatable")),
                allocated=parse_resources(item.get("allocated"), join(node_path, "allocated")),
                ready=get_bool(item.get("ready"), join(node_path, "ready"), True),
                unschedulable=get_bool(item.get("unschedulable"), join(node_path, "unschedulable"), False),
            )
        )
    return tuple(nodes)


def parse_policy(document: Document) -> Policy:
    """A (Cluster)PropagationPolicy, with its placement parsed and validated like Karmada's webhook."""
    data = document.data
    metadata = _metadata(data)
    name = get_str(metadata.get("name"), "metadata.name")
    if not name:
        raise InputError("metadata.name", "is required")
    namespaced = document.kind == "PropagationPolicy"
    namespace = (get_str(metadata.get("namespace"), "metadata.namespace") or "default") if namespaced else ""
    spec = require_map(data.get("spec"), "spec")
    selectors = get_list(spec.get("resourceSelectors"), "spec.resourceSelectors") or []
    if not selectors:
        raise InputError("spec.resourceSelectors", "needs at least one selector")
    checked = []
    for i, selector in enumerate(selectors):
        path = join("spec.resourceSelectors", i)
        selector = require_map(selector, path)
        for key in ("apiVersion", "kind"):
            if not get_str(selector.get(key), join(path, key)):
                raise InputError(join(path, key), "is required")
        selector_namespace = get_str(selector.get("namespace"), join(path, "namespace"))
        if namespaced:
            if selector_namespace and selector_namespace != namespace:
                raise InputError(join(path, "namespace"), "must be the namespace of the policy")
            selector_namespace = namespace
        checked.append(
            ResourceSelector(
                api_version=selector["apiVersion"],
                kind=selector["kind"],
                namespace=selector_namespace,
                name=get_str(selector.get("name"), join(path, "name")),
                label_selector=LabelSelector.from_dict(
                    selector.get("labelSelector"), join(path, "labelSelector")
                ),
            )
        )
    raw_placement = spec.get("placement")
    problems = validate_placement(raw_placement)
    if problems:
        path, message = problems[0]
        raise InputError(join("spec.placement", path) if path else "spec.placement", message)
    annotations = get_str_map(metadata.get("annotations"), "metadata.annotations")
    placement = Placement.from_dict(raw_placement, division_method_from_annotations(annotations))
    schedule_priority = get_map(spec.get("schedulePriority"), "spec.schedulePriority")
    return Policy(
        kind=document.kind,
        name=name,
        namespace=namespace,
        priority=get_int(spec.get("priority"), "spec.priority"),
        selectors=checked,
        placement=placement,
        document=document,
        schedule_priority=schedule_priority,
        rollout=rollout_spec_from_annotations(annotations),
    )


def _requests(pod_spec: dict[str, Any], path: str) -> dict[str, Fraction]:
    """Pod-template requests as Karmada sums them: containers added, init containers maxed, overhead added."""

    def container_requests(container: dict[str, Any], container_path: str) -> dict[str, Fraction]:
        resources = get_map(container.get("resources"), join(container_path, "resources")) or {}
        limits = parse_resources(resources.get("limits"), join(container_path, "resources.limits"))
        requests = parse_resources(resources.get("requests"), join(container_path, "resources.requests"))
        merged = {**limits, **requests}
        return {name: _rounded(name, value) for name, value in merged.items() if _counted(name)}

    total: dict[str, Fraction] = {}
    for i, container in enumerate(get_list(pod_spec.get("containers"), join(path, "containers")) or []):
        container = require_map(container, join(join(path, "containers"), i))
        for name, value in container_requests(container, join(join(path, "containers"), i)).items():
            total[name] = total.get(name, Fraction(0)) + value
    init_path = join(path, "initContainers")
    for i, container in enumerate(get_list(pod_spec.get("initContainers"), init_path) or []):
        container = require_map(container, join(init_path, i))
        for name, value in container_requests(container, join(init_path, i)).items():
            total[name] = max(total.get(name, Fraction(0)), value)
    overhead = parse_resources(pod_spec.get("overhead"), join(path, "overhead"))
    for name, value in overhead.items():
        if _counted(name):
            total[name] = total.get(name, Fraction(0)) + _rounded(name, value)
    return {name: value for name, value in total.items() if value > 0}


def _counted(name: str) -> bool:
    return (
        name in NATIVE_RESOURCES
        or "/" in name
        or name.startswith("hugepages-")
        or name.startswith("attachable-volumes-")
    )


def _rounded(name: str, value: Fraction) -> Fraction:
    """Karmada keeps CPU in whole millicores and everything else in whole units (rounded up)."""
    if name == "cpu":
        return Fraction(milli_units(value), 1000)
    return Fraction(whole_units(value))


def _node_claim(pod_spec: dict[str, Any], path: str) -> NodeClaim | None:
    affinity = get_map(pod_spec.get("affinity"), join(path, "affinity")) or {}
    node_affinity = get_map(affinity.get("nodeAffinity"), join(path, "affinity.nodeAffinity")) or {}
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    has_selector = pod_spec.get("nodeSelector") is not None
    tolerations = parse_tolerations(pod_spec.get("tolerations"), join(path, "tolerations"))
    if not has_selector and required is None and not tolerations:
        return None
    claim = NodeClaim.from_dict(
        {
            "nodeSelector": pod_spec.get("nodeSelector"),
            "tolerations": pod_spec.get("tolerations"),
            "hardNodeAffinity": required,
        },
        path,
    )
    return claim


def parse_workload(document: Document) -> Workload:
    """The resource template, with replicas and requirements read as Karmada's default interpreter does."""
    data = document.data
    metadata = _metadata(data)
    name = get_str(metadata.get("name"), "metadata.name")
    if not name:
        raise InputError("metadata.name", "is required")
    api_version = get_str(data.get("apiVersion"), "apiVersion")
    if not api_version:
        raise InputError("apiVersion", "is required")
    kind = document.kind
    namespace = ""
    if kind not in CLUSTER_SCOPED_KINDS:
        namespace = get_str(metadata.get("namespace"), "metadata.namespace") or "default"
    replicas, requirements = 0, None
    if (api_version, kind) in REPLICA_KINDS:
        replicas, requirements = _replicas_and_requirements(data, api_version, kind)
    return Workload(
        api_version=api_version,
        kind=kind,
        name=name,
        namespace=namespace,
        labels=get_str_map(metadata.get("labels"), "metadata.labels"),
        uid=get_str(metadata.get("uid"), "metadata.uid"),
        replicas=replicas,
        requirements=requirements,
        document=document,
    )


def _replicas_and_requirements(
    data: dict[str, Any], api_version: str, kind: str
) -> tuple[int, ReplicaRequirements | None]:
    spec = get_map(data.get("spec"), "spec") or {}
    if kind == "Pod":
        pod_spec, pod_path, replicas = spec, "spec", 1
    else:
        template = get_map(spec.get("template"), "spec.template") or {}
        pod_spec = get_map(template.get("spec"), "spec.template.spec") or {}
        pod_path = "spec.template.spec"
        if kind == "Job":
            # The API server defaults parallelism to 1 (and completions to 1 when both are unset).
            parallelism = get_int(spec.get("parallelism"), "spec.parallelism", 1)
            completions = spec.get("completions")
            replicas = parallelism
            if completions is not None or spec.get("parallelism") is None:
                replicas = min(parallelism, get_int(completions, "spec.completions", 1))
        else:
            # The API server defaults spec.replicas to 1.
            replicas = get_int(spec.get("replicas"), "spec.replicas", 1)
    if replicas < 0:
        raise InputError("spec.replicas", "must be >= 0")
    requests = _requests(pod_spec, pod_path)
    claim = _node_claim(pod_spec, pod_path)
    if not requests and claim is None:
        return replicas, None
    return replicas, ReplicaRequirements(resource_request=requests, node_claim=claim)


def _timestamp(value: Any, path: str) -> datetime | None:
    if value is None:
        return None
    text = value.isoformat() if isinstance(value, datetime) else get_str(value, path)
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InputError(path, "must be an RFC 3339 time") from None


def parse_binding(document: Document, workload: Workload) -> PreviousResult:
    """The previous result from a work.karmada.io/v1alpha2 (Cluster)ResourceBinding."""
    data = document.data
    spec = get_map(data.get("spec"), "spec") or {}
    status = get_map(data.get("status"), "status") or {}
    resource = get_map(spec.get("resource"), "spec.resource") or {}
    for key, expected in (("kind", workload.kind), ("name", workload.name)):
        value = get_str(resource.get(key), join("spec.resource", key))
        if value and value != expected:
            raise InputError(join("spec.resource", key), f"is {value!r} but the workload's is {expected!r}")
    clusters = []
    for i, item in enumerate(get_list(spec.get("clusters"), "spec.clusters") or []):
        path = join("spec.clusters", i)
        item = require_map(item, path)
        name = get_str(item.get("name"), join(path, "name"))
        if not name:
            raise InputError(join(path, "name"), "is required")
        clusters.append(TargetCluster(name, get_int(item.get("replicas"), join(path, "replicas"))))
    tasks = []
    for i, item in enumerate(get_list(spec.get("gracefulEvictionTasks"), "spec.gracefulEvictionTasks") or []):
        path = join("spec.gracefulEvictionTasks", i)
        item = require_map(item, path)
        source = get_str(item.get("fromCluster"), join(path, "fromCluster"))
        if not source:
            raise InputError(join(path, "fromCluster"), "is required")
        replicas = item.get("replicas")
        tasks.append(
            EvictionTask(
                from_cluster=source,
                replicas=None if replicas is None else get_int(replicas, join(path, "replicas")),
                purge_mode=get_str(item.get("purgeMode"), join(path, "purgeMode")),
                reason=get_str(item.get("reason"), join(path, "reason")),
                producer=get_str(item.get("producer"), join(path, "producer")),
            )
        )
    triggered = _timestamp(spec.get("rescheduleTriggeredAt"), "spec.rescheduleTriggeredAt")
    scheduled = _timestamp(status.get("lastScheduledTime"), "status.lastScheduledTime")
    return PreviousResult(
        clusters=tuple(clusters),
        observed_affinity=get_str(
            status.get("schedulerObservedAffinityName"), "status.schedulerObservedAffinityName"
        ),
        eviction_tasks=tuple(tasks),
        reschedule_triggered=triggered is not None and scheduled is not None and triggered > scheduled,
    )


def is_reserved_namespace(namespace: str) -> bool:
    """Karmada's own namespaces, whose objects the detector never propagates."""
    return namespace in ("karmada-system", "karmada-cluster") or namespace.startswith("karmada-es-")


def match_policy(policies: list[Policy], workload: Workload) -> Policy | None:
    """The policy Karmada's detector would bind: any matching PP before any CPP, then by priority,
    then name > labelSelector > kind-only match, then policy name ascending.  Objects in a
    reserved namespace match nothing."""
    if is_reserved_namespace(workload.namespace):
        return None
    for kind in POLICY_KINDS:
        ranked = []
        for policy in policies:
            if policy.kind != kind:
                continue
            if kind == "PropagationPolicy" and policy.namespace != workload.namespace:
                continue
            implicit = max((s.priority(workload) for s in policy.selectors), default=0)
            if implicit:
                ranked.append((-policy.priority, -implicit, policy.name, policy))
        if ranked:
            return min(ranked, key=lambda entry: entry[:3])[3]
    return None


def binding_for(
    workload: Workload, previous: PreviousResult, reschedule: bool, placement: Placement | None = None
) -> Binding:
    """The planner's Binding for this workload and previous result (with the placement: its groups)."""
    groups = ("", "")
    if placement is not None and workload.namespace:
        groups = affinity_groups(placement.workload_affinity, workload.labels)
    return Binding(
        replicas=workload.replicas,
        requirements=workload.requirements,
        previous=previous.clusters,
        observed_affinity=previous.observed_affinity,
        uid=workload.uid,
        api_version=workload.api_version,
        kind=workload.kind,
        namespace=workload.namespace,
        name=workload.name,
        eviction_tasks=previous.eviction_tasks,
        fresh=reschedule or previous.reschedule_triggered,
        affinity_group=groups[0],
        anti_affinity_group=groups[1],
    )
