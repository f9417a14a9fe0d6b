"""Label and field selectors: the query-string syntax and the LabelSelector object form."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


class SelectorError(ValueError):
    """A selector that cannot be parsed."""


@dataclass(frozen=True)
class Requirement:
    """One clause of a selector: ``key op values``."""

    key: str
    op: str  # "=", "!=", "in", "notin", "exists", "!", "gt", "lt"
    values: tuple[str, ...] = ()

    def matches(self, labels: dict[str, str]) -> bool:
        present = self.key in labels
        value = labels.get(self.key)
        if self.op in ("=", "in"):
            return present and value in self.values
        if self.op in ("!=", "notin"):
            return not present or value not in self.values
        if self.op == "exists":
            return present
        if self.op == "!":
            return not present
        if self.op in ("gt", "lt"):
            if value is None:
                return False
            try:
                number, bound = int(value), int(self.values[0])
            except (TypeError, ValueError):
                return False
            return number > bound if self.op == "gt" else number < bound
        raise AssertionError(self.op)


_KEY = r"[A-Za-z0-9][-A-Za-z0-9_./]*"
_VALUE = r"[-A-Za-z0-9_.]*"
_SET_CLAUSE = re.compile(rf"^\s*({_KEY})\s+(in|notin)\s+\(([^)]*)\)\s*$")
_CMP_CLAUSE = re.compile(rf"^\s*({_KEY})\s*(==|!=|=|>|<)\s*({_VALUE})\s*$")
_EXISTS_CLAUSE = re.compile(rf"^\s*(!?)\s*({_KEY})\s*$")


def _split_clauses(text: str) -> list[str]:
    """Split on commas that are not inside parentheses."""
    clauses: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "," and depth == 0:
            clauses.append("".join(current))
            current = []
        else:
            current.append(char)
    clauses.append("".join(current))
    return clauses


def parse_label_selector(text: str | None) -> list[Requirement]:
    """Parse ``app=web,tier in (a,b),!legacy`` into requirements (all must hold)."""
    if not text or not text.strip():
        return []
    requirements = []
    for clause in _split_clauses(text):
        if not clause.strip():
            raise SelectorError(f"unable to parse requirement: empty clause in {text!r}")
        if match := _SET_CLAUSE.match(clause):
            key, op, raw = match.groups()
            values = tuple(v.strip() for v in raw.split(",") if v.strip())
            if not values:
                raise SelectorError(
                    f"unable to parse requirement: {op} needs at least one value in {clause!r}"
                )
            requirements.append(Requirement(key, op, values))
        elif match := _CMP_CLAUSE.match(clause):
            key, op, value = match.groups()
            op = {"==": "=", ">": "gt", "<": "lt"}.get(op, op)
            if op in ("gt", "lt") and not value.lstrip("-").isdigit():
                raise SelectorError(f"unable to parse requirement: {value!r} is not an integer")
            requirements.append(Requirement(key, op, (value,)))
        elif match := _EXISTS_CLAUSE.match(clause):
            bang, key = match.groups()
            requirements.append(Requirement(key, "!" if bang else "exists"))
        else:
            raise SelectorError(f"unable to parse requirement: {clause.strip()!r}")
    return requirements


def labels_match(requirements: list[Requirement], labels: dict[str, str] | None) -> bool:
    labels = labels or {}
    return all(r.matches(labels) for r in requirements)


_EXPRESSION_OPS = {
    "In": "in",
    "NotIn": "notin",
    "Exists": "exists",
    "DoesNotExist": "!",
    "Gt": "gt",
    "Lt": "lt",
}


def requirements_from_expressions(expressions: list[dict[str, Any]] | None) -> list[Requirement]:
    """``matchExpressions`` (of a LabelSelector or a NodeSelectorTerm) as requirements."""
    requirements = []
    for expression in expressions or []:
        operator = expression.get("operator")
        if operator not in _EXPRESSION_OPS:
            raise SelectorError(f"{operator!r} is not a valid selector operator")
        values = tuple(str(v) for v in expression.get("values") or ())
        op = _EXPRESSION_OPS[operator]
        if op in ("in", "notin") and not values:
            raise SelectorError(f"values must be non-empty for operator {operator}")
        if op in ("exists", "!") and values:
            raise SelectorError(f"values must be empty for operator {operator}")
        if op in ("gt", "lt") and (len(values) != 1 or not values[0].lstrip("-").isdigit()):
            raise SelectorError(f"operator {operator} needs a single integer value")
        requirements.append(Requirement(str(expression.get("key", "")), op, values))
    return requirements


def requirements_from_label_selector(selector: dict[str, Any] | None) -> list[Requirement]:
    """A ``metav1.LabelSelector`` (matchLabels + matchExpressions) as requirements."""
    if not selector:
        return []
    requirements = [
        Requirement(k, "=", (str(v),)) for k, v in sorted((selector.get("matchLabels") or {}).items())
    ]
    return requirements + requirements_from_expressions(selector.get("matchExpressions"))


def format_requirements(requirements: list[Requirement]) -> str:
    """The query-string form, as in a Scale's ``status.selector``."""
    parts = []
    for r in requirements:
        if r.op == "=":
            parts.append(f"{r.key}={r.values[0]}")
        elif r.op == "!=":
            parts.append(f"{r.key}!={r.values[0]}")
        elif r.op in ("in", "notin"):
            parts.append(f"{r.key} {r.op} ({','.join(sorted(r.values))})")
        elif r.op == "exists":
            parts.append(r.key)
        elif r.op == "!":
            parts.append(f"!{r.key}")
        else:
            parts.append(f"{r.key}{'>' if r.op == 'gt' else '<'}{r.values[0]}")
    return ",".join(parts)


@dataclass(frozen=True)
class FieldRequirement:
    """One clause of a field selector: a dotted path compared with ``=`` or ``!=``."""

    path: str
    value: str
    negate: bool

    def matches(self, obj: dict[str, Any]) -> bool:
        current: Any = obj
        for part in self.path.split("."):
            current = current.get(part) if isinstance(current, dict) else None
        if current is None:
            actual = ""
        elif isinstance(current, bool):
            actual = "true" if current else "false"
        else:
            actual = str(current)
        return (actual == self.value) != self.negate


_FIELD_CLAUSE = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_.]*)\s*(==|!=|=)\s*(.*?)\s*$")


def parse_field_selector(text: str | None) -> list[FieldRequirement]:
    """Parse ``metadata.name=web,status.phase!=Running``."""
    if not text or not text.strip():
        return []
    requirements = []
    for clause in text.split(","):
        match = _FIELD_CLAUSE.match(clause)
        if not match:
            raise SelectorError(f"invalid field selector: {clause.strip()!r}")
        path, op, value = match.groups()
        requirements.append(FieldRequirement(path, value, op == "!="))
    return requirements


def fields_match(requirements: list[FieldRequirement], obj: dict[str, Any]) -> bool:
    return all(r.matches(obj) for r in requirements)
