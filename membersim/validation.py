"""Server-side defaults and validation for the served kinds (the checks clients actually trip over)."""

from __future__ import annotations

import re
from typing import Any

from membersim import errors, meta
from membersim.quantity import QuantityError, parse_quantity
from membersim.resources import Resource
from membersim.selectors import SelectorError, labels_match, requirements_from_label_selector

_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_QUALIFIED = re.compile(r"^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
_DNS_LABEL_KINDS = {"namespaces", "services"}
_POD_TEMPLATE_KINDS = {"deployments", "replicasets", "statefulsets", "daemonsets", "jobs"}

Cause = tuple[str, str, str]


def _check_name(resource: Resource, name: str, causes: list[Cause]) -> None:
    if resource.plural in _DNS_LABEL_KINDS:
        if len(name) > 63 or not _LABEL.match(name):
            causes.append(
                (
                    "metadata.name",
                    "FieldValueInvalid",
                    f'Invalid value: "{name}": a lowercase RFC 1123 label must consist of lower case '
                    "alphanumeric characters or '-', and must start and end with an alphanumeric character",
                )
            )
    elif len(name) > 253 or not _SUBDOMAIN.match(name):
        causes.append(
            (
                "metadata.name",
                "FieldValueInvalid",
                f'Invalid value: "{name}": a lowercase RFC 1123 subdomain must consist of lower case '
                "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
            )
        )


def _check_labels(labels: Any, path: str, causes: list[Cause]) -> None:
    if labels is None:
        return
    if not isinstance(labels, dict):
        causes.append((path, "FieldValueInvalid", "Invalid value: labels must be a map of strings"))
        return
    for key, value in labels.items():
        if not _QUALIFIED.match(key) or len(key.split("/")[-1]) > 63:
            causes.append(
                (
                    path,
                    "FieldValueInvalid",
                    f'Invalid value: "{key}": name part must consist '
                    "of alphanumeric characters, '-', '_' or '.'",
                )
            )
        if not isinstance(value, str) or len(value) > 63 or not _LABEL_VALUE.match(value):
            causes.append(
                (
                    f"{path}",
                    "FieldValueInvalid",
                    f'Invalid value: "{value}": a valid label must be an empty '
                    "string or consist of alphanumeric characters, '-', '_' or '.'",
                )
            )


def _check_quantities(values: Any, path: str, causes: list[Cause]) -> None:
    for key, value in (values or {}).items():
        try:
            if parse_quantity(value) < 0:
                causes.append(
                    (
                        f"{path}.{key}",
                        "FieldValueInvalid",
                        f'Invalid value: "{value}": must be greater than or equal to 0',
                    )
                )
        except QuantityError:
            causes.append(
                (
                    f"{path}.{key}",
                    "FieldValueInvalid",
                    f'Invalid value: "{value}": quantities must match the regular '
                    "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
                )
            )


def _check_pod_spec(spec: Any, path: str, causes: list[Cause]) -> None:
    if not isinstance(spec, dict):
        causes.append((path, "FieldValueRequired", "Required value"))
        return
    containers = spec.get("containers")
    if not containers:
        causes.append((f"{path}.containers", "FieldValueRequired", "Required value"))
        return
    seen: set[str] = set()
    for group in ("initContainers", "containers"):
        for index, container in enumerate(spec.get(group) or []):
            where = f"{path}.{group}[{index}]"
            if not isinstance(container, dict):
                causes.append((where, "FieldValueInvalid", "Invalid value: must be an object"))
                continue
            name = container.get("name")
            if not name:
                causes.append((f"{where}.name", "FieldValueRequired", "Required value"))
            elif not isinstance(name, str) or not _LABEL.match(name):
                causes.append(
                    (
                        f"{where}.name",
                        "FieldValueInvalid",
                        f'Invalid value: "{name}": a lowercase RFC 1123 label '
                        "must consist of lower case alphanumeric characters or '-'",
                    )
                )
            elif name in seen:
                causes.append((f"{where}.name", "FieldValueDuplicate", f'Duplicate value: "{name}"'))
            else:
                seen.add(name)
            if not container.get("image"):
                causes.append((f"{where}.image", "FieldValueRequired", "Required value"))
            resources = container.get("resources") or {}
            _check_quantities(resources.get("requests"), f"{where}.resources.requests", causes)
            _check_quantities(resources.get("limits"), f"{where}.resources.limits", causes)
            for port_index, port in enumerate(container.get("ports") or []):
                value = port.get("containerPort") if isinstance(port, dict) else None
                if not isinstance(value, int) or isinstance(value, bool) or not 0 < value < 65536:
                    causes.append(
                        (
                            f"{where}.ports[{port_index}].containerPort",
                            "FieldValueInvalid",
                            f"Invalid value: {value}: must be between 1 and 65535, inclusive",
                        )
                    )


def _check_replicas(spec: dict[str, Any], causes: list[Cause]) -> None:
    replicas = spec.get("replicas")
    if replicas is not None and (not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0):
        causes.append(
            (
                "spec.replicas",
                "FieldValueInvalid",
                f"Invalid value: {replicas}: must be greater than or equal to 0",
            )
        )


def _check_workload(resource: Resource, spec: Any, causes: list[Cause]) -> None:
    if not isinstance(spec, dict):
        causes.append(("spec", "FieldValueRequired", "Required value"))
        return
    _check_replicas(spec, causes)
    template = spec.get("template") or {}
    labels = (template.get("metadata") or {}).get("labels") or {}
    _check_labels(labels, "spec.template.metadata.labels", causes)
    if resource.plural != "jobs":
        selector = spec.get("selector")
        if not selector or not (selector.get("matchLabels") or selector.get("matchExpressions")):
            causes.append(("spec.selector", "FieldValueRequired", "Required value"))
        else:
            try:
                requirements = requirements_from_label_selector(selector)
            except SelectorError as error:
                causes.append(("spec.selector", "FieldValueInvalid", f"Invalid value: {error}"))
            else:
                if not labels_match(requirements, labels):
                    causes.append(
                        (
                            "spec.template.metadata.labels",
                            "FieldValueInvalid",
                            f"Invalid value: {labels}: `selector` does not match template `labels`",
                        )
                    )
    else:
        policy = (template.get("spec") or {}).get("restartPolicy")
        if policy not in ("OnFailure", "Never"):
            causes.append(
                (
                    "spec.template.spec.restartPolicy",
                    "FieldValueNotSupported",
                    f'Unsupported value: "{policy or "Always"}": supported values: "OnFailure", "Never"',
                )
            )
    _check_pod_spec(template.get("spec"), "spec.template.spec", causes)


def _check_service(spec: Any, causes: list[Cause]) -> None:
    spec = spec if isinstance(spec, dict) else {}
    kind = spec.get("type", "ClusterIP")
    if kind not in ("ClusterIP", "NodePort", "LoadBalancer", "ExternalName"):
        causes.append(
            (
                "spec.type",
                "FieldValueNotSupported",
                f'Unsupported value: "{kind}": supported values: '
                '"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
            )
        )
    ports = spec.get("ports") or []
    if not ports and kind != "ExternalName" and spec.get("clusterIP") != "None":
        causes.append(("spec.ports", "FieldValueRequired", "Required value"))
    for index, port in enumerate(ports):
        value = port.get("port") if isinstance(port, dict) else None
        if not isinstance(value, int) or isinstance(value, bool) or not 0 < value < 65536:
            causes.append(
                (
                    f"spec.ports[{index}].port",
                    "FieldValueInvalid",
                    f"Invalid value: {value}: must be between 1 and 65535, inclusive",
                )
            )


def validate(resource: Resource, obj: dict[str, Any]) -> None:
    """Raise an Invalid ApiError listing every failing field."""
    meta = obj.get("metadata")
    causes: list[Cause] = []
    name = meta.get("name", "") if isinstance(meta, dict) else ""
    if not isinstance(meta, dict):
        causes.append(("metadata", "FieldValueRequired", "Required value"))
    else:
        if not name:
            causes.append(("metadata.name", "FieldValueRequired", "name or generateName is required"))
        else:
            _check_name(resource, name, causes)
        _check_labels(meta.get("labels"), "metadata.labels", causes)
        annotations = meta.get("annotations")
        if annotations is not None and (
            not isinstance(annotations, dict) or not all(isinstance(v, str) for v in annotations.values())
        ):
            causes.append(
                (
                    "metadata.annotations",
                    "FieldValueInvalid",
                    "Invalid value: annotations must be a map of strings",
                )
            )
    spec = obj.get("spec")
    if resource.plural in _POD_TEMPLATE_KINDS:
        _check_workload(resource, spec, causes)
    elif resource.plural == "pods":
        _check_pod_spec(spec, "spec", causes)
    elif resource.plural == "services":
        _check_service(spec, causes)
    elif resource.plural in ("configmaps", "secrets"):
        for field in ("data", "stringData") if resource.plural == "secrets" else ("data",):
            values = obj.get(field)
            if values is not None and (
                not isinstance(values, dict) or not all(isinstance(v, str) for v in values.values())
            ):
                causes.append((field, "FieldValueInvalid", "Invalid value: must be a map of strings"))
    if causes:
        raise errors.invalid(resource, name, causes)


def validate_update(resource: Resource, old: dict[str, Any], new: dict[str, Any]) -> None:
    """The fields Kubernetes refuses to change once set."""
    causes: list[Cause] = []
    old_spec, new_spec = old.get("spec") or {}, new.get("spec") or {}
    if resource.plural in ("deployments", "replicasets", "statefulsets", "daemonsets", "jobs"):
        if new_spec.get("selector") != old_spec.get("selector"):
            causes.append(
                (
                    "spec.selector",
                    "FieldValueInvalid",
                    f"Invalid value: {new_spec.get('selector')}: field is immutable",
                )
            )
    if resource.plural == "jobs" and new_spec.get("template") != old_spec.get("template"):
        causes.append(
            ("spec.template", "FieldValueInvalid", "Invalid value: the pod template: field is immutable")
        )
    if resource.plural == "services":
        before, after = old_spec.get("clusterIP"), new_spec.get("clusterIP")
        if before and after and before != after:
            causes.append(
                (
                    "spec.clusterIPs[0]",
                    "FieldValueInvalid",
                    f'Invalid value: "{after}": may not change once set',
                )
            )
    if causes:
        raise errors.invalid(resource, new["metadata"]["name"], causes)


# ---------------------------------------------------------------- defaults


def _default_container(container: dict[str, Any]) -> None:
    image = str(container.get("image", ""))
    tag = image.rsplit("/", 1)[-1]
    latest = ":" not in tag or tag.endswith(":latest")
    container.setdefault("imagePullPolicy", "Always" if latest and "@" not in tag else "IfNotPresent")
    container.setdefault("terminationMessagePath", "/dev/termination-log")
    container.setdefault("terminationMessagePolicy", "File")
    container.setdefault("resources", {})
    for port in container.get("ports") or []:
        if isinstance(port, dict):
            port.setdefault("protocol", "TCP")


def default_pod_spec(spec: dict[str, Any]) -> None:
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("securityContext", {})
    for group in ("initContainers", "containers"):
        for container in spec.get(group) or []:
            if isinstance(container, dict):
                _default_container(container)


_POD_DEFAULTS = (
    "restartPolicy",
    "dnsPolicy",
    "schedulerName",
    "terminationGracePeriodSeconds",
    "securityContext",
)
_CONTAINER_DEFAULTS = ("imagePullPolicy", "terminationMessagePath", "terminationMessagePolicy", "resources")


def is_defaulted(spec: dict[str, Any]) -> bool:
    """Whether default_pod_spec would leave ``spec`` as it is."""
    if not all(key in spec for key in _POD_DEFAULTS):
        return False
    for group in ("initContainers", "containers"):
        for container in spec.get(group) or []:
            if not isinstance(container, dict):
                continue
            if not all(key in container for key in _CONTAINER_DEFAULTS):
                return False
            if any(isinstance(p, dict) and "protocol" not in p for p in container.get("ports") or []):
                return False
    return True


def apply_defaults(resource: Resource, obj: dict[str, Any]) -> None:
    """Fill the defaults the API server would, in place (on a fresh copy)."""
    spec = obj.get("spec")
    if resource.plural == "pods" and isinstance(spec, dict):
        default_pod_spec(spec)
    if resource.plural in _POD_TEMPLATE_KINDS and isinstance(spec, dict):
        template = spec.setdefault("template", {})
        if isinstance(template.get("spec"), dict):
            default_pod_spec(template["spec"])
        if resource.plural in ("deployments", "replicasets", "statefulsets"):
            spec.setdefault("replicas", 1)
        if resource.plural == "deployments":
            spec.setdefault(
                "strategy",
                {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
            )
            spec.setdefault("revisionHistoryLimit", 10)
            spec.setdefault("progressDeadlineSeconds", 600)
        if resource.plural == "statefulsets":
            spec.setdefault("podManagementPolicy", "OrderedReady")
            spec.setdefault("updateStrategy", {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}})
            spec.setdefault("revisionHistoryLimit", 10)
        if resource.plural == "daemonsets":
            spec.setdefault(
                "updateStrategy",
                {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}},
            )
            spec.setdefault("revisionHistoryLimit", 10)
        if resource.plural == "jobs":
            spec.setdefault("parallelism", 1)
            spec.setdefault("completions", 1)
            spec.setdefault("backoffLimit", 6)
            spec.setdefault("completionMode", "NonIndexed")
            spec.setdefault("suspend", False)
    if resource.plural == "services" and isinstance(spec, dict):
        spec.setdefault("type", "ClusterIP")
        spec.setdefault("sessionAffinity", "None")
        for port in spec.get("ports") or []:
            if isinstance(port, dict):
                port.setdefault("protocol", "TCP")
                port.setdefault("targetPort", port.get("port"))
    if resource.plural == "secrets":
        obj.setdefault("type", "Opaque")
    if resource.plural == "nodes" and isinstance(spec, dict):
        # The API server stamps NoExecute taints; the taint manager counts toleration time from it.
        for taint in spec.get("taints") or []:
            if isinstance(taint, dict) and taint.get("effect") == "NoExecute" and not taint.get("timeAdded"):
                taint["timeAdded"] = meta.now()
    if resource.plural == "namespaces":
        obj.setdefault("spec", {}).setdefault("finalizers", ["kubernetes"])
        obj["metadata"].setdefault("labels", {})["kubernetes.io/metadata.name"] = obj["metadata"]["name"]
