"""Who owns which field: managedFields after an Update (PUT, PATCH, create) or an Apply (server-side).

An Update gives its manager every field it set or changed and takes them from the others. An Apply
owns exactly the fields of its configuration: a field another manager owns that the apply would change
is a conflict (409, each field and its manager, as the API server answers) unless forced, when the
field moves to the applier; a field the applier applied before and no longer does is removed from the
object unless another manager still owns it. A manager left with no fields is dropped. kubectl's own
server-side apply (manager `kubectl`) takes over, without a conflict, the fields its client-side apply
recorded in the last-applied annotation that still hold their live value, as the API server allows.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from kubeapi.fieldsets import ITEM, Path, display, from_fields_v1, leaves, remove, to_fields_v1
from kubeapi.patching import merge_patch, strategic_merge
from kubeapi.status import ApiError

APPLY = "Apply"
# Only kubectl's own server-side apply takes over what its client-side apply set (the API server's rule)
KUBECTL = "kubectl"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
UPDATE = "Update"
MISSING = object()
MAX_MANAGER = 128


def manager_name(field_manager: str, user_agent: str) -> str:
    """The manager of a write: the fieldManager parameter, else the User-Agent's product name."""
    name = field_manager or user_agent.split("/", 1)[0].strip() or "unknown"
    return name[:MAX_MANAGER]


def valid_entries(value: Any) -> list[dict[str, Any]] | None:
    """managedFields a client sent, when they are a list of entries with a manager; else None."""
    if not isinstance(value, list):
        return None
    if not all(isinstance(e, dict) and isinstance(e.get("manager"), str) for e in value):
        return None
    return [dict(e) for e in value]


def _owned(entry: dict[str, Any]) -> set[Path]:
    return from_fields_v1(entry.get("fieldsV1"))


def _same(entry: dict[str, Any], manager: str, operation: str, subresource: str) -> bool:
    return (
        entry.get("manager") == manager
        and entry.get("operation") == operation
        and (entry.get("subresource") or "") == subresource
    )


def _entry(
    manager: str, operation: str, api_version: str, subresource: str, paths: set[Path], now: datetime
) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "manager": manager,
        "operation": operation,
        "apiVersion": api_version,
        "time": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "fieldsType": "FieldsV1",
        "fieldsV1": to_fields_v1(paths),
    }
    if subresource:
        entry["subresource"] = subresource
    return entry


def _with(entry: dict[str, Any], paths: set[Path]) -> dict[str, Any]:
    return {**entry, "fieldsV1": to_fields_v1(paths)}


def _present(document: dict[str, Any], keyed: bool) -> dict[str, set[Path]]:
    return {sub: set(leaves(document, keyed, sub)) for sub in ("", "status")}


def update(
    entries: list[dict[str, Any]],
    before: dict[str, Any] | None,
    after: dict[str, Any],
    *,
    manager: str,
    api_version: str,
    keyed: bool,
    subresource: str,
    now: datetime,
) -> list[dict[str, Any]]:
    """managedFields once `manager` wrote `after` over `before` (None for a create)."""
    old = leaves(before, keyed, subresource) if before else {}
    new = leaves(after, keyed, subresource)
    touched = {path for path, value in new.items() if old.get(path, MISSING) != value}
    present = _present(after, keyed)
    out: list[dict[str, Any]] = []
    mine: set[Path] = set()
    for entry in entries:
        sub = entry.get("subresource") or ""
        owned = _owned(entry) & present.get(sub, set())
        if _same(entry, manager, UPDATE, subresource):
            mine = owned
            continue
        if sub == subresource:
            owned -= touched
        if owned:
            out.append(_with(entry, owned))
    mine |= touched
    if mine:
        out.append(_entry(manager, UPDATE, api_version, subresource, mine, now))
    return out


def _conflict_message(conflicts: list[tuple[str, Path]], api_version: str) -> str:
    if len(conflicts) == 1:
        manager, path = conflicts[0]
        return f'Apply failed with 1 conflict: conflict with "{manager}" using {api_version}: {display(path)}'
    lines: list[str] = []
    for manager in sorted({m for m, _ in conflicts}):
        lines.append(f'conflicts with "{manager}" using {api_version}:')
        lines += [f"- {display(p)}" for m, p in conflicts if m == manager]
    return f"Apply failed with {len(conflicts)} conflicts: " + "\n".join(lines)


def _prefixes(paths: Iterable[Path]) -> set[Path]:
    return {path[:n] for path in paths for n in range(1, len(path) + 1)}


def _touches(path: Path, changed: set[Path], changed_prefixes: set[Path]) -> bool:
    """`path` is one of `changed`, lies under one, or holds one."""
    return path in changed_prefixes or any(path[:n] in changed for n in range(1, len(path)))


def _conflicts(path: Path, live: dict[Path, Any], changed: set[Path], changed_prefixes: set[Path]) -> bool:
    """Setting `changed` overrules the owner of `path`: the same field, a field inside one changed
    whole, or a value holding a changed field (an atomic list) — not a keyed item whose fields change."""
    if path in changed or any(path[:n] in changed for n in range(1, len(path))):
        return True
    return path in changed_prefixes and live.get(path) is not ITEM


def merged(
    entries: list[dict[str, Any]],
    live: dict[str, Any],
    config: dict[str, Any],
    *,
    manager: str,
    keyed: bool,
    subresource: str,
) -> dict[str, Any]:
    """`live` with `config` merged in, less the fields `manager` applied before and no longer does
    (unless another manager owns them)."""
    result = strategic_merge(live, config) if keyed else merge_patch(live, config)
    applied = set(leaves(config, keyed, subresource))
    previous: set[Path] = set()
    still_owned: set[Path] = set()
    for entry in entries:
        if _same(entry, manager, APPLY, subresource):
            previous = _owned(entry)
        else:
            still_owned |= _owned(entry)
    still_prefixes = _prefixes(still_owned)
    for path in sorted(previous - applied, key=len, reverse=True):
        if not _touches(path, still_owned, still_prefixes):
            remove(result, path)
    return result


def applied(
    entries: list[dict[str, Any]],
    live: dict[str, Any] | None,
    stored: dict[str, Any],
    config: dict[str, Any],
    *,
    manager: str,
    api_version: str,
    keyed: bool,
    subresource: str,
    force: bool,
    now: datetime,
) -> list[dict[str, Any]]:
    """managedFields once `config` was applied and `stored` is what the object became (its defaults
    filled in, so a default is no change); raises a 409 Status naming every field the apply changed
    that another manager owns, unless forced, when those fields move to the applier."""
    mine = set(leaves(config, keyed, subresource))
    entry = _entry(manager, APPLY, api_version, subresource, mine, now)
    if live is None:
        return pruned([entry], stored, keyed)
    before = leaves(live, keyed, subresource)
    after = leaves(stored, keyed, subresource)
    changed = {path for path in mine if before.get(path, MISSING) != after.get(path, MISSING)}
    changed_prefixes = _prefixes(changed)
    others: list[tuple[dict[str, Any], set[Path]]] = []
    conflicts: list[tuple[str, Path]] = []
    for other in entries:
        owned = _owned(other)
        if _same(other, manager, APPLY, subresource):
            continue
        if (other.get("subresource") or "") == subresource:
            lost = {path for path in owned if _conflicts(path, before, changed, changed_prefixes)}
            conflicts += [(str(other.get("manager")), path) for path in sorted(lost)]
            owned -= lost
        others.append((other, owned))
    if conflicts and not force and manager == KUBECTL:
        agreeing = _last_applied_agreeing(live, before, keyed, subresource)
        force = all(path in agreeing for _, path in conflicts)
    if conflicts and not force:
        raise ApiError(
            409,
            _conflict_message(conflicts, api_version),
            "Conflict",
            causes=[
                {
                    "reason": "FieldManagerConflict",
                    "message": f'conflict with "{m}" using {api_version}',
                    "field": display(p),
                }
                for m, p in conflicts
            ],
        )
    return pruned([*(_with(e, owned) for e, owned in others if owned), entry], stored, keyed)


def _last_applied_agreeing(
    live: dict[str, Any], before: dict[Path, Any], keyed: bool, subresource: str
) -> set[Path]:
    """The fields of the object's last-applied-configuration annotation (kubectl's client-side apply)
    that still hold the live value: kubectl's server-side apply takes these over without a conflict,
    as the API server lets `kubectl apply --server-side` follow a client-side `kubectl apply`."""
    text = ((live.get("metadata") or {}).get("annotations") or {}).get(LAST_APPLIED)
    try:
        last = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return set()
    if not isinstance(last, dict):
        return set()
    return {
        path for path, value in leaves(last, keyed, subresource).items() if before.get(path, MISSING) == value
    }


def pruned(entries: list[dict[str, Any]], document: dict[str, Any], keyed: bool) -> list[dict[str, Any]]:
    """Entries cut to the fields the stored object still has; a manager left with none goes."""
    present = _present(document, keyed)
    out = []
    for entry in entries:
        owned = _owned(entry) & present.get(entry.get("subresource") or "", set())
        if owned:
            out.append(_with(entry, owned))
    return out
