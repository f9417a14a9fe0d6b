"""The task result store survives the database dropping its connection (PostgreSQL only)."""

from __future__ import annotations

import psycopg
import pytest
from django.db import connection
from django_celery_results.models import TaskResult

from karmada_ui.celery import app


@pytest.mark.django_db(transaction=True)
def test_a_result_is_written_on_a_fresh_connection_after_the_old_one_was_terminated():
    if connection.vendor != "postgresql":
        pytest.skip("pg_terminate_backend is PostgreSQL's: run with DATABASE_URL=postgres://…")
    connection.ensure_connection()
    own_pid = connection.connection.info.backend_pid
    settings = connection.get_connection_params()
    with psycopg.connect(**{**settings, "autocommit": True}) as admin:
        assert admin.execute("SELECT pg_terminate_backend(%s)", [own_pid]).fetchone() == (True,)

    # What a worker's main process does for a revoked or expired task, on the terminated connection.
    app.backend.mark_as_revoked("4f1c9d2e-0000-4000-8000-000000000001", "expired")

    stored = TaskResult.objects.get(task_id="4f1c9d2e-0000-4000-8000-000000000001")
    assert stored.status == "REVOKED"
    assert connection.connection.info.backend_pid != own_pid
