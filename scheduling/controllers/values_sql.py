"""Many rows for one PostgreSQL statement that writes them: a `VALUES` list, or one JSON parameter."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Sequence
from datetime import date, datetime
from typing import Any

from django.db import connection
from django.db.models import Model


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


def json_rows(casts: Sequence[str], rows: Iterable[Sequence[Any]]) -> tuple[str, list[Any]]:
    """What values_list gives, as a subquery over one JSON parameter: `SELECT (e->>0)::bigint,
    (e->1)::jsonb, … FROM json_array_elements(%s::json) AS e`, to be named as a VALUES list is
    (`FROM (…) AS v(id, …)`). The rows are encoded at once, their documents inside them; psycopg
    binds one parameter instead of adapting each value of each row in Python (times in ISO 8601)."""
    columns = ", ".join(
        f"(e->{i})::jsonb" if cast == "jsonb" else f"(e->>{i})::{cast}" for i, cast in enumerate(casts)
    )
    encoded = json.dumps([list(row) for row in rows], default=_json_value)
    # Only element indexes and the caller's casts (type names of its own columns) are interpolated.
    return f"SELECT {columns} FROM json_array_elements(%s::json) AS e", [encoded]  # noqa: S608


def insert_rows(model: type[Model], objs: list[Model], key: str | None, batch_size: int = 500) -> None:
    """Insert new instances of `model` in statements of `batch_size` rows, their ids set from RETURNING
    (matched by `key`, a unique field each instance has a value of), as bulk_create does; with `key`
    None the ids are not read back (rows written and forgotten: events, audit entries). On PostgreSQL
    the rows go as one JSON parameter a statement, read with json_populate_recordset into the table's
    row type: Django's UNNEST insert has psycopg adapt every value of every row, and escape each JSON
    document of a jsonb[] array, in Python (most of a binding's insert). Elsewhere bulk_create."""
    if not objs:
        return
    if connection.vendor != "postgresql":
        model._default_manager.bulk_create(objs, batch_size=batch_size)
        return
    meta = model._meta
    fields = [f for f in meta.concrete_fields if f is not meta.pk]
    quote = connection.ops.quote_name
    table, pk = quote(meta.db_table), quote(meta.pk.column)
    unique = meta.get_field(key) if key else None
    columns = ", ".join(quote(f.column) for f in fields)
    # Only quoted identifiers of the model's own table and columns are interpolated; the rows are the
    # one parameter.
    sql = (
        f"INSERT INTO {table} ({columns}) SELECT {columns} "  # noqa: S608
        f"FROM json_populate_recordset(NULL::{table}, %s::json)"
    )
    if unique is not None:
        sql += f" RETURNING {pk}, {quote(unique.column)}"
    for start in range(0, len(objs), batch_size):
        part = objs[start : start + batch_size]
        rows = [{f.column: _json_value(f.pre_save(obj, add=True)) for f in fields} for obj in part]
        with connection.cursor() as cursor:
            cursor.execute(sql, [json.dumps(rows)])
            if unique is None:
                continue
            ids = {str(found): new_id for new_id, found in cursor.fetchall()}
        for obj in part:
            obj.pk = ids[str(getattr(obj, unique.attname))]
            obj._state.adding, obj._state.db = False, connection.alias


def update_rows(
    model: type[Model], objs: Sequence[Model], fields: Sequence[str], batch_size: int = 500
) -> None:
    """Write these fields of many instances as they are in memory, one statement a batch. On PostgreSQL
    an UPDATE … FROM the rows as one JSON parameter (json_rows): Django's bulk_update builds a CASE per
    field and row, most of its time spent in Python. Elsewhere bulk_update. No field's pre_save runs (an
    auto_now field is set by the caller)."""
    if not objs:
        return
    if connection.vendor != "postgresql":
        model._default_manager.bulk_update(objs, fields, batch_size=batch_size)
        return
    meta = model._meta
    chosen = [meta.get_field(name) for name in fields]
    casts = ["bigint"] + [
        "jsonb" if f.get_internal_type() == "JSONField" else f.cast_db_type(connection) for f in chosen
    ]
    quote = connection.ops.quote_name
    names = [quote(f.column) for f in chosen]
    # a JSON null of a nullable JSON column is written as SQL NULL, as save() writes None
    assigned = ", ".join(
        f"{name} = NULLIF(v.{name}, 'null'::jsonb)"
        if f.get_internal_type() == "JSONField" and f.null
        else f"{name} = v.{name}"
        for f, name in zip(chosen, names, strict=True)
    )
    table, pk = quote(meta.db_table), quote(meta.pk.column)
    for start in range(0, len(objs), batch_size):
        part = objs[start : start + batch_size]
        values, params = json_rows(
            casts, ([obj.pk, *(getattr(obj, f.attname) for f in chosen)] for obj in part)
        )
        # Only quoted identifiers of the model's own table and columns are interpolated; the rows are the
        # one parameter.
        sql = (
            f"UPDATE {table} AS t SET {assigned} "  # noqa: S608
            f"FROM ({values}) AS v({pk}, {', '.join(names)}) WHERE t.{pk} = v.{pk}"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, params)


def _json_value(value: Any) -> Any:
    """A value as PostgreSQL reads it from JSON text: times in ISO 8601, UUIDs as text."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    return value
