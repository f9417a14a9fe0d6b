"""Karmada's names, labels and annotations for bindings, works and member-cluster copies (spec §5)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

# The kinds karmada-ui stores, as Karmada names them.
PROPAGATION_POLICY = "PropagationPolicy"
CLUSTER_PROPAGATION_POLICY = "ClusterPropagationPolicy"
OVERRIDE_POLICY = "OverridePolicy"
CLUSTER_OVERRIDE_POLICY = "ClusterOverridePolicy"
RESOURCE_BINDING = "ResourceBinding"
CLUSTER_RESOURCE_BINDING = "ClusterResourceBinding"

# A member copy's health, as Karmada's resource interpreter reports it.
HEALTHY = "Healthy"
UNHEALTHY = "Unhealthy"
UNKNOWN = "Unknown"

MANAGED_LABEL = "karmada.io/managed"

PP_PERMANENT_ID = "propagationpolicy.karmada.io/permanent-id"
PP_NAME = "propagationpolicy.karmada.io/name"
PP_NAMESPACE = "propagationpolicy.karmada.io/namespace"
CPP_PERMANENT_ID = "clusterpropagationpolicy.karmada.io/permanent-id"
CPP_NAME = "clusterpropagationpolicy.karmada.io/name"
OP_PERMANENT_ID = "overridepolicy.karmada.io/permanent-id"
COP_PERMANENT_ID = "clusteroverridepolicy.karmada.io/permanent-id"

RB_PERMANENT_ID = "resourcebinding.karmada.io/permanent-id"
RB_NAME = "resourcebinding.karmada.io/name"
RB_NAMESPACE = "resourcebinding.karmada.io/namespace"
CRB_PERMANENT_ID = "clusterresourcebinding.karmada.io/permanent-id"
CRB_NAME = "clusterresourcebinding.karmada.io/name"

WORK_PERMANENT_ID = "work.karmada.io/permanent-id"
WORK_NAME = "work.karmada.io/name"
WORK_NAMESPACE = "work.karmada.io/namespace"
CONFLICT_RESOLUTION = "work.karmada.io/conflict-resolution"

TEMPLATE_UID = "resourcetemplate.karmada.io/uid"
TEMPLATE_GENERATION = "resourcetemplate.karmada.io/generation"
MANAGED_LABELS = "resourcetemplate.karmada.io/managed-labels"
MANAGED_ANNOTATIONS = "resourcetemplate.karmada.io/managed-annotations"

APPLIED_PLACEMENT = "policy.karmada.io/applied-placement"
APPLIED_OVERRIDES = "policy.karmada.io/applied-overrides"
APPLIED_CLUSTER_OVERRIDES = "policy.karmada.io/applied-cluster-overrides"

EXECUTION_SPACE_PREFIX = "karmada-es-"
RESERVED_NAMESPACES = ("karmada-system", "karmada-cluster")

# Every label and annotation Karmada stamps on a member copy; stripped when the copy is preserved.
KARMADA_LABELS = (
    MANAGED_LABEL,
    RB_PERMANENT_ID,
    CRB_PERMANENT_ID,
    WORK_PERMANENT_ID,
    PP_PERMANENT_ID,
    CPP_PERMANENT_ID,
)
KARMADA_ANNOTATIONS = (
    WORK_NAME,
    WORK_NAMESPACE,
    RB_NAME,
    RB_NAMESPACE,
    CRB_NAME,
    TEMPLATE_UID,
    TEMPLATE_GENERATION,
    MANAGED_LABELS,
    MANAGED_ANNOTATIONS,
    CONFLICT_RESOLUTION,
    PP_NAME,
    PP_NAMESPACE,
    CPP_NAME,
    APPLIED_OVERRIDES,
    APPLIED_CLUSTER_OVERRIDES,
)

_SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def fnv32a(text: str) -> int:
    """FNV-1a, 32 bits, over the UTF-8 bytes of ``text``."""
    value = 2166136261
    for byte in text.encode():
        value ^= byte
        value = (value * 16777619) & 0xFFFFFFFF
    return value


def safe_encode(text: str) -> str:
    """Map each character onto an alphabet without vowels, as Kubernetes does for generated names."""
    return "".join(_SAFE_ALPHABET[ord(char) % len(_SAFE_ALPHABET)] for char in text)


def binding_name(name: str, kind: str) -> str:
    """ResourceBinding name: ``lower(<name>-<kind>)`` with ``:`` replaced by ``.``."""
    return f"{name}-{kind}".lower().replace(":", ".")


def work_name(namespace: str, name: str, kind: str) -> str:
    """Work name: the template name and a hash of its namespace, name and kind."""
    key = f"{namespace}-{name}-{kind}" if namespace else f"{name}-{kind}"
    return f"{name.lower()}-{safe_encode(str(fnv32a(key.lower())))}"


def execution_namespace(cluster: str) -> str:
    """The execution space on the control plane that holds a cluster's Works."""
    return f"{EXECUTION_SPACE_PREFIX}{cluster}"


def is_reserved_namespace(namespace: str) -> bool:
    """Namespaces the detector ignores: Karmada's own and every execution space."""
    return namespace in RESERVED_NAMESPACES or namespace.startswith(EXECUTION_SPACE_PREFIX)


def content_hash(obj: Any) -> str:
    """A stable hash of a JSON-like value (sorted keys), used for desired vs applied comparisons."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
