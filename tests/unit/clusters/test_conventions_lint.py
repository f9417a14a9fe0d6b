"""Lint of cluster labels against conventions, and of selectors against the fleet's labels."""

import pytest

from clusters.conventions import Rule, Subject, lint_selector, lint_subject

RULES = {
    "env": Rule("env", required=True, allowed_values=("dev", "staging", "prod"), aliases=("environment",)),
    "location/region": Rule("location/region", required=True, aliases=("region",)),
    "location/zone": Rule("location/zone", pattern=r"cn-[a-z]+-[a-z]"),
}


def lint(labels, **topology):
    return {(f.code, f.key): f for f in lint_subject(Subject("beijing", labels, **topology), RULES)}


def test_a_cluster_that_follows_every_rule_has_no_findings():
    assert lint({"env": "prod", "location/region": "cn-north", "location/zone": "cn-north-a"}) == {}


def test_a_missing_required_key_is_an_error_fixed_from_an_alias():
    found = lint({"environment": "prod", "location/region": "cn-north"})
    missing = found[("missing", "env")]
    assert missing.severity == "error"
    assert missing.fix == {"set": {"env": "prod"}, "remove": ["environment"]}


def test_a_missing_region_is_fixed_from_the_nodes_topology():
    found = lint({"env": "dev"}, region="cn-east")
    assert found[("missing", "location/region")].fix == {"set": {"location/region": "cn-east"}, "remove": []}
    assert lint({"env": "dev"})[("missing", "location/region")].fix is None


def test_a_value_outside_the_rule_is_an_error_fixed_only_when_it_is_a_known_synonym():
    found = lint({"env": "production", "location/region": "x"})
    assert found[("value", "env")].fix == {"set": {"env": "prod"}, "remove": []}
    assert "expected dev, staging, prod" in found[("value", "env")].message
    assert lint({"env": "qa", "location/region": "x"})[("value", "env")].fix is None
    assert ("value", "location/zone") in lint(
        {"env": "dev", "location/region": "x", "location/zone": "zone-1"}
    )


def test_keys_without_a_domain_get_a_warning_unless_a_convention_blesses_them():
    found = lint({"env": "dev", "location/region": "x", "team": "payments"})
    assert found[("form", "team")].severity == "warning"
    assert ("form", "env") not in found


def test_two_keys_for_the_same_thing_are_flagged_and_the_duplicate_removed_when_they_agree():
    found = lint({"env": "dev", "location/region": "cn-north", "region": "cn-north"})
    assert found[("duplicate", "region")].fix == {"set": {}, "remove": ["region"]}
    disagree = lint({"env": "dev", "location/region": "cn-north", "region": "cn-east"})
    assert "disagree" in disagree[("duplicate", "region")].message
    assert disagree[("duplicate", "region")].fix is None
    synonyms = lint({"env": "prod", "environment": "production", "location/region": "x"})
    assert synonyms[("duplicate", "environment")].fix == {"set": {}, "remove": ["environment"]}


FLEET = {
    "beijing": {"env": "prod", "location/region": "cn-north"},
    "shanghai": {"env": "prod", "location/region": "cn-east"},
    "guangzhou": {"env": "staging", "location/region": "cn-south"},
}


def codes(selector):
    return [(f["code"], f["suggestion"]) for f in lint_selector(selector, FLEET)]


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("env=prod", []),
        ("env=qa", [("unknown-value", ""), ("matches-none", "")]),
        ("env=staing", [("unknown-value", "staging"), ("matches-none", "")]),
        ("enviroment=prod", [("unknown-key", "env"), ("matches-none", "")]),
        ("region=cn-north", [("unknown-key", "location/region"), ("matches-none", "")]),
        ("env in (prod,staging)", [("matches-all", "")]),
        ("!deprecated", [("matches-all", "")]),
        ("env in (a=b)", [("syntax", "")]),
        ({"matchLabels": {"location/region": "cn-east"}}, []),
        (
            {"matchExpressions": [{"key": "env", "operator": "NotIn", "values": ["prod", "staging"]}]},
            [("matches-none", "")],
        ),
    ],
)
def test_selector_lint_finds_no_match_all_match_and_unknown_keys_with_suggestions(selector, expected):
    assert codes(selector) == expected


def test_selector_lint_accepts_cluster_objects():
    from types import SimpleNamespace

    clusters = [SimpleNamespace(name=n, labels=labels) for n, labels in FLEET.items()]
    assert lint_selector("env=prod", clusters) == []
