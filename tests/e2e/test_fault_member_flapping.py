"""Fault: a member cluster flapping down and up every 5 s while 60 workloads propagate to it, for 30 s
(the issue asks a minute; half of it keeps the suite's time bound and still flips the cluster's
health several times); once it stays up, the fleet converges to the planned state, each copy once."""

from __future__ import annotations

import os
import time

import pytest

from tests.support.fault_stack import fault_stack, redis_db

WORKLOADS = 60
FLAPPING_S = 30
FLIP_EVERY_S = 5
DEADLINE_S = FLAPPING_S + 60


@pytest.mark.skipif(
    not os.environ.get("REDIS_URL"), reason="needs Redis (REDIS_URL, set by scripts/run-tests)"
)
def test_a_member_flapping_down_and_up_converges_to_the_planned_state(tmp_path):
    # Health is probed every second, so the flaps reach the cluster's Ready condition and its taints.
    with fault_stack(
        tmp_path,
        redis_db(os.environ["REDIS_URL"], 10),
        HEALTH_PROBE_INTERVAL="1",
        SCHEDULING_FAILOVER_INTERVAL="2",
    ) as stack:
        stack.start_worker("worker")
        stack.apply(WORKLOADS)
        started = time.monotonic()
        flips = 0
        while time.monotonic() - started < FLAPPING_S:
            stack.sim.control("west", "down" if flips % 2 == 0 else "up")
            flips += 1
            time.sleep(FLIP_EVERY_S)
        stack.sim.control("west", "up")
        assert flips >= FLAPPING_S // FLIP_EVERY_S
        # The member turns Ready again only once it has answered for the success threshold, and that
        # change marks every binding: the plan is judged after it, not in the seconds before it lands.
        ready = "SELECT ready FROM clusters_cluster WHERE name = 'west'"
        while stack.db.one(ready)[0] != "True":
            assert time.monotonic() - started < DEADLINE_S, "west never turned Ready again"
            time.sleep(0.2)
        stack.settle(WORKLOADS, started, DEADLINE_S)
