"""Test support for the REST API: read the one error shape as {field: [reason, ...]}."""

from __future__ import annotations

from typing import Any


def problems(response: Any) -> dict[str, list[str]]:
    """The refusal's problems by field ("" for the input as a whole), checking the shape on the way."""
    body = response.json()
    assert {"code", "detail", "field", "reason", "errors"} <= body.keys(), body
    assert body["errors"] and (body["field"], body["reason"]) == (
        body["errors"][0]["field"],
        body["errors"][0]["reason"],
    ), body
    found: dict[str, list[str]] = {}
    for problem in body["errors"]:
        found.setdefault(problem["field"], []).append(problem["reason"])
    return found
