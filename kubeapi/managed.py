"""managedFields kept per object: read for answers (one query per page), written with each write."""

from __future__ import annotations

from typing import Any

from kubeapi.kinds import Kind
from kubeapi.models import ManagedFields


def _key(kind: Kind) -> str:
    return f"{kind.group}/{kind.kind}"


def entries(kind: Kind, namespace: str, name: str) -> list[dict[str, Any]]:
    found = (
        ManagedFields.objects.filter(kind_key=_key(kind), namespace=namespace, name=name)
        .values_list("entries", flat=True)
        .first()
    )
    return list(found or [])


def by_object(kind: Kind, namespace: str = "") -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Every object's entries of a kind (in one namespace when given), by (namespace, name)."""
    rows = ManagedFields.objects.filter(kind_key=_key(kind))
    if namespace:
        rows = rows.filter(namespace=namespace)
    return {(ns, name): list(e) for ns, name, e in rows.values_list("namespace", "name", "entries")}


def _identity(document: dict[str, Any]) -> tuple[str, str]:
    metadata = document.get("metadata") or {}
    return str(metadata.get("namespace") or ""), str(metadata.get("name") or "")


def attach(
    kind: Kind,
    documents: list[dict[str, Any]],
    known: dict[tuple[str, str], list[dict[str, Any]]] | None = None,
) -> None:
    """Set metadata.managedFields on each document that has some (looked up once for them all)."""
    if not documents:
        return
    if known is None:
        known = _of(kind, [_identity(d) for d in documents])
    for document in documents:
        found = known.get(_identity(document))
        if found:
            document.setdefault("metadata", {})["managedFields"] = found


def _of(kind: Kind, identities: list[tuple[str, str]]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The entries of these objects only (a page of a list, not the whole kind): one query."""
    wanted = set(identities)
    rows = ManagedFields.objects.filter(
        kind_key=_key(kind),
        namespace__in={ns for ns, _ in wanted},
        name__in={name for _, name in wanted},
    ).values_list("namespace", "name", "entries")
    return {(ns, name): list(e) for ns, name, e in rows if (ns, name) in wanted}


def save(kind: Kind, namespace: str, name: str, new: list[dict[str, Any]]) -> None:
    if not new:
        ManagedFields.objects.filter(kind_key=_key(kind), namespace=namespace, name=name).delete()
        return
    ManagedFields.objects.update_or_create(
        kind_key=_key(kind), namespace=namespace, name=name, defaults={"entries": new}
    )


def forget(kind_key: str, namespace: str, name: str) -> None:
    """An object went away: its managers go with it (a new object of that name starts with none)."""
    ManagedFields.objects.filter(kind_key=kind_key, namespace=namespace, name=name).delete()
