"""An apply of many objects writes its new templates, their first revisions and its audit entries together:
a bounded number of statements whatever the number of objects, with what applying them one by one
records."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.models import AuditEntry
from scheduling.controllers.apply import ApplyError
from scheduling.models import ResourceTemplate, TemplateRevision
from scheduling.services import apply_yaml

DEPLOYMENT = """---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: {ns}}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec: {{containers: [{{name: app, image: "nginx:1.27"}}]}}
"""


def deployments(count: int, ns: str = "many", replicas: int = 1, start: int = 0) -> str:
    return "".join(
        DEPLOYMENT.format(name=f"w-{i:04d}", ns=ns, replicas=replicas) for i in range(start, start + count)
    )


def statements(text: str) -> int:
    """The statements an apply runs, savepoints left out (the test's own transaction makes them)."""
    with CaptureQueriesContext(connection) as queries:
        apply_yaml(text)
    return sum(1 for query in queries.captured_queries if "SAVEPOINT" not in query["sql"])


@pytest.mark.django_db
def test_new_templates_take_the_same_statements_for_ten_times_as_many():
    few = statements(deployments(10, ns="few"))
    many = statements(deployments(100, ns="many"))
    assert many <= few + 4  # SQLite's bulk inserts go in batches of its parameter limit
    assert few <= 6  # the templates read, then the templates, revisions and audit entries written
    assert ResourceTemplate.objects.filter(namespace="many").count() == 100


@pytest.mark.django_db
def test_existing_templates_are_read_in_one_statement():
    apply_yaml(deployments(100, ns="again"))
    assert statements(deployments(10, ns="again")) == statements(deployments(100, ns="again")) == 1


@pytest.mark.django_db
def test_each_new_template_has_its_first_revision_and_audit_entry():
    result = apply_yaml(deployments(5, ns="rev") + deployments(1, ns="other"))
    templates = ResourceTemplate.objects.filter(namespace__in=["rev", "other"]).order_by("pk")
    assert sorted(result.template_ids) == [t.pk for t in templates]
    for template in templates:
        (revision,) = TemplateRevision.objects.filter(template=template)
        assert (revision.generation, revision.manifest) == (1, template.manifest)
    entries = AuditEntry.objects.filter(action="apply:created", object_kind="Deployment")
    assert sorted(entries.values_list("object_namespace", "object_name")) == sorted(
        (t.namespace, t.name) for t in templates
    )


@pytest.mark.django_db
def test_a_template_named_twice_in_one_apply_is_created_then_configured():
    text = deployments(1, ns="twice", replicas=1) + deployments(1, ns="twice", replicas=3)
    result = apply_yaml(text)
    assert [o.action for o in result.objects] == ["created", "configured"]
    (template,) = ResourceTemplate.objects.filter(namespace="twice")
    assert (template.generation, template.manifest["spec"]["replicas"]) == (2, 3)
    assert sorted(template.revisions.values_list("generation", flat=True)) == [1, 2]
    assert set(result.template_ids) == {template.pk}
    actions = AuditEntry.objects.filter(object_namespace="twice").values_list("action", flat=True)
    assert sorted(actions) == ["apply:configured", "apply:created"]


@pytest.mark.django_db
def test_a_bad_document_after_new_ones_stores_none_of_them():
    text = deployments(3, ns="rollback") + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {}\n"
    with pytest.raises(ApplyError) as raised:
        apply_yaml(text)
    assert raised.value.index == 3
    assert not ResourceTemplate.objects.filter(namespace="rollback").exists()
    assert not TemplateRevision.objects.filter(template__namespace="rollback").exists()
