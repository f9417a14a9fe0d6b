"""kubesyntax's selector parser agrees with Kubernetes' own test tables (k8s.io/apimachinery/pkg/labels).

The cases below are transcribed as data from selector_test.go (TestSelectorParse, TestSelectorMatches,
TestSetSelectorParser): each input with whether Kubernetes accepts it and, where the table says, the
requirements it parses to or whether it matches a label set.
"""

import pytest

from kubesyntax.selector_text import parse_selector
from kubesyntax.selectors import (
    DOES_NOT_EXIST,
    EQUALS,
    EXISTS,
    GT,
    IN,
    LT,
    NOT_EQUALS,
    NOT_IN,
    SelectorError,
)

# TestSelectorParse: accepted, and printed back as the input without spaces.
PRINTS_BACK = ["x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1", "x>1,z<5"]

# TestSelectorParse and TestSetSelectorParser: refused.
REFUSED = [
    "x=a||y=b",
    "x==a==b",
    "!x=a",
    "x<a",
    "x,,y",
    ",x,y",
    "x nott in (y)",
    "a in (xyz),",
    "a in (xyz)b notin ()",
    "a in (xyz abc)",
    "a notin(",
    "a (",
    "(",
]

# TestSetSelectorParser: accepted, with the requirements (key, operator, values) it holds.
PARSES_TO = [
    ("", []),
    ("\rx", [("x", EXISTS, ())]),
    (
        "this-is-a-dns.domain.com/key-with-dash",
        [("this-is-a-dns.domain.com/key-with-dash", EXISTS, ())],
    ),
    (
        "this-is-another-dns.domain.com/key-with-dash in (so,what)",
        [("this-is-another-dns.domain.com/key-with-dash", IN, ("so", "what"))],
    ),
    (
        "0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
        [("0.1.2.domain/99", NOT_IN, ("10.10.100.1", "tick.tack.clock"))],
    ),
    ("foo  in\t (abc)", [("foo", IN, ("abc",))]),
    ("x notin\n (abc)", [("x", NOT_IN, ("abc",))]),
    ("x  notin\t\t\t(abc,def)", [("x", NOT_IN, ("abc", "def"))]),
    ("x in (abc,def)", [("x", IN, ("abc", "def"))]),
    ("x in (abc,)", [("x", IN, ("", "abc"))]),
    ("x in (abc,abc)", [("x", IN, ("abc",))]),
    ("x in ()", [("x", IN, ("",))]),
    ("x in (a,,)", [("x", IN, ("", "a"))]),
    ("x in (a,,,)", [("x", IN, ("", "a"))]),
    ("x in (a,,,,,,)", [("x", IN, ("", "a"))]),
    ("x in (a,,a,,a,,a,,)", [("x", IN, ("", "a"))]),
    (
        "x notin (abc,,def),bar,z in (),w",
        [("bar", EXISTS, ()), ("w", EXISTS, ()), ("x", NOT_IN, ("", "abc", "def")), ("z", IN, ("",))],
    ),
    ("x,y in (a)", [("x", EXISTS, ()), ("y", IN, ("a",))]),
    ("x=a", [("x", EQUALS, ("a",))]),
    ("x>1", [("x", GT, ("1",))]),
    ("x<7", [("x", LT, ("7",))]),
    ("x=a,y!=b", [("x", EQUALS, ("a",)), ("y", NOT_EQUALS, ("b",))]),
    ("x=a,y!=b,z in (h,i,j)", [("x", EQUALS, ("a",)), ("y", NOT_EQUALS, ("b",)), ("z", IN, ("h", "i", "j"))]),
    ("x notin ( )", [("x", NOT_IN, ("",))]),
    ("x notin (, a)", [("x", NOT_IN, ("", "a"))]),
    ("a ", [("a", EXISTS, ())]),
    ("a in (x,y,notin, z,in)", [("a", IN, ("in", "notin", "x", "y", "z"))]),
    ("!x", [("x", DOES_NOT_EXIST, ())]),
]

# TestSelectorMatches: (selector, labels, matches).
MATCHES = [
    ("", {"x": "y"}, True),
    ("x=y", {"x": "y"}, True),
    ("x=y,z=w", {"x": "y", "z": "w"}, True),
    ("x!=y,z!=w", {"x": "z", "z": "a"}, True),
    ("notin=in", {"notin": "in"}, True),
    ("x", {"x": "z"}, True),
    ("!x", {"y": "z"}, True),
    ("x>1", {"x": "2"}, True),
    ("x<1", {"x": "0"}, True),
    ("x=z", {}, False),
    ("x=y", {"x": "z"}, False),
    ("x=y,z=w", {"x": "w", "z": "w"}, False),
    ("x!=y,z!=w", {"x": "z", "z": "w"}, False),
    ("x", {"y": "z"}, False),
    ("!x", {"x": "z"}, False),
    ("x>1", {"x": "0"}, False),
    ("x<1", {"x": "2"}, False),
    ("foo=bar", {"foo": "bar", "baz": "blah"}, True),
    ("baz=blah", {"foo": "bar", "baz": "blah"}, True),
    ("foo=bar,baz=blah", {"foo": "bar", "baz": "blah"}, True),
    ("foo=blah", {"foo": "bar", "baz": "blah"}, False),
    ("baz=bar", {"foo": "bar", "baz": "blah"}, False),
    ("foo=bar,foobar=bar,baz=blah", {"foo": "bar", "baz": "blah"}, False),
]


@pytest.mark.parametrize("text", PRINTS_BACK)
def test_a_selector_kubernetes_accepts_parses_and_prints_back_without_spaces(text):
    assert str(parse_selector(text)) == text.replace(" ", "")


@pytest.mark.parametrize("text", REFUSED)
def test_a_selector_kubernetes_refuses_is_refused_with_a_position(text):
    with pytest.raises(SelectorError) as caught:
        parse_selector(text)
    assert caught.value.message
    assert 0 <= caught.value.position <= len(text)


@pytest.mark.parametrize(("text", "requirements"), PARSES_TO)
def test_a_selector_parses_to_the_requirements_kubernetes_finds(text, requirements):
    parsed = {(r.key, r.operator, tuple(sorted(r.values))) for r in parse_selector(text).requirements}
    assert parsed == set(requirements)


@pytest.mark.parametrize(("text", "labels", "matches"), MATCHES)
def test_a_selector_matches_the_label_sets_kubernetes_matches(text, labels, matches):
    assert parse_selector(text).matches(labels) is matches
