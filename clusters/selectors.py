"""Kubernetes label selectors: the text form (`env=prod,tier in (a,b),!old`), the LabelSelector map form,
and matching, with the position and reason of every syntax error."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from clusters.labels import key_error, value_error

EQUALS, NOT_EQUALS, IN, NOT_IN, EXISTS, NOT_EXISTS, GT, LT = (
    "=",
    "!=",
    "in",
    "notin",
    "exists",
    "!",
    "gt",
    "lt",
)
EXPRESSION_OPERATORS = {"In": IN, "NotIn": NOT_IN, "Exists": EXISTS, "DoesNotExist": NOT_EXISTS}
# As Kubernetes' lexer: only space, tab, CR and LF separate; two-character operators win over one.
WHITESPACE = " \t\r\n"
TOKEN = re.compile(r"[ \t\r\n]*(?:(?P<op>==|!=|=|!|\(|\)|,|<|>)|(?P<word>[^ \t\r\n!=(),<>]+))")
INTEGER = re.compile(r"^-?\d+$")
BOUND = re.compile(r"^\d+$")
INT64_MAX = 2**63 - 1


class SelectorError(ValueError):
    """A selector that does not parse; `position` is the 0-based character offset of the problem."""

    def __init__(self, message: str, position: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.position = position


@dataclass(frozen=True)
class Requirement:
    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        has = self.key in labels
        value = labels.get(self.key)
        if self.operator == EXISTS:
            return has
        if self.operator == NOT_EXISTS:
            return not has
        if self.operator in (EQUALS, IN):
            return has and value in self.values
        if self.operator in (NOT_EQUALS, NOT_IN):
            return not has or value not in self.values
        if not has or not INTEGER.match(value or ""):
            return False
        bound = int(self.values[0])
        return int(value) > bound if self.operator == GT else int(value) < bound  # type: ignore[arg-type]

    def __str__(self) -> str:
        if self.operator == EXISTS:
            return self.key
        if self.operator == NOT_EXISTS:
            return f"!{self.key}"
        if self.operator in (IN, NOT_IN):
            return f"{self.key} {self.operator} ({','.join(self.values)})"
        symbol = {GT: ">", LT: "<"}.get(self.operator, self.operator)
        return f"{self.key}{symbol}{self.values[0]}"


@dataclass(frozen=True)
class Selector:
    requirements: tuple[Requirement, ...] = ()

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        labels = labels or {}
        return all(r.matches(labels) for r in self.requirements)

    @property
    def empty(self) -> bool:
        return not self.requirements

    @property
    def keys(self) -> list[str]:
        return list(dict.fromkeys(r.key for r in self.requirements))

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)

    def as_label_selector(self) -> dict[str, Any]:
        """The LabelSelector map form (matchLabels for equality, matchExpressions for the rest)."""
        match_labels, expressions = {}, []
        names = {IN: "In", NOT_IN: "NotIn", EXISTS: "Exists", NOT_EXISTS: "DoesNotExist"}
        for r in self.requirements:
            if r.operator == EQUALS and r.key not in match_labels:
                match_labels[r.key] = r.values[0]
            elif r.operator == NOT_EQUALS:
                expressions.append({"key": r.key, "operator": "NotIn", "values": list(r.values)})
            elif r.operator in names:
                entry: dict[str, Any] = {"key": r.key, "operator": names[r.operator]}
                if r.values:
                    entry["values"] = list(r.values)
                expressions.append(entry)
            else:
                raise SelectorError(f"{r}: the map form of a label selector has no {r.operator} operator")
        result: dict[str, Any] = {}
        if match_labels:
            result["matchLabels"] = match_labels
        if expressions:
            result["matchExpressions"] = expressions
        return result


def _tokens(text: str) -> list[tuple[str, str, int]]:
    """(kind, text, position) with kind "op" or "word"."""
    tokens, position = [], 0
    while position < len(text):
        if text[position:].strip(WHITESPACE) == "":
            break
        match = TOKEN.match(text, position)
        if not match:  # pragma: no cover - the word class accepts any other character
            raise SelectorError(f"unexpected character {text[position]!r}", position)
        kind = "op" if match.group("op") else "word"
        start = match.start(kind)
        tokens.append((kind, match.group(kind), start))
        position = match.end()
    return tokens


def _check_key(key: str, position: int) -> str:
    reason = key_error(key)
    if reason:
        raise SelectorError(f"invalid label key: {reason}", position)
    return key


def _check_value(value: str, position: int) -> str:
    reason = value_error(value)
    if reason:
        raise SelectorError(f"invalid label value: {reason}", position)
    return value


def _value_list(take: Callable[[], tuple[str, str, int]]) -> list[str]:
    """The values of `in (...)` after its '(': as Kubernetes, a missing value between commas or
    parentheses is the empty value, so `()`, `(,prod)` and `(a,,b)` all hold ""."""
    values: list[str] = []
    expecting = True
    while True:
        kind, word, position = take()
        if kind == "word":
            if not expecting:
                raise SelectorError(f"expected ',' or ')', found {word!r}", position)
            values.append(_check_value(word, position))
            expecting = False
        elif word in (",", ")"):
            if expecting:
                values.append("")
            if word == ")":
                return values
            expecting = True
        else:
            raise SelectorError(f"expected a value, ',' or ')', found {word!r}", position)


def parse_selector(text: str) -> Selector:
    """Parse the text form as `kubectl get -l` does; an empty string selects everything."""
    tokens = _tokens(text or "")
    index = 0
    requirements: list[Requirement] = []

    def peek() -> tuple[str, str, int] | None:
        return tokens[index] if index < len(tokens) else None

    def take() -> tuple[str, str, int]:
        nonlocal index
        token = peek()
        if token is None:
            raise SelectorError("the selector ends too early", len(text))
        index += 1
        return token

    while index < len(tokens):
        kind, word, position = take()
        if (kind, word) == ("op", "!"):
            kind, word, position = take()
            if kind != "word":
                raise SelectorError(f"expected a label key after '!', found {word!r}", position)
            requirements.append(Requirement(_check_key(word, position), NOT_EXISTS))
        elif kind == "word":
            key = _check_key(word, position)
            following = peek()
            if following is None or following[:2] == ("op", ","):
                requirements.append(Requirement(key, EXISTS))
            elif following[0] == "op" and following[1] in ("=", "==", "!="):
                take()
                operator = NOT_EQUALS if following[1] == "!=" else EQUALS
                value_token = peek()
                value = ""
                if value_token is not None and value_token[0] == "word":
                    value = _check_value(take()[1], value_token[2])
                elif value_token is not None and value_token[:2] != ("op", ","):
                    raise SelectorError(f"expected a value after {following[1]!r}", value_token[2])
                requirements.append(Requirement(key, operator, (value,)))
            elif following[0] == "op" and following[1] in ("<", ">"):
                take()
                bound = peek()
                if bound is None or bound[0] != "word":
                    where = len(text) if bound is None else bound[2]
                    raise SelectorError(f"{following[1]!r} needs a whole number", where)
                take()
                _check_value(bound[1], bound[2])
                if not BOUND.match(bound[1]) or int(bound[1]) > INT64_MAX:
                    raise SelectorError(f"{following[1]!r} needs a whole number", bound[2])
                requirements.append(Requirement(key, GT if following[1] == ">" else LT, (bound[1],)))
            elif following[0] == "word" and following[1] in ("in", "notin"):
                take()
                opening = take()
                if opening[:2] != ("op", "("):
                    raise SelectorError(f"expected '(' after {following[1]!r}", opening[2])
                values = _value_list(take)
                operator = IN if following[1] == "in" else NOT_IN
                requirements.append(Requirement(key, operator, tuple(sorted(set(values)))))
            else:
                raise SelectorError(
                    f"expected '=', '!=', 'in', 'notin' or ',' after {key!r}, found {following[1]!r}",
                    following[2],
                )
        else:
            raise SelectorError(f"expected a label key, found {word!r}", position)
        following = peek()
        if following is not None:
            if following[:2] != ("op", ","):
                raise SelectorError(
                    f"expected ',' between requirements, found {following[1]!r}", following[2]
                )
            take()
            if peek() is None:
                raise SelectorError("the selector ends with ','", following[2])
    return Selector(tuple(requirements))


def selector_from_map(data: dict[str, Any] | None) -> Selector:
    """A LabelSelector map ({matchLabels, matchExpressions}) as a Selector."""
    if not data:
        return Selector()
    if not isinstance(data, dict):
        raise SelectorError("a label selector must be a map with matchLabels and/or matchExpressions")
    requirements = []
    match_labels = data.get("matchLabels") or {}
    if not isinstance(match_labels, dict):
        raise SelectorError("matchLabels must be a map of key to value")
    for key, value in match_labels.items():
        requirements.append(Requirement(_check_key(str(key), 0), EQUALS, (_check_value(str(value), 0),)))
    for number, expression in enumerate(data.get("matchExpressions") or []):
        if not isinstance(expression, dict):
            raise SelectorError(f"matchExpressions[{number}] must be a map")
        operator = EXPRESSION_OPERATORS.get(str(expression.get("operator")))
        if operator is None:
            raise SelectorError(
                f"matchExpressions[{number}].operator must be one of In, NotIn, Exists, DoesNotExist"
            )
        values = tuple(str(v) for v in expression.get("values") or [])
        if operator in (IN, NOT_IN) and not values:
            raise SelectorError(f"matchExpressions[{number}]: {expression.get('operator')} needs values")
        if operator in (EXISTS, NOT_EXISTS) and values:
            raise SelectorError(f"matchExpressions[{number}]: {expression.get('operator')} takes no values")
        for value in values:
            _check_value(value, 0)
        requirements.append(Requirement(_check_key(str(expression.get("key", "")), 0), operator, values))
    return Selector(tuple(requirements))


def to_selector(selector: str | dict[str, Any] | Selector | None) -> Selector:
    if isinstance(selector, Selector):
        return selector
    if isinstance(selector, dict) or selector is None:
        return selector_from_map(selector)
    return parse_selector(selector)
