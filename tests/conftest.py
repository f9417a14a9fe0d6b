"""Shared fixtures: users in each role, an API client signed in as one, simulated members, eager Celery.

The fixtures here only hand out what tests/support builds; a test that needs a variant calls the factory.
"""

from __future__ import annotations

import functools

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from rest_framework.test import APIClient

from core.roles import ADMIN, OPERATOR, VIEWER, grant
from membersim import Simulator
from tests.support import clusters
from tests.support.clock import SteppedClock
from tests.support.eager import eager_tasks
from tests.support.members import THREE_CITIES, register_all

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


@functools.cache
def password_hash() -> str:
    """PASSWORD hashed once for the whole run: a hash takes a fifth of a second of CPU (the settings'
    PBKDF2), and hundreds of tests make users. Every process that reads the database accepts it."""
    return make_password(PASSWORD)


def make_user(username: str, role: str):
    user = get_user_model().objects.create(username=username, password=password_hash())
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


@pytest.fixture
def eager_celery():
    """Run .delay() inline for the whole test, as a worker would, retries included.

    Errors do not propagate (Celery's eager retries need that); tests check the recorded outcome."""
    with eager_tasks(propagate=False):
        yield


@pytest.fixture
def clock():
    """A clock the test steps by hand (real time plus its steps); the collector's sleeps step it too."""
    return SteppedClock()


@pytest.fixture
def make_cluster(db):
    """The cluster factory (tests.support.clusters.make_cluster), with the database it writes to."""
    return clusters.make_cluster


@pytest.fixture
def member_specs():
    """What `members` starts; a folder's conftest or a test module overrides this fixture to change it."""
    return THREE_CITIES


@pytest.fixture
def member_sim(member_specs):
    """The simulator running `member_specs`, for faults: `member_sim.control(name, "down")`."""
    with Simulator(list(member_specs)) as simulator:
        yield simulator


@pytest.fixture
def members(transactional_db, member_sim, member_specs):
    """`member_specs` simulated and registered as Ready clusters, by name; tasks run inline and raise."""
    with eager_tasks():
        yield register_all(member_sim, member_specs)
