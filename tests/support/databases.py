"""A database of a test's own on the suite's server, for tests that migrate or run processes against one."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit


@contextlib.contextmanager
def fresh_database(directory: Path, label: str = "fresh") -> Iterator[str]:
    """The URL of an empty database: on DATABASE_URL's PostgreSQL (dropped afterwards), else SQLite."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        yield f"sqlite:///{directory / f'{label}.sqlite3'}"
        return
    import psycopg

    parts = urlsplit(url)
    name = f"{parts.path.lstrip('/') or 'karmada'}_{label}_{uuid.uuid4().hex[:8]}"
    server = urlunsplit((parts.scheme, parts.netloc, "/postgres", "", ""))
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, ""))
    finally:
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
