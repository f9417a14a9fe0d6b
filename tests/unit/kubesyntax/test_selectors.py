"""The label selector parser accepts what kubectl accepts, matches as Kubernetes does, and locates errors."""

import re

import pytest

from kubesyntax.selector_maps import as_label_selector, selector_from_map, to_selector
from kubesyntax.selector_text import parse_selector
from kubesyntax.selectors import SelectorError

PROD_NORTH = {"env": "prod", "location/region": "cn-north", "tier": "3"}
DEV = {"env": "dev"}
BARE = {}


@pytest.mark.parametrize(
    ("text", "matches"),
    [
        ("", [PROD_NORTH, DEV, BARE]),
        ("env=prod", [PROD_NORTH]),
        ("env==prod", [PROD_NORTH]),
        ("env!=prod", [DEV, BARE]),
        ("env=prod,location/region=cn-north", [PROD_NORTH]),
        (" env = prod , location/region = cn-north ", [PROD_NORTH]),
        ("env in (dev,staging)", [DEV]),
        ("env in(dev, prod)", [PROD_NORTH, DEV]),
        ("env notin (dev)", [PROD_NORTH, BARE]),
        ("env", [PROD_NORTH, DEV]),
        ("!env", [BARE]),
        ("! env", [BARE]),
        ("!deprecated", [PROD_NORTH, DEV, BARE]),
        ("tier>2", [PROD_NORTH]),
        ("tier<3", []),
        ("env=", []),
        ("env in (,prod)", [PROD_NORTH]),
        ("env notin (,dev)", [PROD_NORTH, BARE]),
        ("env in ()", []),
        ("env\tin\n(dev)", [DEV]),
    ],
)
def test_selectors_match_like_kubernetes(text, matches):
    selector = parse_selector(text)
    assert [labels for labels in (PROD_NORTH, DEV, BARE) if selector.matches(labels)] == matches


@pytest.mark.parametrize(
    ("text", "message", "position"),
    [
        ("env=prod,", "ends with ','", 8),
        ("env in (a=b)", "expected a value, ',' or ')', found '='", 9),
        ("tier>", "'>' needs a whole number", 5),
        ("tier<99999999999999999999", "'<' needs a whole number", 5),
        ("env in (a", "ends too early", 9),
        ("env in a", "expected '(' after 'in'", 7),
        ("env prod", "expected '=', '!=', 'in', 'notin' or ','", 4),
        ("=prod", "expected a label key", 0),
        ("env=prod!", "expected ',' between requirements, found '!'", 8),
        ("!,env", "expected a label key after '!'", 1),
        ("Bad_Prefix.io/x=1", "DNS subdomain", 0),
        ("env=pr od", "expected ',' between requirements", 7),
        ("env=-x", "invalid label value", 4),
        ("tier>high", "needs a whole number", 5),
        ("env in (a b)", "expected ',' or ')'", 10),
    ],
)
def test_syntax_errors_say_what_and_where(text, message, position):
    with pytest.raises(SelectorError, match=re.escape(message)) as caught:
        parse_selector(text)
    assert caught.value.position == position


def test_the_text_form_prints_back_canonically():
    assert (
        str(parse_selector(" env in (staging,dev), !old,tier ,x!=y")) == "env in (dev,staging),!old,tier,x!=y"
    )


def test_the_map_form_parses_and_converts_both_ways():
    data = {
        "matchLabels": {"env": "prod"},
        "matchExpressions": [
            {"key": "location/region", "operator": "In", "values": ["cn-north", "cn-east"]},
            {"key": "deprecated", "operator": "DoesNotExist"},
        ],
    }
    selector = selector_from_map(data)
    assert selector.matches(PROD_NORTH) and not selector.matches(DEV)
    assert to_selector(as_label_selector(selector)) == selector
    assert as_label_selector(parse_selector("env!=dev")) == {
        "matchExpressions": [{"key": "env", "operator": "NotIn", "values": ["dev"]}]
    }


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"matchExpressions": [{"key": "env", "operator": "Equals", "values": ["a"]}]}, "must be one of"),
        ({"matchExpressions": [{"key": "env", "operator": "In"}]}, "needs values"),
        ({"matchExpressions": [{"key": "env", "operator": "Exists", "values": ["x"]}]}, "takes no values"),
        ({"matchLabels": ["env"]}, "must be a map"),
    ],
)
def test_bad_map_selectors_are_refused(data, message):
    with pytest.raises(SelectorError, match=message):
        selector_from_map(data)
