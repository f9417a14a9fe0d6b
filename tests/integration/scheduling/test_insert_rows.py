"""Many rows in one statement: new Works hold what bulk_create would have stored and know their ids;
rows given as one JSON parameter read back as given."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime

import pytest
from django.db import connection
from django.forms.models import model_to_dict
from django.test.utils import CaptureQueriesContext

from scheduling.controllers.values_sql import insert_rows, json_rows
from scheduling.models import ResourceBinding, ResourceTemplate, Work

MANIFEST = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "shop", "labels": {"quote": 'a "b" \\ c', "é": "ü"}},
    "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "c", "args": ["{x}", ""]}]}}},
}


def binding() -> ResourceBinding:
    template = ResourceTemplate.objects.create(
        api_group="apps", kind="Deployment", namespace="shop", name="web", manifest=MANIFEST
    )
    return ResourceBinding.objects.create(template=template, name="web-deployment", namespace="shop")


def new_works(owner: ResourceBinding, count: int) -> list[Work]:
    return [
        Work(
            binding=owner,
            cluster_name=f"member-{i}",
            namespace=f"karmada-es-member-{i}",
            name="shop-web-deployment",
            permanent_id=uuid.uuid4(),
            manifest={**MANIFEST, "spec": {**MANIFEST["spec"], "replicas": i}},
            desired_hash=f"hash-{i}",
            suspended=i % 2 == 1,
            applied_overrides={"overriders": [{"path": "/spec/replicas", "value": i}]} if i else {},
        )
        for i in range(count)
    ]


def stored(work: Work) -> dict:
    """A Work as read back, without what differs between any two inserts (ids, times, its binding)."""
    fields = model_to_dict(Work.objects.get(pk=work.pk))
    return {k: v for k, v in fields.items() if k not in ("id", "binding", "permanent_id")}


def test_inserted_works_read_back_as_bulk_created_ones_do(db):
    owner = binding()
    ours, django = new_works(owner, 5), new_works(owner, 5)
    for work in django:
        work.cluster_name += "-b"
        work.namespace += "-b"
    with CaptureQueriesContext(connection) as queries:
        insert_rows(Work, ours, key="permanent_id", batch_size=2)
    Work.objects.bulk_create(django)
    inserts = [q for q in queries.captured_queries if q["sql"].startswith("INSERT")]
    assert len(inserts) == 3  # 5 rows in statements of 2
    for mine, theirs in zip(ours, django, strict=True):
        assert mine.pk is not None and not mine._state.adding
        assert Work.objects.get(pk=mine.pk).permanent_id == mine.permanent_id
        mine_fields, their_fields = stored(mine), stored(theirs)
        their_fields["cluster_name"] = their_fields["cluster_name"].removesuffix("-b")
        their_fields["namespace"] = their_fields["namespace"].removesuffix("-b")
        assert mine_fields == their_fields
        assert Work.objects.get(pk=mine.pk).created_at is not None


def test_an_inserted_work_can_be_saved_again_as_an_update(db):
    owner = binding()
    (work,) = new_works(owner, 1)
    insert_rows(Work, [work], key="permanent_id")
    work.desired_hash = "changed"
    work.save()
    assert Work.objects.count() == 1 and Work.objects.get(pk=work.pk).desired_hash == "changed"


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the JSON parameter is PostgreSQL's path")
def test_rows_given_as_one_json_parameter_read_back_as_the_values_given(db):
    when = datetime(2026, 12, 1, 20, 30, 5, 123456, tzinfo=UTC)
    rows = [
        (1, MANIFEST, 'a "quoted" \\ text', True, when, None),
        (2, {}, "", False, None, [1, {"x": None}]),
    ]
    subquery, params = json_rows(("bigint", "jsonb", "text", "boolean", "timestamptz", "jsonb"), rows)
    assert len(params) == 1  # one parameter, whatever the rows
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM ({subquery}) AS v(id, doc, note, flag, at, extra) ORDER BY id", params)
        found = [
            (
                i,
                json.loads(d) if isinstance(d, str) else d,
                n,
                f,
                a,
                json.loads(x) if isinstance(x, str) else x,
            )
            for i, d, n, f, a, x in cursor.fetchall()
        ]
    assert found == rows
