"""The models' JSONField reads what Django's reads, with orjson, and migrations see Django's field."""

from __future__ import annotations

import json

from django.db import models

from core.json_field import JSONField, has_long_number


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


def test_a_run_of_nineteen_ascii_digits_is_found_wherever_it_is_and_nothing_shorter():
    assert has_long_number(b'{"n": 1234567890123456789}')
    assert has_long_number(b"[-12345678901234567890]")
    assert has_long_number('{"id": "\u00e9"} 1234567890123456789'.encode())
    assert not has_long_number(b'{"n": 123456789012345678, "t": "2026-12-06T20:21:33Z"}')
    assert not has_long_number(b"12345678 9012345678901")  # two runs, neither long enough
    # digits of other scripts are not JSON numbers: text of them stays with orjson
    assert not has_long_number("\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669\u0660".encode() * 2)


def test_text_beyond_ascii_reads_as_it_was_written():
    field = JSONField()
    value = {"message": "d\u00e9ploy\u00e9 \u2713 \U0001f680", "n": 18446744073709551615}
    assert field.from_db_value(json.dumps(value, ensure_ascii=False), None, None) == value
    assert field.from_db_value(json.dumps(value), None, None) == value


def test_migrations_name_djangos_own_field():
    _, path, args, kwargs = JSONField(default=dict, blank=True).deconstruct()
    assert path == "django.db.models.JSONField"
    assert models.JSONField(default=dict, blank=True).deconstruct()[1:] == (path, args, kwargs)
