"""The exported rules are valid YAML of the right shape, their PromQL parses, and it names real metrics."""

import promql_parser
import pytest
import yaml

from metrics.catalogue import exposed_series_names
from observability.export import export_yaml
from observability.rules import alert_rules

EXPECTED_ALERTS = {
    "ClusterUnhealthy",
    "ClusterCPUHigh",
    "WorksFailingToApply",
    "SchedulingFailures",
    "RolloutHalted",
}


def selectors(node):
    """Every metric name a parsed PromQL expression reads."""
    kind = type(node).__name__
    if kind == "VectorSelector":
        yield node.name
    elif kind == "MatrixSelector":
        yield from selectors(node.vector_selector)
    elif kind == "BinaryExpr":
        yield from selectors(node.lhs)
        yield from selectors(node.rhs)
    elif kind == "AggregateExpr":
        yield from selectors(node.expr)
    elif kind == "Call":
        for arg in node.args:
            yield from selectors(arg)
    elif kind == "ParenExpr":
        yield from selectors(node.expr)


def all_rules(document):
    return [rule for group in document["groups"] for rule in group["rules"]]


def test_the_prometheus_rules_file_has_groups_of_alerting_rules():
    document = yaml.safe_load(export_yaml("prometheus"))
    assert set(document) == {"groups"}
    names = [group["name"] for group in document["groups"]]
    assert len(names) == len(set(names)), "group names must be unique"
    rules = all_rules(document)
    assert {rule["alert"] for rule in rules} == EXPECTED_ALERTS
    for rule in rules:
        assert set(rule) <= {"alert", "expr", "for", "labels", "annotations"}
        assert rule["labels"]["severity"] in {"critical", "warning"}
        assert rule["annotations"]["summary"] and rule["annotations"]["description"]


def test_the_prometheusrule_manifest_wraps_the_same_groups():
    manifest = yaml.safe_load(export_yaml("prometheusrule", namespace="monitoring"))
    assert manifest["apiVersion"] == "monitoring.coreos.com/v1"
    assert manifest["kind"] == "PrometheusRule"
    assert manifest["metadata"]["name"] == "karmada-ui"
    assert manifest["metadata"]["namespace"] == "monitoring"
    assert manifest["spec"]["groups"] == yaml.safe_load(export_yaml("prometheus"))["groups"]


@pytest.mark.parametrize(
    "rule", all_rules(yaml.safe_load(export_yaml("prometheus"))), ids=lambda r: r["alert"]
)
def test_every_expression_parses_as_promql_and_reads_only_metrics_we_expose(rule):
    parsed = promql_parser.parse(rule["expr"])
    assert type(parsed).__name__ == "BinaryExpr", "an alert expression must end in a comparison"
    assert parsed.op.__str__() in {"==", "!=", ">", "<", ">=", "<="}
    names = set(selectors(parsed))
    assert names, rule["expr"]
    assert names <= exposed_series_names(), names - exposed_series_names()


def test_the_unhealthy_rule_is_the_seed_alert_done_right():
    rule = next(
        rule
        for rule in all_rules(yaml.safe_load(export_yaml("prometheus")))
        if rule["alert"] == "ClusterUnhealthy"
    )
    assert rule["expr"] == "cluster_ready_state == 0"
    assert rule["for"] == "5m"
    assert "karmada_cluster_status_condition" not in export_yaml("prometheus")


def test_a_zero_for_duration_is_left_out_of_the_export(settings):
    settings.ALERT_CLUSTER_UNHEALTHY_FOR = 0
    rule = next(
        r for r in all_rules(yaml.safe_load(export_yaml("prometheus"))) if r["alert"] == "ClusterUnhealthy"
    )
    assert "for" not in rule


def test_the_cpu_threshold_comes_from_the_settings(settings):
    settings.ALERT_CLUSTER_CPU_THRESHOLD = 65
    rule = next(r for r in alert_rules() if r.alert == "ClusterCPUHigh")
    assert rule.expr.promql().endswith("> 65")
    assert "above 65% of" in rule.annotations["description"]


def test_an_unknown_format_is_refused():
    with pytest.raises(ValueError, match="prometheusrule"):
        export_yaml("alertmanager")
