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


def federated_generation(live: dict[str, Any]) -> dict[str, int]:
    """Karmada's FederatedGeneration beside a workload's status: the member copy's metadata.generation
    and the template generation it was made from (its resourcetemplate.karmada.io/generation)."""
    metadata = live.get("metadata") or {}
    found = {}
    if metadata.get("generation"):
        found["generation"] = int(metadata["generation"])
    stamped = str((metadata.get("annotations") or {}).get(TEMPLATE_GENERATION) or "")
    if stamped.isdigit():
        found["resourceTemplateGeneration"] = int(stamped)
    return found


def reflect_status(live: dict[str, Any]) -> dict[str, Any]:
    """The status fields Karmada aggregates for a member object (replica counts for workloads)."""
    status = live.get("status") or {}
    kind = live.get("kind")
    if kind in ("Deployment", "StatefulSet", "ReplicaSet"):
        counts = ("replicas", "readyReplicas", "availableReplicas", "updatedReplicas", "observedGeneration")
        return {key: status.get(key, 0) for key in counts} | federated_generation(live)
    if kind == "DaemonSet":
        daemons = ("currentNumberScheduled", "desiredNumberScheduled", "numberReady", "numberAvailable")
        return {key: status.get(key, 0) for key in daemons} | federated_generation(live)
    if kind == "Job":
        return {key: status.get(key, 0) for key in ("active", "succeeded", "failed")}
    if kind == "Pod":
        return {"phase": status.get("phase", "")}
    return {}


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
