"""Which objects a list or watch answers: label and field selectors, and limit/continue pages."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kubeapi import versions
from kubeapi.status import ApiError
from kubesyntax.selector_text import parse_selector
from kubesyntax.selectors import Selector, SelectorError

FIELD_PATHS = ("metadata.name", "metadata.namespace")


def label_selector(text: str) -> Selector:
    try:
        return parse_selector(text)
    except SelectorError as exc:
        raise ApiError(400, f"unable to parse requirement: {exc}") from None


def field_selector(text: str) -> Callable[[dict[str, Any]], bool]:
    """metadata.name and metadata.namespace with =, == and != (what kubectl and controllers send)."""
    tests: list[tuple[str, str, bool]] = []
    for term in filter(None, (t.strip() for t in (text or "").split(","))):
        operator = next((op for op in ("!=", "==", "=") if op in term), None)
        if operator is None:
            raise ApiError(400, f'invalid field selector: "{term}": expected field=value or field!=value')
        path, _, value = term.partition(operator)
        equal = operator != "!="
        if path.strip() not in FIELD_PATHS:
            raise ApiError(
                400,
                f"field label not supported: {path.strip()} (supported: {', '.join(FIELD_PATHS)})",
            )
        tests.append((path.strip().partition(".")[2], value.strip(), equal))

    def matches(document: dict[str, Any]) -> bool:
        metadata = document.get("metadata") or {}
        return all((str(metadata.get(key) or "") == value) == equal for key, value, equal in tests)

    return matches


@dataclass(frozen=True)
class Query:
    labels: Selector
    fields: Callable[[dict[str, Any]], bool]

    def matches(self, document: dict[str, Any]) -> bool:
        labels = (document.get("metadata") or {}).get("labels") or {}
        return self.labels.matches(labels) and self.fields(document)


def query(params: Any) -> Query:
    return Query(
        label_selector(params.get("labelSelector", "")), field_selector(params.get("fieldSelector", ""))
    )


def encode_continue(version: int, after: tuple[str, str]) -> str:
    raw = json.dumps({"rv": version, "after": list(after)}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_continue(token: str) -> tuple[int, tuple[str, str]]:
    """(the list's resourceVersion, the last key answered); 400 when malformed, 410 when too old."""
    try:
        data = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        version, after = int(data["rv"]), (str(data["after"][0]), str(data["after"][1]))
    except (ValueError, KeyError, TypeError, IndexError):
        raise ApiError(400, "continue key is not valid") from None
    if version < versions.oldest_watchable():
        raise ApiError(
            410,
            "The provided continue parameter is too old to display a consistent list result. "
            "You can start a new list without the continue parameter.",
            "Expired",
        )
    return version, after


def limit_of(params: Any) -> int:
    text = params.get("limit", "")
    if not text:
        return 0
    if not text.isdigit():
        raise ApiError(400, f"limit: must be a non-negative integer, not {text!r}")
    return int(text)
