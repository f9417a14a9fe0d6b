"""Karmada's default resource interpreter: replicas, requirements, replica revision, dependencies, health."""

from __future__ import annotations

from typing import Any

from kubesyntax.resources import format_resource
from scheduling.karmada.documents import REPLICA_KINDS, Document, Workload, parse_workload
from scheduling.karmada.names import HEALTHY, TEMPLATE_GENERATION, UNHEALTHY, UNKNOWN
from scheduling.karmada.shapes import TemplateLike
from scheduling.planner import NodeClaim, ReplicaRequirements, parse_resources


def workload_of(template: TemplateLike) -> Workload:
    """The template as the planner's workload: replicas and pod-template requirements.

    Raises the planner's InputError when the pod template holds a malformed quantity.
    """
    manifest = {
        **template.manifest,
        "metadata": {**template.manifest.get("metadata", {}), "uid": str(template.uid)},
    }
    return parse_workload(Document("template", 0, manifest))


def requirements_json(
    manifest: dict[str, Any], requirements: ReplicaRequirements | None
) -> dict[str, Any] | None:
    """spec.replicaRequirements of the binding: {resourceRequest, nodeClaim} or None."""
    if requirements is None:
        return None
    data: dict[str, Any] = {}
    if requirements.resource_request:
        data["resourceRequest"] = {
            name: format_resource(name, value)
            for name, value in sorted(requirements.resource_request.items())
        }
    pod = pod_spec(manifest) or {}
    claim: dict[str, Any] = {}
    if pod.get("nodeSelector") is not None:
        claim["nodeSelector"] = pod["nodeSelector"]
    if pod.get("tolerations"):
        claim["tolerations"] = pod["tolerations"]
    required = ((pod.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    )
    if required is not None:
        claim["hardNodeAffinity"] = required
    if claim:
        data["nodeClaim"] = claim
    namespace = (manifest.get("metadata") or {}).get("namespace")
    if namespace:
        data["namespace"] = namespace
    if pod.get("priorityClassName"):
        data["priorityClassName"] = pod["priorityClassName"]
    return data


def requirements_from_json(data: dict[str, Any] | None) -> ReplicaRequirements | None:
    """The planner's ReplicaRequirements from spec.replicaRequirements."""
    if data is None:
        return None
    return ReplicaRequirements(
        resource_request=parse_resources(
            data.get("resourceRequest"), "spec.replicaRequirements.resourceRequest"
        ),
        node_claim=NodeClaim.from_dict(data.get("nodeClaim"), "spec.replicaRequirements.nodeClaim"),
    )


def pod_spec(manifest: dict[str, Any]) -> dict[str, Any] | None:
    """The pod spec of a workload (the object's own for a Pod), or None for other kinds."""
    kind = manifest.get("kind")
    spec = manifest.get("spec") or {}
    if kind == "Pod":
        return spec
    if kind in ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job"):
        return (spec.get("template") or {}).get("spec") or {}
    if kind == "CronJob":
        return (((spec.get("jobTemplate") or {}).get("spec") or {}).get("template") or {}).get("spec") or {}
    return None


def has_replicas(manifest: dict[str, Any]) -> bool:
    return (manifest.get("apiVersion"), manifest.get("kind")) in REPLICA_KINDS and manifest.get(
        "kind"
    ) != "Pod"


def revise_replicas(manifest: dict[str, Any], replicas: int) -> None:
    """Set the cluster's share of replicas on a member copy (Job: parallelism), in place."""
    spec = manifest.setdefault("spec", {})
    if manifest.get("kind") == "Job":
        spec["parallelism"] = replicas
    else:
        spec["replicas"] = replicas


def dependencies(manifest: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(apiVersion, kind, name) of the ConfigMaps and Secrets the pod template references."""
    pod = pod_spec(manifest)
    if not pod:
        return []
    found: set[tuple[str, str, str]] = set()
    for volume in pod.get("volumes") or []:
        if (volume.get("configMap") or {}).get("name"):
            found.add(("v1", "ConfigMap", volume["configMap"]["name"]))
        if (volume.get("secret") or {}).get("secretName"):
            found.add(("v1", "Secret", volume["secret"]["secretName"]))
        for source in (volume.get("projected") or {}).get("sources") or []:
            if (source.get("configMap") or {}).get("name"):
                found.add(("v1", "ConfigMap", source["configMap"]["name"]))
            if (source.get("secret") or {}).get("name"):
                found.add(("v1", "Secret", source["secret"]["name"]))
    for secret in pod.get("imagePullSecrets") or []:
        if secret.get("name"):
            found.add(("v1", "Secret", secret["name"]))
    for container in (pod.get("containers") or []) + (pod.get("initContainers") or []):
        for source in container.get("envFrom") or []:
            if (source.get("configMapRef") or {}).get("name"):
                found.add(("v1", "ConfigMap", source["configMapRef"]["name"]))
            if (source.get("secretRef") or {}).get("name"):
                found.add(("v1", "Secret", source["secretRef"]["name"]))
        for env in container.get("env") or []:
            value_from = env.get("valueFrom") or {}
            if (value_from.get("configMapKeyRef") or {}).get("name"):
                found.add(("v1", "ConfigMap", value_from["configMapKeyRef"]["name"]))
            if (value_from.get("secretKeyRef") or {}).get("name"):
                found.add(("v1", "Secret", value_from["secretKeyRef"]["name"]))
    return sorted(found)


# The counts each workload kind reports, summed across members by the template's status (karmada/status.py).
REPLICA_COUNTS: dict[str, tuple[str, ...]] = {
    "Deployment": (
        "replicas",
        "readyReplicas",
        "availableReplicas",
        "updatedReplicas",
        "unavailableReplicas",
    ),
    "StatefulSet": ("replicas", "readyReplicas", "availableReplicas", "updatedReplicas", "currentReplicas"),
    "ReplicaSet": ("replicas", "readyReplicas", "availableReplicas", "fullyLabeledReplicas"),
    "DaemonSet": (
        "currentNumberScheduled",
        "desiredNumberScheduled",
        "numberAvailable",
        "numberMisscheduled",
        "numberReady",
        "updatedNumberScheduled",
        "numberUnavailable",
    ),
}


def reflect_status(live: dict[str, Any]) -> dict[str, Any]:
    """The status fields Karmada collects from a member object, for the binding and the template.

    Workloads carry their counts, conditions and, as Karmada's FederatedGeneration, the member's own
    generation and the template generation its copy was made from, so the template's observedGeneration
    advances only once every member has caught up with the latest template.
    """
    status = live.get("status") or {}
    kind = live.get("kind")
    if kind in REPLICA_COUNTS:
        reflected: dict[str, Any] = {key: status.get(key, 0) for key in REPLICA_COUNTS[kind]}
        meta = live.get("metadata") or {}
        reflected["observedGeneration"] = status.get("observedGeneration", 0)
        reflected["generation"] = meta.get("generation", 0)
        reflected["resourceTemplateGeneration"] = _template_generation(meta)
        if status.get("conditions"):
            reflected["conditions"] = status["conditions"]
        return reflected
    if kind == "Job":
        reflected = {key: status.get(key, 0) for key in ("active", "succeeded", "failed")}
        for key in ("conditions", "startTime", "completionTime"):
            if status.get(key):
                reflected[key] = status[key]
        return reflected
    if kind == "CronJob":
        return {
            key: status[key]
            for key in ("active", "lastScheduleTime", "lastSuccessfulTime")
            if status.get(key)
        }
    if kind in ("Service", "Ingress"):
        ingress = (status.get("loadBalancer") or {}).get("ingress")
        return {"loadBalancer": {"ingress": ingress}} if ingress else {}
    if kind == "Pod":
        return {"phase": status.get("phase", "")}
    return {}


def _template_generation(meta: dict[str, Any]) -> int:
    """The resourcetemplate.karmada.io/generation annotation of a member copy; 0 when absent or malformed."""
    value = (meta.get("annotations") or {}).get(TEMPLATE_GENERATION, "")
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def interpret_health(live: dict[str, Any]) -> str:
    """Healthy, Unhealthy or Unknown, as Karmada's default health interpreter judges the kinds it knows."""
    kind = live.get("kind")
    spec, status = live.get("spec") or {}, live.get("status") or {}
    generation = (live.get("metadata") or {}).get("generation", 0)
    if kind in ("Deployment", "StatefulSet", "ReplicaSet"):
        if status.get("observedGeneration", 0) < generation:
            return UNHEALTHY
        wanted = spec.get("replicas", 1)
        if kind == "StatefulSet":
            return HEALTHY if status.get("readyReplicas", 0) >= wanted else UNHEALTHY
        return HEALTHY if status.get("availableReplicas", 0) >= wanted else UNHEALTHY
    if kind == "DaemonSet":
        return (
            HEALTHY if status.get("numberReady", 0) >= status.get("desiredNumberScheduled", 0) else UNHEALTHY
        )
    if kind == "Pod":
        return HEALTHY if status.get("phase") in ("Running", "Succeeded") else UNHEALTHY
    if kind == "Job":
        failed = any(
            c.get("type") == "Failed" and c.get("status") == "True" for c in status.get("conditions") or []
        )
        return UNHEALTHY if failed else HEALTHY
    if kind in (
        "ConfigMap",
        "Secret",
        "Namespace",
        "ServiceAccount",
        "ClusterRole",
        "ClusterRoleBinding",
        "Role",
    ):
        return HEALTHY
    if kind == "Service":
        return HEALTHY
    return UNKNOWN
