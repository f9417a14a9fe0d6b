"""Fixtures of the trust tests: a database of its own for a test that migrates one from scratch."""

from __future__ import annotations

import pytest

from tests.support.databases import fresh_database


@pytest.fixture
def fresh_database_url(tmp_path):
    with fresh_database(tmp_path) as url:
        yield url
