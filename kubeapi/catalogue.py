"""Which kinds are served right now: the fixed ones plus every other kind stored as a template."""

from __future__ import annotations

from kubeapi.kinds import Kind, plural_of, served
from kubeapi.stores.templates import TemplateStore
from scheduling.controllers.apply import CLUSTER_SCOPED_KINDS
from scheduling.models import ResourceTemplate


def stored_kinds() -> list[Kind]:
    """Kinds outside the fixed list that templates hold (applied through any door): the generic path."""
    fixed = {(k.group, k.kind) for k in served()}
    seen: dict[tuple[str, str, str], Kind] = {}
    rows = ResourceTemplate.objects.values_list("api_version", "api_group", "kind").distinct()
    for api_version, group, kind in rows:
        version = api_version.rpartition("/")[2]
        if (group, kind) in fixed or (group, version, kind) in seen:
            continue
        namespaced = kind not in CLUSTER_SCOPED_KINDS
        seen[(group, version, kind)] = Kind(
            group, version, kind, plural_of(kind), namespaced, store=TemplateStore(group, kind, namespaced)
        )
    return list(seen.values())


def all_kinds() -> list[Kind]:
    return [*served(), *stored_kinds()]


def find(group: str, version: str, plural: str) -> Kind | None:
    for kind in served():
        if (kind.group, kind.version, kind.plural) == (group, version, plural):
            return kind
    for kind in stored_kinds():
        if (kind.group, kind.version, kind.plural) == (group, version, plural):
            return kind
    return None


def generic(group: str, version: str, plural: str, kind: str, namespaced: bool) -> Kind:
    """A kind first met in a create: its plural from the URL, its name from the body."""
    return Kind(group, version, kind, plural, namespaced, store=TemplateStore(group, kind, namespaced))


def group_versions(kinds: list[Kind]) -> dict[str, list[str]]:
    """{group: [versions, preferred first]}; the core group is ""."""
    out: dict[str, list[str]] = {}
    for kind in kinds:
        versions = out.setdefault(kind.group, [])
        if kind.version not in versions:
            versions.append(kind.version)
    return out
