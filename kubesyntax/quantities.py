"""Kubernetes resource quantities (`500m`, `1.5Gi`, `1e3`): exact parsing, canonical form, milli-values."""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from fractions import Fraction

DECIMAL_SI, BINARY_SI, DECIMAL_EXPONENT = "DecimalSI", "BinarySI", "DecimalExponent"
BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
SUFFIX_OF_EXPONENT = {exponent: suffix for suffix, exponent in DECIMAL_SUFFIXES.items()}
SUFFIX_OF_POWER = {power // 10: suffix for suffix, power in BINARY_SUFFIXES.items()}
# <signedNumber><suffix> as in the Quantity documentation; the number needs a digit on one side of the dot.
QUANTITY = re.compile(
    r"(?P<sign>[+-]?)(?P<number>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?P<suffix>[A-Za-z]*[+-]?[0-9]*)"
)
EXPONENT = re.compile(r"[eE][+-]?[0-9]+")
# Far beyond any real quantity; keeps exact arithmetic on 10**exponent cheap.
MAX_EXPONENT = 1000
NANO = Fraction(1, 10**9)
MAX_BINARY = 2**63 - 1


class QuantityError(ValueError):
    """A value that is not a Kubernetes quantity."""


@dataclass(frozen=True)
class Quantity:
    """An exact amount and the format it was written in, which its canonical form keeps."""

    amount: Fraction
    format: str = DECIMAL_SI

    def __str__(self) -> str:
        return canonical(self.amount, self.format)


def _suffix(text: str, suffix: str) -> tuple[Fraction, str]:
    """The multiplier and the format a suffix stands for."""
    if suffix in DECIMAL_SUFFIXES:
        return Fraction(10) ** DECIMAL_SUFFIXES[suffix], DECIMAL_SI
    if suffix in BINARY_SUFFIXES:
        return Fraction(2 ** BINARY_SUFFIXES[suffix]), BINARY_SI
    if EXPONENT.fullmatch(suffix):
        exponent = int(suffix[1:])
        if abs(exponent) > MAX_EXPONENT:
            raise QuantityError(f"not a quantity: {text!r} has an exponent out of range")
        return Fraction(10) ** exponent, DECIMAL_EXPONENT
    raise QuantityError(
        f"not a quantity: {text!r} has an unknown suffix {suffix!r} (use one of n, u, m, k, M, G, T, P, E, "
        "Ki, Mi, Gi, Ti, Pi, Ei or an exponent such as e3)"
    )


def parse_quantity(text: str) -> Quantity:
    """Kubernetes' ParseQuantity: no spaces; below 1n rounds up to 1n; binary amounts cap at 2^63-1."""
    if not isinstance(text, str):
        raise QuantityError(f"not a quantity: {text!r}")
    return _parse_text(text)


# A fleet repeats a few quantities ("16", "64Gi", "110") in every node and pod it lists each cycle;
# the result is immutable, so parse each text once (errors are not cached and raise every time).
@functools.lru_cache(maxsize=4096)
def _parse_text(text: str) -> Quantity:
    match = QUANTITY.fullmatch(text)
    if not match:
        raise QuantityError(f"not a quantity: {text!r} (write it as 500m, 2, 1.5Gi or 1e3)")
    multiplier, fmt = _suffix(text, match["suffix"])
    magnitude = Fraction(match["number"]) * multiplier
    # As Kubernetes: any amount asked for is at least 1n, so a tiny request is never zero.
    magnitude = Fraction(math.ceil(magnitude / NANO)) * NANO
    if fmt == BINARY_SI and magnitude > MAX_BINARY:
        magnitude = Fraction(MAX_BINARY)
    if fmt == BINARY_SI and 0 < magnitude < 1:
        fmt = DECIMAL_SI
    return Quantity(-magnitude if match["sign"] == "-" else magnitude, fmt)


def quantity_amount(value: object) -> Fraction:
    """The exact amount of a quantity given as YAML gives it: a string, a whole or decimal number."""
    if isinstance(value, bool):
        raise QuantityError(f"not a quantity: {value!r}")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise QuantityError(f"not a quantity: {value!r}")
        return parse_quantity(repr(value)).amount
    if isinstance(value, Fraction):
        return value
    return parse_quantity(value).amount  # type: ignore[arg-type]


def _away_from_zero(value: Fraction) -> int:
    return math.ceil(value) if value >= 0 else math.floor(value)


def whole_units(amount: Fraction) -> int:
    """The amount in whole units, rounded up away from zero (Kubernetes Quantity.Value)."""
    return _away_from_zero(amount)


def milli_units(amount: Fraction) -> int:
    """The amount in thousandths, rounded up away from zero (Kubernetes Quantity.MilliValue)."""
    return _away_from_zero(amount * 1000)


def _decimal(amount: Fraction, fmt: str) -> str:
    """mantissa * 10^exponent with the exponent a multiple of 3, as large as it can be without a fraction."""
    mantissa, exponent = math.ceil(abs(amount) / NANO), -9  # a quantity holds at most nine decimals
    while mantissa and mantissa % 10 == 0:
        mantissa, exponent = mantissa // 10, exponent + 1
    while exponent % 3:
        mantissa, exponent = mantissa * 10, exponent - 1
    sign = "-" if amount < 0 else ""
    if fmt == DECIMAL_EXPONENT:
        return f"{sign}{mantissa}" + (f"e{exponent}" if exponent else "")
    largest = max(SUFFIX_OF_EXPONENT)
    if exponent > largest:
        mantissa, exponent = mantissa * 10 ** (exponent - largest), largest
    return f"{sign}{mantissa}{SUFFIX_OF_EXPONENT[exponent]}"


def canonical(amount: Fraction, fmt: str = DECIMAL_SI) -> str:
    """Kubernetes' canonical form: no fraction digits, the largest suffix that loses nothing, in `fmt`
    (binary amounts under 1024 or with a fraction are written as decimal SI)."""
    if amount == 0:
        return "0"
    if fmt == BINARY_SI and (abs(amount) < 1024 or amount.denominator != 1):
        fmt = DECIMAL_SI
    if fmt != BINARY_SI:
        return _decimal(amount, fmt)
    mantissa, power = abs(amount.numerator), 0
    while mantissa % 1024 == 0 and power < max(SUFFIX_OF_POWER):
        mantissa, power = mantissa // 1024, power + 1
    return f"{'-' if amount < 0 else ''}{mantissa}{SUFFIX_OF_POWER.get(power, '')}"
