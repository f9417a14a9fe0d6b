"""The verbs on objects of one kind: get, list, create, update, patch, delete, with dry runs."""

from __future__ import annotations

import secrets
import string
from typing import Any

from django.db import transaction
from django.db.models import Q

from kubeapi import selection, versions
from kubeapi.handling import as_api_error
from kubeapi.kinds import Kind
from kubeapi.status import ApiError, not_found, success

GENERATED_SUFFIX = 5


class DryRun(Exception):
    def __init__(self, answer: Any) -> None:
        self.answer = answer


def dry_run_of(params: Any) -> bool:
    return dry_run_values(params.getlist("dryRun"))


def dry_run_values(values: Any) -> bool:
    if not isinstance(values, list) or any(v != "All" for v in values):
        raise ApiError(400, f"dryRun: unsupported value {values!r}; only All is supported")
    return bool(values)


def resource_name(kind: Kind) -> str:
    return f"{kind.plural}.{kind.group}" if kind.group else kind.plural


def rows_in(kind: Kind, namespace: str) -> Any:
    rows = kind.store.rows()
    if namespace and kind.store.namespace_field:
        rows = rows.filter(**{kind.store.namespace_field: namespace})
    order = [kind.store.namespace_field, kind.store.name_field] if kind.store.namespace_field else ["name"]
    return rows.order_by(*order)


def get_row(kind: Kind, namespace: str, name: str) -> Any:
    row = kind.store.find(namespace, name)
    if row is None:
        raise not_found(kind, name)
    return row


def _key(kind: Kind, row: Any) -> tuple[str, str]:
    namespace = getattr(row, kind.store.namespace_field) if kind.store.namespace_field else ""
    return namespace, getattr(row, kind.store.name_field)


def list_objects(kind: Kind, namespace: str, params: Any) -> dict[str, Any]:
    """A page of the kind's objects that match the selectors, in key order, with a continue token."""
    query = selection.query(params)
    limit = selection.limit_of(params)
    list_version = versions.current()
    rows = rows_in(kind, namespace)
    token = params.get("continue", "")
    if token:
        list_version, (after_ns, after_name) = selection.decode_continue(token)
        if kind.store.namespace_field:
            ns_field, name_field = kind.store.namespace_field, kind.store.name_field
            rows = rows.filter(
                Q(**{f"{ns_field}__gt": after_ns})
                | Q(**{ns_field: after_ns, f"{name_field}__gt": after_name})
            )
        else:
            rows = rows.filter(**{f"{kind.store.name_field}__gt": after_name})
    items: list[dict[str, Any]] = []
    more = False
    last: tuple[str, str] = ("", "")
    for row in rows.iterator(chunk_size=500):
        document = kind.store.document(row)
        if not query.matches(document):
            continue
        if limit and len(items) == limit:
            more = True
            break
        items.append(document)
        last = _key(kind, row)
    metadata: dict[str, Any] = {"resourceVersion": str(list_version)}
    if more:
        metadata["continue"] = selection.encode_continue(list_version, last)
    return {"kind": f"{kind.kind}List", "apiVersion": kind.api_version, "metadata": metadata, "items": items}


def _checked_body(kind: Kind, body: Any, namespace: str, name: str = "") -> dict[str, Any]:
    if not isinstance(body, dict):
        raise ApiError(400, "the request body must be a Kubernetes object")
    if (
        body.get("apiVersion", kind.api_version) != kind.api_version
        or body.get("kind", kind.kind) != kind.kind
    ):
        raise ApiError(
            400,
            f"the object is a {body.get('apiVersion')}, Kind={body.get('kind')}, "
            f"but this path serves {kind.api_version}, Kind={kind.kind}",
        )
    body = {**body, "apiVersion": kind.api_version, "kind": kind.kind}
    metadata = body.get("metadata")
    if not isinstance(metadata, dict):
        raise ApiError(422, "metadata: Required value: the object needs metadata with a name", "Invalid")
    metadata = dict(metadata)
    if not metadata.get("name") and metadata.get("generateName") and not name:
        alphabet = string.ascii_lowercase + string.digits
        suffix = "".join(secrets.choice(alphabet) for _ in range(GENERATED_SUFFIX))
        metadata["name"] = f"{metadata['generateName']}{suffix}"
    if name and metadata.get("name", name) != name:
        raise ApiError(
            400,
            f"the name of the object ({metadata.get('name')}) does not match the name on the URL ({name})",
        )
    if name:
        metadata["name"] = name
    if not metadata.get("name"):
        raise ApiError(422, "metadata.name: Required value: name or generateName is required", "Invalid")
    if kind.namespaced:
        if metadata.get("namespace") and metadata["namespace"] != namespace:
            raise ApiError(
                400, "the namespace of the provided object does not match the namespace sent on the request"
            )
        metadata["namespace"] = namespace
    else:
        metadata.pop("namespace", None)
    body["metadata"] = metadata
    return body


def _write(kind: Kind, dry_run: bool, name: str, action: Any) -> dict[str, Any]:
    """Run a write in one transaction; a dry run answers the same and rolls it back."""
    try:
        with transaction.atomic():
            row = action()
            fresh = kind.store.rows().filter(pk=row.pk).first() if row is not None else None
            answer = kind.store.document(fresh) if fresh is not None else None
            if dry_run:
                raise DryRun(answer)
    except DryRun as done:
        return done.answer
    except ApiError:
        raise
    except Exception as exc:
        raise as_api_error(exc, f'{kind.kind} "{name}"') from exc
    return answer or {}


def create(kind: Kind, namespace: str, body: Any, user: Any, dry_run: bool) -> dict[str, Any]:
    if kind.namespaced and not namespace:
        raise ApiError(405, f"create {kind.plural} in a namespace: /namespaces/NAME/{kind.plural}")
    document = _checked_body(kind, body, namespace)
    name = document["metadata"]["name"]
    if kind.store.find(namespace, name) is not None:
        raise ApiError(
            409,
            f'{resource_name(kind)} "{name}" already exists',
            "AlreadyExists",
            details={"name": name, "group": kind.group, "kind": kind.plural},
        )
    return _write(kind, dry_run, name, lambda: kind.store.create(document, user))


def stale(kind: Kind, name: str) -> ApiError:
    return ApiError(
        409,
        f'Operation cannot be fulfilled on {resource_name(kind)} "{name}": the object has been modified; '
        "please apply your changes to the latest version and try again",
        "Conflict",
        details={"name": name, "group": kind.group, "kind": kind.plural},
    )


def replace(
    kind: Kind, namespace: str, name: str, body: Any, user: Any, dry_run: bool, status: bool = False
) -> dict[str, Any]:
    """PUT: the whole object; 409 when its resourceVersion is not the stored one."""
    row = get_row(kind, namespace, name)
    document = _checked_body(kind, body, namespace, name)
    sent = str(document["metadata"].get("resourceVersion") or "")
    if sent and sent != str(kind.store.version(row)):
        raise stale(kind, name)
    if status:
        return _write(kind, dry_run, name, lambda: kind.store.replace_status(row, document, user))
    return _write(kind, dry_run, name, lambda: kind.store.replace(row, document, user))


def delete(
    kind: Kind, namespace: str, name: str, user: Any, dry_run: bool, propagation: str
) -> dict[str, Any]:
    if propagation not in ("", "Foreground", "Background", "Orphan"):
        raise ApiError(400, f"propagationPolicy: {propagation!r} is not Foreground, Background or Orphan")
    row = get_row(kind, namespace, name)
    details = {
        "name": name,
        "group": kind.group,
        "kind": kind.plural,
        "uid": kind.store.document(row)["metadata"]["uid"],
    }

    def action() -> None:
        kind.store.delete(row, user, propagation or "Background")
        return None

    _write(kind, dry_run, name, action)
    return success(details)
