"""fieldValidation on writes: unknown fields of a Karmada kind refused (Strict), warned of (Warn, the
default) or let through (Ignore), each named by its path, as the API server does for custom resources."""

from __future__ import annotations

from typing import Any

from kubeapi.fieldschemas import SCHEMAS, unknown_fields
from kubeapi.kinds import Kind
from kubeapi.status import ApiError, invalid
from kubesyntax.nul import first_nul

MODES = ("Ignore", "Warn", "Strict")
DEFAULT = "Warn"


def mode_of(params: Any) -> str:
    mode = params.get("fieldValidation", "") or DEFAULT
    if mode not in MODES:
        raise ApiError(
            400,
            f'fieldValidation: Unsupported value: "{mode}": supported values: "Ignore", "Strict", "Warn"',
        )
    return mode


def refuse_nul(kind: Kind, document: Any) -> None:
    """422 naming the first field that holds U+0000: the database cannot keep it (PostgreSQL's jsonb
    refuses the character), so it is refused before anything is written."""
    path = first_nul(document)
    if path is not None:
        name = document.get("metadata", {}).get("name", "") if isinstance(document, dict) else ""
        reason = "Invalid value: must not contain the NUL character (U+0000)"
        raise invalid(kind, str(name or ""), [{"field": path, "reason": reason}])


def checked(kind: Kind, document: Any, mode: str) -> list[str]:
    """The warnings a write of `document` answers with; raises 400 under Strict when a field is unknown."""
    schema = SCHEMAS.get(kind.kind)
    if schema is None or mode == "Ignore" or not isinstance(document, dict):
        return []
    unknown = unknown_fields(document, schema)
    if not unknown:
        return []
    if mode == "Strict":
        shown = ", ".join(f'unknown field "{path}"' for path in unknown)
        raise ApiError(
            400,
            f'{kind.kind} in version "{kind.version}" cannot be handled as a {kind.kind}: '
            f"strict decoding error: {shown}",
            causes=[
                {"reason": "FieldValueInvalid", "field": path, "message": "unknown field"} for path in unknown
            ],
        )
    return [f'unknown field "{path}"' for path in unknown]


def warning_header(warnings: list[str]) -> str:
    """RFC 7234 Warning values, code 299 as the API server sends them (kubectl prints each)."""
    return ", ".join('299 - "{}"'.format(w.replace("\\", "\\\\").replace('"', '\\"')) for w in warnings)
