"""Kubernetes resource quantities parsed exactly (no floating point)."""

from __future__ import annotations

import math
import re
from fractions import Fraction

_BINARY = {
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
    "Pi": 2**50,
    "Ei": 2**60,
}
_DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 10**3),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
_PATTERN = re.compile(
    r"^(?P<sign>[+-]?)(?P<number>(\d+\.?\d*|\.\d+))"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$"
)


class QuantityError(ValueError):
    """A string that is not a Kubernetes quantity."""


def parse_quantity(value: object) -> Fraction:
    """Return the exact value of a Kubernetes quantity such as ``500m``, ``1.5Gi`` or ``1e3``."""
    if isinstance(value, bool):
        raise QuantityError(f"not a quantity: {value!r}")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise QuantityError(f"not a quantity: {value!r}")
        return Fraction(str(value))
    if isinstance(value, Fraction):
        return value
    if not isinstance(value, str):
        raise QuantityError(f"not a quantity: {value!r}")
    match = _PATTERN.match(value.strip())
    if not match:
        raise QuantityError(f"not a quantity: {value!r}")
    number = Fraction(match["number"])
    suffix = match["suffix"] or ""
    if suffix in _BINARY:
        number *= _BINARY[suffix]
    elif suffix in _DECIMAL:
        number *= _DECIMAL[suffix]
    else:
        number *= Fraction(10) ** int(suffix[1:])
    return -number if match["sign"] == "-" else number


def whole_units(quantity: Fraction) -> int:
    """The quantity in whole units, rounded up (Kubernetes ``Quantity.Value``)."""
    return math.ceil(quantity)


def milli_units(quantity: Fraction) -> int:
    """The quantity in thousandths, rounded up (Kubernetes ``Quantity.MilliValue``)."""
    return math.ceil(quantity * 1000)


def format_quantity(quantity: Fraction, resource: str = "") -> str:
    """A short human form: CPU in cores or millicores, bytes with a binary suffix."""
    if resource == "cpu":
        milli = milli_units(quantity)
        return str(milli // 1000) if milli % 1000 == 0 else f"{milli}m"
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        value = whole_units(quantity)
        for suffix in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
            unit = _BINARY[suffix]
            if value and value % unit == 0:
                return f"{value // unit}{suffix}"
        return str(value)
    if quantity.denominator == 1:
        return str(quantity.numerator)
    return f"{milli_units(quantity)}m"
