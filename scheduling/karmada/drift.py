"""Drift of a member copy, pure: where the live copy differs from the manifest we apply, leaving out what
the member owns (status, bookkeeping metadata, defaults it fills), and which field manager set each
differing field, read from the live copy's managedFields."""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from typing import Any

import yaml

# Metadata the API server writes itself; never ours to compare.
MEMBER_METADATA = frozenset(
    "uid resourceVersion generation creationTimestamp deletionTimestamp deletionGracePeriodSeconds "
    "managedFields selfLink ownerReferences finalizers".split()
)
MERGE_KEYS = ("name", "containerPort", "port", "mountPath", "type")
HIDDEN = "(hidden)"


class _Missing:
    def __repr__(self) -> str:
        return "<absent>"


MISSING: Any = _Missing()


@dataclass(frozen=True)
class Difference:
    """One field that differs: its path for people, its FieldsV1 path, our value and the member's."""

    path: str
    fields_path: tuple[str, ...]
    desired: Any
    live: Any
    managers: tuple[str, ...] = field(default=())

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "desired": None if self.desired is MISSING else self.desired,
            "live": None if self.live is MISSING else self.live,
            "absentInLive": self.live is MISSING,
            "absentInDesired": self.desired is MISSING,
            "managers": list(self.managers),
        }


def _merge_key(items: list[Any]) -> str | None:
    """The key a list's items are matched by, when every item is a map carrying it."""
    if not items or not all(isinstance(item, dict) for item in items):
        return None
    for key in MERGE_KEYS:
        if all(key in item for item in items):
            return key
    return None


def _fields_item(item: dict[str, Any], key: str) -> str:
    fields = {key: item[key]}
    if key in ("containerPort", "port") and "protocol" in item:
        fields["protocol"] = item["protocol"]
    return "k:" + json.dumps(fields, separators=(",", ":"), sort_keys=True)


def _walk(desired: Any, live: Any, path: str, fields_path: tuple[str, ...], found: list[Difference]) -> None:
    if isinstance(desired, dict) and isinstance(live, dict):
        for key, value in desired.items():
            if not path and key == "status":
                continue
            if path == "metadata" and key in MEMBER_METADATA:
                continue
            inner = f"{path}.{key}" if path else key
            if key not in live:
                found.append(Difference(inner, (*fields_path, f"f:{key}"), value, MISSING))
            else:
                _walk(value, live[key], inner, (*fields_path, f"f:{key}"), found)
        return
    if isinstance(desired, list) and isinstance(live, list):
        key = _merge_key(desired) if desired else _merge_key(live)
        if key and _merge_key(live) == key:
            by_key = {item[key]: item for item in live}
            wanted = {item[key] for item in desired}
            for item in desired:
                inner = f"{path}[{key}={item[key]}]"
                where = (*fields_path, _fields_item(item, key))
                if item[key] not in by_key:
                    found.append(Difference(inner, where, item, MISSING))
                else:
                    _walk(item, by_key[item[key]], inner, where, found)
            for item in live:
                if item[key] not in wanted:
                    where = (*fields_path, _fields_item(item, key))
                    found.append(Difference(f"{path}[{key}={item[key]}]", where, MISSING, item))
            return
        if len(desired) == len(live) and all(isinstance(item, dict) for item in desired):
            for index, (want, have) in enumerate(zip(desired, live, strict=True)):
                _walk(want, have, f"{path}[{index}]", fields_path, found)
            return
        if not _subset(desired, live):
            found.append(Difference(path, fields_path, desired, live))
        return
    if desired != live:
        found.append(Difference(path, fields_path, desired, live))


def _subset(desired: Any, live: Any) -> bool:
    if isinstance(desired, dict):
        return isinstance(live, dict) and all(k in live and _subset(v, live[k]) for k, v in desired.items())
    if isinstance(desired, list):
        return isinstance(live, list) and len(desired) == len(live) and all(map(_subset, desired, live))
    return bool(desired == live)


def _owns(fields: dict[str, Any], fields_path: tuple[str, ...]) -> bool:
    if not fields:
        return False
    node: dict[str, Any] | None = fields
    for part in fields_path:
        if node == {}:
            return True  # an atomic field above this one is owned whole
        node = node.get(part) if node is not None else None
        if node is None:
            return False
    return True


def owners(live: dict[str, Any], fields_path: tuple[str, ...]) -> tuple[str, ...]:
    """The managers whose managedFields hold the field (or an atomic field above it)."""
    entries = (live.get("metadata") or {}).get("managedFields") or []
    return tuple(
        sorted({str(e.get("manager") or "") for e in entries if _owns(e.get("fieldsV1") or {}, fields_path)})
    )


def differences(desired: dict[str, Any], live: dict[str, Any]) -> list[Difference]:
    """Every field of ours the live copy does not hold as we set it, with the managers that set it."""
    found: list[Difference] = []
    _walk(desired, live, "", (), found)
    secret = desired.get("kind") == "Secret"
    shown = []
    for diff in found:
        managers = owners(live, diff.fields_path)
        desired_value, live_value = diff.desired, diff.live
        if secret and diff.path.split(".")[0].split("[")[0] in ("data", "stringData"):
            desired_value = HIDDEN if desired_value is not MISSING else MISSING
            live_value = HIDDEN if live_value is not MISSING else MISSING
        shown.append(Difference(diff.path, diff.fields_path, desired_value, live_value, managers))
    return shown


def _project(desired: Any, live: Any) -> Any:
    """The live value cut to the shape of ours, so that a diff shows only what we set."""
    if isinstance(desired, dict) and isinstance(live, dict):
        return {key: _project(value, live[key]) for key, value in desired.items() if key in live}
    if isinstance(desired, list) and isinstance(live, list):
        key = _merge_key(desired)
        if key and _merge_key(live) == key:
            # Ours in our order, then what only the member has: order alone is no drift.
            by_key = {item[key]: item for item in live}
            ours = [_project(item, by_key[item[key]]) for item in desired if item[key] in by_key]
            wanted = {item[key] for item in desired}
            return ours + [item for item in live if item[key] not in wanted]
        if len(desired) == len(live):
            return [_project(want, have) for want, have in zip(desired, live, strict=True)]
    return live


def masked(manifest: dict[str, Any]) -> dict[str, Any]:
    """A manifest fit to show: a Secret's values hidden."""
    if manifest.get("kind") != "Secret":
        return manifest
    shown = dict(manifest)
    for key in ("data", "stringData"):
        if isinstance(shown.get(key), dict):
            shown[key] = {name: HIDDEN for name in shown[key]}
    return shown


def comparable(manifest: dict[str, Any]) -> dict[str, Any]:
    """Ours without what the member owns, for display beside the live copy."""
    body = {k: v for k, v in manifest.items() if k != "status"}
    body["metadata"] = {k: v for k, v in (manifest.get("metadata") or {}).items() if k not in MEMBER_METADATA}
    return body


def unified_diff(desired: dict[str, Any], live: dict[str, Any], cluster: str = "member") -> str:
    """A unified diff of our manifest against the live copy cut to the fields we set (Secrets masked)."""
    ours = masked(comparable(desired))
    theirs = masked(comparable(_project(comparable(desired), live)))
    lines = difflib.unified_diff(
        yaml.safe_dump(ours, sort_keys=True).splitlines(),
        yaml.safe_dump(theirs, sort_keys=True).splitlines(),
        fromfile="karmada-ui",
        tofile=cluster,
        lineterm="",
    )
    return "\n".join(lines)
