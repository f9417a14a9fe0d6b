"""Label and field selector parsing and matching."""

from __future__ import annotations

import pytest

from membersim.selectors import (
    SelectorError,
    fields_match,
    format_requirements,
    labels_match,
    parse_field_selector,
    parse_label_selector,
    requirements_from_label_selector,
)

LABELS = {"app": "web", "tier": "front", "env": "prod", "weight": "7"}


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("app=web", True),
        ("app==web", True),
        ("app!=web", False),
        ("app=web,tier=back", False),
        ("tier in (front,back)", True),
        ("tier notin (front)", False),
        ("missing notin (x)", True),
        ("env", True),
        ("!env", False),
        ("!missing", True),
        ("env in (prod, staging),app", True),
        ("weight>5", True),
        ("weight<5", False),
        ("", True),
    ],
)
def test_label_selector_matches_like_kubernetes(selector, expected):
    assert labels_match(parse_label_selector(selector), LABELS) is expected


@pytest.mark.parametrize("selector", ["app=web,", "tier in (front back)", "a b", "x>y", "=web"])
def test_malformed_label_selectors_are_rejected(selector):
    with pytest.raises(SelectorError):
        parse_label_selector(selector)


def test_label_selector_object_form_matches_and_formats():
    selector = {
        "matchLabels": {"app": "web"},
        "matchExpressions": [{"key": "tier", "operator": "In", "values": ["front"]}],
    }
    requirements = requirements_from_label_selector(selector)
    assert labels_match(requirements, LABELS)
    assert format_requirements(requirements) == "app=web,tier in (front)"
    assert not labels_match(requirements, {"app": "web"})


def test_label_selector_object_with_a_bad_operator_is_rejected():
    with pytest.raises(SelectorError):
        requirements_from_label_selector({"matchExpressions": [{"key": "a", "operator": "Near"}]})


def test_field_selector_compares_dotted_paths():
    pod = {
        "metadata": {"name": "web-1", "namespace": "default"},
        "spec": {"nodeName": "n1"},
        "status": {"phase": "Running"},
    }
    assert fields_match(parse_field_selector("metadata.name=web-1,status.phase!=Pending"), pod)
    assert not fields_match(parse_field_selector("spec.nodeName=n2"), pod)
    assert fields_match(parse_field_selector("spec.schedulerName="), pod)
    with pytest.raises(SelectorError):
        parse_field_selector("metadata.name~web")
