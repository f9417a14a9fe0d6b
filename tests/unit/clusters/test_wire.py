"""JSON off a member's wire reads as the standard library reads it, and what orjson refuses still reads."""

from __future__ import annotations

import json

import pytest

from clusters.k8s import wire


def test_an_event_reads_as_the_standard_library_reads_it():
    line = (
        b'{"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"\\u00e9","uid":"u"},'
        b'"spec":{"n":[1,2.5,null,true],"big":9223372036854775807}}}'
    )
    assert wire.loads(line) == json.loads(line)
    assert wire.loads(line.decode()) == json.loads(line)


def test_what_the_fast_decoder_refuses_the_standard_library_reads():
    nan = wire.loads(b'{"x": NaN}')["x"]
    assert nan != nan


def test_past_64_bits_an_integer_reads_as_a_float_as_the_api_server_holds_it():
    assert wire.loads(b'{"n": 123456789012345678901234567890}') == {"n": 1.2345678901234568e29}


def test_what_is_not_json_is_a_value_error():
    with pytest.raises(ValueError):
        wire.loads(b'{"type": ')
