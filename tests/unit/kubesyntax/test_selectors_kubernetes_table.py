"""kubesyntax's selector parser agrees with Kubernetes' own test tables (k8s.io/apimachinery/pkg/labels).

The cases are transcribed as data from selector_test.go into tests/data/kubernetes/label_selectors.json
(which membersim's own parser is checked against too): each input with whether Kubernetes refuses it and,
where the table says, the string it prints back, the requirements it holds or whether it matches a
label set.
"""

import json
from pathlib import Path

import pytest

from kubesyntax.selector_text import parse_selector
from kubesyntax.selectors import SelectorError

TABLE = Path(__file__).resolve().parents[2] / "data" / "kubernetes" / "label_selectors.json"
CASES = json.loads(TABLE.read_text())["cases"]


def cases_with(*keys: str, error: bool = False) -> list[dict]:
    return [c for c in CASES if c["error"] is error and all(k in c for k in keys)]


def ids(cases: list[dict]) -> list[str]:
    return [f"{c['source']}:{c['selector']!r}" for c in cases]


PRINTS_BACK = cases_with("string")
REFUSED = cases_with(error=True)
PARSES_TO = cases_with("requirements")
MATCHES = cases_with("labels")


@pytest.mark.parametrize("case", PRINTS_BACK, ids=ids(PRINTS_BACK))
def test_a_selector_kubernetes_accepts_parses_and_prints_back_as_kubernetes_prints_it(case):
    assert str(parse_selector(case["selector"])) == case["string"]


@pytest.mark.parametrize("case", REFUSED, ids=ids(REFUSED))
def test_a_selector_kubernetes_refuses_is_refused_with_a_position(case):
    text = case["selector"]
    with pytest.raises(SelectorError) as caught:
        parse_selector(text)
    assert caught.value.message
    assert 0 <= caught.value.position <= len(text)


@pytest.mark.parametrize("case", PARSES_TO, ids=ids(PARSES_TO))
def test_a_selector_parses_to_the_requirements_kubernetes_finds(case):
    parsed = {
        (r.key, r.operator, tuple(sorted(r.values))) for r in parse_selector(case["selector"]).requirements
    }
    assert parsed == {(key, operator, tuple(values)) for key, operator, values in case["requirements"]}


@pytest.mark.parametrize("case", MATCHES, ids=ids(MATCHES))
def test_a_selector_matches_the_label_sets_kubernetes_matches(case):
    assert parse_selector(case["selector"]).matches(case["labels"]) is case["matches"]
