"""Each task is routed to exactly one queue: the routing keys of the queues never overlap, and bulk work
goes to the bulk lane of its queue."""

from karmada_ui.celery import BULK_LANES, ONE_WORKER_QUEUES, QUEUES, WORKER_QUEUES, app


def test_every_queue_has_its_own_exchange_and_routing_key():
    queues = {q.name: q for q in app.conf.task_queues}
    assert set(QUEUES) <= set(queues)
    bindings = [(q.exchange.name, q.routing_key) for q in queues.values()]
    assert len(set(bindings)) == len(bindings)
    for name, queue in queues.items():
        assert (queue.exchange.name, queue.routing_key) == (name, name)


def test_tasks_are_routed_by_module_to_the_right_queue():
    router = app.amqp.router
    assert router.route({}, "clusters.tasks.collect_cluster")["queue"].name == "health"
    assert router.route({}, "scheduling.tasks.schedule_binding")["queue"].name == "schedule"
    assert router.route({}, "scheduling.tasks.apply_work")["queue"].name == "propagate"


def test_a_task_called_in_bulk_goes_to_the_bulk_lane_of_its_queue():
    router = app.amqp.router

    def queue(name: str, **kwargs) -> str:
        return router.route({}, name, (), kwargs)["queue"].name

    assert queue("scheduling.tasks.schedule_detected", bulk=True) == "schedule-bulk"
    assert queue("scheduling.tasks.sync_bindings", bulk=True) == "propagate-bulk"
    assert queue("scheduling.tasks.apply_works", bulk=True) == "propagate-bulk"
    assert queue("scheduling.tasks.apply_works", bulk=False) == "propagate"
    assert queue("scheduling.tasks.schedule_detected") == "schedule"
    # the safety net and a policy change's re-detection of every template are bulk from the start
    assert queue("scheduling.tasks.reconcile") == "propagate-bulk"
    assert queue("scheduling.tasks.detect_all") == "propagate-bulk"
    assert queue("scheduling.tasks.detect_templates") == "propagate"
    assert queue("clusters.tasks.collect_cluster", bulk=True) == "health"  # no bulk lane


def test_workers_take_their_event_driven_queue_before_its_bulk_lane():
    for queue, lane in BULK_LANES.items():
        assert WORKER_QUEUES[queue].split(",") == [queue, lane]
    one = ONE_WORKER_QUEUES.split(",")
    assert set(one) == {*QUEUES, "celery"}
    assert max(one.index(q) for q in BULK_LANES) < min(one.index(lane) for lane in BULK_LANES.values())


def test_bulk_work_is_sent_after_event_work_and_renders_after_member_writes():
    from core import priorities

    router = app.amqp.router

    def priority(name: str, **kwargs) -> int | None:
        return router.route({}, name, (), kwargs).get("priority")

    assert priority("scheduling.tasks.apply_works") is None  # 0: taken first
    assert priority("scheduling.tasks.apply_works", bulk=True) == priorities.BULK
    assert priority("scheduling.tasks.reconcile") == priorities.BULK
    assert priority("scheduling.tasks.schedule_detected", bulk=True) == priorities.BULK
    # a caller's own priority stands (a bulk render, after the bulk lane's member writes)
    explicit = router.route(
        {"priority": priorities.BULK_SYNC}, "scheduling.tasks.sync_bindings", (), {"bulk": True}
    )
    assert explicit["priority"] == priorities.BULK_SYNC
    assert 0 < priorities.SYNC < priorities.BULK < priorities.BULK_SYNC
    assert priorities.redis_keys("propagate")[0] == "propagate"


def _niceness_of_worker(queues: list[str], **env: str) -> int:
    """A worker built as `celery worker -Q ...` builds it, in a process of its own: its niceness then."""
    import os
    import subprocess
    import sys

    code = (
        "import os\n"
        "from karmada_ui.celery import app\n"
        f"app.Worker(queues={queues!r}, pool='solo', hostname='nice@test')\n"
        "print(os.nice(0))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, **env}, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout.split()[-1]) - os.nice(0)


def test_engine_workers_yield_the_cpu_and_the_health_and_demo_workers_keep_it():
    # the scheduler's decisions keep their priority ahead of the propagation they gate, unless told
    assert _niceness_of_worker(WORKER_QUEUES["schedule"].split(",")) == 0
    assert _niceness_of_worker(WORKER_QUEUES["schedule"].split(","), SCHEDULE_NICENESS="3") == 3
    assert _niceness_of_worker(WORKER_QUEUES["propagate"].split(",")) == 5
    # a worker of both engine queues carries the bulk: it yields as propagation does
    assert _niceness_of_worker(["schedule", "propagate"], SCHEDULE_NICENESS="1") == 5
    assert _niceness_of_worker(WORKER_QUEUES["propagate"].split(","), ENGINE_NICENESS="12") == 12
    assert _niceness_of_worker(WORKER_QUEUES["propagate"].split(","), ENGINE_NICENESS="0") == 0
    assert _niceness_of_worker(["health"]) == 0
    assert _niceness_of_worker(ONE_WORKER_QUEUES.split(",")) == 0
