"""Decoding the Kubernetes protobuf envelope and messages that newer kubectl sends."""

from __future__ import annotations

import pytest

from membersim.errors import ApiError
from membersim.protobuf import MAGIC, decode


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def field(number: int, payload: bytes | str | int) -> bytes:
    if isinstance(payload, int):
        return varint(number << 3) + varint(payload)
    data = payload.encode() if isinstance(payload, str) else payload
    return varint(number << 3 | 2) + varint(len(data)) + data


def envelope(api_version: str, kind: str, raw: bytes) -> bytes:
    return (
        MAGIC
        + field(1, field(1, api_version) + field(2, kind))
        + field(2, raw)
        + field(4, "application/vnd.kubernetes.protobuf")
    )


def test_a_config_map_decodes_with_its_metadata_maps_and_data():
    metadata = (
        field(1, "settings")
        + field(3, "default")
        + field(11, field(1, "app") + field(2, "web"))
        + field(8, b"")
    )
    raw = (
        field(1, metadata)
        + field(2, field(1, "colour") + field(2, "blue"))
        + field(3, field(1, "blob") + field(2, b"\x00\x01"))
    )
    assert decode(envelope("v1", "ConfigMap", raw)) == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "settings", "namespace": "default", "labels": {"app": "web"}},
        "data": {"colour": "blue"},
        "binaryData": {"blob": "AAE="},
    }


def test_a_deployment_keeps_zero_replicas_and_decodes_int_or_string_and_quantities():
    container = (
        field(1, "web")
        + field(2, "nginx")
        + field(6, field(3, 80) + field(2, 0))
        + field(8, field(2, field(1, "cpu") + field(2, field(1, "250m"))))
    )
    template = field(2, field(2, container))
    strategy = field(1, "RollingUpdate") + field(
        2, field(1, field(1, 1) + field(3, "25%")) + field(2, field(1, 0) + field(2, 1))
    )
    spec = field(1, 0) + field(3, template) + field(4, strategy)
    decoded = decode(envelope("apps/v1", "Deployment", field(1, field(1, "web")) + field(2, spec)))
    assert decoded["spec"]["replicas"] == 0
    assert decoded["spec"]["strategy"]["rollingUpdate"] == {"maxUnavailable": "25%", "maxSurge": 1}
    (only,) = decoded["spec"]["template"]["spec"]["containers"]
    assert only["ports"] == [{"containerPort": 80}] and only["resources"] == {"requests": {"cpu": "250m"}}


def test_unknown_fields_are_skipped():
    raw = field(1, field(1, "ns") + field(99, "future")) + field(42, 7)
    assert decode(envelope("v1", "Namespace", raw)) == {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "ns"},
    }


def test_kinds_outside_the_subset_and_garbage_are_clear_errors():
    with pytest.raises(ApiError) as unsupported:
        decode(envelope("rbac.authorization.k8s.io/v1", "Role", b""))
    assert unsupported.value.code == 415
    with pytest.raises(ApiError) as garbage:
        decode(b"not protobuf")
    assert garbage.value.code == 400
    with pytest.raises(ApiError) as truncated:
        decode(MAGIC + b"\x0a\xff")
    assert truncated.value.code == 400
