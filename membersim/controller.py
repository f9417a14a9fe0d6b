"""The cluster's controllers, run synchronously after each "
"relevant write: workloads to pods, scheduling, kubelet."""

from __future__ import annotations

import copy
import ipaddress
import secrets
import time
from typing import TYPE_CHECKING, Any

from membersim import meta
from membersim.placement import (
    NodeUse,
    choose_node,
    matches_node_selection,
    node_is_ready,
    pod_requests,
    tolerates,
    untolerated_taint,
)
from membersim.resources import (
    DAEMONSET,
    DEPLOYMENT,
    EVENT,
    JOB,
    NODE,
    POD,
    REPLICASET,
    STATEFULSET,
    Resource,
)
from membersim.selectors import SelectorError, labels_match, requirements_from_label_selector
from membersim.validation import default_pod_spec

if TYPE_CHECKING:
    from membersim.cluster import Cluster

# (resource, namespace, name, old object or None, new object or None) of one write
Touch = tuple[Resource, str, str, "dict[str, Any] | None", "dict[str, Any] | None"]
WORKLOADS = {r.kind: r for r in (DEPLOYMENT, REPLICASET, STATEFULSET, DAEMONSET, JOB)}

MAX_PASSES = 50
# Past this many writes between passes, recomputing everything is as cheap as following them.
MAX_TOUCHED = 10_000
# A pod (or pod template) annotation that makes the simulated kubelet report a failure instead:
# CrashLoopBackOff, ImagePullBackOff or ErrImagePull (not ready), or Error (the pod fails).
FAIL_ANNOTATION = "membersim.io/fail"
DEFAULT_TOLERATION_SECONDS = 300
FAILURES = ("CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "Error")
FINISHED = ("Succeeded", "Failed")
DAEMON_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
]


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


def condition(
    old: list[dict[str, Any]] | None,
    type_: str,
    status: str,
    reason: str = "",
    message: str = "",
    *,
    update_time: bool = False,
) -> dict[str, Any]:
    """A condition that keeps its timestamps while nothing about it changes."""
    when = meta.now()
    previous = next((c for c in old or [] if c.get("type") == type_), None)
    result: dict[str, Any] = {"type": type_, "status": status}
    if update_time:
        result["lastUpdateTime"] = when
    result["lastTransitionTime"] = when
    if reason:
        result["reason"] = reason
    if message:
        result["message"] = message
    if previous and previous.get("status") == status:
        result["lastTransitionTime"] = previous.get("lastTransitionTime", when)
        if update_time and previous.get("reason") == reason and previous.get("message") == message:
            result["lastUpdateTime"] = previous.get("lastUpdateTime", when)
    return result


class Controller:
    """Level-triggered: every pass recomputes from the stored objects and writes only differences."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.store = cluster.store
        # Writes since the last pass began: a pass looks only at the objects they touch (and their
        # owners), unless a node changed or time passed, when it recomputes everything.
        self._touched: list[Touch] = []
        self._full = True
        # Kept up to date on every pod write, so placing a pod never sums every pod in the cluster.
        self._usage: dict[str, NodeUse] = {}
        self._node_ips: dict[str, dict[str, int]] = {}
        self._unbound: set[tuple[str, str]] = set()
        self._scope: list[Touch] | None = None
        self.store.observe(self._observe)

    def _observe(
        self, resource: Resource, namespace: str, name: str, old: dict | None, new: dict | None
    ) -> None:
        if resource is NODE:
            self._full = True
        elif resource is not EVENT and not self._full:
            self._touched.append((resource, namespace, name, old, new))
            if len(self._touched) > MAX_TOUCHED:
                self._full = True
        if self._full:
            self._touched.clear()
        if resource is POD:
            self._count_pod(old, -1)
            self._count_pod(new, 1)
            key = (namespace, name)
            if new is not None and not (new.get("spec") or {}).get("nodeName"):
                self._unbound.add(key)
            else:
                self._unbound.discard(key)

    def _count_pod(self, pod: dict | None, sign: int) -> None:
        """Add (or take away) an active bound pod's requests and IP to its node's use."""
        if pod is None or not is_active(pod):
            return
        node_name = (pod.get("spec") or {}).get("nodeName")
        if not node_name:
            return
        use = self._usage.setdefault(node_name, NodeUse())
        requests = pod_requests(pod)
        use.cpu_m += sign * requests.cpu_m
        use.memory += sign * requests.memory
        use.pods += sign
        ip = (pod.get("status") or {}).get("podIP")
        if ip:
            ips = self._node_ips.setdefault(node_name, {})
            ips[ip] = ips.get(ip, 0) + sign
            if ips[ip] <= 0:
                del ips[ip]
        if use.pods <= 0:
            del self._usage[node_name]
            self._node_ips.pop(node_name, None)

    def reconcile(self) -> None:
        """Run the controllers until nothing changes. Called with no write since the last run (a
        tick), the first pass recomputes every object: time alone may have changed something."""
        with self.store.lock:
            if not self._touched:
                self._full = True
            try:
                for _ in range(MAX_PASSES):
                    if self._full:
                        self._full = False
                        self._touched = []
                        self._scope = None
                    else:
                        self._scope, self._touched = self._touched, []
                    if not self._pass():
                        break
            except BaseException:
                self._full = True  # the writes a failed pass was following must not be forgotten
                raise
            finally:
                self._scope = None

    def _pass(self) -> bool:
        changed = self._garbage_collect()
        changed |= self._deployments()
        changed |= self._replicasets()
        changed |= self._statefulsets()
        changed |= self._daemonsets()
        changed |= self._jobs()
        changed |= self._evict_untolerated()
        changed |= self._schedule()
        changed |= self._kubelet()
        changed |= self._statuses()
        return changed

    # ------------------------------------------------------------ helpers

    def _visit(self, resource: Resource) -> list[dict[str, Any]]:
        """The objects of ``resource`` this pass looks at: all of them, or (scoped) those written
        since the pass before began and the owners (and their owners) of what was written."""
        if self._scope is None:
            return list(self.store.iter(resource))
        keys: dict[tuple[str, str], None] = {}
        for touched_resource, namespace, name, old, new in [*self._scope, *self._touched]:
            if touched_resource is resource:
                keys[(namespace, name)] = None
            for obj in (old, new):
                if obj is not None:
                    self._owner_keys(obj, resource, keys, 2)
        found = []
        for namespace, name in keys:
            obj = self.store.get(resource, namespace, name)
            if obj is not None:
                found.append(obj)
        return found

    def _owner_keys(
        self, obj: dict[str, Any], resource: Resource, keys: dict[tuple[str, str], None], depth: int
    ) -> None:
        namespace = obj["metadata"].get("namespace", "")
        for ref in obj["metadata"].get("ownerReferences") or []:
            owner_resource = WORKLOADS.get(ref.get("kind", ""))
            if not ref.get("controller") or owner_resource is None:
                continue
            owner = self.store.get(owner_resource, namespace, ref.get("name", ""))
            if owner is None or owner["metadata"].get("uid") != ref.get("uid"):
                continue
            if owner_resource is resource:
                keys[(namespace, owner["metadata"]["name"])] = None
            if depth > 1:
                self._owner_keys(owner, resource, keys, depth - 1)

    def _owned(self, resource: Resource, owner: dict[str, Any]) -> list[dict[str, Any]]:
        uid = owner["metadata"]["uid"]
        return [o for _, o in self.store.owned_by(uid, resource) if meta.controller_uid(o) == uid]

    def _create_pod(
        self,
        owner: dict[str, Any],
        template: dict[str, Any],
        name: str,
        labels: dict[str, str],
        component: str,
        spec_extra: dict[str, Any] | None = None,
    ) -> None:
        template_meta = template.get("metadata") or {}
        spec = copy.deepcopy(template.get("spec") or {})
        spec.update(spec_extra or {})
        default_pod_spec(spec)
        metadata: dict[str, Any] = {
            "name": name,
            "namespace": owner["metadata"]["namespace"],
            "labels": {**(template_meta.get("labels") or {}), **labels},
            "ownerReferences": [meta.owner_reference(owner)],
        }
        if template_meta.get("annotations"):
            metadata["annotations"] = dict(template_meta["annotations"])
        pod = {
            "metadata": metadata,
            "spec": spec,
            "status": {"phase": "Pending", "qosClass": qos_class(spec)},
        }
        self.cluster.new_object(POD, pod)
        self.store.put(POD, pod)
        self.cluster.record_event(owner, "Normal", "SuccessfulCreate", f"Created pod: {name}", component)

    def _delete(
        self, resource: Resource, obj: dict[str, Any], owner: dict[str, Any] | None, component: str
    ) -> None:
        self.store.remove(resource, obj["metadata"].get("namespace", ""), obj["metadata"]["name"])
        if owner is not None:
            self.cluster.record_event(
                owner, "Normal", "SuccessfulDelete", f"Deleted pod: {obj['metadata']['name']}", component
            )

    def _write_status(self, resource: Resource, obj: dict[str, Any], status: dict[str, Any]) -> bool:
        if (obj.get("status") or {}) == status:
            return False
        self.store.put(resource, {**obj, "status": status})
        return True

    # ------------------------------------------------------------ garbage collection

    def _garbage_collect(self) -> bool:
        changed = False
        nodes = {n["metadata"]["name"] for n in self.store.iter(NODE)}
        for pod in self._visit(POD):
            node_name = (pod.get("spec") or {}).get("nodeName")
            if node_name and node_name not in nodes:
                self._delete(POD, pod, None, "pod-garbage-collector")
                changed = True
        return changed

    # ------------------------------------------------------------ deployments

    def _deployments(self) -> bool:
        changed = False
        for deployment in self._visit(DEPLOYMENT):
            changed |= self._sync_deployment(deployment)
        return changed

    def _sync_deployment(self, deployment: dict[str, Any]) -> bool:
        spec = deployment["spec"]
        name, namespace = deployment["metadata"]["name"], deployment["metadata"]["namespace"]
        desired = spec.get("replicas", 1)
        template_hash = meta.template_hash(spec.get("template"))
        owned = self._owned(REPLICASET, deployment)
        revisions = {
            rs["metadata"]["name"]: int(
                (rs["metadata"].get("annotations") or {}).get("deployment.kubernetes.io/revision", "0") or 0
            )
            for rs in owned
        }
        newest = next(
            (
                rs
                for rs in owned
                if (rs["metadata"].get("labels") or {}).get("pod-template-hash") == template_hash
            ),
            None,
        )
        changed = False
        if spec.get("paused"):
            return False
        top = max(revisions.values(), default=0)
        if newest is None:
            template = copy.deepcopy(spec.get("template") or {})
            template.setdefault("metadata", {}).setdefault("labels", {})["pod-template-hash"] = template_hash
            selector = copy.deepcopy(spec.get("selector") or {})
            selector.setdefault("matchLabels", {})["pod-template-hash"] = template_hash
            rs_name = f"{name}-{template_hash}"
            replica_set = {
                "metadata": {
                    "name": rs_name,
                    "namespace": namespace,
                    "labels": dict(template["metadata"]["labels"]),
                    "annotations": {
                        "deployment.kubernetes.io/desired-replicas": str(desired),
                        "deployment.kubernetes.io/max-replicas": str(desired + 1),
                        "deployment.kubernetes.io/revision": str(top + 1),
                    },
                    "ownerReferences": [meta.owner_reference(deployment)],
                },
                "spec": {
                    "replicas": desired,
                    "minReadySeconds": spec.get("minReadySeconds", 0),
                    "selector": selector,
                    "template": template,
                },
                "status": {"replicas": 0},
            }
            self.cluster.new_object(REPLICASET, replica_set)
            self.store.put(REPLICASET, replica_set)
            self.cluster.record_event(
                deployment,
                "Normal",
                "ScalingReplicaSet",
                f"Scaled up replica set {rs_name} from 0 to {desired}",
                "deployment-controller",
            )
            revision = top + 1
            changed = True
        else:
            revision = revisions[newest["metadata"]["name"]]
            annotations = dict(newest["metadata"].get("annotations") or {})
            if revision < top:
                revision = top + 1
            if (
                newest["spec"].get("replicas") != desired
                or annotations.get("deployment.kubernetes.io/revision") != str(revision)
                or annotations.get("deployment.kubernetes.io/desired-replicas") != str(desired)
            ):
                old_count = newest["spec"].get("replicas", 0)
                annotations.update(
                    {
                        "deployment.kubernetes.io/revision": str(revision),
                        "deployment.kubernetes.io/desired-replicas": str(desired),
                        "deployment.kubernetes.io/max-replicas": str(desired + 1),
                    }
                )
                updated = {
                    **newest,
                    "metadata": {**newest["metadata"], "annotations": annotations},
                    "spec": {**newest["spec"], "replicas": desired},
                }
                updated["metadata"]["generation"] = newest["metadata"].get("generation", 1) + (
                    1 if old_count != desired else 0
                )
                self.store.put(REPLICASET, updated)
                if old_count != desired:
                    direction = "up" if desired > old_count else "down"
                    self.cluster.record_event(
                        deployment,
                        "Normal",
                        "ScalingReplicaSet",
                        f"Scaled {direction} replica set "
                        f"{newest['metadata']['name']} from {old_count} to {desired}",
                        "deployment-controller",
                    )
                changed = True
        old_sets = [
            rs for rs in owned if newest is None or rs["metadata"]["name"] != newest["metadata"]["name"]
        ]
        for rs in old_sets:
            count = rs["spec"].get("replicas", 0)
            if count:
                self.store.put(
                    REPLICASET,
                    {
                        **rs,
                        "metadata": {**rs["metadata"], "generation": rs["metadata"].get("generation", 1) + 1},
                        "spec": {**rs["spec"], "replicas": 0},
                    },
                )
                self.cluster.record_event(
                    deployment,
                    "Normal",
                    "ScalingReplicaSet",
                    f"Scaled down replica set {rs['metadata']['name']} from {count} to 0",
                    "deployment-controller",
                )
                changed = True
        history = spec.get("revisionHistoryLimit", 10)
        retired = sorted(old_sets, key=lambda rs: revisions.get(rs["metadata"]["name"], 0))
        for rs in retired[: max(0, len(retired) - history)]:
            if not self._owned(POD, rs):
                self.store.remove(REPLICASET, namespace, rs["metadata"]["name"])
                changed = True
        annotations = deployment["metadata"].get("annotations") or {}
        if annotations.get("deployment.kubernetes.io/revision") != str(revision):
            current = self.store.get(DEPLOYMENT, namespace, name)
            if current is not None:
                new_meta = {
                    **current["metadata"],
                    "annotations": {
                        **(current["metadata"].get("annotations") or {}),
                        "deployment.kubernetes.io/revision": str(revision),
                    },
                }
                self.store.put(DEPLOYMENT, {**current, "metadata": new_meta})
                changed = True
        return changed

    # ------------------------------------------------------------ replica sets

    def _replicasets(self) -> bool:
        changed = False
        for replica_set in self._visit(REPLICASET):
            desired = replica_set["spec"].get("replicas", 1)
            pods = [p for p in self._owned(POD, replica_set) if is_active(p)]
            if len(pods) < desired:
                prefix = f"{replica_set['metadata']['name']}-"
                for _ in range(desired - len(pods)):
                    self._create_pod(
                        replica_set,
                        replica_set["spec"].get("template") or {},
                        prefix + meta.suffix(),
                        {},
                        "replicaset-controller",
                        None,
                    )
                changed = True
            elif len(pods) > desired:

                def doomed_first(pod: dict[str, Any]) -> tuple[int, int, str]:
                    bound = 1 if (pod.get("spec") or {}).get("nodeName") else 0
                    return (
                        bound,
                        1 if is_ready(pod) else 0,
                        "~" + pod["metadata"].get("creationTimestamp", ""),
                    )

                for pod in sorted(pods, key=doomed_first)[: len(pods) - desired]:
                    self._delete(POD, pod, replica_set, "replicaset-controller")
                changed = True
        return changed

    # ------------------------------------------------------------ stateful sets

    def _statefulsets(self) -> bool:
        changed = False
        for sts in self._visit(STATEFULSET):
            name = sts["metadata"]["name"]
            desired = sts["spec"].get("replicas", 1)
            revision = f"{name}-{meta.template_hash(sts['spec'].get('template'))}"
            pods = {p["metadata"]["name"]: p for p in self._owned(POD, sts)}
            for pod_name, pod in pods.items():
                ordinal = pod_name.rsplit("-", 1)[-1]
                stale = (pod["metadata"].get("labels") or {}).get("controller-revision-hash") != revision
                if not ordinal.isdigit() or int(ordinal) >= desired or stale or not is_active(pod):
                    self._delete(POD, pod, sts, "statefulset-controller")
                    changed = True
            for ordinal in range(desired):
                pod_name = f"{name}-{ordinal}"
                if (
                    pod_name in pods
                    and self.store.get(POD, sts["metadata"]["namespace"], pod_name) is not None
                ):
                    continue
                labels = {
                    "controller-revision-hash": revision,
                    "statefulset.kubernetes.io/pod-name": pod_name,
                    "apps.kubernetes.io/pod-index": str(ordinal),
                }
                extra = {"hostname": pod_name}
                if sts["spec"].get("serviceName"):
                    extra["subdomain"] = sts["spec"]["serviceName"]
                self._create_pod(
                    sts, sts["spec"].get("template") or {}, pod_name, labels, "statefulset-controller", extra
                )
                changed = True
        return changed

    # ------------------------------------------------------------ daemon sets

    def _daemonsets(self) -> bool:
        changed = False
        nodes = list(self.store.iter(NODE))
        for ds in self._visit(DAEMONSET):
            template = ds["spec"].get("template") or {}
            revision = meta.template_hash(template)
            probe = {
                "spec": {
                    **(template.get("spec") or {}),
                    "tolerations": [
                        *((template.get("spec") or {}).get("tolerations") or []),
                        *DAEMON_TOLERATIONS,
                    ],
                }
            }
            by_node: dict[str, dict[str, Any]] = {}
            for pod in self._owned(POD, ds):
                target = self._daemon_node(pod)
                stale = (pod["metadata"].get("labels") or {}).get("controller-revision-hash") != revision
                if stale or target in by_node or not is_active(pod):
                    self._delete(POD, pod, ds, "daemonset-controller")
                    changed = True
                else:
                    by_node[target] = pod
            for node in nodes:
                node_name = node["metadata"]["name"]
                eligible = matches_node_selection(probe, node)
                should_create = eligible and untolerated_taint(probe, node) is None
                if node_name in by_node and not eligible:
                    self._delete(POD, by_node[node_name], ds, "daemonset-controller")
                    changed = True
                elif node_name not in by_node and should_create:
                    affinity = {
                        "nodeAffinity": {
                            "requiredDuringSchedulingIgnoredDuringExecution": {
                                "nodeSelectorTerms": [
                                    {
                                        "matchFields": [
                                            {"key": "metadata.name", "operator": "In", "values": [node_name]}
                                        ]
                                    }
                                ]
                            }
                        }
                    }
                    extra = {"affinity": affinity, "tolerations": probe["spec"]["tolerations"]}
                    labels = {
                        "controller-revision-hash": revision,
                        "pod-template-generation": str(ds["metadata"].get("generation", 1)),
                    }
                    self._create_pod(
                        ds,
                        template,
                        f"{ds['metadata']['name']}-{meta.suffix()}",
                        labels,
                        "daemonset-controller",
                        extra,
                    )
                    changed = True
        return changed

    @staticmethod
    def _daemon_node(pod: dict[str, Any]) -> str:
        terms = (
            (((pod.get("spec") or {}).get("affinity") or {}).get("nodeAffinity") or {}).get(
                "requiredDuringSchedulingIgnoredDuringExecution"
            )
            or {}
        ).get("nodeSelectorTerms") or []
        for term in terms:
            for field in term.get("matchFields") or []:
                if field.get("key") == "metadata.name" and field.get("values"):
                    return field["values"][0]
        return (pod.get("spec") or {}).get("nodeName", "")

    def _eligible_daemon_nodes(self, ds: dict[str, Any]) -> list[str]:
        template = ds["spec"].get("template") or {}
        probe = {
            "spec": {
                **(template.get("spec") or {}),
                "tolerations": [
                    *((template.get("spec") or {}).get("tolerations") or []),
                    *DAEMON_TOLERATIONS,
                ],
            }
        }
        return [
            n["metadata"]["name"]
            for n in self.store.iter(NODE)
            if matches_node_selection(probe, n) and untolerated_taint(probe, n) is None
        ]

    # ------------------------------------------------------------ jobs

    def _jobs(self) -> bool:
        changed = False
        for job in self._visit(JOB):
            spec = job["spec"]
            pods = self._owned(POD, job)
            if spec.get("suspend"):
                for pod in pods:
                    if is_active(pod):
                        self._delete(POD, pod, job, "job-controller")
                        changed = True
                continue
            completions = spec.get("completions") or 1
            succeeded = sum(1 for p in pods if (p.get("status") or {}).get("phase") == "Succeeded")
            failed = sum(1 for p in pods if (p.get("status") or {}).get("phase") == "Failed")
            active = sum(1 for p in pods if is_active(p))
            if failed > spec.get("backoffLimit", 6):
                continue
            want = min(spec.get("parallelism", 1), completions - succeeded) - active
            labels = {
                "batch.kubernetes.io/job-name": job["metadata"]["name"],
                "job-name": job["metadata"]["name"],
                "batch.kubernetes.io/controller-uid": job["metadata"]["uid"],
                "controller-uid": job["metadata"]["uid"],
            }
            for _ in range(max(0, want)):
                self._create_pod(
                    job,
                    spec.get("template") or {},
                    f"{job['metadata']['name']}-{meta.suffix()}",
                    labels,
                    "job-controller",
                )
                changed = True
        return changed

    # ------------------------------------------------------------ taint manager

    @staticmethod
    def _toleration_seconds(pod: dict[str, Any], taint: dict[str, Any]) -> float | None:
        """How long ``pod`` may stay on a node with a NoExecute ``taint``; None means for ever."""
        for toleration in (pod.get("spec") or {}).get("tolerations") or []:
            if tolerates([toleration], taint):
                seconds = toleration.get("tolerationSeconds")
                return None if seconds is None else max(0.0, float(seconds))
        # The DefaultTolerationSeconds admission plugin gives every pod 300 s for these two.
        if taint.get("key") in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"):
            return float(DEFAULT_TOLERATION_SECONDS)
        return 0.0

    def _evict_untolerated(self) -> bool:
        changed = False
        now = time.time()
        pods: list[dict[str, Any]] | None = None
        for node in self.store.iter(NODE):
            taints = [
                t for t in (node.get("spec") or {}).get("taints") or [] if t.get("effect") == "NoExecute"
            ]
            if not taints:
                continue
            pods = pods if pods is not None else self._visit(POD)
            for pod in pods:
                if (pod.get("spec") or {}).get("nodeName") != node["metadata"]["name"] or not is_active(pod):
                    continue
                for taint in taints:
                    seconds = self._toleration_seconds(pod, taint)
                    if seconds is not None and (
                        seconds == 0 or now - meta.parse_time(taint.get("timeAdded")) >= seconds
                    ):
                        where = f"{pod['metadata']['namespace']}/{pod['metadata']['name']}"
                        self.cluster.record_event(
                            pod,
                            "Normal",
                            "TaintManagerEviction",
                            f"Marking for deletion Pod {where}",
                            "taint-eviction-controller",
                        )
                        self._delete(POD, pod, None, "taint-eviction-controller")
                        changed = True
                        break
        return changed

    def has_no_execute_taints(self) -> bool:
        return any(
            t.get("effect") == "NoExecute"
            for n in self.store.iter(NODE)
            for t in (n.get("spec") or {}).get("taints") or []
        )

    # ------------------------------------------------------------ scheduler

    def usage(self) -> dict[str, NodeUse]:
        """Requests and IPs of the active pods bound to each node (a copy the caller may change)."""
        return {
            node_name: NodeUse(use.cpu_m, use.memory, use.pods, set(self._node_ips.get(node_name, ())))
            for node_name, use in self._usage.items()
        }

    def _schedule(self) -> bool:
        pending = []
        for namespace, name in self._unbound:
            pod = self.store.get(POD, namespace, name)
            if pod is not None and is_active(pod):
                pending.append(pod)
        if not pending:
            return False
        pending.sort(
            key=lambda p: (
                p["metadata"].get("creationTimestamp", ""),
                p["metadata"]["namespace"],
                p["metadata"]["name"],
            )
        )
        nodes = sorted(self.store.iter(NODE), key=lambda n: n["metadata"]["name"])
        usage = self.usage()
        changed = False
        for pod in pending:
            node_name, message = choose_node(pod, nodes, usage)
            status = dict(pod.get("status") or {})
            if node_name is None:
                scheduled = condition(
                    status.get("conditions"), "PodScheduled", "False", "Unschedulable", message
                )
                old = next(
                    (c for c in status.get("conditions") or [] if c.get("type") == "PodScheduled"), None
                )
                if old and old.get("status") == "False" and old.get("message") == message:
                    continue
                status["conditions"] = [scheduled]
                status["phase"] = "Pending"
                self.store.put(POD, {**pod, "status": status})
                self.cluster.record_event(pod, "Warning", "FailedScheduling", message, "default-scheduler")
                changed = True
                continue
            node = next(n for n in nodes if n["metadata"]["name"] == node_name)
            requests = pod_requests(pod)
            use = usage[node_name]
            use.cpu_m += requests.cpu_m
            use.memory += requests.memory
            use.pods += 1
            bound = {**pod, "spec": {**pod["spec"], "nodeName": node_name}}
            self.cluster.record_event(
                pod,
                "Normal",
                "Scheduled",
                "Successfully assigned "
                f"{pod['metadata']['namespace']}/{pod['metadata']['name']} to {node_name}",
                "default-scheduler",
            )
            self.store.put(POD, self._started(bound, node, use))
            changed = True
        return changed

    # ------------------------------------------------------------ kubelet

    def _started(self, pod: dict[str, Any], node: dict[str, Any], use: NodeUse) -> dict[str, Any]:
        """The pod as its kubelet reports it once the containers run (or, for a Job, have finished)."""
        when = meta.now()
        spec = pod["spec"]
        node_ip = next(
            (a["address"] for a in node["status"].get("addresses") or [] if a.get("type") == "InternalIP"), ""
        )
        pod_ip = node_ip if spec.get("hostNetwork") else self._allocate_ip(node, use)
        job_pod = any(ref.get("kind") == "Job" for ref in pod["metadata"].get("ownerReferences") or [])
        failure = failure_of(pod)
        ready = node_is_ready(node) and not job_pod and failure is None
        previous = (pod.get("status") or {}).get("conditions")
        statuses = []
        restarts = 0
        for container in spec.get("containers") or []:
            image = container.get("image", "")
            container_id = f"containerd://{secrets.token_hex(32)}"
            last_state: dict[str, Any] = {}
            state: dict[str, Any]
            if failure == "CrashLoopBackOff":
                restarts = 5
                names = f"container={container['name']} pod={pod['metadata']['name']}"
                message = f"back-off 5m0s restarting failed {names}"
                state = {"waiting": {"reason": failure, "message": message}}
                last_state = {
                    "terminated": {
                        "exitCode": 1,
                        "reason": "Error",
                        "startedAt": when,
                        "finishedAt": when,
                        "containerID": container_id,
                    }
                }
            elif failure in ("ImagePullBackOff", "ErrImagePull"):
                state = {"waiting": {"reason": failure, "message": f'Back-off pulling image "{image}"'}}
            elif failure == "Error":
                state = {
                    "terminated": {
                        "exitCode": 1,
                        "reason": "Error",
                        "startedAt": when,
                        "finishedAt": when,
                        "containerID": container_id,
                    }
                }
            elif job_pod:
                state = {
                    "terminated": {
                        "exitCode": 0,
                        "reason": "Completed",
                        "startedAt": when,
                        "finishedAt": when,
                        "containerID": container_id,
                    }
                }
            else:
                state = {"running": {"startedAt": when}}
            statuses.append(
                {
                    "name": container["name"],
                    "image": container.get("image", ""),
                    "imageID": f"{image}@sha256:{meta.template_hash(image)}",
                    "containerID": container_id,
                    "ready": ready,
                    "restartCount": restarts,
                    "started": not job_pod and failure is None,
                    "state": state,
                    "lastState": last_state,
                }
            )
        ready_status = "True" if ready else "False"
        reason = "PodCompleted" if job_pod else ("" if ready else "ContainersNotReady")
        if failure == "Error":
            reason = "PodFailed"
        conditions = [
            condition(previous, "PodReadyToStartContainers", "False" if job_pod else "True"),
            condition(previous, "Initialized", "True", reason if job_pod else ""),
            condition(previous, "Ready", ready_status, reason),
            condition(previous, "ContainersReady", ready_status, reason),
            condition(previous, "PodScheduled", "True"),
        ]
        phase = "Succeeded" if job_pod else "Running"
        if failure == "Error":
            phase = "Failed"
        elif failure in ("ImagePullBackOff", "ErrImagePull"):
            phase = "Pending"
        status = {
            "phase": phase,
            "conditions": conditions,
            "hostIP": node_ip,
            "hostIPs": [{"ip": node_ip}] if node_ip else [],
            "podIP": pod_ip,
            "podIPs": [{"ip": pod_ip}] if pod_ip else [],
            "startTime": when,
            "containerStatuses": statuses,
            "qosClass": (pod.get("status") or {}).get("qosClass") or qos_class(spec),
        }
        if phase in FINISHED:
            use.cpu_m -= pod_requests(pod).cpu_m
            use.memory -= pod_requests(pod).memory
            use.pods -= 1
            use.ips.discard(pod_ip)
        return {**pod, "status": status}

    @staticmethod
    def _allocate_ip(node: dict[str, Any], use: NodeUse) -> str:
        cidr = (node.get("spec") or {}).get("podCIDR")
        if not cidr:
            return ""
        network = ipaddress.ip_network(cidr)
        for offset in range(2, network.num_addresses - 1):
            candidate = str(network.network_address + offset)
            if candidate not in use.ips:
                use.ips.add(candidate)
                return candidate
        return ""

    def _kubelet(self) -> bool:
        """Start pods bound by name, and keep each running pod's readiness in step with its node."""
        changed = False
        nodes = {n["metadata"]["name"]: n for n in self.store.iter(NODE)}
        usage: dict[str, NodeUse] | None = None
        for pod in self._visit(POD):
            node_name = (pod.get("spec") or {}).get("nodeName")
            status = pod.get("status") or {}
            if not node_name or node_name not in nodes or status.get("phase") in FINISHED:
                continue
            node = nodes[node_name]
            if not status.get("startTime"):
                usage = usage if usage is not None else self.usage()
                self.store.put(POD, self._started(pod, node, usage.setdefault(node_name, NodeUse())))
                changed = True
                continue
            ready = node_is_ready(node) and failure_of(pod) is None
            if is_ready(pod) == ready:
                continue
            conditions = status.get("conditions") or []
            text = "True" if ready else "False"
            reason = "" if ready else "NodeNotReady"
            new_conditions = [
                condition(conditions, c["type"], text, reason)
                if c.get("type") in ("Ready", "ContainersReady")
                else c
                for c in conditions
            ]
            containers = [{**c, "ready": ready} for c in status.get("containerStatuses") or []]
            self.store.put(
                POD,
                {**pod, "status": {**status, "conditions": new_conditions, "containerStatuses": containers}},
            )
            changed = True
        return changed

    # ------------------------------------------------------------ workload status

    def _statuses(self) -> bool:
        changed = False
        for rs in self._visit(REPLICASET):
            pods = [p for p in self._owned(POD, rs) if is_active(p)]
            ready = sum(1 for p in pods if is_ready(p))
            try:
                selector = requirements_from_label_selector(rs["spec"].get("selector"))
            except SelectorError:
                selector = []
            status = {
                "replicas": len(pods),
                "fullyLabeledReplicas": sum(
                    1 for p in pods if labels_match(selector, p["metadata"].get("labels"))
                ),
                "readyReplicas": ready,
                "availableReplicas": ready,
                "observedGeneration": rs["metadata"].get("generation", 1),
            }
            changed |= self._write_status(REPLICASET, rs, status)
        for deployment in self._visit(DEPLOYMENT):
            changed |= self._deployment_status(deployment)
        for sts in self._visit(STATEFULSET):
            changed |= self._statefulset_status(sts)
        for ds in self._visit(DAEMONSET):
            changed |= self._daemonset_status(ds)
        for job in self._visit(JOB):
            changed |= self._job_status(job)
        return changed

    def _deployment_status(self, deployment: dict[str, Any]) -> bool:
        spec = deployment["spec"]
        desired = spec.get("replicas", 1)
        template_hash = meta.template_hash(spec.get("template"))
        owned = self._owned(REPLICASET, deployment)
        newest = next(
            (
                rs
                for rs in owned
                if (rs["metadata"].get("labels") or {}).get("pod-template-hash") == template_hash
            ),
            None,
        )
        total = ready = available = updated = 0
        for rs in owned:
            pods = [p for p in self._owned(POD, rs) if is_active(p)]
            total += len(pods)
            ready += sum(1 for p in pods if is_ready(p))
            if rs is newest:
                updated = len(pods)
        available = ready
        old = (deployment.get("status") or {}).get("conditions")
        max_unavailable = _percent_or_int(
            ((spec.get("strategy") or {}).get("rollingUpdate") or {}).get("maxUnavailable", "25%"),
            desired,
            round_up=False,
        )
        if spec.get("strategy", {}).get("type") == "Recreate":
            max_unavailable = desired
        conditions = []
        if available >= desired - max_unavailable:
            conditions.append(
                condition(
                    old,
                    "Available",
                    "True",
                    "MinimumReplicasAvailable",
                    "Deployment has minimum availability.",
                    update_time=True,
                )
            )
        else:
            conditions.append(
                condition(
                    old,
                    "Available",
                    "False",
                    "MinimumReplicasUnavailable",
                    "Deployment does not have minimum availability.",
                    update_time=True,
                )
            )
        rs_name = newest["metadata"]["name"] if newest else deployment["metadata"]["name"]
        if spec.get("paused"):
            conditions.append(
                condition(
                    old,
                    "Progressing",
                    "Unknown",
                    "DeploymentPaused",
                    "Deployment is paused",
                    update_time=True,
                )
            )
        elif newest and updated == desired and available >= desired and total == desired:
            conditions.append(
                condition(
                    old,
                    "Progressing",
                    "True",
                    "NewReplicaSetAvailable",
                    f'ReplicaSet "{rs_name}" has successfully progressed.',
                    update_time=True,
                )
            )
        else:
            conditions.append(self._progressing(deployment, rs_name, updated, available))
        status: dict[str, Any] = {
            "observedGeneration": deployment["metadata"].get("generation", 1),
            "replicas": total,
            "updatedReplicas": updated,
            "readyReplicas": ready,
            "availableReplicas": available,
        }
        if total - available > 0 or desired - available > 0:
            status["unavailableReplicas"] = max(total, desired) - available
        status["conditions"] = conditions
        return self._write_status(
            DEPLOYMENT,
            deployment,
            _drop_zero(status, ("readyReplicas", "availableReplicas", "updatedReplicas", "replicas")),
        )

    @staticmethod
    def _progressing(
        deployment: dict[str, Any], rs_name: str, updated: int, available: int
    ) -> dict[str, Any]:
        """Progressing while pods keep coming up; False once none has for progressDeadlineSeconds."""
        old_status = deployment.get("status") or {}
        old = old_status.get("conditions")
        previous = next((c for c in old or [] if c.get("type") == "Progressing"), None)
        progressed = (old_status.get("availableReplicas", 0), old_status.get("updatedReplicas", 0)) != (
            available,
            updated,
        )
        if previous and previous.get("reason") == "ProgressDeadlineExceeded" and not progressed:
            return previous
        current = condition(
            old,
            "Progressing",
            "True",
            "ReplicaSetUpdated",
            f'ReplicaSet "{rs_name}" is progressing.',
            update_time=True,
        )
        if progressed:
            current["lastUpdateTime"] = meta.now()
        deadline = deployment["spec"].get("progressDeadlineSeconds", 600)
        if time.time() - meta.parse_time(current["lastUpdateTime"]) > deadline:
            message = f'ReplicaSet "{rs_name}" has timed out progressing.'
            return condition(
                old, "Progressing", "False", "ProgressDeadlineExceeded", message, update_time=True
            )
        return current

    def needs_ticks(self) -> bool:
        """Whether time alone can change something: a NoExecute taint, a deployment waiting for its pods,
        or pods still waiting for a node (capacity freed by a delete is retried on the next tick)."""
        with self.store.lock:
            return (
                bool(self._unbound)
                or self.has_no_execute_taints()
                or any(
                    c.get("type") == "Progressing" and c.get("reason") == "ReplicaSetUpdated"
                    for d in self.store.iter(DEPLOYMENT)
                    for c in (d.get("status") or {}).get("conditions") or []
                )
            )

    def _statefulset_status(self, sts: dict[str, Any]) -> bool:
        revision = f"{sts['metadata']['name']}-{meta.template_hash(sts['spec'].get('template'))}"
        pods = [p for p in self._owned(POD, sts) if is_active(p)]
        ready = sum(1 for p in pods if is_ready(p))
        current = sum(
            1 for p in pods if (p["metadata"].get("labels") or {}).get("controller-revision-hash") == revision
        )
        status = {
            "observedGeneration": sts["metadata"].get("generation", 1),
            "replicas": len(pods),
            "readyReplicas": ready,
            "currentReplicas": current,
            "updatedReplicas": current,
            "availableReplicas": ready,
            "currentRevision": revision,
            "updateRevision": revision,
            "collisionCount": 0,
        }
        return self._write_status(
            STATEFULSET,
            sts,
            _drop_zero(status, ("readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas")),
        )

    def _daemonset_status(self, ds: dict[str, Any]) -> bool:
        eligible = set(self._eligible_daemon_nodes(ds))
        pods = [p for p in self._owned(POD, ds) if is_active(p)]
        scheduled = [p for p in pods if (p.get("spec") or {}).get("nodeName")]
        ready = sum(1 for p in scheduled if is_ready(p))
        revision = meta.template_hash(ds["spec"].get("template"))
        desired = len(eligible | {self._daemon_node(p) for p in pods})
        status = {
            "currentNumberScheduled": len(scheduled),
            "numberMisscheduled": 0,
            "desiredNumberScheduled": desired,
            "numberReady": ready,
            "observedGeneration": ds["metadata"].get("generation", 1),
            "updatedNumberScheduled": sum(
                1
                for p in scheduled
                if (p["metadata"].get("labels") or {}).get("controller-revision-hash") == revision
            ),
            "numberAvailable": ready,
            "numberUnavailable": desired - ready,
        }
        return self._write_status(
            DAEMONSET,
            ds,
            _drop_zero(status, ("numberAvailable", "numberUnavailable", "updatedNumberScheduled")),
        )

    def _job_status(self, job: dict[str, Any]) -> bool:
        pods = self._owned(POD, job)
        old = job.get("status") or {}
        succeeded = sum(1 for p in pods if (p.get("status") or {}).get("phase") == "Succeeded")
        failed = sum(1 for p in pods if (p.get("status") or {}).get("phase") == "Failed")
        active = [p for p in pods if is_active(p)]
        status: dict[str, Any] = {}
        if not job["spec"].get("suspend"):
            status["startTime"] = old.get("startTime") or meta.now()
        if active:
            status["active"] = len(active)
        status["ready"] = sum(1 for p in active if is_ready(p))
        if succeeded:
            status["succeeded"] = succeeded
        if failed:
            status["failed"] = failed
        status["terminating"] = 0
        status["uncountedTerminatedPods"] = {}
        if succeeded >= (job["spec"].get("completions") or 1):
            status["completionTime"] = old.get("completionTime") or meta.now()
            status["conditions"] = [
                condition(
                    old.get("conditions"),
                    "SuccessCriteriaMet",
                    "True",
                    "CompletionsReached",
                    "Reached expected number of succeeded pods",
                ),
                condition(
                    old.get("conditions"),
                    "Complete",
                    "True",
                    "CompletionsReached",
                    "Reached expected number of succeeded pods",
                ),
            ]
            for c in status["conditions"]:
                c["lastProbeTime"] = next(
                    (
                        o.get("lastProbeTime")
                        for o in old.get("conditions") or []
                        if o.get("type") == c["type"]
                    ),
                    c["lastTransitionTime"],
                )
        elif failed > job["spec"].get("backoffLimit", 6):
            message = "Job has reached the specified backoff limit"
            status["conditions"] = [
                condition(old.get("conditions"), "FailureTarget", "True", "BackoffLimitExceeded", message),
                condition(old.get("conditions"), "Failed", "True", "BackoffLimitExceeded", message),
            ]
        elif job["spec"].get("suspend"):
            status["conditions"] = [
                condition(old.get("conditions"), "Suspended", "True", "JobSuspended", "Job suspended")
            ]
        return self._write_status(JOB, job, status)


def _drop_zero(status: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """The API server omits zero counters (omitempty); clients rely on defaults."""
    return {k: v for k, v in status.items() if not (k in keys and v == 0)}


def _percent_or_int(value: Any, total: int, *, round_up: bool) -> int:
    if isinstance(value, str) and value.endswith("%"):
        try:
            percent = int(value[:-1])
        except ValueError:
            return 0
        scaled = total * percent
        return -(-scaled // 100) if round_up else scaled // 100
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0
