"""The rules export is downloadable from the API by any signed-in user and printed by export_rules."""

import io

import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from tests.support.api import problems

URL = "/api/v1/alert-rules/"


@pytest.mark.django_db
def test_a_viewer_downloads_the_rules_file_and_the_prometheusrule(api_as, viewer):
    client = api_as(viewer)
    rules = client.get(URL)
    assert rules.status_code == 200
    assert rules["Content-Type"].startswith("application/yaml")
    assert 'filename="karmada-ui-rules.yaml"' in rules["Content-Disposition"]
    assert "groups" in yaml.safe_load(rules.content)

    manifest = client.get(URL, {"format": "prometheusrule", "namespace": "monitoring"})
    assert manifest.status_code == 200
    document = yaml.safe_load(manifest.content)
    assert document["kind"] == "PrometheusRule"
    assert document["metadata"]["namespace"] == "monitoring"


@pytest.mark.django_db
def test_an_unknown_format_is_a_400_naming_the_field(api_as, viewer):
    response = api_as(viewer).get(URL, {"format": "json"})
    assert response.status_code == 400
    assert "format" in problems(response)


@pytest.mark.django_db
def test_anonymous_callers_get_no_rules():
    assert APIClient().get(URL).status_code in (401, 403)


def test_the_command_prints_the_same_yaml_as_the_api():
    out = io.StringIO()
    call_command("export_rules", "--format", "prometheusrule", stdout=out)
    assert yaml.safe_load(out.getvalue())["apiVersion"] == "monitoring.coreos.com/v1"


@pytest.mark.django_db
def test_a_namespace_that_is_not_a_dns_label_is_refused_by_the_api_and_the_command(api_as, viewer):
    response = api_as(viewer).get(URL, {"format": "prometheusrule", "namespace": "Ops Team"})
    assert response.status_code == 400 and "namespace" in problems(response)
    with pytest.raises(CommandError, match="not a Kubernetes namespace"):
        call_command("export_rules", "--format", "prometheusrule", "--namespace", "Ops Team")


def test_the_command_refuses_an_unknown_format():
    with pytest.raises(CommandError, match="invalid choice"):
        call_command("export_rules", "--format", "grafana")
