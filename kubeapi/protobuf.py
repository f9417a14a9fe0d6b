"""The little protobuf kubectl needs from us: reading a SelfSubjectAccessReview it sends, and an OpenAPI
v2 document with no schemas (older kubectl insists on it for apply; its compiled types do the rest)."""

from __future__ import annotations

from typing import Any

from kubeapi.status import ApiError

MAGIC = b"k8s\x00"
# kube-openapi answers the "...spec.v2@v1.0+protobuf" Accept with this type (Go cannot parse the "@")
OPENAPI_V2_TYPE = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
KUBE_PROTOBUF = "application/vnd.kubernetes.protobuf"


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data):
            raise ApiError(400, "the protobuf body ends inside a number")
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        if not byte & 0x80:
            return value, at
        shift += 7


def fields(data: bytes) -> dict[int, list[Any]]:
    """{field number: [values]} of one message; nested messages stay bytes."""
    out: dict[int, list[Any]] = {}
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        value: Any
        if wire == 0:
            value, at = _varint(data, at)
        elif wire == 2:
            length, at = _varint(data, at)
            value, at = data[at : at + length], at + length
        elif wire == 1:
            value, at = data[at : at + 8], at + 8
        elif wire == 5:
            value, at = data[at : at + 4], at + 4
        else:
            raise ApiError(400, f"the protobuf body has an unsupported wire type {wire}")
        out.setdefault(number, []).append(value)
    return out


def _text(message: dict[int, list[Any]], number: int) -> str:
    values = message.get(number) or [b""]
    return bytes(values[0]).decode("utf-8", "replace")


def access_review_from_protobuf(body: bytes) -> dict[str, Any]:
    """A SelfSubjectAccessReview in the Kubernetes protobuf envelope, as its JSON form."""
    if not body.startswith(MAGIC):
        raise ApiError(400, "the protobuf body lacks the k8s envelope")
    unknown = fields(body[len(MAGIC) :])
    review = fields(bytes((unknown.get(2) or [b""])[0]))
    spec = fields(bytes((review.get(2) or [b""])[0]))
    if 1 not in spec:
        return {"spec": {"nonResourceAttributes": {}}}
    attributes = fields(bytes(spec[1][0]))
    keys = ("namespace", "verb", "group", "version", "resource", "subresource", "name")
    return {"spec": {"resourceAttributes": {key: _text(attributes, i + 1) for i, key in enumerate(keys)}}}


def _field(number: int, payload: bytes) -> bytes:
    length = len(payload)
    encoded = bytearray()
    while True:
        byte = length & 0x7F
        length >>= 7
        encoded.append(byte | (0x80 if length else 0))
        if not length:
            break
    return bytes([number << 3 | 2]) + bytes(encoded) + payload


def empty_openapi_v2() -> bytes:
    """swagger "2.0", info {title, version}, empty paths."""
    info = _field(1, b"karmada-ui Kubernetes API") + _field(2, b"v1")
    return _field(1, b"2.0") + _field(2, info) + _field(8, b"")
