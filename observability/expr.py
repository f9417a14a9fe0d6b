"""A small expression language that renders as PromQL and evaluates over our own values, so one
rule definition drives both the exported rules and the built-in evaluator."""

from __future__ import annotations

import math
import operator
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

Labels = tuple[tuple[str, str], ...]
Vector = dict[Labels, float]


def labels_of(mapping: Mapping[str, str]) -> Labels:
    return tuple(sorted((str(k), str(v)) for k, v in mapping.items()))


class Source(Protocol):
    """Where instant values and counter increases come from (the database, or a table in tests)."""

    def instant(self, series: str) -> Vector: ...

    def increase(self, series: str, seconds: float) -> Vector: ...


def format_duration(seconds: float) -> str:
    """Render seconds as a Prometheus duration: 300 -> 5m, 90 -> 1m30s, 0 -> 0s."""
    whole = int(seconds)
    if whole != seconds or whole < 0:
        raise ValueError(f"{seconds}: durations are whole, non-negative seconds")
    if whole == 0:
        return "0s"
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        count, whole = divmod(whole, size)
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts)


class Expr(Protocol):
    def promql(self) -> str: ...

    def evaluate(self, source: Source) -> Vector: ...

    def series(self) -> set[str]: ...


def _matching(vector: Vector, matchers: Mapping[str, str]) -> Vector:
    return {
        labels: value
        for labels, value in vector.items()
        if all(dict(labels).get(key) == wanted for key, wanted in matchers.items())
    }


def _selector(series: str, matchers: Mapping[str, str]) -> str:
    if not matchers:
        return series
    inner = ",".join(f'{key}="{value}"' for key, value in sorted(matchers.items()))
    return f"{series}{{{inner}}}"


@dataclass(frozen=True)
class Metric:
    """An instant vector selector: `name{label="value"}`."""

    name: str
    matchers: Mapping[str, str] = field(default_factory=dict)

    def promql(self) -> str:
        return _selector(self.name, self.matchers)

    def evaluate(self, source: Source) -> Vector:
        return _matching(source.instant(self.name), self.matchers)

    def series(self) -> set[str]:
        return {self.name}


@dataclass(frozen=True)
class Increase:
    """`increase(counter{…}[window])`: how much a counter grew over the window."""

    name: str
    window_seconds: int
    matchers: Mapping[str, str] = field(default_factory=dict)

    def promql(self) -> str:
        return f"increase({_selector(self.name, self.matchers)}[{format_duration(self.window_seconds)}])"

    def evaluate(self, source: Source) -> Vector:
        return _matching(source.increase(self.name, self.window_seconds), self.matchers)

    def series(self) -> set[str]:
        return {self.name}


@dataclass(frozen=True)
class SumBy:
    """`sum by (labels) (expr)`."""

    expr: Expr
    by: tuple[str, ...]

    def promql(self) -> str:
        return f"sum by ({', '.join(self.by)}) ({self.expr.promql()})"

    def evaluate(self, source: Source) -> Vector:
        groups: dict[Labels, float] = defaultdict(float)
        for labels, value in self.expr.evaluate(source).items():
            kept = dict(labels)
            groups[labels_of({key: kept.get(key, "") for key in self.by if key in kept})] += value
        return dict(groups)

    def series(self) -> set[str]:
        return self.expr.series()


def _divide(a: float, b: float) -> float:
    if b == 0:  # IEEE division, as Prometheus does it
        return math.nan if a == 0 else math.copysign(math.inf, a)
    return a / b


ARITHMETIC: dict[str, Callable[[float, float], float]] = {
    "/": _divide,
    "*": operator.mul,
}


@dataclass(frozen=True)
class Arithmetic:
    """`lhs op rhs` for two vectors (one-to-one on identical labels) or a vector and a number."""

    lhs: Expr
    op: str
    rhs: Expr | float

    def promql(self) -> str:
        right = self.rhs.promql() if not isinstance(self.rhs, int | float) else _number(self.rhs)
        return f"{_operand(self.lhs)} {self.op} {right}"

    def evaluate(self, source: Source) -> Vector:
        apply = ARITHMETIC[self.op]
        left = self.lhs.evaluate(source)
        if isinstance(self.rhs, int | float):
            return {labels: apply(value, float(self.rhs)) for labels, value in left.items()}
        right = self.rhs.evaluate(source)
        return {labels: apply(value, right[labels]) for labels, value in left.items() if labels in right}

    def series(self) -> set[str]:
        return self.lhs.series() | (set() if isinstance(self.rhs, int | float) else self.rhs.series())


COMPARISONS: dict[str, Callable[[float, float], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    ">": operator.gt,
    ">=": operator.ge,
    "<": operator.lt,
    "<=": operator.le,
}


@dataclass(frozen=True)
class Compare:
    """`expr op threshold` as a filter: keeps the elements for which the comparison holds."""

    expr: Expr
    op: str
    threshold: float

    def __post_init__(self) -> None:
        if self.op not in COMPARISONS:
            raise ValueError(f"unknown comparison {self.op!r}")

    def promql(self) -> str:
        return f"{self.expr.promql()} {self.op} {_number(self.threshold)}"

    def evaluate(self, source: Source) -> Vector:
        test = COMPARISONS[self.op]
        return {
            labels: value
            for labels, value in self.expr.evaluate(source).items()
            if not math.isnan(value) and test(value, self.threshold)
        }

    def series(self) -> set[str]:
        return self.expr.series()


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _operand(expr: Expr) -> str:
    return f"({expr.promql()})" if isinstance(expr, Arithmetic | Compare) else expr.promql()
