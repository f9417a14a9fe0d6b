"""Kubernetes resource quantities: parsing to exact numbers and formatting back."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from fractions import Fraction

_DECIMAL_SUFFIXES = {"": 0, "n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_SUFFIX_CHARS = "eEinumkKMGTP"
_DIGITS = "0123456789"
_INT64 = re.compile(r"^[+-]?[0-9]+$")
NANO = Fraction(1, 10**9)
MAX_ALLOWED = 2**63 - 1  # binary quantities are capped here, as Kubernetes caps them
# Far beyond any real quantity; bounds keep a hostile one from costing seconds of arithmetic.
MAX_EXPONENT = 1000
MAX_DIGITS = 1000
PATTERN = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
DECIMAL_SI, BINARY_SI, DECIMAL_EXPONENT = "DecimalSI", "BinarySI", "DecimalExponent"


class QuantityError(ValueError):
    """A string that is not a Kubernetes quantity."""


@dataclass(frozen=True)
class Quantity:
    """An exact value and the format its suffix chose, which decides how it is written back."""

    value: Fraction
    format: str

    def __str__(self) -> str:
        return _canonical(self.value, self.format)


def _scan(text: str) -> tuple[bool, str, str, str]:
    """(positive, integer digits, fraction digits, suffix) as apimachinery's parseQuantityString."""
    position, end = 0, len(text)
    positive = True
    if position < end and text[0] in "+-":
        positive = text[0] == "+"
        position += 1
    while position < end and text[position] == "0":
        position += 1
    start = position
    while position < end and text[position] in _DIGITS:
        position += 1
    integer = text[start:position] or "0"
    fraction = ""
    if position < end and text[position] == ".":
        position += 1
        start = position
        while position < end and text[position] in _DIGITS:
            position += 1
        fraction = text[start:position]
    start = position
    while position < end and text[position] in _SUFFIX_CHARS:
        position += 1
    if position < end and text[position] in "+-":
        position += 1
    while position < end and text[position] in _DIGITS:
        position += 1
    if position < end:
        raise QuantityError(f"quantities must match the regular expression '{PATTERN}'")
    return positive, integer, fraction, text[start:]


def parse(text: str) -> Quantity:
    """Parse ``500m``, ``32Gi``, ``1e3`` as Kubernetes does: exact, rounded up (away from zero) to
    whole nano units, binary values capped at 2^63-1, and no whitespace anywhere."""
    if not text:
        raise QuantityError(f"quantities must match the regular expression '{PATTERN}'")
    positive, integer, fraction, suffix = _scan(text)
    if suffix in _DECIMAL_SUFFIXES:
        multiplier, form = Fraction(10) ** _DECIMAL_SUFFIXES[suffix], DECIMAL_SI
    elif suffix in _BINARY_SUFFIXES:
        multiplier, form = Fraction(2) ** _BINARY_SUFFIXES[suffix], BINARY_SI
    elif len(suffix) > 1 and suffix[0] in "eE" and _INT64.match(suffix[1:]):
        if abs(int(suffix[1:])) > MAX_EXPONENT:
            raise QuantityError(f"the exponent of a quantity must be within {MAX_EXPONENT} of zero")
        multiplier, form = Fraction(10) ** int(suffix[1:]), DECIMAL_EXPONENT
    else:
        raise QuantityError("unable to parse quantity's suffix")
    if len(integer) + len(fraction) > MAX_DIGITS:
        raise QuantityError(f"a quantity may have at most {MAX_DIGITS} digits")
    amount = Fraction(int(integer + fraction), 10 ** len(fraction)) * multiplier
    if amount.denominator > 1 and (amount / NANO).denominator > 1:
        nanos = amount / NANO
        amount = Fraction(-(-nanos.numerator // nanos.denominator)) * NANO  # rounds up, never to zero
    if form == BINARY_SI and amount > MAX_ALLOWED:
        amount = Fraction(MAX_ALLOWED)
    if form == BINARY_SI and 0 < amount < 1:
        form = DECIMAL_SI
    return Quantity(amount if positive else -amount, form)


def _canonical(value: Fraction, form: str) -> str:
    """Kubernetes' String() of a quantity: the largest suffix that keeps the number whole."""
    if value == 0:
        return "0"
    sign, magnitude = ("-" if value < 0 else ""), abs(value)
    if form == BINARY_SI and (magnitude < 1024 or magnitude.denominator > 1):
        form = DECIMAL_SI
    if form == BINARY_SI:
        number, power = int(magnitude), 0
        while number % 1024 == 0 and power < 60:
            number, power = number // 1024, power + 10
        suffix = {0: "", **{bits: name for name, bits in _BINARY_SUFFIXES.items()}}[power]
        return f"{sign}{number}{suffix}"
    exponent = 0
    while magnitude.denominator > 1:
        magnitude, exponent = magnitude * 10, exponent - 1
    number = int(magnitude)
    while number % 10 == 0:
        number, exponent = number // 10, exponent + 1
    while exponent % 3:
        number, exponent = number * 10, exponent - 1
    if form == DECIMAL_EXPONENT:
        return f"{sign}{number}" + (f"e{exponent}" if exponent else "")
    if exponent > 18:
        number, exponent = number * 10 ** (exponent - 18), 18
    suffix = next(name for name, power in _DECIMAL_SUFFIXES.items() if power == exponent)
    return f"{sign}{number}{suffix}"


def canonical(text: str) -> str:
    """The canonical spelling of a quantity (``1024Mi`` -> ``1Gi``, ``0.5`` -> ``500m``)."""
    return str(parse(text))


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
    try:
        return parse(value).value
    except QuantityError as error:
        raise QuantityError(f"{error}, got {value!r}") from None


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
        unit = 2 ** _BINARY_SUFFIXES[suffix]
        if num_bytes and num_bytes % unit == 0:
            return f"{num_bytes // unit}{suffix}"
    return str(num_bytes)


def format_kibibytes(num_bytes: int) -> str:
    """Memory usage the way metrics-server reports it."""
    return f"{num_bytes // 1024}Ki"
