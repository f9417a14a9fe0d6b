"""Fairness on a real worker and Redis: a new workload and the repair of a hand-edited member copy are
worked before a re-plan of every binding that was queued ahead of them.

The bulk re-plan (a policy change's detection of every template, and syncs of every binding) is queued
while no worker runs; then a member copy is edited by hand (the watcher queues its repair) and a new
workload is applied. One worker process on every queue then takes them: the whole chain of the new
workload (detect, schedule, sync, apply) and the repair finish before any bulk task does.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest
import redis

from clusters.k8s import ClusterConnection, objects
from core import priorities
from scheduling.tasks import BULK_SYNC_BATCH
from tests.support.fault_stack import CLUSTERS, NAMESPACE, fault_stack, kill_group, redis_db, workloads_yaml

WORKLOADS = 30
BULK_SYNCS = -(-WORKLOADS // BULK_SYNC_BATCH)
DEADLINE_S = 90


def queued(broker: redis.Redis, queue: str) -> int:
    return sum(int(broker.llen(key)) for key in priorities.redis_keys(queue))


def wait_until(what: str, check, deadline_s: float = DEADLINE_S) -> None:
    started = time.monotonic()
    while not check():
        assert time.monotonic() - started < deadline_s, f"timed out waiting for {what}"
        time.sleep(0.1)


@pytest.mark.skipif(
    not os.environ.get("REDIS_URL"), reason="needs Redis (REDIS_URL, set by scripts/run-tests)"
)
def test_a_new_workload_and_a_repair_are_worked_before_a_bulk_replan_queued_ahead_of_them(tmp_path):
    with fault_stack(tmp_path, redis_db(os.environ["REDIS_URL"], 11)) as stack:
        broker = redis.Redis.from_url(stack.env["CELERY_BROKER_URL"])
        first = stack.start_worker("seed", beat=False)
        stack.start_watcher()
        stack.apply(WORKLOADS)
        stack.settle(WORKLOADS, time.monotonic(), DEADLINE_S)
        kill_group(first, signal.SIGTERM)
        done_before = stack.db.one("SELECT coalesce(max(id), 0) FROM django_celery_results_taskresult")[0]

        # The bulk re-plan, queued first: a policy change (its labels) re-detects every template, and
        # every binding's sync is queued on the bulk lane.
        relabel = (
            "from scheduling.services import apply_yaml; from scheduling import tasks;"
            "from scheduling.models import ResourceBinding;"
            f"apply_yaml(open({str(tmp_path / 'policy.yaml')!r}).read());"
            "tasks.queue_sync(sorted(ResourceBinding.objects.values_list('pk', flat=True)), bulk=True)"
        )
        policy = workloads_yaml(0).replace("name: everywhere,", "name: everywhere, labels: {revision: '2'},")
        (tmp_path / "policy.yaml").write_text(policy)
        stack.manage("shell", "-c", relabel)
        assert queued(broker, "propagate-bulk") == 1 + BULK_SYNCS  # detect_all and the syncs
        assert queued(broker, "propagate") == 0

        # A member copy edited by hand: the watcher queues its repair behind the re-plan.
        east = ClusterConnection(
            name="east", server=stack.sim.endpoint("east"), token=stack.sim.token("east")
        )
        copy = objects.get_object(east, "apps/v1", "Deployment", "w-000", NAMESPACE)
        copy["spec"]["replicas"] = 5
        objects.replace_object(east, copy)
        wait_until("the watcher to queue the repair", lambda: queued(broker, "propagate") >= 1)

        # A new workload (its Deployment alone: the policy stays as relabelled), applied last.
        (tmp_path / "late.yaml").write_text(workloads_yaml(WORKLOADS + 1).rsplit("---\n", 1)[1])
        repairs = queued(broker, "propagate")
        stack.manage("apply", "-f", str(tmp_path / "late.yaml"), stdout=subprocess.DEVNULL)
        assert queued(broker, "propagate") == repairs + 1

        stack.start_worker("fair", beat=False, concurrency=1)
        late = f"w-{WORKLOADS:03d}"
        wait_until(
            "the new workload in every cluster and the repair",
            lambda: (
                all(late in names_in(stack, c) for c in CLUSTERS)
                and objects.get_object(east, "apps/v1", "Deployment", "w-000", NAMESPACE)["spec"]["replicas"]
                == 1
            ),
        )
        wait_until(
            "the bulk re-plan to finish",
            lambda: (
                queued(broker, "propagate-bulk") + queued(broker, "schedule-bulk") == 0
                and not stack.db.one(
                    "SELECT count(*) FROM scheduling_resourcebinding WHERE dirty_since IS NOT NULL"
                )[0]
            ),
        )
        time.sleep(2)  # the last bulk task's result is stored after its message left the queue

        done = stack.db.rows(
            "SELECT task_name, task_args, task_kwargs FROM django_celery_results_taskresult"
            f" WHERE id > {done_before} ORDER BY id"
        )
        order = [(name.rsplit(".", 1)[1], bulk_task(name, kwargs)) for name, _args, kwargs in done]
        event_driven = [name for name, bulk in order if not bulk]
        assert {"detect_templates", "schedule_detected", "sync_bindings", "apply_works"} <= set(event_driven)
        # the repair, and the new workload's two Works spread over two tasks (tasks.SPREAD)
        assert event_driven.count("apply_works") >= 3, order
        assert sum(bulk for _, bulk in order) >= 1 + BULK_SYNCS, order
        first_bulk = next(i for i, (_, bulk) in enumerate(order) if bulk)
        assert all(bulk for _, bulk in order[first_bulk:]), order


def bulk_task(name: str, kwargs: str) -> bool:
    return name.endswith(".detect_all") or "'bulk': True" in (kwargs or "")


def names_in(stack, cluster: str) -> set[str]:
    return {copy["metadata"]["name"] for copy in stack.copies(cluster)}
