"""managedFields kept per object: a create records its manager's fields, lists return each page's
objects' entries (read for that page only), a delete forgets them."""

from __future__ import annotations

import pytest
from django.db import connection
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext

from core.roles import OPERATOR
from kubeapi import catalogue, objects
from kubeapi.models import ManagedFields
from tests.conftest import make_user

pytestmark = pytest.mark.django_db


def config_map(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"a": "1"}}


def test_created_objects_list_with_their_managers_read_per_page():
    kind = catalogue.find("", "v1", "configmaps")
    writer = objects.Writer(make_user("olga", OPERATOR), "kubectl-create")
    for name in ("a", "b", "c"):
        objects.create(kind, "default", config_map(name), writer, dry_run=False)
    assert ManagedFields.objects.count() == 3
    with CaptureQueriesContext(connection) as queries:
        page = objects.list_objects(kind, "default", QueryDict("limit=2"))
    managed_reads = [q["sql"] for q in queries.captured_queries if "kubeapi_managedfields" in q["sql"]]
    assert len(managed_reads) == 1 and "IN" in managed_reads[0]
    assert [i["metadata"]["name"] for i in page["items"]] == ["a", "b"]
    entry = page["items"][0]["metadata"]["managedFields"][0]
    assert (entry["manager"], entry["operation"], entry["fieldsV1"]) == (
        "kubectl-create",
        "Update",
        {"f:data": {"f:a": {}}},
    )
    objects.delete(kind, "default", "a", writer, dry_run=False, propagation="")
    assert not ManagedFields.objects.filter(name="a").exists()
