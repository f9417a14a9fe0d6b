"""Decoding of the Kubernetes protobuf wire format for the objects kubectl's typed clients send.

kubectl 1.32 and later send built-in objects it generates itself (``kubectl create deployment``,
``create configmap``, ``run``, ...) as ``application/vnd.kubernetes.protobuf`` and never fall back
to JSON. The field numbers below describe the message subset those commands use; unknown fields
are skipped, as protobuf readers do. Everything else in membersim stays JSON.
"""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from typing import Any

from membersim import errors

MAGIC = b"k8s\x00"

# message -> {field number: (JSON name, type)}; a type is a scalar name, a message name,
# "[X]" for repeated X, "{X}" for map<string, X>, or "^X" for a message inlined into its parent.
STR, INT, BOOL, BYTES = "string", "int", "bool", "bytes"
SCHEMA: dict[str, dict[int, tuple[str, str]]] = {
    "ObjectMeta": {
        1: ("name", STR),
        2: ("generateName", STR),
        3: ("namespace", STR),
        5: ("uid", STR),
        6: ("resourceVersion", STR),
        7: ("generation", INT),
        8: ("creationTimestamp", "Time"),
        9: ("deletionTimestamp", "Time"),
        11: ("labels", "{string}"),
        12: ("annotations", "{string}"),
        13: ("ownerReferences", "[OwnerReference]"),
        14: ("finalizers", "[string]"),
    },
    "OwnerReference": {
        5: ("apiVersion", STR),
        1: ("kind", STR),
        3: ("name", STR),
        4: ("uid", STR),
        6: ("controller", BOOL),
        7: ("blockOwnerDeletion", BOOL),
    },
    "LabelSelector": {1: ("matchLabels", "{string}"), 2: ("matchExpressions", "[LabelSelectorRequirement]")},
    "LabelSelectorRequirement": {1: ("key", STR), 2: ("operator", STR), 3: ("values", "[string]")},
    "Namespace": {1: ("metadata", "ObjectMeta"), 2: ("spec", "NamespaceSpec")},
    "NamespaceSpec": {1: ("finalizers", "[string]")},
    "ConfigMap": {
        1: ("metadata", "ObjectMeta"),
        4: ("immutable", BOOL),
        2: ("data", "{string}"),
        3: ("binaryData", "{bytes}"),
    },
    "Secret": {
        1: ("metadata", "ObjectMeta"),
        5: ("immutable", BOOL),
        2: ("data", "{bytes}"),
        4: ("stringData", "{string}"),
        3: ("type", STR),
    },
    "Service": {1: ("metadata", "ObjectMeta"), 2: ("spec", "ServiceSpec")},
    "ServiceSpec": {
        1: ("ports", "[ServicePort]"),
        2: ("selector", "{string}"),
        3: ("clusterIP", STR),
        18: ("clusterIPs", "[string]"),
        4: ("type", STR),
        5: ("externalIPs", "[string]"),
        7: ("sessionAffinity", STR),
        10: ("externalName", STR),
        11: ("externalTrafficPolicy", STR),
        19: ("ipFamilies", "[string]"),
        17: ("ipFamilyPolicy", STR),
        22: ("internalTrafficPolicy", STR),
    },
    "ServicePort": {
        1: ("name", STR),
        2: ("protocol", STR),
        6: ("appProtocol", STR),
        3: ("port", INT),
        4: ("targetPort", "IntOrString"),
        5: ("nodePort", INT),
    },
    "Pod": {1: ("metadata", "ObjectMeta"), 2: ("spec", "PodSpec")},
    "PodTemplateSpec": {1: ("metadata", "ObjectMeta"), 2: ("spec", "PodSpec")},
    "PodSpec": {
        20: ("initContainers", "[Container]"),
        2: ("containers", "[Container]"),
        3: ("restartPolicy", STR),
        4: ("terminationGracePeriodSeconds", INT),
        5: ("activeDeadlineSeconds", INT),
        6: ("dnsPolicy", STR),
        7: ("nodeSelector", "{string}"),
        8: ("serviceAccountName", STR),
        10: ("nodeName", STR),
        11: ("hostNetwork", BOOL),
        15: ("imagePullSecrets", "[LocalObjectReference]"),
        16: ("hostname", STR),
        17: ("subdomain", STR),
        19: ("schedulerName", STR),
        22: ("tolerations", "[Toleration]"),
        24: ("priorityClassName", STR),
    },
    "Container": {
        1: ("name", STR),
        2: ("image", STR),
        3: ("command", "[string]"),
        4: ("args", "[string]"),
        5: ("workingDir", STR),
        6: ("ports", "[ContainerPort]"),
        19: ("envFrom", "[EnvFromSource]"),
        7: ("env", "[EnvVar]"),
        8: ("resources", "ResourceRequirements"),
        13: ("terminationMessagePath", STR),
        20: ("terminationMessagePolicy", STR),
        14: ("imagePullPolicy", STR),
        16: ("stdin", BOOL),
        17: ("stdinOnce", BOOL),
        18: ("tty", BOOL),
    },
    "ContainerPort": {
        1: ("name", STR),
        2: ("hostPort", INT),
        3: ("containerPort", INT),
        4: ("protocol", STR),
        5: ("hostIP", STR),
    },
    "EnvVar": {1: ("name", STR), 2: ("value", STR), 3: ("valueFrom", "EnvVarSource")},
    "EnvVarSource": {
        1: ("fieldRef", "ObjectFieldSelector"),
        3: ("configMapKeyRef", "KeySelector"),
        4: ("secretKeyRef", "KeySelector"),
    },
    "ObjectFieldSelector": {1: ("apiVersion", STR), 2: ("fieldPath", STR)},
    "KeySelector": {1: ("", "^LocalObjectReference"), 2: ("key", STR), 3: ("optional", BOOL)},
    "EnvFromSource": {1: ("prefix", STR), 2: ("configMapRef", "RefSource"), 3: ("secretRef", "RefSource")},
    "RefSource": {1: ("", "^LocalObjectReference"), 2: ("optional", BOOL)},
    "LocalObjectReference": {1: ("name", STR)},
    "ResourceRequirements": {1: ("limits", "{Quantity}"), 2: ("requests", "{Quantity}")},
    "Toleration": {
        1: ("key", STR),
        2: ("operator", STR),
        3: ("value", STR),
        4: ("effect", STR),
        5: ("tolerationSeconds", INT),
    },
    "Deployment": {1: ("metadata", "ObjectMeta"), 2: ("spec", "DeploymentSpec")},
    "DeploymentSpec": {
        1: ("replicas", INT),
        2: ("selector", "LabelSelector"),
        3: ("template", "PodTemplateSpec"),
        4: ("strategy", "DeploymentStrategy"),
        5: ("minReadySeconds", INT),
        6: ("revisionHistoryLimit", INT),
        7: ("paused", BOOL),
        9: ("progressDeadlineSeconds", INT),
    },
    "DeploymentStrategy": {1: ("type", STR), 2: ("rollingUpdate", "RollingUpdateDeployment")},
    "RollingUpdateDeployment": {1: ("maxUnavailable", "IntOrString"), 2: ("maxSurge", "IntOrString")},
    "Job": {1: ("metadata", "ObjectMeta"), 2: ("spec", "JobSpec")},
    "JobSpec": {
        1: ("parallelism", INT),
        2: ("completions", INT),
        3: ("activeDeadlineSeconds", INT),
        7: ("backoffLimit", INT),
        4: ("selector", "LabelSelector"),
        5: ("manualSelector", BOOL),
        6: ("template", "PodTemplateSpec"),
        8: ("ttlSecondsAfterFinished", INT),
        9: ("completionMode", STR),
        10: ("suspend", BOOL),
    },
}
KINDS = {
    ("v1", "Namespace"): "Namespace",
    ("v1", "ConfigMap"): "ConfigMap",
    ("v1", "Secret"): "Secret",
    ("v1", "Service"): "Service",
    ("v1", "Pod"): "Pod",
    ("apps/v1", "Deployment"): "Deployment",
    ("batch/v1", "Job"): "Job",
}
# Go's protobuf encoding writes non-pointer scalars even when zero; JSON leaves them out. These
# integer fields are non-pointers whose zero means "unset".
_ZERO_MEANS_UNSET = {"hostPort", "nodePort", "minReadySeconds", "generation", "port", "containerPort"}


def _fields(data: bytes) -> list[tuple[int, int, Any]]:
    """(field number, wire type, value) for each field of one message."""
    out: list[tuple[int, int, Any]] = []
    position, end = 0, len(data)
    while position < end:
        key, position = _varint(data, position)
        number, wire = key >> 3, key & 7
        value: Any
        if wire == 0:
            value, position = _varint(data, position)
        elif wire == 2:
            length, position = _varint(data, position)
            value, position = data[position : position + length], position + length
            if position > end:
                raise ValueError("truncated length-delimited field")
        elif wire == 1:
            value, position = int.from_bytes(data[position : position + 8], "little"), position + 8
        elif wire == 5:
            value, position = int.from_bytes(data[position : position + 4], "little"), position + 4
        else:
            raise ValueError(f"unsupported wire type {wire}")
        out.append((number, wire, value))
    return out


def _varint(data: bytes, position: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if position >= len(data):
            raise ValueError("truncated varint")
        byte = data[position]
        position += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, position
        shift += 7


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _scalar(kind: str, value: Any) -> Any:
    if kind == STR:
        return value.decode()
    if kind == INT:
        return _signed(value)
    if kind == BOOL:
        return bool(value)
    if kind == BYTES:
        return base64.b64encode(value).decode()
    if kind == "Quantity":
        return _message("Quantity", value)
    return _message(kind, value)


def _message(name: str, data: bytes) -> Any:
    if name == "Time":
        seconds = next((_signed(v) for n, _, v in _fields(data) if n == 1), 0)
        return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if seconds else None
    if name == "IntOrString":
        values = {n: v for n, _, v in _fields(data)}
        return values.get(3, b"").decode() if values.get(1) == 1 else _signed(values.get(2, 0))
    if name == "Quantity":
        return next((v.decode() for n, _, v in _fields(data) if n == 1), "0")
    schema = SCHEMA[name]
    result: dict[str, Any] = {}
    for number, _wire, value in _fields(data):
        if number not in schema:
            continue
        key, kind = schema[number]
        if kind.startswith("^"):
            result.update(_message(kind[1:], value))
        elif kind.startswith("["):
            item = kind[1:-1]
            result.setdefault(key, []).append(_scalar(item, value))
        elif kind.startswith("{"):
            entry = {n: v for n, _, v in _fields(value)}
            result.setdefault(key, {})[entry.get(1, b"").decode()] = _scalar(kind[1:-1], entry.get(2, b""))
        else:
            result[key] = _scalar(kind, value)
    return {k: v for k, v in result.items() if not _unset(k, v)}


def _unset(key: str, value: Any) -> bool:
    if value is None or value == "" or value is False or value == {} or value == []:
        return True
    return value == 0 and key in _ZERO_MEANS_UNSET


def decode(raw: bytes) -> dict[str, Any]:
    """A protobuf request body (``k8s\\0`` + runtime.Unknown) as the equivalent JSON object."""
    if not raw.startswith(MAGIC):
        raise errors.bad_request("the protobuf body does not start with the Kubernetes magic number")
    try:
        envelope = {n: v for n, _, v in _fields(raw[len(MAGIC) :])}
        type_meta = {n: v.decode() for n, _, v in _fields(envelope.get(1, b""))}
        api_version, kind = type_meta.get(1, ""), type_meta.get(2, "")  # runtime.TypeMeta order
        message = KINDS.get((api_version, kind))
        if message is None:
            raise errors.ApiError(
                415,
                "UnsupportedMediaType",
                f"membersim does not decode {kind} ({api_version}) from protobuf; send JSON",
            )
        return {"apiVersion": api_version, "kind": kind, **_message(message, envelope.get(2, b""))}
    except (ValueError, UnicodeDecodeError, KeyError) as error:
        raise errors.bad_request(f"the protobuf body could not be decoded: {error}") from None
