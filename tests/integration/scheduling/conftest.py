"""Fixtures for propagation tests: three simulated member clusters and tasks that run inline."""

from __future__ import annotations

import pytest

from membersim import ClusterSpec, Simulator
from tests.support.members import eager_tasks, register

SPECS = [
    ClusterSpec(name="cluster-01", region="cn-north", zones=["cn-north-a"], nodes=2, labels={"env": "prod"}),
    ClusterSpec(name="cluster-02", region="cn-east", zones=["cn-east-a"], nodes=2, labels={"env": "prod"}),
    ClusterSpec(
        name="cluster-03", region="cn-south", zones=["cn-south-a"], nodes=2, labels={"env": "staging"}
    ),
]


@pytest.fixture
def sim():
    with Simulator(SPECS) as simulator:
        yield simulator


@pytest.fixture
def members(transactional_db, sim):
    """Three registered clusters (cluster-01/02 env=prod, cluster-03 env=staging), tasks eager."""
    with eager_tasks():
        yield {spec.name: register(sim, spec) for spec in SPECS}
