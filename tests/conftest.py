"""Shared fixtures: users in each role and an API client signed in as one."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from core.roles import ADMIN, OPERATOR, VIEWER, grant

PASSWORD = "correct-horse-battery-staple"
# Rates no test reaches, so that the suite's many API calls from one address and user never see a 429;
# tests marked real_throttles keep the rates the settings ship with.
GENEROUS_RATES = {"anonymous": "100000/min", "user": "100000/min", "auth-token": "100000/min"}


@pytest.fixture(autouse=True)
def api_throttle_rates(request, settings):
    """Generous API rates for every test but those marked real_throttles; fresh counters for each."""
    from django.core.cache import cache

    cache.clear()
    if request.node.get_closest_marker("real_throttles") is None:
        settings.API_THROTTLE_RATES = GENEROUS_RATES


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
