"""Fixtures of the trust tests: a database of its own for a test that migrates one from scratch."""

from __future__ import annotations

import os
import uuid
from urllib.parse import urlsplit, urlunsplit

import pytest


@pytest.fixture
def fresh_database_url(tmp_path):
    """An empty database on the suite's server: PostgreSQL when DATABASE_URL names one, else SQLite."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        yield f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
        return
    import psycopg

    parts = urlsplit(url)
    name = f"{parts.path.lstrip('/') or 'karmada'}_fresh_{uuid.uuid4().hex[:8]}"
    server = urlunsplit((parts.scheme, parts.netloc, "/postgres", "", ""))
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, ""))
    finally:
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
