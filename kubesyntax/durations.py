"""Durations in Go's time.ParseDuration grammar (`300ms`, `-1.5h`, `1h30m`), as Kubernetes reads them."""

from __future__ import annotations

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
OVERFLOW = 2**63  # the magnitude of the most negative duration; positive ones end one below
DIGITS = "0123456789"


class DurationError(ValueError):
    """A text that is not a duration; str() says why."""


def _leading_int(text: str, start: int) -> tuple[int, int]:
    """The digits at `start` as an integer and where they end; OverflowError past what a duration holds."""
    end, value = start, 0
    while end < len(text) and text[end] in DIGITS:
        value = value * 10 + int(text[end])
        if value > OVERFLOW:
            raise OverflowError
        end += 1
    return value, end


def _leading_fraction(text: str, start: int) -> tuple[int, float, int]:
    """Fraction digits as Go reads them: an integer and its scale, precision kept only while it fits."""
    end, value, scale, full = start, 0, 1.0, False
    while end < len(text) and text[end] in DIGITS:
        if not full:
            wider = value * 10 + int(text[end])
            if value > (OVERFLOW - 1) // 10 or wider > OVERFLOW:
                full = True
            else:
                value, scale = wider, scale * 10
        end += 1
    return value, scale, end


def parse_nanoseconds(text: str, days: bool = False) -> int:
    """Go's ParseDuration: an optional sign, then numbers each with a unit; "0" alone needs none."""
    units = {**NANOSECONDS, "d": DAY} if days else NANOSECONDS
    example = "30s, 5m, 1h30m or 1d" if days else "30s, 5m or 1h30m"
    invalid = DurationError(f"{text!r} is not a duration such as {example}")
    if not isinstance(text, str):
        raise invalid
    negative = text[:1] == "-"
    body = text[1:] if text[:1] in ("-", "+") else text
    if body == "0":
        return 0
    if not body:
        raise invalid
    too_long = DurationError(f"{text!r} is longer than a duration can be (about 292 years)")
    total, position = 0, 0
    while position < len(body):
        if body[position] not in DIGITS + ".":
            raise invalid
        try:
            whole, end = _leading_int(body, position)
        except OverflowError:
            raise too_long from None
        before = end > position
        fraction, scale, after = 0, 1.0, False
        if end < len(body) and body[end] == ".":
            fraction, scale, fraction_end = _leading_fraction(body, end + 1)
            after, end = fraction_end > end + 1, fraction_end
        if not before and not after:
            raise invalid
        unit_end = end
        while unit_end < len(body) and body[unit_end] not in DIGITS + ".":
            unit_end += 1
        unit = body[end:unit_end]
        if not unit:
            raise DurationError(f"{text!r}: a number without a unit (use {', '.join(units)})")
        if unit not in units:
            raise DurationError(f"{text!r}: unknown unit {unit!r} (use {', '.join(units)})")
        if whole > OVERFLOW // units[unit]:
            raise too_long
        value = whole * units[unit]
        if fraction:
            # As Go, in floating point: 0.3333333333333333333h is exactly 20m there too.
            value += int(float(fraction) * (float(units[unit]) / scale))
        total += value
        if value > OVERFLOW or total > OVERFLOW:
            raise too_long
        position = unit_end
    if not negative and total > OVERFLOW - 1:
        raise too_long
    return -total if negative else total


def parse_duration(text: str, days: bool = False) -> float:
    """The duration in seconds; `days` also takes `d` (24h) for settings written the Prometheus way."""
    return parse_nanoseconds(text, days) / 10**9
