"""Lists select in the database: label equality, sets and existence on the stored labels, names and
namespaces, so one namespace of many templates reads only the candidates; the answer is the same as
matching every document."""

from __future__ import annotations

import pytest
from django.http import QueryDict

from kubeapi import catalogue, objects, selection
from kubeapi.stores.templates import TemplateStore
from scheduling.models import PropagationPolicy, ResourceTemplate

pytestmark = pytest.mark.django_db


def config_map(name: str, labels: dict[str, str], namespace: str = "default") -> ResourceTemplate:
    manifest = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "labels": labels},
    }
    return ResourceTemplate.objects.create(
        api_version="v1", kind="ConfigMap", namespace=namespace, name=name, manifest=manifest
    )


@pytest.fixture
def templates():
    config_map("web", {"app": "web", "tier": "front"})
    config_map("api", {"app": "api", "tier": "back"})
    config_map("db", {"app": "db"})
    config_map("odd", {"app.kubernetes.io/name": "odd"})
    config_map("elsewhere", {"app": "web"}, namespace="other")


def names(selector: str = "", fields: str = "", namespace: str = "default") -> list[str]:
    kind = catalogue.find("", "v1", "configmaps")
    params = QueryDict(mutable=True)
    if selector:
        params["labelSelector"] = selector
    if fields:
        params["fieldSelector"] = fields
    answer = objects.list_objects(kind, namespace, params)
    return [item["metadata"]["name"] for item in answer["items"]]


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("app=web", ["web"]),
        ("app in (web,api)", ["api", "web"]),
        ("tier", ["api", "web"]),
        ("!tier", ["db", "odd"]),
        ("app!=web", ["api", "db", "odd"]),
        ("app notin (web,db),tier", ["api"]),
        ("app.kubernetes.io/name=odd", ["odd"]),
    ],
)
def test_label_selectors_answer_as_the_full_match(templates, selector, expected):
    assert names(selector) == expected


def test_the_database_reads_only_the_candidates(templates):
    store = TemplateStore("", "ConfigMap", True)
    query = selection.query(
        QueryDict("labelSelector=app%3Dweb,tier&fieldSelector=metadata.namespace%3Ddefault")
    )
    condition = selection.database_filter(query, store.labels_field, store.name_field, store.namespace_field)
    assert list(store.rows().filter(condition).values_list("name", flat=True)) == ["web"]


def test_field_selectors_on_name_and_namespace(templates):
    assert names(fields="metadata.name=api") == ["api"]
    assert names(fields="metadata.name!=api") == ["db", "odd", "web"]
    assert names("app=web", namespace="") == ["web", "elsewhere"]
    assert names("app=web", fields="metadata.namespace=other", namespace="") == ["elsewhere"]


def test_karmadas_claim_labels_are_matched_on_the_document(templates):
    policy = PropagationPolicy.objects.create(
        kind="PropagationPolicy", namespace="default", name="p", spec={"resourceSelectors": []}
    )
    ResourceTemplate.objects.filter(name="db").update(policy=policy)
    assert names(f"propagationpolicy.karmada.io/permanent-id={policy.permanent_id}") == ["db"]
