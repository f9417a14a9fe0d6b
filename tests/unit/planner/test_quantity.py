"""Kubernetes quantities parse exactly."""

from fractions import Fraction

import pytest

from scheduling.planner.quantity import (
    QuantityError,
    format_quantity,
    milli_units,
    parse_quantity,
    whole_units,
)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("500m", Fraction(1, 2)),
        ("2", Fraction(2)),
        ("1.5", Fraction(3, 2)),
        ("1k", Fraction(1000)),
        ("1Ki", Fraction(1024)),
        ("1Mi", Fraction(2**20)),
        ("1.5Gi", Fraction(3 * 2**29)),
        ("2Ti", Fraction(2 * 2**40)),
        ("3M", Fraction(3 * 10**6)),
        ("4G", Fraction(4 * 10**9)),
        ("1T", Fraction(10**12)),
        ("2E", Fraction(2 * 10**18)),
        ("1e3", Fraction(1000)),
        ("12E-1", Fraction(6, 5)),
        ("100n", Fraction(1, 10**7)),
        (".5", Fraction(1, 2)),
        ("-1", Fraction(-1)),
        (3, Fraction(3)),
        (0.25, Fraction(1, 4)),
    ],
)
def test_quantity_strings_parse_to_exact_values(text, value):
    assert parse_quantity(text) == value


@pytest.mark.parametrize("text", ["", "abc", "1KB", "1 Gi", "Gi", "--1", None, True, [], "1.2.3"])
def test_malformed_quantities_are_refused(text):
    with pytest.raises(QuantityError):
        parse_quantity(text)


def test_whole_and_milli_units_round_up_like_kubernetes():
    assert whole_units(parse_quantity("1500m")) == 2
    assert milli_units(parse_quantity("0.0001")) == 1
    assert milli_units(parse_quantity("250m")) == 250


def test_quantities_format_for_people():
    assert format_quantity(parse_quantity("250m"), "cpu") == "250m"
    assert format_quantity(parse_quantity("2"), "cpu") == "2"
    assert format_quantity(parse_quantity("1Gi"), "memory") == "1Gi"
    assert format_quantity(parse_quantity("1000"), "memory") == "1000"
