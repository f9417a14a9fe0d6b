"""kubesyntax's quantities agree with Kubernetes' own tables (k8s.io/apimachinery/pkg/api/resource).

Transcribed as data from quantity_test.go: TestQuantityParse (each input with the amount as
mantissa and power of ten, and the format it keeps; then the inputs it refuses), TestQuantityString
(a quantity's canonical form, and another spelling that canonicalises to it) and TestQuantityParseEmit.
"""

from fractions import Fraction

import pytest

from kubesyntax.quantities import (
    BINARY_SI,
    DECIMAL_EXPONENT,
    DECIMAL_SI,
    QuantityError,
    canonical,
    parse_quantity,
)

SI, BIN, EXP = DECIMAL_SI, BINARY_SI, DECIMAL_EXPONENT
MAX = 2**63 - 1

# TestQuantityParse: (input, mantissa, power of ten, format).
PARSES = [
    ("0", 0, 0, SI),
    ("0n", 0, 0, SI),
    ("0u", 0, 0, SI),
    ("0m", 0, 0, SI),
    ("0Ki", 0, 0, BIN),
    ("0k", 0, 0, SI),
    ("0Mi", 0, 0, BIN),
    ("0M", 0, 0, SI),
    ("0Gi", 0, 0, BIN),
    ("0G", 0, 0, SI),
    ("0Ti", 0, 0, BIN),
    ("0T", 0, 0, SI),
    ("1", 1, 0, SI),
    ("1Ki", 1024, 0, BIN),
    ("8Ki", 8 * 1024, 0, BIN),
    ("7Mi", 7 * 2**20, 0, BIN),
    ("6Gi", 6 * 2**30, 0, BIN),
    ("5Ti", 5 * 2**40, 0, BIN),
    ("4Pi", 4 * 2**50, 0, BIN),
    ("3Ei", 3 * 2**60, 0, BIN),
    ("10Ti", 10 * 2**40, 0, BIN),
    ("100Ti", 100 * 2**40, 0, BIN),
    ("5n", 5, -9, SI),
    ("4u", 4, -6, SI),
    ("3m", 3, -3, SI),
    ("9", 9, 0, SI),
    ("8k", 8, 3, SI),
    ("50k", 5, 4, SI),
    ("7M", 7, 6, SI),
    ("6G", 6, 9, SI),
    ("5T", 5, 12, SI),
    ("40T", 4, 13, SI),
    ("300T", 3, 14, SI),
    ("2P", 2, 15, SI),
    ("1E", 1, 18, SI),
    ("1E-3", 1, -3, EXP),
    ("1e3", 1, 3, EXP),
    ("1E6", 1, 6, EXP),
    ("1e9", 1, 9, EXP),
    ("1E12", 1, 12, EXP),
    ("1e15", 1, 15, EXP),
    ("1E18", 1, 18, EXP),
    ("1e14", 1, 14, EXP),
    ("1e13", 1, 13, EXP),
    ("100.035k", 100035, 0, SI),
    ("0.001", 1, -3, SI),
    ("0.0005k", 5, -1, SI),
    ("0.005", 5, -3, SI),
    ("0.05", 5, -2, SI),
    ("0.5", 5, -1, SI),
    ("0.00050k", 5, -1, SI),
    ("0.00500", 5, -3, SI),
    ("0.05000", 5, -2, SI),
    ("0.50000", 5, -1, SI),
    ("0.5e0", 5, -1, EXP),
    ("0.5e-1", 5, -2, EXP),
    ("0.5e-2", 5, -3, EXP),
    ("10.035M", 10035, 3, SI),
    ("1.2e3", 12, 2, EXP),
    ("1.3E+6", 13, 5, EXP),
    ("1.40e9", 14, 8, EXP),
    ("1.53E12", 153, 10, EXP),
    ("1.6e15", 16, 14, EXP),
    ("1.7E18", 17, 17, EXP),
    ("9.01", 901, -2, SI),
    ("8.1k", 81, 2, SI),
    ("7.123456M", 7123456, 0, SI),
    ("6.987654321G", 6987654321, 0, SI),
    ("5.444T", 5444, 9, SI),
    ("40.1T", 401, 11, SI),
    ("300.2T", 3002, 11, SI),
    ("2.5P", 25, 14, SI),
    ("1.01E", 101, 16, SI),
    ("3.001n", 4, -9, SI),
    ("1.1E-9", 2, -9, EXP),
    ("0.0000000001", 1, -9, SI),
    ("0.0000000005", 1, -9, SI),
    ("0.00000000050", 1, -9, SI),
    ("0.5e-9", 1, -9, EXP),
    ("0.9n", 1, -9, SI),
    ("0.00000012345", 124, -9, SI),
    ("0.00000012354", 124, -9, SI),
    ("9Ei", MAX, 0, BIN),
    ("9223372036854775807Ki", MAX, 0, BIN),
    ("12E", 12, 18, SI),
    ("100.035Ki", 10243584, -2, BIN),
    ("0.5Mi", 2**19, 0, BIN),
    ("0.05Gi", 536870912, -1, BIN),
    ("0.025Ti", 274877906944, -1, BIN),
    ("0.000000000001Ki", 2, -9, SI),
    (".001", 1, -3, SI),
    (".0001k", 100, -3, SI),
    ("1.", 1, 0, SI),
    ("1.G", 1, 9, SI),
]

# TestQuantityParse: refused (trailing and leading spaces too).
REFUSED = ["", "1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-", " 1", "1 "]

# TestQuantityString: (mantissa, power of ten, format, canonical form, another spelling of it or "").
CANONICAL = [
    (2**30, 0, BIN, "1Gi", "1024Mi"),
    (300 * 2**20, 0, BIN, "300Mi", "307200Ki"),
    (6 * 1024, 0, BIN, "6Ki", ""),
    (1001 * 2**30, 0, BIN, "1001Gi", "1025024Mi"),
    (2**40, 0, BIN, "1Ti", "1024Gi"),
    (5, 0, BIN, "5", "5000m"),
    (500, -3, BIN, "500m", "0.5"),
    (1, 9, SI, "1G", "1000M"),
    (1000, 6, SI, "1G", "0.001T"),
    (1000000, 3, SI, "1G", ""),
    (1000000000, 0, SI, "1G", ""),
    (1, -3, SI, "1m", "1000u"),
    (80, -3, SI, "80m", ""),
    (1080, -3, SI, "1080m", "1.08"),
    (108, -2, SI, "1080m", "1080000000n"),
    (10800, -4, SI, "1080m", ""),
    (300, 6, SI, "300M", ""),
    (1, 12, SI, "1T", ""),
    (1234567, 6, SI, "1234567M", ""),
    (1234567, -3, BIN, "1234567m", ""),
    (3, 3, SI, "3k", ""),
    (1025, 0, BIN, "1025", ""),
    (0, 0, SI, "0", ""),
    (0, 0, BIN, "0", ""),
    (1, 9, EXP, "1e9", ".001e12"),
    (1, -3, EXP, "1e-3", "0.001e0"),
    (1, -9, EXP, "1e-9", "1000e-12"),
    (80, -3, EXP, "80e-3", ""),
    (300, 6, EXP, "300e6", ""),
    (1, 12, EXP, "1e12", ""),
    (1, 3, EXP, "1e3", ""),
    (3, 3, EXP, "3e3", ""),
    (3, 3, SI, "3k", ""),
    (0, 0, EXP, "0", "00"),
    (1, -9, SI, "1n", ""),
    (80, -9, SI, "80n", ""),
    (1080, -9, SI, "1080n", ""),
    (108, -8, SI, "1080n", ""),
    (10800, -10, SI, "1080n", ""),
    (1, -6, SI, "1u", ""),
    (80, -6, SI, "80u", ""),
    (1080, -6, SI, "1080u", ""),
]

# TestQuantityParseEmit: (input, canonical form).
EMITS = [
    ("1Ki", "1Ki"),
    ("1Mi", "1Mi"),
    ("1Gi", "1Gi"),
    ("1024Mi", "1Gi"),
    ("1000M", "1G"),
    (".001Ki", "1024m"),
    (".000001Ki", "1024u"),
    (".000000001Ki", "1024n"),
    (".000000000001Ki", "2n"),
]


def amount(mantissa: int, power: int) -> Fraction:
    return Fraction(mantissa) * Fraction(10) ** power


@pytest.mark.parametrize(("text", "mantissa", "power", "fmt"), PARSES, ids=[row[0] for row in PARSES])
def test_a_quantity_parses_to_the_amount_and_format_kubernetes_finds(text, mantissa, power, fmt):
    for sign, factor in (("", 1), ("+", 1), ("-", -1)):
        parsed = parse_quantity(sign + text)
        assert parsed.amount == factor * amount(mantissa, power)
        assert parsed.format == fmt


@pytest.mark.parametrize("text", REFUSED)
def test_a_quantity_kubernetes_refuses_is_refused(text):
    with pytest.raises(QuantityError, match="not a quantity"):
        parse_quantity(text)


@pytest.mark.parametrize(("mantissa", "power", "fmt", "text", "alternate"), CANONICAL)
def test_canonical_forms_are_the_ones_kubernetes_writes_and_read_back(mantissa, power, fmt, text, alternate):
    assert canonical(amount(mantissa, power), fmt) == text
    if mantissa:
        assert canonical(-amount(mantissa, power), fmt) == "-" + text
    assert str(parse_quantity(text)) == text
    if alternate:
        assert str(parse_quantity(alternate)) == text


@pytest.mark.parametrize(("text", "expected"), EMITS)
def test_a_parsed_quantity_is_written_back_canonically(text, expected):
    assert str(parse_quantity(text)) == expected
    assert str(parse_quantity("-" + text)) == "-" + expected
