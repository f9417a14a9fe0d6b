"""Two workers never apply one Work at once: a Work another session holds is skipped, then applied."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from django.db import connection

from clusters.k8s import objects
from scheduling.controllers import dispatch, locks
from scheduling.models import Work
from scheduling.services import apply_yaml
from tests.support.members import member_object

NGINX = (Path(__file__).parent / "examples" / "nginx-cluster-names.yaml").read_text()


def other_session():
    """A second database session, as another worker process would have."""
    settings = connection.settings_dict
    return psycopg.connect(
        host=settings["HOST"] or None,
        port=settings["PORT"] or None,
        user=settings["USER"],
        password=settings["PASSWORD"] or None,
        dbname=settings["NAME"],
        autocommit=True,
    )


def test_a_work_held_by_another_worker_is_left_to_it_and_applied_once_it_is_free(members):
    if connection.vendor != "postgresql":
        pytest.skip("advisory locks are PostgreSQL's (SQLite serves one machine's workers)")
    apply_yaml(NGINX)
    work = Work.objects.get(cluster_name="cluster-01")
    conn = members["cluster-01"].connection()
    objects.delete_object(conn, "apps/v1", "Deployment", "nginx", "default")
    key = (locks.WORK << 48) | work.pk
    with other_session() as other:
        other.execute("SELECT pg_advisory_lock(%s)", [key])
        result = dispatch.apply_works([work.pk])
        assert result.skipped == [work.pk] and result.actions == {}
        assert member_object(members["cluster-01"], "apps/v1", "Deployment", "nginx") is None
        other.execute("SELECT pg_advisory_unlock(%s)", [key])
    result = dispatch.apply_works([work.pk])
    assert result.skipped == [] and result.actions == {work.pk: "created"}
    assert member_object(members["cluster-01"], "apps/v1", "Deployment", "nginx") is not None


def test_a_worker_holds_only_while_it_applies(members):
    apply_yaml(NGINX)
    ids = list(Work.objects.values_list("pk", flat=True))
    with locks.holding(locks.WORK, ids) as held:
        assert held == sorted(ids)
    assert locks.try_lock(locks.WORK, ids) == sorted(ids)  # released: free again
    locks.unlock(locks.WORK, ids)
