"""Durations in Go's time.ParseDuration grammar (`300ms`, `-1.5h`, `1h30m`), as Kubernetes reads them."""

from __future__ import annotations

from fractions import Fraction

NANOSECONDS = {
    "ns": 1,
    "us": 10**3,
    "µs": 10**3,  # U+00B5 micro sign
    "μs": 10**3,  # U+03BC Greek mu
    "ms": 10**6,
    "s": 10**9,
    "m": 60 * 10**9,
    "h": 3600 * 10**9,
}
# Prometheus users write days; Go has no such unit, so only the dashboard's own settings take it.
DAY = 86400 * 10**9
MAX_NANOSECONDS = 2**63 - 1
DIGITS = "0123456789"


class DurationError(ValueError):
    """A text that is not a duration; str() says why."""


def _number(text: str, start: int) -> tuple[str, str, int]:
    """The whole and fraction digits of one `[0-9]*(\\.[0-9]*)?` at `start`, and where it ends."""
    end = start
    while end < len(text) and text[end] in DIGITS:
        end += 1
    whole, fraction = text[start:end], ""
    if end < len(text) and text[end] == ".":
        after = end = end + 1
        while end < len(text) and text[end] in DIGITS:
            end += 1
        fraction = text[after:end]
    return whole, fraction, end


def parse_nanoseconds(text: str, days: bool = False) -> int:
    """Go's ParseDuration: an optional sign, then numbers each with a unit; "0" alone needs none."""
    units = {**NANOSECONDS, "d": DAY} if days else NANOSECONDS
    example = "30s, 5m, 1h30m or 1d" if days else "30s, 5m or 1h30m"
    if not isinstance(text, str):
        raise DurationError(f"{text!r} is not a duration such as {example}")
    body = text[1:] if text[:1] in ("-", "+") else text
    if body == "0":
        return 0
    if not body:
        raise DurationError(f"{text!r} is not a duration such as {example}")
    total, position = 0, 0
    while position < len(body):
        whole, fraction, end = _number(body, position)
        if not whole and not fraction:
            raise DurationError(f"{text!r} is not a duration such as {example}")
        unit_end = end
        while unit_end < len(body) and body[unit_end] not in DIGITS + ".":
            unit_end += 1
        unit = body[end:unit_end]
        if not unit:
            raise DurationError(f"{text!r}: a number without a unit (use {', '.join(units)})")
        if unit not in units:
            raise DurationError(f"{text!r}: unknown unit {unit!r} (use {', '.join(units)})")
        amount = Fraction(int(whole or "0")) + Fraction(int(fraction or "0"), 10 ** len(fraction))
        total += int(amount * units[unit])  # Go truncates the fraction of a nanosecond
        if total > MAX_NANOSECONDS + (text[:1] == "-"):
            raise DurationError(f"{text!r} is longer than a duration can be (about 292 years)")
        position = unit_end
    return -total if text[:1] == "-" else total


def parse_duration(text: str, days: bool = False) -> float:
    """The duration in seconds; `days` also takes `d` (24h) for settings written the Prometheus way."""
    return parse_nanoseconds(text, days) / 10**9
