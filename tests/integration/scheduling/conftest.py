"""Propagation tests run on three simulated clusters: cluster-01 and 02 env=prod, cluster-03 staging."""

from __future__ import annotations

import pytest

from tests.support.members import member_spec


@pytest.fixture
def member_specs():
    """What the shared `members` fixture starts for these tests."""
    return [
        member_spec("cluster-01", region="cn-north", labels={"env": "prod"}),
        member_spec("cluster-02", region="cn-east", labels={"env": "prod"}),
        member_spec("cluster-03", region="cn-south", labels={"env": "staging"}),
    ]


@pytest.fixture
def sim(member_sim):
    """The members' simulator, by the name these tests have long used for it (faults: `sim.control`)."""
    return member_sim
