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


def test_jsonb_text_is_orjsons_and_the_standard_librarys_where_they_would_differ():
    from datetime import UTC, datetime

    from core.json_field import jsonb_text

    class Name(str):
        pass

    plain = {"status": {"readyReplicas": 2, "ratio": 0.25}, "note": "d\u00e9ploy\u00e9", "on": [True, False]}
    assert isinstance(jsonb_text(plain), bytes) and json.loads(jsonb_text(plain)) == plain
    # what orjson would refuse or write otherwise goes to the standard library: the same text as before
    for value in (
        {"n": 2**70},
        {1: "integer key"},
        {"ratio": float("nan")},
        {"cleared": None},
        [Name("subclass")],
        {"lone": "\ud800"},
    ):
        assert jsonb_text(value) == json.dumps(value)
    # and what the standard library refuses, it still refuses
    for refused in ({"at": datetime(2026, 12, 7, tzinfo=UTC)}, {"set": {1}}):
        try:
            jsonb_text(refused)
        except TypeError:
            continue
        raise AssertionError(f"{refused!r} was written")


def test_json_written_through_the_field_reads_back_the_same(db):
    from tests.support.clusters import make_cluster

    status = {
        "message": "d\u00e9ploy\u00e9 \u2713 \U0001f680",
        "big": 2**70 + 1,
        "nested": {"list": [1, 2.5, None, "x"], "empty": {}},
        "quote": 'say "hi"\n',
    }
    cluster = make_cluster(status=status)
    cluster.refresh_from_db()
    assert cluster.status == status and type(cluster.status["big"]) is int
