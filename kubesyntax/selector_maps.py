"""The LabelSelector object form ({matchLabels, matchExpressions}) both ways, and any form to a Selector."""

from __future__ import annotations

from typing import Any

from kubesyntax.selector_text import parse_selector
from kubesyntax.selectors import (
    DOES_NOT_EXIST,
    DOUBLE_EQUALS,
    EQUALS,
    EXISTS,
    IN,
    LABEL_OPERATORS,
    NOT_EQUALS,
    NOT_IN,
    Expression,
    Requirement,
    Selector,
    SelectorError,
    sorted_by_key,
)

OPERATOR_NAMES = {IN: "In", NOT_IN: "NotIn", EXISTS: "Exists", DOES_NOT_EXIST: "DoesNotExist"}
AS_SET = {EQUALS: IN, DOUBLE_EQUALS: IN, NOT_EQUALS: NOT_IN}


def selector_from_map(data: dict[str, Any] | None) -> Selector:
    """Kubernetes' LabelSelectorAsSelector: matchLabels as equalities, matchExpressions as set rules."""
    if not data:
        return Selector()
    if not isinstance(data, dict):
        raise SelectorError("a label selector must be a map with matchLabels and/or matchExpressions")
    match_labels = data.get("matchLabels") or {}
    if not isinstance(match_labels, dict):
        raise SelectorError("matchLabels must be a map of key to value")
    expressions = data.get("matchExpressions") or []
    if not isinstance(expressions, list):
        raise SelectorError("matchExpressions must be a list")
    requirements = []
    for key, value in match_labels.items():
        expression = Expression(str(key), "In", (str(value),))
        reason = expression.error()
        if reason:
            raise SelectorError(f"matchLabels: {reason}")
        requirements.append(Requirement(expression.key, EQUALS, expression.values))
    for number, item in enumerate(expressions):
        if not isinstance(item, dict):
            raise SelectorError(f"matchExpressions[{number}] must be a map")
        values = tuple(str(value) for value in item.get("values") or [])
        expression = Expression(str(item.get("key", "")), str(item.get("operator")), values)
        reason = expression.error(LABEL_OPERATORS)
        if reason:
            raise SelectorError(f"matchExpressions[{number}]: {reason}")
        requirements.append(expression.requirement())
    return sorted_by_key(requirements)


def as_label_selector(selector: Selector) -> dict[str, Any]:
    """The map form of `selector`: the first equality per key in matchLabels, everything else as expressions;
    SelectorError for `<` and `>`, which the map form cannot hold."""
    match_labels: dict[str, str] = {}
    expressions: list[dict[str, Any]] = []
    for requirement in selector.requirements:
        if requirement.operator in (EQUALS, DOUBLE_EQUALS) and requirement.key not in match_labels:
            match_labels[requirement.key] = requirement.values[0]
            continue
        operator = AS_SET.get(requirement.operator, requirement.operator)
        if operator not in OPERATOR_NAMES:
            raise SelectorError(f"{requirement}: the map form of a label selector has no '<' or '>'")
        expression = Expression(requirement.key, OPERATOR_NAMES[operator], requirement.values)
        expressions.append(expression.as_dict())
    result: dict[str, Any] = {}
    if match_labels:
        result["matchLabels"] = match_labels
    if expressions:
        result["matchExpressions"] = expressions
    return result


def to_selector(selector: str | dict[str, Any] | Selector | None) -> Selector:
    """A Selector from the text form, the map form, or one already parsed; None selects everything."""
    if isinstance(selector, Selector):
        return selector
    if isinstance(selector, dict) or selector is None:
        return selector_from_map(selector)
    return parse_selector(selector)
