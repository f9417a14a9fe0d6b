"""A Work's first write after its insert (applied) stays on its page (a HOT update): scheduling_work keeps
room on every page on PostgreSQL, so the index entries are not rewritten."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.utils import timezone

from scheduling.controllers.applied_writes import record_applied
from scheduling.models import ResourceBinding, ResourceTemplate, Work

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL table option"),
]

# About the size of a Deployment's Work (1.6 kB a row in a bench seeding): five fill a page at fillfactor 100.
MANIFEST = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "shop", "annotations": {"note": "x" * 900}},
    "spec": {"replicas": 2},
}
LIVE = {**MANIFEST, "status": {"replicas": 2, "readyReplicas": 2, "availableReplicas": 2, "note": "y" * 200}}


def table_counts() -> tuple[int, int]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables WHERE relname = %s",
            [Work._meta.db_table],
        )
        return cursor.fetchone()


def test_the_work_table_leaves_room_on_its_pages():
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = %s", [Work._meta.db_table])
        assert cursor.fetchone()[0] == ["fillfactor=40"]


def test_a_works_applied_write_is_a_hot_update():
    template = ResourceTemplate.objects.create(
        api_group="apps", kind="Deployment", namespace="shop", name="web", manifest=MANIFEST
    )
    binding = ResourceBinding.objects.create(template=template, name="web-deployment", namespace="shop")
    works = Work.objects.bulk_create(
        Work(
            binding=binding,
            cluster_name=f"member-{i}",
            namespace=f"karmada-es-member-{i}",
            name="shop-web-deployment",
            permanent_id=uuid.uuid4(),
            manifest=MANIFEST,
            desired_hash="h1",
        )
        for i in range(40)
    )
    before = table_counts()
    now = timezone.now()
    assert record_applied([(work, LIVE) for work in works], now) == {w.pk for w in works}
    after = table_counts()
    updated, hot = after[0] - before[0], after[1] - before[1]
    assert updated == 40
    assert hot == updated  # at fillfactor 100 none of the 40 stays on its page, at 50 27 do
