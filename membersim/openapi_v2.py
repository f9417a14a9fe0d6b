"""A minimal OpenAPI v2 document in gnostic's protobuf form, which kubectl up to 1.27 requires for validation.

It carries only what kubectl's query-parameter probe reads: per kind, a PATCH operation tagged with
``x-kubernetes-group-version-kind`` that lists the ``fieldValidation`` query parameter. With that,
kubectl leaves validation to the server. No definitions, so kubectl uses built-in patch metadata.
"""

from __future__ import annotations

from membersim.resources import group_versions, in_group_version

CONTENT_TYPE = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _bytes(field: int, payload: bytes) -> bytes:
    return _varint(field << 3 | 2) + _varint(len(payload)) + payload


def _string(field: int, text: str) -> bytes:
    return _bytes(field, text.encode())


def _bool(field: int, value: bool) -> bytes:
    return _varint(field << 3) + _varint(1 if value else 0)


def _named_any(name: str, yaml_text: str) -> bytes:
    # NamedAny{name=1, value=2: Any{yaml=2}}
    return _string(1, name) + _bytes(2, _string(2, yaml_text))


def _query_parameter(name: str, type_: str) -> bytes:
    # ParametersItem{parameter=1: Parameter{non_body_parameter=2: NonBodyParameter{
    #   query_parameter_sub_schema=3: {in=2, name=4, type=6, unique_items=20}}}}
    sub_schema = _string(2, "query") + _string(4, name) + _string(6, type_) + _bool(20, True)
    return _bytes(1, _bytes(2, _bytes(3, sub_schema)))


def _operation(operation_id: str, group: str, version: str, kind: str) -> bytes:
    parameters = b"".join(
        _bytes(8, _query_parameter(n, t))
        for n, t in (
            ("dryRun", "string"),
            ("fieldManager", "string"),
            ("fieldValidation", "string"),
            ("force", "boolean"),
        )
    )
    # Responses{response_code=1: NamedResponseValue{name=1, value=2:
    #   ResponseValue{response=1: Response{description=1}}}}
    responses = _bytes(9, _bytes(1, _string(1, "200") + _bytes(2, _bytes(1, _string(1, "OK")))))
    group_text = group or '""'
    gvk = f"group: {group_text}\nkind: {kind}\nversion: {version}\n"
    extensions = _bytes(13, _named_any("x-kubernetes-action", "patch\n")) + _bytes(
        13, _named_any("x-kubernetes-group-version-kind", gvk)
    )
    return _string(5, operation_id) + parameters + responses + extensions


def document(k8s_version: str) -> bytes:
    """The serialized ``openapi.v2.Document``."""
    paths = b""
    minor = int(k8s_version.split(".")[1])
    for group, version in group_versions(minor):
        base = f"/apis/{group}/{version}" if group else f"/api/{version}"
        for r in in_group_version(group, version, minor):
            if "patch" not in r.verbs:
                continue
            path = (
                f"{base}/namespaces/{{namespace}}/{r.plural}/{{name}}"
                if r.namespaced
                else f"{base}/{r.plural}/{{name}}"
            )
            path_item = _bytes(8, _operation(f"patch{r.kind}", r.group, r.version, r.kind))
            paths += _bytes(2, _string(1, path) + _bytes(2, path_item))
    info = _string(1, "Kubernetes") + _string(2, f"v{k8s_version}")
    return _string(1, "2.0") + _bytes(2, info) + _bytes(8, paths)
