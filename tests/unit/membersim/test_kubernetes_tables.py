"""membersim's own label-selector and quantity parsers agree with Kubernetes' test tables.

The tables are apimachinery's (pkg/labels/selector_test.go, pkg/api/resource/quantity_test.go),
transcribed as data in tests/data/kubernetes/; the dashboard's parsers read the same files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from membersim.quantity import QuantityError, canonical, parse_quantity, to_millicores
from membersim.selectors import SelectorError, format_requirements, labels_match, parse_label_selector

TABLES = Path(__file__).resolve().parents[2] / "data" / "kubernetes"
SELECTORS = json.loads((TABLES / "label_selectors.json").read_text())["cases"]
QUANTITIES = json.loads((TABLES / "quantities.json").read_text())["cases"]


def case_id(case: dict, key: str) -> str:
    return f"{case['source']}:{case[key]!r}"


@pytest.mark.parametrize("case", SELECTORS, ids=[case_id(c, "selector") for c in SELECTORS])
def test_a_label_selector_parses_prints_and_matches_as_kubernetes_says(case):
    if case["error"]:
        with pytest.raises(SelectorError):
            parse_label_selector(case["selector"])
        return
    requirements = parse_label_selector(case["selector"])
    if "requirements" in case:
        assert [[r.key, r.op, list(r.values)] for r in requirements] == case["requirements"]
    if "string" in case:
        assert format_requirements(requirements) == case["string"]
    if "labels" in case:
        assert labels_match(requirements, case["labels"]) is case["matches"]


@pytest.mark.parametrize("case", QUANTITIES, ids=[case_id(c, "input") for c in QUANTITIES])
def test_a_quantity_parses_to_the_value_and_canonical_form_kubernetes_finds(case):
    if case["error"]:
        with pytest.raises(QuantityError):
            parse_quantity(case["input"])
        return
    parse_quantity(case["input"])
    if "milli" in case:
        assert to_millicores(case["input"]) == case["milli"]
    if "canonical" in case:
        assert canonical(case["input"]) == case["canonical"]
