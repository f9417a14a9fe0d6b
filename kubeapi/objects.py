"""The verbs on objects of one kind: get, list, create, update, patch, delete, with dry runs."""

from __future__ import annotations

import json
import secrets
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from core import useryaml
from kubeapi import managed, ownership, selection, validation, versions
from kubeapi.handling import as_api_error
from kubeapi.kinds import Kind
from kubeapi.status import ApiError, not_found, success

GENERATED_SUFFIX = 5


@dataclass(frozen=True)
class Writer:
    """Who writes: the user (for roles and the audit), the field manager (for managedFields), and the
    fieldValidation asked for; the warnings the write answers with are collected here."""

    user: Any
    manager: str
    field_validation: str = validation.DEFAULT
    warnings: list[str] = field(default_factory=list)

    def validate(self, kind: Kind, document: Any) -> None:
        validation.refuse_nul(kind, document)
        self.warnings.extend(validation.checked(kind, document, self.field_validation))


# A write's answer becomes the managedFields to keep, given the stored object.
Tracker = Callable[[dict[str, Any]], list[dict[str, Any]]]


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
    store = kind.store
    rows = rows_in(kind, namespace).filter(
        selection.database_filter(query, store.labels_field, store.name_field, store.namespace_field)
    )
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
    managed.attach(kind, items)
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


def _write(
    kind: Kind,
    dry_run: bool,
    name: str,
    action: Any,
    track: Tracker | None = None,
    stored_version: str = "",
) -> dict[str, Any]:
    """Run a write in one transaction, keeping the managedFields `track` gives for the stored object;
    a dry run answers the same and rolls it back, with the resourceVersion the object still has
    (`stored_version`: nothing was stored, so `kubectl diff` shows no resourceVersion change)."""
    try:
        with transaction.atomic():
            row = action()
            fresh = kind.store.rows().filter(pk=row.pk).first() if row is not None else None
            answer = kind.store.document(fresh) if fresh is not None else None
            if answer is not None and track is not None:
                kept = track(answer)
                managed.save(kind, *_key(kind, fresh), kept)
                if kept:
                    answer["metadata"]["managedFields"] = kept
            if dry_run:
                if answer is not None and stored_version:
                    answer["metadata"]["resourceVersion"] = stored_version
                raise DryRun(answer)
    except DryRun as done:
        return done.answer
    except ApiError:
        raise
    except Exception as exc:
        raise as_api_error(exc, f'{kind.kind} "{name}"') from exc
    return answer or {}


def _tracked_update(
    kind: Kind, before: dict[str, Any] | None, manager: str, subresource: str, base: list[dict[str, Any]]
) -> Tracker:
    now = timezone.now()

    def track(after: dict[str, Any]) -> list[dict[str, Any]]:
        return ownership.update(
            base,
            before,
            after,
            manager=manager,
            api_version=kind.api_version,
            keyed=kind.builtin,
            subresource=subresource,
            now=now,
        )

    return track


def create(kind: Kind, namespace: str, body: Any, writer: Writer, dry_run: bool) -> dict[str, Any]:
    if kind.namespaced and not namespace:
        raise ApiError(405, f"create {kind.plural} in a namespace: /namespaces/NAME/{kind.plural}")
    document = _checked_body(kind, body, namespace)
    writer.validate(kind, document)
    name = document["metadata"]["name"]
    if kind.store.find(namespace, name) is not None:
        raise ApiError(
            409,
            f'{resource_name(kind)} "{name}" already exists',
            "AlreadyExists",
            details={"name": name, "group": kind.group, "kind": kind.plural},
        )
    track = _tracked_update(kind, None, writer.manager, "", [])
    return _write(kind, dry_run, name, lambda: kind.store.create(document, writer.user), track)


def stale(kind: Kind, name: str) -> ApiError:
    return ApiError(
        409,
        f'Operation cannot be fulfilled on {resource_name(kind)} "{name}": the object has been modified; '
        "please apply your changes to the latest version and try again",
        "Conflict",
        details={"name": name, "group": kind.group, "kind": kind.plural},
    )


def replace(
    kind: Kind, namespace: str, name: str, body: Any, writer: Writer, dry_run: bool, status: bool = False
) -> dict[str, Any]:
    """PUT (and a patch's result): the whole object; 409 when its resourceVersion is not the stored
    one. managedFields the client sent, when they differ from the kept ones, replace them (as kubectl
    does when it moves a client-side apply to server-side)."""
    row = get_row(kind, namespace, name)
    document = _checked_body(kind, body, namespace, name)
    writer.validate(kind, document)
    sent = str(document["metadata"].get("resourceVersion") or "")
    if sent and sent != str(kind.store.version(row)):
        raise stale(kind, name)
    kept = managed.entries(kind, namespace, name)
    given = ownership.valid_entries(document["metadata"].get("managedFields"))
    base = given if given is not None and given != kept else kept
    track = _tracked_update(kind, kind.store.document(row), writer.manager, "status" if status else "", base)
    user = writer.user
    version = str(kind.store.version(row))
    if status:
        return _write(
            kind, dry_run, name, lambda: kind.store.replace_status(row, document, user), track, version
        )
    return _write(kind, dry_run, name, lambda: kind.store.replace(row, document, user), track, version)


def apply_body(raw: bytes) -> Any:
    """An apply configuration: JSON (what kubectl sends) or YAML."""
    try:
        return json.loads(raw or b"null")
    except (ValueError, UnicodeDecodeError):
        pass
    try:
        return useryaml.load(raw)
    except (yaml.YAMLError, UnicodeDecodeError, ValueError):
        raise ApiError(400, "the apply configuration is neither JSON nor YAML") from None


def apply(
    kind: Kind,
    namespace: str,
    name: str,
    config: Any,
    writer: Writer,
    dry_run: bool,
    *,
    force: bool,
    subresource: str = "",
) -> dict[str, Any]:
    """Server-side apply: create the object from the configuration, or merge it into the stored one
    with the fields' ownership checked (409 on a conflict unless forced) and kept."""
    document = _checked_body(kind, config, namespace, name)
    writer.validate(kind, document)
    if document["metadata"].get("managedFields") is not None:
        raise ApiError(
            422,
            "metadata.managedFields: Invalid value: must be nil in an apply configuration",
            "Invalid",
            causes=[
                {"reason": "FieldValueInvalid", "field": "metadata.managedFields", "message": "must be nil"}
            ],
        )
    row = kind.store.find(namespace, name)
    options: dict[str, Any] = {"manager": writer.manager, "keyed": kind.builtin, "subresource": subresource}
    live: dict[str, Any] | None = None
    kept: list[dict[str, Any]] = []
    if row is None:
        if subresource or "create" not in kind.verbs:
            raise not_found(kind, name)
        action: Callable[[], Any] = lambda: kind.store.create(document, writer.user)  # noqa: E731
    else:
        live = kind.store.document(row)
        sent = str(document["metadata"].get("resourceVersion") or "")
        if sent and sent != str(kind.store.version(row)):
            raise stale(kind, name)
        kept = managed.entries(kind, namespace, name)
        result = ownership.merged(kept, live, document, **options)
        store = kind.store
        if subresource:
            action = lambda: store.replace_status(row, result, writer.user)  # noqa: E731
        else:
            action = lambda: store.replace(row, result, writer.user)  # noqa: E731
    now = timezone.now()

    def track(stored: dict[str, Any]) -> list[dict[str, Any]]:
        # after the write, so a value the server defaults is no change; a conflict rolls it back
        return ownership.applied(
            kept, live, stored, document, api_version=kind.api_version, force=force, now=now, **options
        )

    return _write(
        kind, dry_run, name, action, track, str(live["metadata"]["resourceVersion"]) if live else ""
    )


def delete(
    kind: Kind, namespace: str, name: str, writer: Writer, dry_run: bool, propagation: str
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
        kind.store.delete(row, writer.user, propagation or "Background")
        return None

    _write(kind, dry_run, name, action)
    return success(details)
