"""Karmada's webhooks for policies: defaults first, then validation with a field path per error."""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any, TypeGuard

from kubesyntax.durations import DurationError, parse_duration
from kubesyntax.jsonpointer import pointer_error
from kubesyntax.names import dns_label_error, dns_subdomain_error, label_key_error, label_value_error
from kubesyntax.quantities import QuantityError, quantity_amount
from scheduling.karmada.names import CLUSTER_OVERRIDE_POLICY, CLUSTER_PROPAGATION_POLICY, OVERRIDE_POLICY

FieldErrors = list[tuple[str, str]]

# Kubernetes' standard quota resources; any other name must be fully qualified (domain/name).
_QUOTA_RESOURCES = frozenset(
    {
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.storage",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "persistentvolumeclaims",
        "configmaps",
        "services.nodeports",
        "services.loadbalancers",
    }
)
_INTEGER_RESOURCES = frozenset(
    {
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "persistentvolumeclaims",
        "configmaps",
        "services.nodeports",
        "services.loadbalancers",
    }
)


class SpecInvalid(ValueError):
    """A document the webhooks refuse; ``errors`` holds (field path, reason) pairs."""

    def __init__(self, errors: FieldErrors) -> None:
        super().__init__("; ".join(f"{path}: {reason}" for path, reason in errors))
        self.errors = errors


def _not_a_duration(text: Any) -> bool:
    """A Go duration that is malformed or negative (a trigger waits forward in time)."""
    try:
        return parse_duration(text) < 0
    except DurationError:
        return True


def _is_map(value: Any) -> TypeGuard[dict[str, Any]]:
    return isinstance(value, dict)


def _list(value: Any) -> list[Any]:
    """The items of a list, or none for anything else (its own check reports that it is no list)."""
    return value if isinstance(value, list) else []


def _int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


# ---------------------------------------------------------------------------------------- defaults


def default_placement(placement: dict[str, Any]) -> None:
    """The placement defaults of Karmada's mutating webhook and CRD schema, in place."""
    for constraint in placement.get("spreadConstraints") or []:
        if _is_map(constraint):
            if not constraint.get("spreadByField") and not constraint.get("spreadByLabel"):
                constraint["spreadByField"] = "cluster"
            if not constraint.get("minGroups"):
                constraint["minGroups"] = 1
    scheduling = placement.get("replicaScheduling")
    if _is_map(scheduling):
        scheduling.setdefault("replicaSchedulingType", "Divided")
        if scheduling["replicaSchedulingType"] == "Divided" and not scheduling.get(
            "replicaDivisionPreference"
        ):
            scheduling["replicaDivisionPreference"] = "Weighted"


def default_propagation_spec(kind: str, namespace: str, spec: dict[str, Any]) -> dict[str, Any]:
    """A copy of a (Cluster)PropagationPolicy spec with webhook and CRD defaults applied."""
    spec = copy.deepcopy(spec)
    for selector in _list(spec.get("resourceSelectors")):
        if _is_map(selector) and kind != CLUSTER_PROPAGATION_POLICY and not selector.get("namespace"):
            selector["namespace"] = namespace
        if _is_map(selector) and selector.get("kind") == "ServiceImport":
            spec["propagateDeps"] = True
    spec.setdefault("priority", 0)
    spec.setdefault("preemption", "Never")
    spec.setdefault("conflictResolution", "Abort")
    spec.setdefault("schedulerName", "default-scheduler")
    placement = spec.setdefault("placement", {})
    if _is_map(placement):
        default_placement(placement)
    application = (spec.get("failover") or {}).get("application") if _is_map(spec.get("failover")) else None
    if _is_map(application):
        conditions = application.setdefault("decisionConditions", {})
        if _is_map(conditions):
            conditions.setdefault("tolerationSeconds", 300)
        application.setdefault("purgeMode", "Gracefully")
        if application["purgeMode"] == "Gracefully":
            application.setdefault("gracePeriodSeconds", 600)
    return spec


# -------------------------------------------------------------------------------------- validation


def _selectors(kind: str, namespace: str, spec: dict[str, Any], required: bool) -> FieldErrors:
    errors: FieldErrors = []
    selectors = spec.get("resourceSelectors")
    if selectors is None and not required:
        return errors
    if not isinstance(selectors, list) or (required and not selectors):
        return [("spec.resourceSelectors", "must list at least one resource selector")]
    namespaced = kind not in (CLUSTER_PROPAGATION_POLICY, CLUSTER_OVERRIDE_POLICY)
    for i, selector in enumerate(selectors):
        path = f"spec.resourceSelectors[{i}]"
        if not _is_map(selector):
            errors.append((path, "must be an object"))
            continue
        for key in ("apiVersion", "kind"):
            if not isinstance(selector.get(key), str) or not selector.get(key):
                errors.append((f"{path}.{key}", "is required"))
        if namespaced and selector.get("namespace") not in (None, "", namespace):
            errors.append((f"{path}.namespace", f"must be the policy's namespace {namespace!r}"))
        errors += _label_selector(selector.get("labelSelector"), f"{path}.labelSelector")
    return errors


def _label_selector(selector: Any, path: str) -> FieldErrors:
    if selector is None:
        return []
    if not _is_map(selector):
        return [(path, "must be an object")]
    errors: FieldErrors = []
    labels = selector.get("matchLabels") or {}
    if not _is_map(labels):
        errors.append((f"{path}.matchLabels", "must be a map of strings"))
    expressions = selector.get("matchExpressions")
    if expressions is not None and not isinstance(expressions, list):
        errors.append((f"{path}.matchExpressions", "must be a list"))
    for i, expression in enumerate(_list(expressions)):
        epath = f"{path}.matchExpressions[{i}]"
        if not _is_map(expression) or not expression.get("key"):
            errors.append((f"{epath}.key", "is required"))
            continue
        operator = expression.get("operator")
        if operator not in ("In", "NotIn", "Exists", "DoesNotExist"):
            errors.append((f"{epath}.operator", "must be In, NotIn, Exists or DoesNotExist"))
        values = expression.get("values") or []
        if operator in ("In", "NotIn") and not values:
            errors.append((f"{epath}.values", f"must be non-empty for operator {operator}"))
        if operator in ("Exists", "DoesNotExist") and values:
            errors.append((f"{epath}.values", f"must be empty for operator {operator}"))
    return errors


def _choice(spec: Any, key: str, allowed: tuple[str, ...], path: str) -> FieldErrors:
    if not _is_map(spec):
        return [(path, "must be an object")]
    value = spec.get(key)
    if value is not None and value not in allowed:
        return [(f"{path}.{key}", f"must be one of {', '.join(repr(a) for a in allowed)}")]
    return []


def _failover(spec: dict[str, Any]) -> FieldErrors:
    failover = spec.get("failover")
    if failover is None:
        return []
    if not _is_map(failover):
        return [("spec.failover", "must be an object")]
    errors: FieldErrors = []
    application = failover.get("application")
    if application is not None:
        path = "spec.failover.application"
        if not spec.get("propagateDeps"):
            errors.append(("spec.propagateDeps", "must be true when failover.application is set"))
        if not _is_map(application):
            return [*errors, (path, "must be an object")]
        conditions = application.get("decisionConditions") or {}
        if not _is_map(conditions):
            errors.append((f"{path}.decisionConditions", "must be an object"))
            conditions = {}
        seconds = conditions.get("tolerationSeconds")
        if seconds is not None and (not _int(seconds) or seconds < 0):
            errors.append((f"{path}.decisionConditions.tolerationSeconds", "must be a whole number >= 0"))
        errors += _choice(application, "purgeMode", ("Directly", "Gracefully", "Never"), path)
        grace = application.get("gracePeriodSeconds")
        if grace is not None:
            if application.get("purgeMode", "Gracefully") != "Gracefully":
                errors.append((f"{path}.gracePeriodSeconds", "is only allowed when purgeMode is Gracefully"))
            elif not _int(grace) or grace <= 0:
                errors.append((f"{path}.gracePeriodSeconds", "must be greater than 0"))
    cluster = failover.get("cluster")
    if cluster is not None:
        errors += _choice(cluster, "purgeMode", ("Directly", "Gracefully"), "spec.failover.cluster")
    return errors


def _reschedule_policy(placement: dict[str, Any]) -> FieldErrors:
    """The reschedulePolicy extension: {enable, policy.minCandidateClusters, trigger.duration/threshold}."""
    policy = placement.get("reschedulePolicy")
    if policy is None:
        return []
    path = "spec.placement.reschedulePolicy"
    if not _is_map(policy):
        return [(path, "must be an object")]
    errors: FieldErrors = []
    if not isinstance(policy.get("enable", False), bool):
        errors.append((f"{path}.enable", "must be true or false"))
    inner, trigger = policy.get("policy") or {}, policy.get("trigger") or {}
    for key, value in (("policy", inner), ("trigger", trigger)):
        if not _is_map(value):
            return [*errors, (f"{path}.{key}", "must be an object")]
    minimum = inner.get("minCandidateClusters", 1)
    if not _int(minimum) or minimum < 1:
        errors.append((f"{path}.policy.minCandidateClusters", "must be a whole number >= 1"))
    enabled = policy.get("enable") is True
    if (enabled or "duration" in trigger) and _not_a_duration(trigger.get("duration", "")):
        errors.append((f"{path}.trigger.duration", "must be a duration such as 5m or 90s"))
    threshold = trigger.get("threshold")
    if (enabled or "threshold" in trigger) and (not _int(threshold) or not 1 <= threshold <= 100):
        errors.append((f"{path}.trigger.threshold", "must be a CPU utilisation percentage from 1 to 100"))
    return errors


def _suspension(suspension: Any) -> FieldErrors:
    """Karmada's rule: dispatching true cannot co-exist with a non-empty dispatchingOnClusters list."""
    if suspension is None:
        return []
    path = "spec.suspension"
    if not _is_map(suspension):
        return [(path, "must be an object")]
    errors: FieldErrors = []
    if "dispatching" in suspension and not isinstance(suspension["dispatching"], bool):
        errors.append((f"{path}.dispatching", "must be true or false"))
    on_clusters = suspension.get("dispatchingOnClusters")
    names: Any = []
    if on_clusters is not None:
        if not _is_map(on_clusters):
            return [*errors, (f"{path}.dispatchingOnClusters", "must be an object")]
        names = on_clusters.get("clusterNames") or []
        if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
            errors.append((f"{path}.dispatchingOnClusters.clusterNames", "must be a list of cluster names"))
    if suspension.get("dispatching") is True and names:
        errors.append(
            (
                f"{path}.dispatchingOnClusters",
                "suspension dispatching cannot co-exist with dispatchingOnClusters.clusterNames",
            )
        )
    return errors


def _schedule_priority(priority: Any) -> FieldErrors:
    """schedulePriority {priorityClassSource: KubePriorityClass, priorityClassName} (both required)."""
    if priority is None:
        return []
    path = "spec.schedulePriority"
    if not _is_map(priority):
        return [(path, "must be an object")]
    errors: FieldErrors = []
    if priority.get("priorityClassSource") != "KubePriorityClass":
        errors.append((f"{path}.priorityClassSource", "must be 'KubePriorityClass'"))
    name = priority.get("priorityClassName")
    if not isinstance(name, str) or not name:
        errors.append((f"{path}.priorityClassName", "is required"))
    elif dns_subdomain_error(name, "a PriorityClass name"):
        errors.append((f"{path}.priorityClassName", str(dns_subdomain_error(name, "a PriorityClass name"))))
    return errors


def _placement(spec: dict[str, Any]) -> FieldErrors:
    from scheduling.planner import validate_placement

    placement = spec.get("placement")
    if placement is None:
        return []
    if not _is_map(placement):
        return [("spec.placement", "must be an object")]
    errors = [
        (f"spec.placement.{path}" if path else "spec.placement", why)
        for path, why in validate_placement(placement)
    ]
    return errors + _reschedule_policy(placement)


def validate_propagation_spec(kind: str, namespace: str, spec: Any) -> dict[str, Any]:
    """Default and validate a (Cluster)PropagationPolicy spec; raise SpecInvalid with every problem."""
    if not _is_map(spec):
        raise SpecInvalid([("spec", "is required and must be an object")])
    spec = default_propagation_spec(kind, namespace, spec)
    errors = _selectors(kind, namespace, spec, required=True)
    if not _int(spec.get("priority")):
        errors.append(("spec.priority", "must be a whole number"))
    errors += _choice(spec, "preemption", ("Always", "Never"), "spec")
    if spec.get("preemption") == "Always":
        for i, selector in enumerate(_list(spec.get("resourceSelectors"))):
            if _is_map(selector) and not selector.get("name"):
                errors.append((f"spec.resourceSelectors[{i}].name", "is required when preemption is Always"))
    errors += _choice(spec, "conflictResolution", ("Abort", "Overwrite"), "spec")
    errors += _choice(spec, "activationPreference", ("", "Lazy"), "spec")
    for key in ("propagateDeps", "association", "preserveResourcesOnDeletion"):
        if key in spec and not isinstance(spec[key], bool):
            errors.append((f"spec.{key}", "must be true or false"))
    if not isinstance(spec.get("schedulerName"), str) or not spec["schedulerName"]:
        errors.append(("spec.schedulerName", "must be a non-empty string"))
    if not isinstance(spec.get("dependentOverrides") or [], list):
        errors.append(("spec.dependentOverrides", "must be a list"))
    for i, name in enumerate(_list(spec.get("dependentOverrides"))):
        if not isinstance(name, str) or not name:
            errors.append((f"spec.dependentOverrides[{i}]", "must be an OverridePolicy name"))
    errors += _suspension(spec.get("suspension"))
    errors += _schedule_priority(spec.get("schedulePriority"))
    errors += _failover(spec)
    errors += _placement(spec)
    if errors:
        raise SpecInvalid(errors)
    return spec


_IMAGE_COMPONENTS = ("Registry", "Repository", "Tag")


def _not_a_pointer(path: Any) -> bool:
    """Overriders patch inside the object, never the whole of it: a JSON pointer to a member."""
    return not isinstance(path, str) or path == "" or pointer_error(path) is not None


_ADD_REMOVE_REPLACE = ("add", "remove", "replace")


def _maps_in(container: dict[str, Any], key: str, path: str, errors: FieldErrors) -> list[tuple[int, Any]]:
    """The (index, item) of a list of objects; an error for a value that is no list or an item no object."""
    value = container.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        errors.append((f"{path}.{key}", "must be a list"))
        return []
    items = []
    for i, item in enumerate(value):
        if _is_map(item):
            items.append((i, item))
        else:
            errors.append((f"{path}.{key}[{i}]", "must be an object"))
    return items


def _overriders(overriders: Any, path: str) -> FieldErrors:
    if not _is_map(overriders):
        return [(path, "must be an object")]
    errors: FieldErrors = []
    for i, item in _maps_in(overriders, "imageOverrider", path, errors):
        ipath = f"{path}.imageOverrider[{i}]"
        if item.get("component") not in _IMAGE_COMPONENTS:
            errors.append((f"{ipath}.component", "must be Registry, Repository or Tag"))
        if item.get("operator") not in _ADD_REMOVE_REPLACE:
            errors.append((f"{ipath}.operator", "must be add, remove or replace"))
        predicate = item.get("predicate")
        if predicate is not None and not (
            _is_map(predicate) and not _not_a_pointer(predicate.get("path", ""))
        ):
            errors.append(
                (
                    f"{ipath}.predicate.path",
                    "must be a JSON pointer such as /spec/template/spec/containers/0/image",
                )
            )
    for key in ("commandOverrider", "argsOverrider"):
        for i, item in _maps_in(overriders, key, path, errors):
            ipath = f"{path}.{key}[{i}]"
            if not item.get("containerName"):
                errors.append((f"{ipath}.containerName", "is required"))
            if item.get("operator") not in ("add", "remove"):
                errors.append((f"{ipath}.operator", "must be add or remove"))
    for key in ("labelsOverrider", "annotationsOverrider"):
        for i, item in _maps_in(overriders, key, path, errors):
            ipath = f"{path}.{key}[{i}]"
            if item.get("operator") not in _ADD_REMOVE_REPLACE:
                errors.append((f"{ipath}.operator", "must be add, remove or replace"))
            if not _is_map(item.get("value") or {}):
                errors.append((f"{ipath}.value", "must be a map of strings"))
    for i, item in _maps_in(overriders, "fieldOverrider", path, errors):
        ipath = f"{path}.fieldOverrider[{i}]"
        if _not_a_pointer(item.get("fieldPath", "")):
            errors.append((f"{ipath}.fieldPath", "must be a JSON pointer such as /data/config.yaml"))
        has_json, has_yaml = bool(item.get("json")), bool(item.get("yaml"))
        if has_json == has_yaml:
            errors.append((ipath, "needs exactly one of json or yaml"))
        which = "json" if has_json else "yaml"
        for j, op in _maps_in(item, which, ipath, errors):
            if op.get("operator") not in _ADD_REMOVE_REPLACE:
                errors.append((f"{ipath}.{which}[{j}].operator", "must be add, remove or replace"))
            if _not_a_pointer(op.get("subPath", "")):
                errors.append((f"{ipath}.{which}[{j}].subPath", "must be a JSON pointer"))
    for i, item in _maps_in(overriders, "plaintext", path, errors):
        ipath = f"{path}.plaintext[{i}]"
        if _not_a_pointer(item.get("path", "")):
            errors.append((f"{ipath}.path", "must be a JSON pointer such as /spec/replicas"))
        if item.get("operator") not in _ADD_REMOVE_REPLACE:
            errors.append((f"{ipath}.operator", "must be add, remove or replace"))
        if item.get("operator") in ("add", "replace") and "value" not in item:
            errors.append((f"{ipath}.value", f"is required for operator {item.get('operator')}"))
    return errors


def _target_cluster(affinity: Any, path: str) -> FieldErrors:
    if affinity is None:
        return []
    if not _is_map(affinity):
        return [(path, "must be an object")]
    return _label_selector(affinity.get("labelSelector"), f"{path}.labelSelector")


def validate_override_spec(kind: str, namespace: str, spec: Any) -> dict[str, Any]:
    """Default and validate an (Cluster)OverridePolicy spec; raise SpecInvalid with every problem."""
    if not _is_map(spec):
        raise SpecInvalid([("spec", "is required and must be an object")])
    spec = copy.deepcopy(spec)
    if kind == OVERRIDE_POLICY:
        for selector in _list(spec.get("resourceSelectors")):
            if _is_map(selector) and not selector.get("namespace"):
                selector["namespace"] = namespace
    errors = _selectors(kind, namespace, spec, required=False)
    rules = spec.get("overrideRules")
    if rules is not None and ("overriders" in spec or "targetCluster" in spec):
        errors.append(
            ("spec.overrideRules", "cannot be used together with the deprecated overriders/targetCluster")
        )
    if rules is not None and not isinstance(rules, list):
        errors.append(("spec.overrideRules", "must be a list"))
        rules = []
    for i, rule in enumerate(rules or []):
        path = f"spec.overrideRules[{i}]"
        if not _is_map(rule):
            errors.append((path, "must be an object"))
            continue
        errors += _target_cluster(rule.get("targetCluster"), f"{path}.targetCluster")
        errors += _overriders(rule.get("overriders") or {}, f"{path}.overriders")
    if "overriders" in spec:
        errors += _target_cluster(spec.get("targetCluster"), "spec.targetCluster")
        errors += _overriders(spec.get("overriders") or {}, "spec.overriders")
    if errors:
        raise SpecInvalid(errors)
    return spec


def validate_taint_policy_spec(spec: Any) -> dict[str, Any]:
    """Validate a ClusterTaintPolicy spec: target clusters, conditions and the taints to manage."""
    if not _is_map(spec):
        raise SpecInvalid([("spec", "is required and must be an object")])
    errors: FieldErrors = _target_cluster(spec.get("targetClusters"), "spec.targetClusters")
    if not spec.get("addOnConditions") and not spec.get("removeOnConditions"):
        errors.append(("spec.addOnConditions", "addOnConditions or removeOnConditions is required"))
    for key in ("addOnConditions", "removeOnConditions"):
        if not isinstance(spec.get(key) or [], list):
            errors.append((f"spec.{key}", "must be a list"))
        for i, condition in enumerate(_list(spec.get(key))):
            path = f"spec.{key}[{i}]"
            if not _is_map(condition) or not condition.get("conditionType"):
                errors.append((f"{path}.conditionType", "is required"))
                continue
            if condition.get("operator") not in ("In", "NotIn"):
                errors.append((f"{path}.operator", "must be In or NotIn"))
            if not condition.get("statusValues"):
                errors.append((f"{path}.statusValues", "must list at least one status"))
    taints = spec.get("taints")
    if not isinstance(taints, list) or not taints:
        errors.append(("spec.taints", "must list at least one taint"))
    for i, taint in enumerate(_list(taints)):
        path = f"spec.taints[{i}]"
        if not _is_map(taint) or not taint.get("key"):
            errors.append((f"{path}.key", "is required"))
            continue
        if taint.get("effect") not in ("NoSchedule", "NoExecute"):
            errors.append((f"{path}.effect", "must be NoSchedule or NoExecute"))
    if errors:
        raise SpecInvalid(errors)
    return spec


def validate_metadata(metadata: Any, namespaced: bool) -> FieldErrors:
    """Name, namespace, labels and annotations of any document."""
    if not _is_map(metadata):
        return [("metadata", "is required and must be an object")]
    errors: FieldErrors = []
    name = metadata.get("name")
    if not isinstance(name, str) or dns_subdomain_error(name):
        errors.append(("metadata.name", "must be a lowercase DNS name (letters, digits, '-' and '.')"))
    namespace = metadata.get("namespace")
    if namespaced and namespace is not None and dns_label_error(str(namespace)):
        errors.append(("metadata.namespace", "must be a DNS label"))
    for key in ("labels", "annotations"):
        value = metadata.get(key)
        if value is None:
            continue
        if not _is_map(value) or not all(isinstance(v, str) for v in value.values()):
            errors.append((f"metadata.{key}", "must be a map of strings"))
        elif key == "labels":
            for label, text in value.items():
                if label_value_error(text):
                    errors.append((f"metadata.labels[{label}]", "is not a valid label value"))
    return errors


# ------------------------------------------------------------------------------ FederatedResourceQuota


def _quota_resource_list(resources: Any, path: str) -> tuple[dict[str, Fraction], FieldErrors]:
    """A ResourceList as quota validation reads it: standard or qualified names, non-negative values."""
    if resources is None:
        return {}, []
    if not _is_map(resources):
        return {}, [(path, "must be a map of resource names to quantities")]
    parsed: dict[str, Fraction] = {}
    errors: FieldErrors = []
    for name, value in resources.items():
        key = f"{path}[{name}]"
        if not isinstance(name, str) or label_key_error(name):
            errors.append((key, "must be a qualified resource name such as cpu or example.com/gpu"))
            continue
        if (
            "/" not in name
            and name not in _QUOTA_RESOURCES
            and not name.startswith(("hugepages-", "requests.hugepages-"))
        ):
            errors.append(
                (key, "must be a standard resource for quota (cpu, memory, pods, ...) or fully qualified")
            )
            continue
        try:
            amount = quantity_amount(value)
        except QuantityError:
            errors.append((key, "must be a quantity such as 500m, 2 or 4Gi"))
            continue
        if amount < 0:
            errors.append((key, "must be greater than or equal to 0"))
            continue
        integer = name in _INTEGER_RESOURCES or (
            "/" in name and not name.split("/")[0].endswith("kubernetes.io")
        )
        if integer and amount.denominator != 1:
            errors.append((key, "must be an integer"))
            continue
        parsed[name] = amount
    return parsed, errors


def validate_quota_spec(spec: Any) -> dict[str, Any]:
    """Validate a FederatedResourceQuota spec as Karmada's webhook does; raise SpecInvalid with every problem.

    ``overall`` is required; each ``staticAssignments[]`` entry names a cluster and its ``hard``
    limits, which must be resources of ``overall`` and together stay within it.
    """
    if not _is_map(spec):
        raise SpecInvalid([("spec", "is required and must be an object")])
    if spec.get("overall") is None:
        raise SpecInvalid([("spec.overall", "is required: the limit of each resource across all clusters")])
    overall, errors = _quota_resource_list(spec.get("overall"), "spec.overall")
    assignments = spec.get("staticAssignments")
    if assignments is not None and not isinstance(assignments, list):
        errors.append(("spec.staticAssignments", "must be a list"))
        assignments = []
    assigned: dict[str, Fraction] = {}
    for i, assignment in enumerate(assignments or []):
        path = f"spec.staticAssignments[{i}]"
        if not _is_map(assignment):
            errors.append((path, "must be an object"))
            continue
        cluster = assignment.get("clusterName")
        problem = (
            dns_label_error(cluster, 48, "a cluster name") if isinstance(cluster, str) else "is required"
        )
        if problem:
            errors.append((f"{path}.clusterName", problem))
        hard, problems = _quota_resource_list(assignment.get("hard"), f"{path}.hard")
        errors += problems
        for name, amount in hard.items():
            if name not in (spec.get("overall") or {}):
                errors.append((f"{path}.hard[{name}]", "assignment resourceName is not exist in overall"))
            assigned[name] = assigned.get(name, Fraction(0)) + amount
    for name, amount in overall.items():
        if amount < assigned.get(name, Fraction(0)):
            errors.append((f"spec.overall[{name}]", "overall is less than assignments"))
    if errors:
        raise SpecInvalid(errors)
    return copy.deepcopy(spec)


def validate_priority_class(document: dict[str, Any]) -> FieldErrors:
    """A scheduling.k8s.io/v1 PriorityClass: an int32 ``value`` no higher than one billion."""
    value = document.get("value")
    if not _int(value):
        return [("value", "is required and must be a whole number")]
    if not -(2**31) <= value <= 1_000_000_000:
        return [("value", "must be at most 1000000000 (higher values are reserved for system classes)")]
    return []
