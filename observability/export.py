"""The alert rules as a Prometheus rules file or a PrometheusRule manifest (monitoring.coreos.com/v1)."""

from __future__ import annotations

from typing import Any

import yaml

from kubesyntax.names import dns_label_error
from observability.rules import Rule, alert_rules

PROMETHEUS = "prometheus"
PROMETHEUSRULE = "prometheusrule"
FORMATS = (PROMETHEUS, PROMETHEUSRULE)
FILENAMES = {PROMETHEUS: "karmada-ui-rules.yaml", PROMETHEUSRULE: "karmada-ui-prometheusrule.yaml"}


def rule_groups(rules: list[Rule]) -> list[dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for rule in rules:
        groups.setdefault(rule.group, []).append(rule.as_prometheus())
    return [{"name": name, "rules": entries} for name, entries in groups.items()]


def export_document(fmt: str, namespace: str = "") -> dict[str, Any]:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if namespace and dns_label_error(namespace):
        raise ValueError(f"namespace {namespace!r} is not a Kubernetes namespace name (lower-case DNS label)")
    groups = rule_groups(alert_rules())
    if fmt == PROMETHEUS:
        return {"groups": groups}
    metadata: dict[str, Any] = {"name": "karmada-ui"}
    if namespace:
        metadata["namespace"] = namespace
    metadata["labels"] = {"app.kubernetes.io/name": "karmada-ui", "role": "alert-rules"}
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": metadata,
        "spec": {"groups": groups},
    }


def export_yaml(fmt: str, namespace: str = "") -> str:
    header = "# Alert rules of karmada-ui; generated from the same definitions as its built-in alerting.\n"
    body = yaml.safe_dump(export_document(fmt, namespace), sort_keys=False, allow_unicode=True, width=1000)
    return header + body
