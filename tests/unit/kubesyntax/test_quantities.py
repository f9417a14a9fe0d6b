"""Quantities parse exactly, and amounts format as Kubernetes and Karmada write them."""

from fractions import Fraction

import pytest

from kubesyntax.quantities import QuantityError, milli_units, quantity_amount, whole_units
from kubesyntax.resources import format_resource


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
    assert quantity_amount(text) == value


@pytest.mark.parametrize("text", ["", "abc", "1KB", "1 Gi", "Gi", "--1", None, True, [], "1.2.3"])
def test_malformed_quantities_are_refused(text):
    with pytest.raises(QuantityError):
        quantity_amount(text)


def test_whole_and_milli_units_round_up_like_kubernetes():
    assert whole_units(quantity_amount("1500m")) == 2
    assert milli_units(quantity_amount("0.0001")) == 1
    assert milli_units(quantity_amount("250m")) == 250


def test_amounts_format_as_karmada_writes_a_resource_list():
    assert format_resource("cpu", quantity_amount("250m")) == "250m"
    assert format_resource("cpu", quantity_amount("2")) == "2"
    assert format_resource("cpu", quantity_amount("1.0001")) == "1001m"
    assert format_resource("memory", quantity_amount("1Gi")) == "1Gi"
    assert format_resource("memory", quantity_amount("1.5Gi")) == "1536Mi"
    assert format_resource("memory", quantity_amount("1025")) == "1025"
    # Kubernetes writes a binary amount under 1024 in decimal SI, so 1000 bytes are 1k.
    assert format_resource("memory", quantity_amount("1000")) == "1k"
    assert format_resource("hugepages-2Mi", quantity_amount("4Mi")) == "4Mi"
    assert format_resource("nvidia.com/gpu", quantity_amount("2")) == "2"
