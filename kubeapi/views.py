"""The Kubernetes API's endpoints: parse the request, call discovery or one verb, answer JSON."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse

from kubeapi import (
    access_reviews,
    catalogue,
    discovery,
    managed,
    objects,
    openapi,
    ownership,
    patching,
    protobuf,
    tables,
    validation,
    watch,
)
from kubeapi.auth import require
from kubeapi.handling import kube_view
from kubeapi.kinds import Kind
from kubeapi.status import ApiError, json_response

NOT_FOUND = "the server could not find the requested resource"


@kube_view
def version(request: HttpRequest) -> HttpResponse:
    return json_response(discovery.server_version())


@kube_view
def api_root(request: HttpRequest) -> HttpResponse:
    if discovery.wants_aggregated(request.headers.get("Accept", "")):
        body = discovery.aggregated(catalogue.all_kinds(), legacy=True)
        return json_response(body, content_type=discovery.AGGREGATED_TYPE)
    return json_response(discovery.api_versions())


@kube_view
def apis_root(request: HttpRequest) -> HttpResponse:
    kinds = [*catalogue.all_kinds(), access_reviews.KIND]
    if discovery.wants_aggregated(request.headers.get("Accept", "")):
        return json_response(
            discovery.aggregated(kinds, legacy=False), content_type=discovery.AGGREGATED_TYPE
        )
    return json_response(discovery.api_group_list(kinds))


@kube_view
def api_group(request: HttpRequest, group: str) -> HttpResponse:
    body = discovery.api_group(group, [*catalogue.all_kinds(), access_reviews.KIND])
    if body is None:
        raise ApiError(404, NOT_FOUND)
    return json_response(body)


@kube_view
def group_version(request: HttpRequest, version: str, group: str = "") -> HttpResponse:
    body = discovery.resource_list(group, version, [*catalogue.all_kinds(), access_reviews.KIND])
    if body is None:
        raise ApiError(404, NOT_FOUND)
    return json_response(body)


@kube_view
def openapi_v2(request: HttpRequest) -> HttpResponse:
    accept = request.headers.get("Accept", "")
    if "protobuf" in accept and "json" not in accept:
        return HttpResponse(protobuf.empty_openapi_v2(), content_type=protobuf.OPENAPI_V2_TYPE)
    return json_response(openapi.v2(catalogue.all_kinds()))


@kube_view
def openapi_v3_index(request: HttpRequest) -> HttpResponse:
    return json_response(openapi.v3_index(catalogue.all_kinds()))


@kube_view
def openapi_v3(request: HttpRequest, version: str, group: str = "") -> HttpResponse:
    body = openapi.v3(catalogue.all_kinds(), group, version)
    if body is None:
        raise ApiError(404, NOT_FOUND)
    return json_response(body)


def _kind(request: HttpRequest, group: str, version: str, plural: str, namespace: str) -> Kind:
    kind = catalogue.find(group, version, plural)
    if kind is None and request.method == "POST" and not (group == "" and version != "v1"):
        body = patching.parse_body(request.body)
        name = body.get("kind") if isinstance(body, dict) else None
        if isinstance(name, str) and name and catalogue.find(group, version, plural) is None:
            return catalogue.generic(group, version, plural, name, bool(namespace))
    if kind is None:
        raise ApiError(404, NOT_FOUND)
    if namespace and not kind.namespaced:
        raise ApiError(404, NOT_FOUND)
    return kind


def _writer(request: HttpRequest) -> objects.Writer:
    manager = ownership.manager_name(
        request.GET.get("fieldManager", ""), request.headers.get("User-Agent", "")
    )
    return objects.Writer(request.user, manager, validation.mode_of(request.GET))


def _written(body: Any, writer: objects.Writer, status: int = 200) -> HttpResponse:
    """A write's answer, with its warnings (unknown fields under fieldValidation=Warn) as headers."""
    response = json_response(body, status=status)
    if writer.warnings:
        response["Warning"] = validation.warning_header(writer.warnings)
    return response


def _answer(request: HttpRequest, kind: Kind, body: dict[str, Any], status: int = 200) -> HttpResponse:
    if tables.wants_table(request.headers.get("Accept", "")):
        items = body["items"] if "items" in body else [body]
        body = tables.table(kind.kind, items, body.get("metadata") if "items" in body else {})
    return json_response(body, status=status)


@kube_view
def collection(
    request: HttpRequest, plural: str, version: str, group: str = "", namespace: str = ""
) -> HttpResponse:
    kind = _kind(request, group, version, plural, namespace)
    params = request.GET
    if request.method == "GET":
        if params.get("watch") in ("1", "true"):
            require(request.user, group, plural, "watch", namespace=namespace)
            stream = watch.events(kind, namespace, params)
            return StreamingHttpResponse(stream, content_type="application/json")
        require(request.user, group, plural, "list", namespace=namespace)
        return _answer(request, kind, objects.list_objects(kind, namespace, params))
    if request.method == "POST":
        require(request.user, group, plural, "create", namespace=namespace)
        if "create" not in kind.verbs and kind.kind != "Cluster":
            raise ApiError(405, f"{kind.kind} is read-only through this API", "MethodNotAllowed")
        body = patching.parse_body(request.body)
        writer = _writer(request)
        answer = objects.create(kind, namespace, body, writer, objects.dry_run_of(params))
        return _written(answer, writer, status=201)
    raise ApiError(405, f"{request.method} is not allowed on a collection", "MethodNotAllowed")


@kube_view
def item(
    request: HttpRequest,
    plural: str,
    name: str,
    version: str,
    group: str = "",
    namespace: str = "",
    subresource: str = "",
) -> HttpResponse:
    kind = _kind(request, group, version, plural, namespace)
    if subresource and subresource not in kind.subresources:
        raise ApiError(404, NOT_FOUND)
    params = request.GET
    user = request.user
    if request.method == "GET":
        require(user, group, plural, "get", name, namespace)
        document = kind.store.document(objects.get_row(kind, namespace, name))
        managed.attach(kind, [document])
        return _answer(request, kind, document)
    verb = {"PUT": "update", "PATCH": "patch", "DELETE": "delete"}.get(request.method or "")
    if verb is None:
        raise ApiError(405, f"{request.method} is not allowed on an object", "MethodNotAllowed")
    require(user, group, plural, verb, name, namespace)
    if verb not in kind.verbs:
        raise ApiError(405, f"{kind.kind} is read-only through this API", "MethodNotAllowed")
    dry_run = objects.dry_run_of(params)
    writer = _writer(request)
    if verb == "delete":
        # kubectl sends its DeleteOptions (dryRun, propagationPolicy) in the body
        options = patching.parse_body(request.body) if request.body else {}
        options = options if isinstance(options, dict) else {}
        dry_run = dry_run or objects.dry_run_values(options.get("dryRun") or [])
        propagation = params.get("propagationPolicy") or options.get("propagationPolicy") or ""
        return json_response(objects.delete(kind, namespace, name, writer, dry_run, str(propagation)))
    if verb == "update":
        body = patching.parse_body(request.body)
        return _written(
            objects.replace(kind, namespace, name, body, writer, dry_run, bool(subresource)), writer
        )
    content_type = (request.content_type or "").split(";")[0]
    force = params.get("force", "")
    if content_type == patching.APPLY_PATCH:
        return _server_side_apply(request, kind, namespace, name, subresource, dry_run)
    if force:
        raise ApiError(
            422,
            "force: Forbidden: may not be specified for non-apply patch",
            "Invalid",
            causes=[{"reason": "FieldValueForbidden", "field": "force", "message": "only for apply patches"}],
        )
    current = kind.store.document(objects.get_row(kind, namespace, name))
    managed.attach(kind, [current])
    result = patching.patched(current, content_type, request.body, kind.builtin)
    return _written(
        objects.replace(kind, namespace, name, result, writer, dry_run, bool(subresource)), writer
    )


def _server_side_apply(
    request: HttpRequest, kind: Kind, namespace: str, name: str, subresource: str, dry_run: bool
) -> HttpResponse:
    manager = request.GET.get("fieldManager", "")
    if not manager:
        raise ApiError(
            422,
            'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: '
            "is required for apply patch",
            "Invalid",
            causes=[{"reason": "FieldValueRequired", "field": "fieldManager", "message": "Required value"}],
        )
    force = request.GET.get("force", "") in ("true", "1")
    config = objects.apply_body(request.body)
    writer = objects.Writer(
        request.user, ownership.manager_name(manager, ""), validation.mode_of(request.GET)
    )
    answer = objects.apply(
        kind, namespace, name, config, writer, dry_run, force=force, subresource=subresource
    )
    return _written(answer, writer)


@kube_view
def self_subject_access_review(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        raise ApiError(405, "create a SelfSubjectAccessReview with POST", "MethodNotAllowed")
    if (request.content_type or "").startswith(protobuf.KUBE_PROTOBUF):
        body = protobuf.access_review_from_protobuf(request.body)
    else:
        body = patching.parse_body(request.body)
    return json_response(access_reviews.review(request.user, body), status=201)
