"""Each task is routed to exactly one queue: the routing keys of the queues never overlap."""

from karmada_ui.celery import QUEUES, app


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
