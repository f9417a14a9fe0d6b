"""Unknown-field detection for ``fieldValidation=Strict`` (what kubectl sends): the common structures only.

A real API server knows every type's schema; membersim knows the fields of the structures manifests
most often get wrong (top level, metadata, workload and pod specs, containers, service ports) and
leaves deeper structures (affinity, probes, volumes, ...) unchecked rather than guess.
"""

from __future__ import annotations

from typing import Any

from membersim.resources import Resource


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


OBJECT_META = _set(
    "name generateName namespace selfLink uid resourceVersion generation creationTimestamp deletionTimestamp "
    "deletionGracePeriodSeconds labels annotations ownerReferences finalizers managedFields"
)
LABEL_SELECTOR = _set("matchLabels matchExpressions")
POD_SPEC = _set(
    "volumes initContainers containers ephemeralContainers restartPolicy terminationGracePeriodSeconds "
    "activeDeadlineSeconds dnsPolicy nodeSelector serviceAccountName serviceAccount "
    "automountServiceAccountToken "
    "nodeName hostNetwork hostPID hostIPC shareProcessNamespace securityContext imagePullSecrets hostname "
    "subdomain affinity schedulerName tolerations hostAliases priorityClassName priority dnsConfig "
    "readinessGates "
    "runtimeClassName enableServiceLinks preemptionPolicy overhead topologySpreadConstraints "
    "setHostnameAsFQDN os "
    "hostUsers schedulingGates resourceClaims resources hostnameOverride schedulingGroup evictionResponders"
)
CONTAINER = _set(
    "name image command args workingDir ports envFrom env resources resizePolicy restartPolicy "
    "restartPolicyRules "
    "volumeMounts volumeDevices livenessProbe readinessProbe startupProbe lifecycle terminationMessagePath "
    "terminationMessagePolicy imagePullPolicy securityContext stdin stdinOnce tty"
)
CONTAINER_PORT = _set("name hostPort containerPort protocol hostIP")
ENV_VAR = _set("name value valueFrom")
RESOURCES = _set("limits requests claims")
SPECS = {
    "deployments": _set(
        "replicas selector template strategy minReadySeconds revisionHistoryLimit paused "
        "progressDeadlineSeconds"
    ),
    "replicasets": _set("replicas minReadySeconds selector template"),
    "statefulsets": _set(
        "replicas selector template volumeClaimTemplates serviceName podManagementPolicy updateStrategy "
        "revisionHistoryLimit minReadySeconds persistentVolumeClaimRetentionPolicy ordinals"
    ),
    "daemonsets": _set("selector template updateStrategy minReadySeconds revisionHistoryLimit"),
    "jobs": _set(
        "parallelism completions activeDeadlineSeconds podFailurePolicy successPolicy backoffLimit "
        "backoffLimitPerIndex maxFailedIndexes selector manualSelector template ttlSecondsAfterFinished "
        "completionMode suspend podReplacementPolicy managedBy scheduling"
    ),
    "services": _set(
        "ports selector clusterIP clusterIPs type externalIPs sessionAffinity loadBalancerIP "
        "loadBalancerSourceRanges externalName externalTrafficPolicy healthCheckNodePort "
        "publishNotReadyAddresses "
        "sessionAffinityConfig ipFamilies ipFamilyPolicy allocateLoadBalancerNodePorts loadBalancerClass "
        "internalTrafficPolicy trafficDistribution"
    ),
    "nodes": _set(
        "podCIDR podCIDRs providerID unschedulable taints configSource externalID podPreemptionPolicy"
    ),
    "namespaces": _set("finalizers"),
}
SERVICE_PORT = _set("name protocol appProtocol port targetPort nodePort")
TOP_LEVEL = {
    "configmaps": _set("data binaryData immutable"),
    "secrets": _set("data stringData type immutable"),
    "events": _set(
        "involvedObject reason message source firstTimestamp lastTimestamp count type eventTime "
        "series action "
        "related reportingComponent reportingInstance"
    ),
}
COMMON_TOP = _set("apiVersion kind metadata")


def _extra(value: Any, known: frozenset[str], path: str, found: list[str]) -> None:
    if isinstance(value, dict):
        found.extend(f"{path}{key}" for key in value if key not in known)


def _pod_spec(spec: Any, path: str, found: list[str]) -> None:
    if not isinstance(spec, dict):
        return
    _extra(spec, POD_SPEC, path, found)
    for group in ("initContainers", "containers"):
        for index, container in enumerate(spec.get(group) or []):
            where = f"{path}{group}[{index}]."
            _extra(container, CONTAINER, where, found)
            if not isinstance(container, dict):
                continue
            for number, port in enumerate(container.get("ports") or []):
                _extra(port, CONTAINER_PORT, f"{where}ports[{number}].", found)
            for number, env in enumerate(container.get("env") or []):
                _extra(env, ENV_VAR, f"{where}env[{number}].", found)
            _extra(container.get("resources"), RESOURCES, f"{where}resources.", found)


def unknown_fields(resource: Resource, obj: dict[str, Any]) -> list[str]:
    """Dotted paths of fields the structures above do not declare, in document order."""
    found: list[str] = []
    known_top = COMMON_TOP | TOP_LEVEL.get(resource.plural, _set("spec status"))
    _extra(obj, known_top, "", found)
    _extra(obj.get("metadata"), OBJECT_META, "metadata.", found)
    spec = obj.get("spec")
    if resource.plural in SPECS:
        _extra(spec, SPECS[resource.plural], "spec.", found)
    if not isinstance(spec, dict):
        return found
    if resource.plural != "services":
        _extra(spec.get("selector"), LABEL_SELECTOR, "spec.selector.", found)
    if resource.plural == "pods":
        _pod_spec(spec, "spec.", found)
    template = spec.get("template")
    if isinstance(template, dict):
        _extra(template, _set("metadata spec"), "spec.template.", found)
        _extra(template.get("metadata"), OBJECT_META, "spec.template.metadata.", found)
        _pod_spec(template.get("spec"), "spec.template.spec.", found)
    if resource.plural == "services":
        for index, port in enumerate(spec.get("ports") or []):
            _extra(port, SERVICE_PORT, f"spec.ports[{index}].", found)
    return found
