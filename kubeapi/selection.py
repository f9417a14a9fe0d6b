"""Which objects a list or watch answers: label and field selectors, and limit/continue pages."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db.models import Q

from kubeapi import versions
from kubeapi.status import ApiError
from kubesyntax.selector_text import parse_selector
from kubesyntax.selectors import DOES_NOT_EXIST, DOUBLE_EQUALS, EQUALS, EXISTS, IN, Selector, SelectorError

FIELD_PATHS = ("metadata.name", "metadata.namespace")
# The domain of the labels Karmada's controllers put on objects (and our documents add when answering).
SERVER_LABELS = "karmada.io/"


def label_selector(text: str) -> Selector:
    try:
        return parse_selector(text)
    except SelectorError as exc:
        raise ApiError(400, f"unable to parse requirement: {exc}") from None


FieldTest = tuple[str, str, bool]  # (name or namespace, the value, equal or not)


def field_tests(text: str) -> tuple[FieldTest, ...]:
    """metadata.name and metadata.namespace with =, == and != (what kubectl and controllers send)."""
    tests: list[FieldTest] = []
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
    return tuple(tests)


def field_selector(text: str) -> Callable[[dict[str, Any]], bool]:
    tests = field_tests(text)

    def matches(document: dict[str, Any]) -> bool:
        metadata = document.get("metadata") or {}
        return all((str(metadata.get(key) or "") == value) == equal for key, value, equal in tests)

    return matches


def _usable_key(key: str) -> bool:
    # a JSON path lookup would read `a__b` as two steps and a number as a list index
    return "__" not in key and not key.isdigit()


def database_filter(
    query: Query,
    labels_field: str | None,
    name_field: str,
    namespace_field: str | None,
) -> Q:
    """What the database can select of a query, so a list reads only candidate rows (the documents are
    still matched in full): label equality, set membership and existence on the stored labels, and
    metadata.name/namespace equality. Karmada's labels, which the server adds to the documents it
    answers (permanent ids, claims), are left to the full match."""
    condition = Q()
    if labels_field:
        for requirement in query.labels.requirements:
            key = requirement.key
            if SERVER_LABELS in key or not _usable_key(key):
                continue
            lookup = f"{labels_field}__{key}"
            if requirement.operator in (EQUALS, DOUBLE_EQUALS, IN):
                condition &= Q(**{f"{lookup}__in": list(requirement.values)})
            elif requirement.operator == EXISTS:
                condition &= Q(**{f"{labels_field}__has_key": key})
            elif requirement.operator == DOES_NOT_EXIST:
                condition &= ~Q(**{f"{labels_field}__has_key": key})
    for key, value, equal in query.field_tests:
        column = name_field if key == "name" else namespace_field
        if column and equal:
            condition &= Q(**{column: value})
    return condition


@dataclass(frozen=True)
class Query:
    labels: Selector
    fields: Callable[[dict[str, Any]], bool]
    field_tests: tuple[FieldTest, ...] = ()

    def matches(self, document: dict[str, Any]) -> bool:
        labels = (document.get("metadata") or {}).get("labels") or {}
        return self.labels.matches(labels) and self.fields(document)


def query(params: Any) -> Query:
    text = params.get("fieldSelector", "")
    return Query(label_selector(params.get("labelSelector", "")), field_selector(text), field_tests(text))


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
