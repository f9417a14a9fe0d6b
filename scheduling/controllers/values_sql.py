"""A `VALUES` list of rows for one PostgreSQL statement that updates many rows from them."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any


def values_list(casts: Sequence[str], rows: Iterable[Sequence[Any]]) -> tuple[str, list[Any]]:
    """`(%s::bigint, %s::jsonb, …), …` for the rows (one placeholder per cast) and their parameters in
    order, a value for a `jsonb` column given as JSON text; only placeholders are interpolated."""
    row = "(" + ", ".join(f"%s::{cast}" for cast in casts) + ")"
    params: list[Any] = []
    count = 0
    for values in rows:
        count += 1
        params += [json.dumps(v) if cast == "jsonb" else v for cast, v in zip(casts, values, strict=True)]
    return ", ".join([row] * count), params
