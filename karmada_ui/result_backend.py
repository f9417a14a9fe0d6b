"""The task result store: django-celery-results' database backend, riding out a dropped connection."""

from __future__ import annotations

from django.db import DatabaseError, connection
from django_celery_results.backends.database import DatabaseBackend


class ReconnectingDatabaseBackend(DatabaseBackend):
    """Writes a result again on a fresh connection when the database dropped the old one (a restart, a
    failover, pg_terminate_backend). The stock backend retries only InterfaceError, and psycopg 3 reports
    a dropped connection as OperationalError: the worker's main process, which records revoked and
    expired tasks itself, died of the first such write ("Unrecoverable error")."""

    def exception_safe_to_retry(self, exc: Exception) -> bool:
        if super().exception_safe_to_retry(exc):
            return True
        if not isinstance(exc, DatabaseError) or connection.in_atomic_block:
            return False  # inside a transaction the caller's other writes would be lost with it
        if connection.connection is not None and connection.is_usable():
            return False  # the connection is fine: the error is about the write itself
        connection.close()
        return True
