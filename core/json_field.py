"""The models' JSONField: Django's, its stored JSON read with orjson (several times faster on a Work's
manifest or status), the standard library for what orjson refuses; migrations see Django's own field."""

from __future__ import annotations

import json
import re
from typing import Any

import orjson
from django.db import models
from django.db.models.fields.json import KeyTransform

# orjson reads an integer past 64 bits as a float (a Kubernetes API server's reading, not a database's):
# a column whose text holds a run of 19 digits or more is read by the standard library, exactly
_LONG_NUMBER = re.compile(r"\d{19}")


class OrjsonJSONField(models.JSONField):
    """models.JSONField whose reads decode with orjson when no custom decoder is set."""

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        if value is None or self.decoder is not None:
            return super().from_db_value(value, expression, connection)
        # some backends (SQLite) extract a key's non-string values in their SQL types
        if isinstance(expression, KeyTransform) and not isinstance(value, str):
            return value
        if isinstance(value, str) and not _LONG_NUMBER.search(value):
            try:
                return orjson.loads(value)
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
