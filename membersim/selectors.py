"""Label and field selectors: the query-string syntax and the LabelSelector object form."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


class SelectorError(ValueError):
    """A selector that cannot be parsed."""


@dataclass(frozen=True)
class Requirement:
    """One clause of a selector: ``key op values``."""

    key: str
    op: str  # "=", "==", "!=", "in", "notin", "exists", "!", "gt", "lt"
    values: tuple[str, ...] = ()

    def matches(self, labels: dict[str, str]) -> bool:
        present = self.key in labels
        value = labels.get(self.key)
        if self.op in ("=", "==", "in"):
            return present and value in self.values
        if self.op in ("!=", "notin"):
            return not present or value not in self.values
        if self.op == "exists":
            return present
        if self.op == "!":
            return not present
        if self.op in ("gt", "lt"):
            if value is None or not _INT64.match(value) or len(self.values) != 1:
                return False
            if not _INT64.match(self.values[0]):
                return False
            number, bound = int(value), int(self.values[0])
            return number > bound if self.op == "gt" else number < bound
        raise AssertionError(self.op)


# The lexer of k8s.io/apimachinery/pkg/labels: these characters are tokens of their own (the longest
# run that is an operator wins), only space, tab, CR and LF separate, and everything else is a word.
_SPECIAL = "=!(),<>"
_WHITESPACE = " \t\r\n"
_OPERATORS = {"=", "==", "!=", "!", "(", ")", ",", "<", ">"}
_BINARY = {"in": "in", "notin": "notin", "=": "=", "==": "==", "!=": "!=", ">": "gt", "<": "lt"}
_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_INT64 = re.compile(r"^[+-]?[0-9]+$")
END = ""  # the literal of the end-of-string token


def _tokens(text: str) -> list[tuple[str, str]]:
    """(kind, literal) pairs: kind is "word", "op" or "end"."""
    tokens: list[tuple[str, str]] = []
    position, length = 0, len(text)
    while True:
        while position < length and text[position] in _WHITESPACE:
            position += 1
        if position >= length:
            tokens.append(("end", END))
            return tokens
        if text[position] in _SPECIAL:
            literal = ""
            scanned = ""
            while position < length and text[position] in _SPECIAL:
                if literal + text[position] in _OPERATORS:
                    literal += text[position]
                    scanned = literal
                    position += 1
                elif scanned:
                    break
                else:
                    literal += text[position]
                    position += 1
            if not scanned:
                raise SelectorError(f"unable to parse requirement: found '{literal}', expected: keyword")
            tokens.append(("op", scanned))
        else:
            start = position
            while position < length and text[position] not in _SPECIAL and text[position] not in _WHITESPACE:
                position += 1
            tokens.append(("word", text[start:position]))


def label_key_error(key: str) -> str | None:
    """Why ``key`` is not a label key (an optional DNS-subdomain prefix and "/", then a name), or None."""
    prefix, slash, name = key.rpartition("/")
    if slash and not prefix:
        return "prefix part must be non-empty"
    if slash and (len(prefix) > 253 or not _DNS_SUBDOMAIN.match(prefix)):
        return "prefix part must be a lowercase RFC 1123 subdomain of at most 253 characters"
    if not name:
        return "name part must be non-empty"
    if len(name) > 63:
        return "name part must be no more than 63 characters"
    if not _NAME.match(name):
        return (
            "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
            "with an alphanumeric character"
        )
    return None


def label_value_error(value: str) -> str | None:
    """Why ``value`` is not a label value (empty, or at most 63 name characters), or None."""
    if len(value) > 63:
        return "must be no more than 63 characters"
    if value and not _NAME.match(value):
        return (
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
            "and must start and end with an alphanumeric character"
        )
    return None


def new_requirement(key: str, op: str, values: tuple[str, ...]) -> Requirement:
    """A requirement checked as Kubernetes' NewRequirement checks it."""
    problems = []
    if (why := label_key_error(key)) is not None:
        problems.append(f'key: Invalid value: "{key}": {why}')
    if op in ("in", "notin") and not values:
        problems.append("values: for 'in', 'notin' operators, values set can't be empty")
    if op in ("=", "==", "!=") and len(values) != 1:
        problems.append("values: exact-match compatibility requires one single value")
    if op in ("exists", "!") and values:
        problems.append("values: values set must be empty for exists and does not exist")
    if op in ("gt", "lt"):
        if len(values) != 1:
            problems.append("values: for 'Gt', 'Lt' operators, exactly one value is required")
        for index, value in enumerate(values):
            if not _INT64.match(value) or not -(2**63) <= int(value) < 2**63:
                problems.append(
                    f'values[{index}]: Invalid value: "{value}": '
                    "for 'Gt', 'Lt' operators, the value must be an integer"
                )
    for index, value in enumerate(values):
        if (why := label_value_error(value)) is not None:
            problems.append(f'values[{index}][{key}]: Invalid value: "{value}": {why}')
    if problems:
        raise SelectorError("; ".join(problems))
    return Requirement(key, op, values)


class _Parser:
    """The recursive-descent parser of apimachinery's labels.Parse, token for token."""

    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.position = 0

    def lookahead(self, values: bool = True) -> tuple[str, str]:
        kind, literal = self.tokens[self.position]
        if not values and kind == "word" and literal in ("in", "notin"):
            return "op", literal  # "in" and "notin" are operators only where an operator is expected
        return kind, literal

    def consume(self, values: bool = True) -> tuple[str, str]:
        token = self.lookahead(values)
        if self.position < len(self.tokens) - 1:
            self.position += 1
        return token

    def parse(self) -> list[Requirement]:
        requirements: list[Requirement] = []
        while True:
            kind, literal = self.lookahead()
            if kind == "end":
                return requirements
            if kind != "word" and literal != "!":
                raise SelectorError(f"found '{literal}', expected: !, identifier, or 'end of string'")
            try:
                requirements.append(self.requirement())
            except SelectorError as error:
                raise SelectorError(f"unable to parse requirement: {error}") from None
            kind, literal = self.consume()
            if kind == "end":
                return requirements
            if literal != ",":
                raise SelectorError(f"found '{literal}', expected: ',' or 'end of string'")
            kind, literal = self.lookahead()
            if kind != "word" and literal != "!":
                raise SelectorError(f"found '{literal}', expected: identifier after ','")

    def requirement(self) -> Requirement:
        op = ""
        kind, key = self.consume()
        if (kind, key) == ("op", "!"):
            op = "!"
            kind, key = self.consume()
        if kind != "word":
            raise SelectorError(f"found '{key}', expected: identifier")
        if (why := label_key_error(key)) is not None:
            raise SelectorError(f'Invalid value: "{key}": {why}')
        following, literal = self.lookahead()
        if following == "end" or literal == ",":
            return new_requirement(key, op or "exists", ())
        if op == "!":
            return new_requirement(key, op, ())
        kind, literal = self.consume(values=False)
        if kind != "op" or literal not in _BINARY:
            raise SelectorError(f"found '{literal}', expected: in, notin, =, ==, !=, gt, lt")
        op = _BINARY[literal]
        values = self.set_values() if op in ("in", "notin") else self.exact_value()
        return new_requirement(key, op, tuple(sorted(values)))

    def set_values(self) -> set[str]:
        kind, literal = self.consume()
        if literal != "(" or kind != "op":
            raise SelectorError(f"found '{literal}' expected: '('")
        kind, literal = self.lookahead()
        if (kind, literal) == ("op", ")"):
            self.consume()
            return {""}
        if kind != "word" and literal != ",":
            raise SelectorError(f"found '{literal}', expected: ',', ')' or identifier")
        values = self.identifiers()
        if self.consume() != ("op", ")"):
            raise SelectorError(f"found '{literal}', expected: ')'")
        return values

    def identifiers(self) -> set[str]:
        values: set[str] = set()
        while True:
            kind, literal = self.consume()
            if kind == "word":
                values.add(literal)
                following, next_literal = self.lookahead()
                if next_literal == "," and following == "op":
                    continue
                if next_literal == ")" and following == "op":
                    return values
                raise SelectorError(f"found '{next_literal}', expected: ',' or ')'")
            if (kind, literal) == ("op", ","):
                if not values:
                    values.add("")  # "(,"
                following, next_literal = self.lookahead()
                if following == "op" and next_literal in (")", ","):
                    values.add("")  # ",)" and ",,"
                    if next_literal == ")":
                        return values
                continue
            raise SelectorError(f"found '{literal}', expected: ',', or identifier")

    def exact_value(self) -> set[str]:
        kind, literal = self.lookahead()
        if kind == "end" or (kind, literal) == ("op", ","):
            return {""}
        kind, literal = self.consume()
        if kind == "word":
            return {literal}
        raise SelectorError(f"found '{literal}', expected: identifier")


def parse_label_selector(text: str | None) -> list[Requirement]:
    """Parse ``app=web,tier in (a,b),!legacy`` into requirements (all must hold), sorted by key,
    accepting and refusing exactly what Kubernetes does."""
    if not text:
        return []
    return sorted(_Parser(text).parse(), key=lambda r: r.key)


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
        if op in ("gt", "lt") and (len(values) != 1 or not _INT64.match(values[0])):
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
    # Kubernetes sorts a selector's requirements by key (labels.Selector.Add).
    requirements += requirements_from_expressions(selector.get("matchExpressions"))
    return sorted(requirements, key=lambda r: r.key)


def format_requirements(requirements: list[Requirement]) -> str:
    """The query-string form Kubernetes prints (a Scale's ``status.selector``, ``String()``)."""
    parts = []
    for r in requirements:
        if r.op in ("=", "==", "!="):
            parts.append(f"{r.key}{r.op}{r.values[0]}")
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
    # The path split once: a list of a thousand pods tests every pod against it.
    parts: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "parts", tuple(self.path.split(".")))

    def matches(self, obj: dict[str, Any]) -> bool:
        current: Any = obj
        for part in self.parts:
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
    for requirement in requirements:
        if not requirement.matches(obj):
            return False
    return True
