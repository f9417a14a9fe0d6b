"""Durations read as Go's time.ParseDuration reads them (its own table), and days for the settings."""

import json
from pathlib import Path

import pytest

from kubesyntax.durations import DurationError, parse_duration, parse_nanoseconds

GO = json.loads((Path(__file__).parent / "data" / "go-durations.json").read_text())


@pytest.mark.parametrize(("text", "nanoseconds"), [(c["in"], c["nanoseconds"]) for c in GO["parses"]])
def test_a_duration_go_accepts_has_the_same_length(text, nanoseconds):
    assert parse_nanoseconds(text) == nanoseconds


@pytest.mark.parametrize("text", GO["refused"])
def test_a_duration_go_refuses_is_refused_with_the_text(text):
    with pytest.raises(DurationError) as caught:
        parse_nanoseconds(text)
    assert repr(text) in str(caught.value)


@pytest.mark.parametrize(("text", "seconds"), [("5m", 300), ("1h30m", 5400), ("90s", 90), ("1.5s", 1.5)])
def test_a_duration_in_seconds(text, seconds):
    assert parse_duration(text) == seconds


def test_days_are_read_only_where_asked_for():
    assert parse_duration("1d1h", days=True) == 90000
    with pytest.raises(DurationError, match="unknown unit 'd'"):
        parse_duration("1d")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("30", "a number without a unit"),
        ("5 minutes", "unknown unit ' minutes'"),
        ("soon", "is not a duration such as 30s, 5m or 1h30m"),
        ("3000000h", "longer than a duration can be"),
    ],
)
def test_a_bad_duration_says_why(text, reason):
    with pytest.raises(DurationError, match=reason):
        parse_duration(text)
