"""Kubernetes resource quantities: parsing to exact numbers and formatting back."""

from __future__ import annotations

import functools
import re
from fractions import Fraction

_SUFFIXES = {
    "": Fraction(1),
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 1000),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
    "Ki": Fraction(2**10),
    "Mi": Fraction(2**20),
    "Gi": Fraction(2**30),
    "Ti": Fraction(2**40),
    "Pi": Fraction(2**50),
    "Ei": Fraction(2**60),
}
_QUANTITY = re.compile(
    r"^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)$"
)


class QuantityError(ValueError):
    """A string that is not a Kubernetes quantity."""


def parse_quantity(value: str | int | float) -> Fraction:
    """Return the exact value of a quantity such as ``500m``, ``32Gi`` or ``1e3``."""
    if isinstance(value, str):
        return _parse_text(value)
    if isinstance(value, bool):
        raise QuantityError(f"quantities must match the regular expression, got {value!r}")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(str(value))
    raise QuantityError(f"quantities must be strings or numbers, got {type(value).__name__}")


@functools.lru_cache(maxsize=4096)
def _parse_text(value: str) -> Fraction:
    """Parsing is the scheduler's hot path and the same few strings recur, so results are cached."""
    match = _QUANTITY.match(value.strip())
    if not match:
        raise QuantityError(
            "quantities must match the regular expression "
            f"'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$', got {value!r}"
        )
    number, exponent, suffix = match.groups()
    result = Fraction(number)
    if exponent:
        result *= Fraction(10) ** int(exponent[1:])
    else:
        result *= _SUFFIXES[suffix or ""]
    return result


@functools.lru_cache(maxsize=4096)
def to_millicores(value: str | int | float) -> int:
    """CPU quantity in whole millicores, rounded up as Kubernetes does."""
    milli = parse_quantity(value) * 1000
    return -((-milli.numerator) // milli.denominator)


@functools.lru_cache(maxsize=4096)
def to_bytes(value: str | int | float) -> int:
    """Memory (or any integer) quantity in whole units, rounded up."""
    number = parse_quantity(value)
    return -((-number.numerator) // number.denominator)


def format_cpu(millicores: int) -> str:
    """``2000`` -> ``"2"``, ``250`` -> ``"250m"``."""
    if millicores % 1000 == 0:
        return str(millicores // 1000)
    return f"{millicores}m"


def format_nanocores(nanocores: int) -> str:
    """CPU usage the way metrics-server reports it."""
    return f"{nanocores}n"


def format_memory(num_bytes: int) -> str:
    """Bytes with the largest binary suffix that divides them exactly."""
    for suffix in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
        unit = int(_SUFFIXES[suffix])
        if num_bytes and num_bytes % unit == 0:
            return f"{num_bytes // unit}{suffix}"
    return str(num_bytes)


def format_kibibytes(num_bytes: int) -> str:
    """Memory usage the way metrics-server reports it."""
    return f"{num_bytes // 1024}Ki"
