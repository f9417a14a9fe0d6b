"""Shared fixtures: users in each role and an API client signed in as one."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from core.roles import ADMIN, OPERATOR, VIEWER, grant

PASSWORD = "correct-horse-battery-staple"


def make_user(username: str, role: str):
    user = get_user_model().objects.create_user(username=username, password=PASSWORD)
    grant(user, role)
    return user


@pytest.fixture
def viewer(db):
    return make_user("vera-viewer", VIEWER)


@pytest.fixture
def operator(db):
    return make_user("otto-operator", OPERATOR)


@pytest.fixture
def admin_user(db):
    return make_user("ada-admin", ADMIN)


@pytest.fixture
def api_as():
    """Return an API client authenticated as the given user."""

    def signed_in(user) -> APIClient:
        client = APIClient()
        client.force_authenticate(user)
        return client

    return signed_in


@pytest.fixture
def simulate():
    """Start simulated member clusters: `sim = simulate(ClusterSpec(name="beijing", nodes=3), ...)`.

    Every simulator started here is stopped when the test ends.
    """
    from membersim import Simulator

    started = []

    def start(*specs, **options):
        sim = Simulator(list(specs), **options).start()
        started.append(sim)
        return sim

    yield start
    for sim in started:
        sim.stop()


@pytest.fixture
def member_kubeconfig(tmp_path):
    """Write a simulator's kubeconfig (one context per cluster) and return its path."""

    def write(sim):
        return sim.write_kubeconfig(tmp_path / "kubeconfig")

    return write
