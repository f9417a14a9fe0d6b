"""Names, label keys and label values follow Kubernetes' own tables (apimachinery validation_test.go)."""

import json
from pathlib import Path

import pytest

from kubesyntax.names import dns_label_error, dns_subdomain_error, label_key_error, label_value_error

TABLES = json.loads((Path(__file__).parent / "data" / "kubernetes-names.json").read_text())
CHECKS = {
    "dns1123_label": dns_label_error,
    "dns1123_subdomain": dns_subdomain_error,
    "qualified_name": label_key_error,
    "label_value": label_value_error,
}
GOOD = [(rule, value) for rule in CHECKS for value in TABLES[rule]["good"]]
BAD = [(rule, value) for rule in CHECKS for value in TABLES[rule]["bad"]]


@pytest.mark.parametrize(("rule", "value"), GOOD)
def test_a_name_kubernetes_accepts_is_accepted(rule, value):
    assert CHECKS[rule](value) is None


@pytest.mark.parametrize(("rule", "value"), BAD)
def test_a_name_kubernetes_refuses_is_refused_with_a_reason(rule, value):
    assert CHECKS[rule](value)


@pytest.mark.parametrize("check", CHECKS.values())
def test_a_trailing_new_line_is_never_part_of_a_name(check):
    assert check("abc\n")
