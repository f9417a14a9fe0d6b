"""Label selector requirements and selectors: Kubernetes' operators, matching rule and text form."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from kubesyntax.names import label_key_error, label_value_error

# The operators of k8s.io/apimachinery/pkg/selection, spelled as Kubernetes spells them.
EQUALS, DOUBLE_EQUALS, NOT_EQUALS = "=", "==", "!="
IN, NOT_IN, EXISTS, DOES_NOT_EXIST, GT, LT = "in", "notin", "exists", "!", "gt", "lt"
# The operator names of matchExpressions (LabelSelectorRequirement) and of node selector terms.
LABEL_OPERATORS = {"In": IN, "NotIn": NOT_IN, "Exists": EXISTS, "DoesNotExist": DOES_NOT_EXIST}
NODE_OPERATORS = {**LABEL_OPERATORS, "Gt": GT, "Lt": LT}
# strconv.ParseInt(value, 10, 64): an optional sign, decimal digits, within int64.
INTEGER = re.compile(r"[+-]?[0-9]+")
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


class SelectorError(ValueError):
    """A selector Kubernetes would refuse; `position` is the 0-based offset of the problem in its text."""

    def __init__(self, message: str, position: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.position = position


def parse_int64(text: str) -> int | None:
    """The value of `text` as strconv.ParseInt reads it in base 10, or None."""
    if not INTEGER.fullmatch(text):
        return None
    value = int(text)
    return value if INT64_MIN <= value <= INT64_MAX else None


@dataclass(frozen=True)
class Requirement:
    """One requirement of a selector: a key, a selection operator and its values."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Kubernetes labels.Requirement.Matches."""
        has = self.key in labels
        value = labels.get(self.key, "")
        if self.operator in (EQUALS, DOUBLE_EQUALS, IN):
            return has and value in self.values
        if self.operator in (NOT_EQUALS, NOT_IN):
            return not has or value not in self.values
        if self.operator == EXISTS:
            return has
        if self.operator == DOES_NOT_EXIST:
            return not has
        if self.operator not in (GT, LT) or not has or len(self.values) != 1:
            return False
        have, bound = parse_int64(value), parse_int64(self.values[0])
        if have is None or bound is None:
            return False
        return have > bound if self.operator == GT else have < bound

    def __str__(self) -> str:
        """Kubernetes' String(): `!key`, `key`, `key=v`, `key in (a,b)` with the values sorted."""
        if self.operator == DOES_NOT_EXIST:
            return f"!{self.key}"
        if self.operator == EXISTS:
            return self.key
        values = ",".join(sorted(self.values))
        if self.operator in (IN, NOT_IN):
            return f"{self.key} {self.operator} ({values})"
        symbol = {GT: ">", LT: "<"}.get(self.operator, self.operator)
        return f"{self.key}{symbol}{values}"


@dataclass(frozen=True)
class Selector:
    """Requirements that must all hold; the empty selector selects everything."""

    requirements: tuple[Requirement, ...] = ()

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        labels = labels or {}
        return all(requirement.matches(labels) for requirement in self.requirements)

    @property
    def empty(self) -> bool:
        return not self.requirements

    def __str__(self) -> str:
        return ",".join(str(requirement) for requirement in self.requirements)


def sorted_by_key(requirements: list[Requirement]) -> Selector:
    """A selector of `requirements` in key order, as Kubernetes sorts them for a deterministic form."""
    return Selector(tuple(sorted(requirements, key=lambda requirement: requirement.key)))


@dataclass(frozen=True)
class Expression:
    """One matchExpressions entry (a label or node selector requirement) with its API operator name."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def error(self, operators: Mapping[str, str] = LABEL_OPERATORS) -> str | None:
        """Why Kubernetes refuses this expression with the given operator names, or None."""
        reason = label_key_error(self.key)
        if reason:
            return f"invalid label key: {reason}"
        operator = operators.get(self.operator)
        if operator is None:
            return f"{self.operator!r} is not a valid operator; it must be one of {', '.join(operators)}"
        if operator in (IN, NOT_IN) and not self.values:
            return f"{self.key}: {self.operator} needs values"
        if operator in (EXISTS, DOES_NOT_EXIST) and self.values:
            return f"{self.key}: {self.operator} takes no values"
        if operator in (GT, LT):
            # A node selector's bound is an integer, not a label value: a sign is allowed.
            if len(self.values) != 1 or parse_int64(self.values[0]) is None:
                return f"{self.key}: {self.operator} needs exactly one whole number"
            return None
        for value in self.values:
            reason = label_value_error(value)
            if reason:
                return f"invalid label value: {reason}"
        return None

    def requirement(self) -> Requirement:
        """The selection requirement this expression stands for (unknown operators match nothing)."""
        return Requirement(self.key, NODE_OPERATORS.get(self.operator, self.operator), self.values)

    def matches(self, labels: Mapping[str, str]) -> bool:
        return self.requirement().matches(labels)

    def __str__(self) -> str:
        if self.operator in ("Exists", "DoesNotExist"):
            return f"{self.key} {self.operator}"
        return f"{self.key} {self.operator} ({', '.join(self.values)})"

    def as_dict(self) -> dict[str, object]:
        result: dict[str, object] = {"key": self.key, "operator": self.operator}
        if self.values:
            result["values"] = list(self.values)
        return result
