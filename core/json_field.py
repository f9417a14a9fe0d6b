"""The models' JSONField: Django's, its JSON read and (into PostgreSQL's jsonb) written with orjson (several
times faster on a Work's manifest or status), the standard library for what orjson refuses; migrations
see Django's own field."""

from __future__ import annotations

import json
from typing import Any

import orjson
from django.db import models
from django.db.models.fields.json import KeyTransform

# orjson reads an integer past 64 bits as a float (a Kubernetes API server's reading, not a database's):
# a column whose text holds a run of 19 digits or more is read by the standard library, exactly. The
# run is looked for in the UTF-8 bytes with every ASCII digit made "0" and every other byte " ": a
# table lookup and a substring search, where a regular expression took several times orjson's own
# time on a 100-cluster binding's aggregated status (bench/results.md).
_DIGITS_ONLY = bytes(0x30 if 0x30 <= byte <= 0x39 else 0x20 for byte in range(256))
_LONG_RUN = b"0" * 19


def has_long_number(raw: bytes) -> bool:
    """Whether this JSON text holds a run of 19 or more ASCII digits (a number orjson may not keep)."""
    return _LONG_RUN in raw.translate(_DIGITS_ONLY)


# What orjson would write differently from the standard library is handed to the latter: a datetime,
# dataclass or subclass of a JSON type (orjson's own encodings), keys that are not strings, integers past
# 64 bits, lone surrogates (orjson refuses them), and NaN or Infinity (orjson writes them as null: so
# any null in its output; PostgreSQL refuses them as before).
_STRICT = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS


def jsonb_text(value: Any) -> bytes | str:
    """`value` as JSON text for a jsonb parameter: orjson's, or the standard library's as above."""
    try:
        text = orjson.dumps(value, option=_STRICT)
    except TypeError:  # orjson.JSONEncodeError is one
        return json.dumps(value)
    return json.dumps(value) if b"null" in text else text


class OrjsonJSONField(models.JSONField):
    """models.JSONField whose reads decode with orjson when no custom decoder is set, and whose writes to
    PostgreSQL encode with it (jsonb keeps the value, not the text: the spacing and escapes differ)."""

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False) -> Any:
        adapted = super().get_db_prep_value(value, connection, prepared)
        if self.encoder is None and connection.vendor == "postgresql" and hasattr(adapted, "dumps"):
            adapted.dumps = jsonb_text  # psycopg's Jsonb, which Django gives the standard library's
        return adapted

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        if value is None or self.decoder is not None:
            return super().from_db_value(value, expression, connection)
        # some backends (SQLite) extract a key's non-string values in their SQL types
        if isinstance(expression, KeyTransform) and not isinstance(value, str):
            return value
        if isinstance(value, str):
            raw = value.encode(errors="surrogatepass")
            if not has_long_number(raw):
                try:
                    return orjson.loads(raw)
                except orjson.JSONDecodeError:  # NaN, Infinity: the standard library reads them
                    pass
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value

    def deconstruct(self) -> tuple[str, str, list[Any], dict[str, Any]]:
        name, _, args, kwargs = super().deconstruct()
        # the same column as Django's field: migrations, old and new, name that one
        return name, "django.db.models.JSONField", args, kwargs


# What the models declare their JSON columns with. Typed Any, as Django's own fields are to this
# project's type checking (Django ships no types): a column's value is whatever JSON it holds.
JSONField: Any = OrjsonJSONField
