"""The fields each Karmada kind declares, for fieldValidation: which names an object may carry where.

A schema is a dict of field name to the schema of its value; `[schema]` is a list of such items; LEAF
is a scalar (or a list of scalars); MAP is a map of free keys (labels, a label selector's
matchLabels); OPEN takes anything (a part this server does not check field by field: override
values, status, and karmada-ui's own placement extensions). Written from Karmada's API reference
(policy, cluster, work and apps groups), with the extensions karmada-ui reads.
"""

from __future__ import annotations

from typing import Any

LEAF = "leaf"
MAP = "map"
OPEN = "open"

OBJECT_META: dict[str, Any] = {
    **{
        name: LEAF
        for name in (
            "name generateName namespace selfLink uid resourceVersion generation creationTimestamp "
            "deletionTimestamp deletionGracePeriodSeconds finalizers"
        ).split()
    },
    "labels": MAP,
    "annotations": MAP,
    "ownerReferences": OPEN,
    "managedFields": OPEN,
}
MATCH_EXPRESSIONS: list[Any] = [{"key": LEAF, "operator": LEAF, "values": LEAF}]
LABEL_SELECTOR: dict[str, Any] = {"matchLabels": MAP, "matchExpressions": MATCH_EXPRESSIONS}
RESOURCE_SELECTOR: dict[str, Any] = {
    "apiVersion": LEAF,
    "kind": LEAF,
    "namespace": LEAF,
    "name": LEAF,
    "labelSelector": LABEL_SELECTOR,
}
CLUSTER_AFFINITY: dict[str, Any] = {
    "labelSelector": LABEL_SELECTOR,
    "fieldSelector": {"matchExpressions": MATCH_EXPRESSIONS},
    "clusterNames": LEAF,
    "exclude": LEAF,
}
TOLERATION: dict[str, Any] = {
    name: LEAF for name in ("key", "operator", "value", "effect", "tolerationSeconds")
}
TAINT: dict[str, Any] = {name: LEAF for name in ("key", "value", "effect", "timeAdded")}
STATE_PRESERVATION: dict[str, Any] = {"rules": [{"aliasLabelName": LEAF, "jsonPath": LEAF}]}
PLACEMENT: dict[str, Any] = {
    "clusterAffinity": CLUSTER_AFFINITY,
    "clusterAffinities": [{"affinityName": LEAF, **CLUSTER_AFFINITY}],
    "clusterTolerations": [TOLERATION],
    "spreadConstraints": [
        {name: LEAF for name in ("spreadByField", "spreadByLabel", "maxGroups", "minGroups")}
    ],
    "replicaScheduling": {
        "replicaSchedulingType": LEAF,
        "replicaDivisionPreference": LEAF,
        "weightPreference": {
            "staticWeightList": [{"targetCluster": CLUSTER_AFFINITY, "weight": LEAF}],
            "dynamicWeight": LEAF,
        },
    },
    # karmada-ui's placement extensions (see the placement features)
    "workloadAffinity": OPEN,
    "reschedulePolicy": OPEN,
}
SUSPENSION: dict[str, Any] = {"dispatching": LEAF, "dispatchingOnClusters": {"clusterNames": LEAF}}
PROPAGATION_SPEC: dict[str, Any] = {
    "resourceSelectors": [RESOURCE_SELECTOR],
    "association": LEAF,
    "propagateDeps": LEAF,
    "placement": PLACEMENT,
    "priority": LEAF,
    "preemption": LEAF,
    "dependentOverrides": LEAF,
    "schedulerName": LEAF,
    "failover": {
        "application": {
            "decisionConditions": {"tolerationSeconds": LEAF},
            "purgeMode": LEAF,
            "gracePeriodSeconds": LEAF,
            "statePreservation": STATE_PRESERVATION,
        },
        "cluster": {"purgeMode": LEAF, "statePreservation": STATE_PRESERVATION},
    },
    "conflictResolution": LEAF,
    "activationPreference": LEAF,
    "suspension": SUSPENSION,
    "preserveResourcesOnDeletion": LEAF,
    "schedulePriority": {"priorityClassSource": LEAF, "priorityClassName": LEAF},
}
OVERRIDE_SPEC: dict[str, Any] = {
    "resourceSelectors": [RESOURCE_SELECTOR],
    "overrideRules": [{"targetCluster": CLUSTER_AFFINITY, "overriders": OPEN}],
    "targetCluster": CLUSTER_AFFINITY,
    "overriders": OPEN,
}
TAINT_POLICY_SPEC: dict[str, Any] = {
    "targetClusters": CLUSTER_AFFINITY,
    "addOnConditions": [{"conditionType": LEAF, "operator": LEAF, "statusValues": LEAF}],
    "removeOnConditions": [{"conditionType": LEAF, "operator": LEAF, "statusValues": LEAF}],
    "taints": [{"key": LEAF, "value": LEAF, "effect": LEAF}],
}
QUOTA_SPEC: dict[str, Any] = {
    "overall": MAP,
    "staticAssignments": [{"clusterName": LEAF, "hard": MAP}],
}
REBALANCER_SPEC: dict[str, Any] = {
    "workloads": [{"apiVersion": LEAF, "kind": LEAF, "name": LEAF, "namespace": LEAF}],
    "ttlSecondsAfterFinished": LEAF,
}
CLUSTER_SPEC: dict[str, Any] = {
    **{
        name: LEAF
        for name in (
            "id syncMode apiEndpoint insecureSkipTLSVerification proxyURL provider region zone zones"
        ).split()
    },
    "secretRef": {"namespace": LEAF, "name": LEAF},
    "impersonatorSecretRef": {"namespace": LEAF, "name": LEAF},
    "proxyHeader": MAP,
    "taints": [TAINT],
    "resourceModels": OPEN,
}
BINDING_SPEC: dict[str, Any] = {
    **{
        name: LEAF
        for name in (
            "propagateDeps replicas schedulerName conflictResolution rescheduleTriggeredAt "
            "preserveResourcesOnDeletion"
        ).split()
    },
    "resource": OPEN,
    "replicaRequirements": OPEN,
    "clusters": [{"name": LEAF, "replicas": LEAF}],
    "placement": PLACEMENT,
    "gracefulEvictionTasks": OPEN,
    "requiredBy": OPEN,
    "failover": OPEN,
    "suspension": {**SUSPENSION, "scheduling": LEAF},
    "schedulePriority": {"priority": LEAF},
    "workloadAffinityGroups": OPEN,
}


def _object(spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": LEAF, "kind": LEAF, "metadata": OBJECT_META, "spec": spec, "status": OPEN}


SCHEMAS: dict[str, dict[str, Any]] = {
    "PropagationPolicy": _object(PROPAGATION_SPEC),
    "ClusterPropagationPolicy": _object(PROPAGATION_SPEC),
    "OverridePolicy": _object(OVERRIDE_SPEC),
    "ClusterOverridePolicy": _object(OVERRIDE_SPEC),
    "ClusterTaintPolicy": _object(TAINT_POLICY_SPEC),
    "FederatedResourceQuota": _object(QUOTA_SPEC),
    "WorkloadRebalancer": _object(REBALANCER_SPEC),
    "Cluster": _object(CLUSTER_SPEC),
    "ResourceBinding": _object(BINDING_SPEC),
    "ClusterResourceBinding": _object(BINDING_SPEC),
}


def unknown_fields(value: Any, schema: Any, path: str = "") -> list[str]:
    """The paths (`spec.placement.clusterAfinity`, `spec.resourceSelectors[0].nmae`) of every field
    `value` carries that `schema` does not declare."""
    if schema in (LEAF, MAP, OPEN):
        return []
    if isinstance(schema, list):
        if not isinstance(value, list):
            return []
        found: list[str] = []
        for index, item in enumerate(value):
            found += unknown_fields(item, schema[0], f"{path}[{index}]")
        return found
    if not isinstance(value, dict):
        return []
    found = []
    for key, inner in value.items():
        where = f"{path}.{key}" if path else str(key)
        if key not in schema:
            found.append(where)
        else:
            found += unknown_fields(inner, schema[key], where)
    return found
