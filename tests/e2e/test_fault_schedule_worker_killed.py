"""Fault: the schedule queue's worker SIGKILLed while it schedules 200 bindings; after a restart every
binding is scheduled, every Work applied once, nothing left marked dirty.

200, not fewer: a schedule pass plans 60 bindings in well under the time between seeing the fifth
scheduled and the kill landing, so a smaller fleet was sometimes scheduled whole before the kill."""

from __future__ import annotations

import os
import signal
import time

import pytest

from karmada_ui.celery import WORKER_QUEUES
from tests.support.fault_stack import fault_stack, kill_group, redis_db

WORKLOADS = 200
DEADLINE_S = 120


@pytest.mark.skipif(
    not os.environ.get("REDIS_URL"), reason="needs Redis (REDIS_URL, set by scripts/run-tests)"
)
def test_a_schedule_worker_killed_mid_schedule_loses_and_duplicates_nothing(tmp_path):
    with fault_stack(tmp_path, redis_db(os.environ["REDIS_URL"], 13)) as stack:
        # Scheduling has a worker of its own, so killing it stops scheduling and nothing else.
        scheduler = stack.start_worker("schedule-1", queues=WORKER_QUEUES["schedule"], beat=False)
        stack.start_worker("propagate", queues=f"{WORKER_QUEUES['propagate']},health,celery")
        stack.apply(WORKLOADS)
        started = time.monotonic()
        scheduled = "SELECT count(*) FROM scheduling_resourcebinding WHERE last_scheduled_time IS NOT NULL"
        while stack.db.one(scheduled)[0] < 5:
            assert time.monotonic() - started < DEADLINE_S, "the first schedule worker scheduled nothing"
            time.sleep(0.02)
        kill_group(scheduler, signal.SIGKILL)  # the worker and its pool die mid-schedule, unacknowledged
        at_kill = stack.db.one(scheduled)[0]
        print(f"killed with {at_kill} of {WORKLOADS} bindings scheduled")
        assert at_kill < WORKLOADS, "killed too late to prove anything"
        stack.start_worker("schedule-2", queues=WORKER_QUEUES["schedule"], beat=False)
        stack.settle(WORKLOADS, started, DEADLINE_S)
