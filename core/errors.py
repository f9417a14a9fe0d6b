"""Errors a service raises about its input, with the field and the reason; the API answers them as 4xx."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def field_path(parent: str, key: str) -> str:
    """`spec.replicas`, `zones[0]`, or `labels["location/region"]` for a key that is not a plain name."""
    if key.isdigit() and parent:
        return f"{parent}[{key}]"
    if PLAIN_KEY.match(key):
        return f"{parent}.{key}" if parent else key
    return f"{parent}[{json.dumps(key)}]"


class FieldError(ValueError):
    """Input that cannot be used: the field (a path, "" for the input as a whole) and the reason."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message

    @property
    def reason(self) -> str:
        return self.message

    def problems(self) -> list[dict[str, Any]]:
        """Every problem as {field, reason} (one here; subclasses may carry more, or a document index)."""
        return [{"field": self.field, "reason": self.message}]


class FieldErrors(FieldError):
    """Several field errors found together, e.g. every rule of a form that is broken at once."""

    def __init__(self, errors: Mapping[str, Iterable[str]]) -> None:
        self.errors = {field: [str(m) for m in messages] for field, messages in errors.items()}
        first_field = next(iter(self.errors), "")
        first = self.errors.get(first_field) or [""]
        super().__init__(first_field, first[0])

    def problems(self) -> list[dict[str, Any]]:
        return [{"field": f, "reason": m} for f, messages in self.errors.items() for m in messages]


class Conflict(Exception):
    """The object changed since the caller read it; nothing was written. `extra` goes into the answer."""

    field = ""

    def extra(self) -> dict[str, Any]:
        return {}
