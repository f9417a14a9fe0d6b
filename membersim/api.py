"""The API verbs on one cluster's store: get, list, create, replace, patch (four kinds), delete, scale."""

from __future__ import annotations

import base64
import binascii
import copy
import ipaddress
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import yaml

from membersim import encoding, errors, fields, managed_fields, meta, metrics, protobuf, validation
from membersim import patch as patching
from membersim.pods import qos_class
from membersim.resources import (
    JOB,
    NAMESPACE,
    NODE,
    NODE_METRICS,
    POD,
    POD_METRICS,
    SERVICE,
    SERVICE_CIDRS,
    STORED,
    Resource,
)
from membersim.selectors import (
    SelectorError,
    fields_match,
    format_requirements,
    labels_match,
    parse_field_selector,
    parse_label_selector,
    requirements_from_label_selector,
)

if TYPE_CHECKING:
    from membersim.cluster import Cluster

RECONCILE_KINDS = {
    "pods",
    "nodes",
    "deployments",
    "replicasets",
    "statefulsets",
    "daemonsets",
    "jobs",
    "namespaces",
}
PROTECTED_NAMESPACES = {"default", "kube-system", "kube-public", "kube-node-lease"}
SCALABLE = {"deployments", "replicasets", "statefulsets"}
JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"
PROTOBUF = "application/vnd.kubernetes.protobuf"


def options_body(raw: bytes, content_type: str) -> Any:
    """DeleteOptions or an Eviction: kubectl 1.33 sends them as protobuf, whose options we do without."""
    if content_type.split(";")[0].strip().lower() == PROTOBUF:
        return None
    return parse_body(raw, content_type)


@dataclass
class Query:
    """The query-string options the verbs understand."""

    params: dict[str, str] = field(default_factory=dict)
    agent: str = ""  # the User-Agent, whose product name is the field manager when none is given

    @property
    def manager(self) -> str:
        return managed_fields.manager_name(self.params.get("fieldManager", ""), self.agent)

    def get(self, key: str, default: str = "") -> str:
        return self.params.get(key, default)

    @property
    def dry_run(self) -> bool:
        value = self.params.get("dryRun", "")
        if value not in ("", "All"):
            raise errors.bad_request(f'dryRun: Unsupported value: "{value}": supported values: "All"')
        return value == "All"


def parse_body(raw: bytes, content_type: str) -> Any:
    """JSON (also when no Content-Type was sent, as the Python client does), YAML, or protobuf."""
    if not raw.strip():
        return None
    text_type = content_type.split(";")[0].strip().lower()
    if text_type == PROTOBUF:
        return protobuf.decode(raw)
    try:
        if text_type in ("application/yaml", "application/apply-patch+yaml", "text/yaml"):
            return yaml.safe_load(raw)
        return encoding.loads(raw)
    except (ValueError, yaml.YAMLError) as error:
        raise errors.bad_request(f"the request body could not be decoded: {error}") from None


def _check_fields(resource: Resource, obj: dict[str, Any], query: Query) -> None:
    """``fieldValidation=Strict`` (kubectl's default) makes unknown fields a 400, as on an API server."""
    if query.get("fieldValidation") != "Strict":
        return
    unknown = fields.unknown_fields(resource, obj)
    if unknown:
        listed = ", ".join(f'unknown field "{path}"' for path in unknown)
        raise errors.bad_request(
            f'{resource.kind} in version "{resource.version}" cannot be handled as a {resource.kind}: '
            f"strict decoding error: {listed}"
        )


def _require_object(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise errors.bad_request("the request body must be a JSON object")
    return body


def _check_kind(resource: Resource, body: dict[str, Any]) -> None:
    kind, api_version = body.get("kind"), body.get("apiVersion")
    if kind and kind != resource.kind:
        raise errors.bad_request(
            f"the kind in the data ({kind}) does not match the expected kind ({resource.kind})"
        )
    if api_version and api_version != resource.api_version:
        raise errors.bad_request(
            f"the API version in the data ({api_version}) does not "
            f"match the expected API version ({resource.api_version})"
        )


# ---------------------------------------------------------------- reads


def get(cluster: Cluster, resource: Resource, namespace: str, name: str) -> dict[str, Any]:
    if resource in SERVICE_CIDRS:
        found = next((o for o in service_cidrs(cluster, resource) if o["metadata"]["name"] == name), None)
    elif resource is NODE_METRICS:
        found = next((m for m in metrics.node_metrics(cluster) if m["metadata"]["name"] == name), None)
    elif resource is POD_METRICS:
        found = next(
            (m for m in metrics.pod_metrics(cluster, namespace) if m["metadata"]["name"] == name), None
        )
    else:
        found = cluster.store.get(resource, namespace, name)
    if found is None:
        raise errors.not_found(resource, name)
    return found


def service_cidrs(cluster: Cluster, resource: Resource) -> list[dict[str, Any]]:
    """The default ServiceCIDR named "kubernetes", as the API server maintains it from its flag."""
    return [
        {
            "apiVersion": resource.api_version,
            "kind": "ServiceCIDR",
            "metadata": {
                "name": "kubernetes",
                "uid": cluster.service_cidr_uid,
                "resourceVersion": "1",
                "creationTimestamp": cluster.created,
            },
            "spec": {"cidrs": [cluster.spec.service_cidr]},
            "status": {
                "conditions": [
                    {
                        "type": "Ready",
                        "status": "True",
                        "reason": "",
                        "message": "Kubernetes Service CIDR is ready",
                        "lastTransitionTime": cluster.created,
                    }
                ]
            },
        }
    ]


def _selectors(query: Query) -> tuple[list, list]:
    try:
        return parse_label_selector(query.get("labelSelector")), parse_field_selector(
            query.get("fieldSelector")
        )
    except SelectorError as error:
        raise errors.bad_request(str(error)) from None


def matcher(query: Query, namespace: str | None):
    """A predicate for list and watch filtering."""
    labels, fields = _selectors(query)

    def matches(obj: dict[str, Any]) -> bool:
        if namespace and obj["metadata"].get("namespace") != namespace:
            return False
        return labels_match(labels, obj["metadata"].get("labels")) and fields_match(fields, obj)

    def in_namespace(obj: dict[str, Any]) -> bool:
        return not namespace or obj["metadata"].get("namespace") == namespace

    # Most lists and watches select nothing but a namespace: no selector to evaluate per object.
    return matches if labels or fields else in_namespace


def list_objects(
    cluster: Cluster, resource: Resource, namespace: str | None, query: Query
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    matches = matcher(query, namespace)
    with cluster.store.lock:
        if resource in SERVICE_CIDRS:
            objects = service_cidrs(cluster, resource)
        elif resource is NODE_METRICS:
            objects = metrics.node_metrics(cluster)
        elif resource is POD_METRICS:
            objects = metrics.pod_metrics(cluster, namespace)
        else:
            objects = cluster.store.list(resource, namespace)
        rv = cluster.store.rv
    start = query.get("continue")
    if start:
        try:
            token = json.loads(base64.urlsafe_b64decode(start.encode()))
            after = token["start"]
            if not isinstance(after, str):
                raise TypeError(after)
        except (ValueError, KeyError, TypeError, binascii.Error):
            raise errors.bad_request("continue key is not valid: the token could not be decoded") from None
        # Before the selectors: a later page tests only the objects past the token.
        objects = [o for o in objects if _sort_key(o) > after]
        # Every page of a list carries the first page's resourceVersion, as an API server's do (its
        # pages are one snapshot; these show the store as it is now, which is never older than that).
        if isinstance(token.get("rv"), int):
            rv = token["rv"]
    objects = [o for o in objects if matches(o)]
    list_meta: dict[str, Any] = {"resourceVersion": str(rv)}
    limit = query.get("limit")
    if limit:
        try:
            count = int(limit)
        except ValueError:
            raise errors.bad_request(f"limit must be an integer, got {limit!r}") from None
        if 0 < count < len(objects):
            remaining = len(objects) - count
            objects = objects[:count]
            list_meta["continue"] = base64.urlsafe_b64encode(
                json.dumps({"start": _sort_key(objects[-1]), "rv": rv}).encode()
            ).decode()
            list_meta["remainingItemCount"] = remaining
    return objects, list_meta


def _sort_key(obj: dict[str, Any]) -> str:
    return f"{obj['metadata'].get('namespace', '')}/{obj['metadata']['name']}"


# ---------------------------------------------------------------- helpers for writes


def _ensure_namespace(cluster: Cluster, resource: Resource, namespace: str) -> None:
    if resource.namespaced and cluster.store.get(NAMESPACE, "", namespace) is None:
        raise errors.not_found(NAMESPACE, namespace)


def _allocate_service(cluster: Cluster, service: dict[str, Any], old: dict[str, Any] | None) -> None:
    spec = service.setdefault("spec", {})
    if old is not None:
        old_spec = old.get("spec") or {}
        spec.setdefault("clusterIP", old_spec.get("clusterIP"))
        spec.setdefault("clusterIPs", old_spec.get("clusterIPs"))
    used = {(s.get("spec") or {}).get("clusterIP") for s in cluster.store.iter(SERVICE) if s is not old}
    network = ipaddress.ip_network(cluster.spec.service_cidr)
    if spec.get("type") == "ExternalName":
        spec.pop("clusterIP", None)
    elif spec.get("clusterIP") in (None, ""):
        for offset in range(2, min(network.num_addresses - 1, 1 << 20)):
            candidate = str(network.network_address + offset)
            if candidate not in used:
                spec["clusterIP"] = candidate
                break
    elif spec["clusterIP"] != "None":
        try:
            address = ipaddress.ip_address(spec["clusterIP"])
        except ValueError:
            address = None
        if address is None or address not in network:
            raise errors.invalid(
                SERVICE,
                service["metadata"]["name"],
                [
                    (
                        "spec.clusterIPs",
                        "FieldValueInvalid",
                        f'Invalid value: []string{{"{spec["clusterIP"]}"}}: failed to allocate IP '
                        f"{spec['clusterIP']}: the provided IP ({spec['clusterIP']}) is not in the "
                        "valid range. "
                        f"The range of valid IPs is {cluster.spec.service_cidr}",
                    )
                ],
            )
        if old is None and spec["clusterIP"] in used:
            raise errors.invalid(
                SERVICE,
                service["metadata"]["name"],
                [
                    (
                        "spec.clusterIPs",
                        "FieldValueInvalid",
                        f'Invalid value: []string{{"{spec["clusterIP"]}"}}: failed to allocate IP '
                        f"{spec['clusterIP']}: provided IP is already allocated",
                    )
                ],
            )
    if spec.get("clusterIP"):
        spec["clusterIPs"] = [spec["clusterIP"]]
        spec.setdefault("ipFamilies", ["IPv4"])
        spec.setdefault("ipFamilyPolicy", "SingleStack")
    if spec.get("type") in ("NodePort", "LoadBalancer"):
        taken = {
            p.get("nodePort")
            for s in cluster.store.iter(SERVICE)
            if s is not old
            for p in (s.get("spec") or {}).get("ports") or []
        }
        old_ports = {
            p.get("port"): p.get("nodePort") for p in ((old or {}).get("spec") or {}).get("ports") or []
        }
        for port in spec.get("ports") or []:
            if not port.get("nodePort"):
                port["nodePort"] = old_ports.get(port.get("port")) or next(
                    n for n in range(30000, 32768) if n not in taken
                )
                taken.add(port["nodePort"])
        spec.setdefault("externalTrafficPolicy", "Cluster")
    spec.setdefault("internalTrafficPolicy", "Cluster")
    service["status"] = (old or {}).get("status") or {"loadBalancer": {}}


def _initial_status(cluster: Cluster, resource: Resource, obj: dict[str, Any]) -> None:
    """What the server (and the simulated kubelet) put in status on create."""
    if resource is POD:
        obj["status"] = {"phase": "Pending", "qosClass": qos_class(obj.get("spec") or {})}
    elif resource is NAMESPACE:
        obj["status"] = {"phase": "Active"}
    elif resource is NODE:
        status = obj.setdefault("status", {})
        template = cluster.make_node(1, meta.now())["status"]
        for key in ("capacity", "allocatable", "conditions", "nodeInfo", "daemonEndpoints"):
            status.setdefault(key, template[key])
        status.setdefault("allocatable", dict(status["capacity"]))
        status.setdefault("addresses", [{"type": "Hostname", "address": obj["metadata"]["name"]}])
    elif resource.has_status and resource is not SERVICE:
        obj["status"] = {}


def _finish_write(cluster: Cluster, resource: Resource, obj: dict[str, Any], dry_run: bool) -> dict[str, Any]:
    if dry_run:
        return obj
    stored = cluster.store.put(resource, meta.shared(obj))
    if resource.plural in RECONCILE_KINDS:
        cluster.controller.reconcile()
    return stored


def _generate_name(cluster: Cluster, resource: Resource, namespace: str, metadata: dict[str, Any]) -> None:
    if metadata.get("name") or not metadata.get("generateName"):
        return
    for _ in range(20):
        candidate = metadata["generateName"] + meta.suffix()
        if cluster.store.get(resource, namespace, candidate) is None:
            metadata["name"] = candidate
            return
    raise errors.ApiError(409, "AlreadyExists", "could not generate a unique name")


# ---------------------------------------------------------------- create


def create(
    cluster: Cluster,
    resource: Resource,
    namespace: str,
    body: Any,
    query: Query,
    operation: str = "Update",
) -> dict[str, Any]:
    obj = meta.interned_copy(_require_object(body))
    _check_kind(resource, obj)
    _check_fields(resource, obj, query)
    dry_run = query.dry_run
    metadata = obj.get("metadata")
    if metadata is None:
        metadata = obj["metadata"] = {}
    if not isinstance(metadata, dict):
        raise errors.bad_request("metadata must be an object")
    if resource.namespaced:
        if metadata.get("namespace") and metadata["namespace"] != namespace:
            raise errors.bad_request(
                "the namespace of the provided object does not match the namespace sent on the request"
            )
        metadata["namespace"] = namespace
    else:
        metadata.pop("namespace", None)
    if metadata.get("resourceVersion"):
        raise errors.bad_request("resourceVersion should not be set on objects to be created")
    for transient in (
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "generation",
        "managedFields",
        "selfLink",
    ):
        metadata.pop(transient, None)
    with cluster.store.lock:
        _ensure_namespace(cluster, resource, namespace)
        _generate_name(cluster, resource, namespace, metadata)
        validation.apply_defaults(resource, obj)
        validation.validate(resource, obj)
        if cluster.store.get(resource, namespace, metadata["name"]) is not None:
            raise errors.already_exists(resource, metadata["name"])
        meta.stamp_new(resource, obj)
        _initial_status(cluster, resource, obj)
        if resource is SERVICE:
            _allocate_service(cluster, obj, None)
        if resource is JOB:
            _default_job_selector(obj)
        obj["metadata"]["managedFields"] = managed_fields.record(
            None, obj, query.manager, operation, resource.api_version
        )
        return _finish_write(cluster, resource, obj, dry_run)


def _default_job_selector(job: dict[str, Any]) -> None:
    spec = job["spec"]
    if spec.get("manualSelector"):
        return
    uid, name = job["metadata"]["uid"], job["metadata"]["name"]
    labels = {
        "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": name,
        "controller-uid": uid,
        "job-name": name,
    }
    spec["selector"] = {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    template_meta = spec.setdefault("template", {}).setdefault("metadata", {})
    template_meta["labels"] = {**(template_meta.get("labels") or {}), **labels}


# ---------------------------------------------------------------- update (PUT and the result of PATCH)


def _check_update_body(resource: Resource, namespace: str, name: str, obj: dict[str, Any]) -> dict[str, Any]:
    _check_kind(resource, obj)
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict):
        raise errors.bad_request("metadata must be an object")
    if metadata.get("name") and metadata["name"] != name:
        raise errors.bad_request(
            f"the name of the object ({metadata['name']}) does not match the name on the URL ({name})"
        )
    if resource.namespaced and metadata.get("namespace") and metadata["namespace"] != namespace:
        raise errors.bad_request(
            "the namespace of the provided object does not match the namespace sent on the request"
        )
    return metadata


def _update(
    cluster: Cluster,
    resource: Resource,
    existing: dict[str, Any],
    obj: dict[str, Any],
    subresource: str,
    dry_run: bool,
    writer: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """Write ``obj`` over ``existing`` with the API server's rules for status and immutable fields;
    ``writer`` (field manager, operation) is recorded in managedFields for what it changed."""
    name, namespace = existing["metadata"]["name"], existing["metadata"].get("namespace", "")
    metadata = _check_update_body(resource, namespace, name, obj)
    sent_rv = metadata.get("resourceVersion")
    if sent_rv and sent_rv != existing["metadata"]["resourceVersion"]:
        raise errors.conflict(resource, name)
    if subresource == "status":
        new = {**existing, "status": obj.get("status") or {}}
        new["metadata"] = {**existing["metadata"]}
    else:
        new = meta.interned_copy(obj)
        new["metadata"] = {**metadata}
        for fixed in ("uid", "creationTimestamp", "generation", "deletionTimestamp"):
            if fixed in existing["metadata"]:
                new["metadata"][fixed] = existing["metadata"][fixed]
            else:
                new["metadata"].pop(fixed, None)
        new["metadata"]["name"] = name
        if resource.namespaced:
            new["metadata"]["namespace"] = namespace
        new["apiVersion"], new["kind"] = resource.api_version, resource.kind
        if resource.has_status:
            new["status"] = existing.get("status", {})
        elif "status" not in new and "status" in existing:
            new["status"] = existing["status"]
        validation.apply_defaults(resource, new)
        if resource is JOB:
            old_selector = (existing.get("spec") or {}).get("selector")
            if not new.get("spec", {}).get("selector") and not new["spec"].get("manualSelector"):
                # A replace that leaves out the generated selector keeps it, and the labels it matches.
                new["spec"]["selector"] = old_selector
                template_meta = new["spec"].setdefault("template", {}).setdefault("metadata", {})
                template_meta["labels"] = {
                    **(template_meta.get("labels") or {}),
                    **((existing["spec"].get("template") or {}).get("metadata") or {}).get("labels", {}),
                }
        validation.validate(resource, new)
        validation.validate_update(resource, existing, new)
        if resource.generation and new.get("spec") != existing.get("spec"):
            new["metadata"]["generation"] = existing["metadata"].get("generation", 1) + 1
        if resource is SERVICE:
            _allocate_service(cluster, new, existing)
    new["metadata"].pop("resourceVersion", None)
    new["metadata"]["resourceVersion"] = existing["metadata"]["resourceVersion"]
    # The server keeps managedFields itself: what a client sends back (kubectl edit does) is ignored.
    new["metadata"].pop("managedFields", None)
    if "managedFields" in existing["metadata"]:
        new["metadata"]["managedFields"] = existing["metadata"]["managedFields"]
    if new == existing:
        return existing
    if writer is not None and subresource != "status":
        new["metadata"]["managedFields"] = managed_fields.record(
            existing, new, writer[0], writer[1], resource.api_version
        )
    return _finish_write(cluster, resource, new, dry_run)


def replace(
    cluster: Cluster, resource: Resource, namespace: str, name: str, subresource: str, body: Any, query: Query
) -> dict[str, Any]:
    obj = _require_object(body)
    dry_run = query.dry_run
    with cluster.store.lock:
        existing = get(cluster, resource, namespace, name)
        if subresource == "scale":
            return _update_scale(cluster, resource, existing, obj, dry_run, query.manager)
        if not subresource:
            _check_fields(resource, obj, query)
        return _update(cluster, resource, existing, obj, subresource, dry_run, (query.manager, "Update"))


# ---------------------------------------------------------------- scale


def scale_of(resource: Resource, obj: dict[str, Any]) -> dict[str, Any]:
    try:
        selector = format_requirements(
            requirements_from_label_selector((obj.get("spec") or {}).get("selector"))
        )
    except SelectorError:
        selector = ""
    metadata = {
        k: obj["metadata"][k]
        for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
        if k in obj["metadata"]
    }
    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": metadata,
        "spec": {"replicas": (obj.get("spec") or {}).get("replicas", 1)},
        "status": {"replicas": (obj.get("status") or {}).get("replicas", 0), "selector": selector},
    }


def _update_scale(
    cluster: Cluster,
    resource: Resource,
    existing: dict[str, Any],
    scale: dict[str, Any],
    dry_run: bool,
    manager: str = "",
) -> dict[str, Any]:
    name = existing["metadata"]["name"]
    sent_rv = (scale.get("metadata") or {}).get("resourceVersion")
    if sent_rv and sent_rv != existing["metadata"]["resourceVersion"]:
        raise errors.conflict(resource, name)
    replicas = (scale.get("spec") or {}).get("replicas", 0)
    if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0:
        raise errors.invalid(
            resource,
            name,
            [
                (
                    "spec.replicas",
                    "FieldValueInvalid",
                    f"Invalid value: {replicas}: must be greater than or equal to 0",
                )
            ],
        )
    if replicas == existing["spec"].get("replicas"):
        return scale_of(resource, existing)
    new = {
        **existing,
        "spec": {**existing["spec"], "replicas": replicas},
        "metadata": {**existing["metadata"], "generation": existing["metadata"].get("generation", 1) + 1},
    }
    if manager:
        new["metadata"]["managedFields"] = managed_fields.record(
            existing, new, manager, "Update", resource.api_version
        )
    stored = _finish_write(cluster, resource, new, dry_run)
    return scale_of(resource, stored)


# ---------------------------------------------------------------- patch


def patch(
    cluster: Cluster,
    resource: Resource,
    namespace: str,
    name: str,
    subresource: str,
    raw: bytes,
    content_type: str,
    query: Query,
) -> tuple[int, dict[str, Any]]:
    """Returns (HTTP code, object): 201 when an apply patch created the object."""
    kind = content_type.split(";")[0].strip().lower()
    if kind not in (JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH, APPLY_PATCH):
        raise errors.unsupported_media_type(content_type)
    body = parse_body(raw, kind)
    if body is None:
        raise errors.bad_request("the patch body is empty")
    dry_run = query.dry_run
    with cluster.store.lock:
        existing = cluster.store.get(resource, namespace, name)
        if kind == APPLY_PATCH:
            return _apply(cluster, resource, namespace, name, subresource, existing, body, query)
        if existing is None:
            raise errors.not_found(resource, name)
        current = scale_of(resource, existing) if subresource == "scale" else existing
        try:
            if kind == JSON_PATCH:
                patched = patching.json_patch(current, body)
            elif kind == MERGE_PATCH:
                patched = patching.merge_patch(current, _require_object(body))
            else:
                patched = patching.strategic_merge_patch(current, _require_object(body))
        except patching.PatchError as error:
            raise errors.ApiError(
                422 if kind == JSON_PATCH else 400,
                "Invalid" if kind == JSON_PATCH else "BadRequest",
                str(error),
            ) from None
        if not isinstance(patched, dict):
            raise errors.bad_request("the patch did not produce an object")
        if subresource == "scale":
            return 200, _update_scale(cluster, resource, existing, patched, dry_run, query.manager)
        if not subresource:
            _check_fields(resource, patched, query)
        writer = (query.manager, "Update")
        return 200, _update(cluster, resource, existing, patched, subresource, dry_run, writer)


def _apply(
    cluster: Cluster,
    resource: Resource,
    namespace: str,
    name: str,
    subresource: str,
    existing: dict[str, Any] | None,
    body: Any,
    query: Query,
) -> tuple[int, dict[str, Any]]:
    """Server-side apply: strategic merge of the applied "
    "config, dropping what this manager no longer applies."""
    config = _require_object(body)
    manager = query.get("fieldManager")
    if not manager:
        raise errors.bad_request("PATCH, application/apply-patch+yaml requires fieldManager to be set")
    if not config.get("apiVersion") or not config.get("kind"):
        raise errors.bad_request("apply patches must set apiVersion and kind")
    if subresource == "scale":
        if existing is None:
            raise errors.not_found(resource, name)
        return 200, _update_scale(cluster, resource, existing, config, query.dry_run, manager)
    if not subresource:
        _check_fields(resource, config, query)
    key = (resource, namespace, name, manager)
    if existing is None:
        if subresource:
            raise errors.not_found(resource, name)
        metadata = config.setdefault("metadata", {})
        metadata.setdefault("name", name)
        created = create(cluster, resource, namespace, config, query, operation="Apply")
        if not query.dry_run:
            cluster.applied[key] = copy.deepcopy(config)
        return 201, created
    previous = cluster.applied.get(key, {})
    try:
        merged = patching.strategic_merge_patch(existing, patching.removal_patch(previous, config))
        merged = patching.strategic_merge_patch(merged, config)
    except patching.PatchError as error:
        raise errors.bad_request(str(error)) from None
    # A new metadata dict: the merge shares what the config did not touch with the stored object.
    sent_rv = (config.get("metadata") or {}).get("resourceVersion")
    merged["metadata"] = {
        **merged["metadata"],
        "resourceVersion": sent_rv or existing["metadata"]["resourceVersion"],
    }
    result = _update(cluster, resource, existing, merged, subresource, query.dry_run, (manager, "Apply"))
    if not query.dry_run:
        cluster.applied[key] = copy.deepcopy(config)
    return 200, result


# ---------------------------------------------------------------- delete


def _delete_options(body: Any, query: Query) -> dict[str, Any]:
    options = dict(body) if isinstance(body, dict) else {}
    for key in ("propagationPolicy", "gracePeriodSeconds"):
        if query.get(key):
            options[key] = query.get(key)
    policy = options.get("propagationPolicy") or "Background"
    if policy not in ("Background", "Foreground", "Orphan"):
        raise errors.bad_request(
            f'propagationPolicy: Unsupported value: "{policy}": '
            'supported values: "Foreground", "Background", "Orphan"'
        )
    if options.get("orphanDependents") is True:
        policy = "Orphan"
    options["propagationPolicy"] = policy
    return options


def _dependents(cluster: Cluster, owner: dict[str, Any]) -> list[tuple[Resource, dict[str, Any]]]:
    return cluster.store.owned_by(owner["metadata"]["uid"])


def _remove(cluster: Cluster, resource: Resource, obj: dict[str, Any], policy: str) -> dict[str, Any]:
    namespace, name = obj["metadata"].get("namespace", ""), obj["metadata"]["name"]
    if resource is NAMESPACE:
        for other in STORED:
            if other.namespaced:
                for child in list(cluster.store.iter(other, name)):
                    cluster.store.remove(other, name, child["metadata"]["name"])
    else:
        for dep_resource, dependent in _dependents(cluster, obj):
            if policy == "Orphan":
                refs = [
                    r
                    for r in dependent["metadata"].get("ownerReferences") or []
                    if r.get("uid") != obj["metadata"]["uid"]
                ]
                new_meta = {**dependent["metadata"], "ownerReferences": refs}
                if not refs:
                    new_meta.pop("ownerReferences")
                cluster.store.put(dep_resource, {**dependent, "metadata": new_meta})
            else:
                _remove(cluster, dep_resource, dependent, policy)
    for key in [k for k in cluster.applied if k[0] is resource and k[1] == namespace and k[2] == name]:
        del cluster.applied[key]
    return cluster.store.remove(resource, namespace, name) or obj


def _success(resource: Resource, obj: dict[str, Any]) -> dict[str, Any]:
    details = {
        "name": obj["metadata"]["name"],
        "kind": resource.plural,
        "uid": obj["metadata"].get("uid", ""),
    }
    if resource.group:
        details["group"] = resource.group
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": details}


def delete(
    cluster: Cluster, resource: Resource, namespace: str, name: str, body: Any, query: Query
) -> dict[str, Any]:
    options = _delete_options(body, query)
    dry_run = query.dry_run or options.get("dryRun") == ["All"]
    with cluster.store.lock:
        existing = get(cluster, resource, namespace, name)
        preconditions = options.get("preconditions") or {}
        if preconditions.get("uid") and preconditions["uid"] != existing["metadata"].get("uid"):
            raise errors.ApiError(
                409,
                "Conflict",
                f"Precondition failed: UID in precondition: {preconditions['uid']}, "
                f"UID in object meta: {existing['metadata'].get('uid')}",
            )
        if (
            preconditions.get("resourceVersion")
            and preconditions["resourceVersion"] != existing["metadata"]["resourceVersion"]
        ):
            raise errors.ApiError(
                409,
                "Conflict",
                f"Precondition failed: ResourceVersion in precondition: {preconditions['resourceVersion']}, "
                f"ResourceVersion in object meta: {existing['metadata']['resourceVersion']}",
            )
        if resource is NAMESPACE and name in PROTECTED_NAMESPACES:
            raise errors.forbidden(NAMESPACE, name, "this namespace may not be deleted")
        if dry_run:
            return _success(resource, existing)
        gone = _remove(cluster, resource, existing, options["propagationPolicy"])
        if resource.plural in RECONCILE_KINDS:
            cluster.controller.reconcile()
    if resource is NAMESPACE:
        return {
            **gone,
            "metadata": {**gone["metadata"], "deletionTimestamp": meta.now()},
            "status": {"phase": "Terminating"},
        }
    if resource in (POD, SERVICE):
        # Their registries return the deleted object (ReturnDeletedObject), which clients decode as one.
        grace = (options.get("gracePeriodSeconds") or 30) if resource is POD else None
        metadata = {**gone["metadata"], "deletionTimestamp": meta.now()}
        if grace is not None:
            metadata["deletionGracePeriodSeconds"] = int(grace)
        return {**gone, "metadata": metadata}
    return _success(resource, gone)


def evict(cluster: Cluster, namespace: str, name: str, body: Any, query: Query) -> dict[str, Any]:
    """policy/v1 Eviction, as ``kubectl drain`` sends it: with no disruption budgets, it deletes the pod."""
    if body is not None:
        _require_object(body)
        if (body.get("metadata") or {}).get("name") not in (None, name):
            raise errors.bad_request("name in URL does not match name in Eviction object")
    delete(cluster, POD, namespace, name, (body or {}).get("deleteOptions"), query)
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}


def delete_collection(
    cluster: Cluster, resource: Resource, namespace: str | None, body: Any, query: Query
) -> dict[str, Any]:
    if "deletecollection" not in resource.verbs:
        raise errors.method_not_allowed("DELETE")
    options = _delete_options(body, query)
    matches = matcher(query, namespace)
    with cluster.store.lock:
        doomed = [o for o in cluster.store.list(resource, namespace) if matches(o)]
        rv = cluster.store.rv
        if not query.dry_run:
            for obj in doomed:
                if (
                    cluster.store.get(resource, obj["metadata"].get("namespace", ""), obj["metadata"]["name"])
                    is not None
                ):
                    _remove(cluster, resource, obj, options["propagationPolicy"])
            if resource.plural in RECONCILE_KINDS and doomed:
                cluster.controller.reconcile()
    kind = f"{resource.kind}List"
    return {
        "kind": kind,
        "apiVersion": resource.api_version,
        "metadata": {"resourceVersion": str(rv)},
        "items": doomed,
    }
