"""The models' JSONField reads what Django's reads, with orjson, and migrations see Django's field."""

from __future__ import annotations

from django.db import models

from core.json_field import JSONField


def test_it_reads_json_as_djangos_field_does():
    field = JSONField()
    assert field.from_db_value('{"a": [1, 2.5, true, null, "x"]}', None, None) == {
        "a": [1, 2.5, True, None, "x"]
    }
    assert field.from_db_value(None, None, None) is None
    assert field.from_db_value('"text"', None, None) == "text"


def test_what_orjson_refuses_is_read_by_the_standard_library_and_what_is_not_json_is_left_as_it_is():
    field = JSONField()
    # integers past 64 bits stay exact integers (orjson would read them as floats)
    big = field.from_db_value('{"n": 1180591620717411303425, "m": -9223372036854775809}', None, None)
    assert big == {"n": 2**70 + 1, "m": -(2**63) - 1}
    assert all(type(v) is int for v in big.values())
    assert field.from_db_value('{"ratio": NaN}', None, None)["ratio"] != 0
    assert field.from_db_value("not json", None, None) == "not json"


def test_migrations_name_djangos_own_field():
    _, path, args, kwargs = JSONField(default=dict, blank=True).deconstruct()
    assert path == "django.db.models.JSONField"
    assert models.JSONField(default=dict, blank=True).deconstruct()[1:] == (path, args, kwargs)
