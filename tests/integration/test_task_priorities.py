"""Task priorities on a real Redis: a worker of the propagate queues takes an event's member writes,
then its renders, then the bulk lane's writes and renders last, whatever order they were queued in."""

from __future__ import annotations

import os

import pytest
from django.conf import settings
from kombu import Connection, Consumer, Exchange, Producer, Queue

from core import priorities
from karmada_ui.celery import WORKER_QUEUES
from scheduling import tasks
from tests.support.fault_stack import redis_db

needs_redis = pytest.mark.skipif(
    not os.environ.get("REDIS_URL") or not settings.CELERY_BROKER_URL.startswith("redis"),
    reason="needs Redis (REDIS_URL, set by scripts/run-tests)",
)


@needs_redis
def test_a_worker_takes_event_writes_then_event_renders_then_bulk_writes_then_bulk_renders():
    names = WORKER_QUEUES["propagate"].split(",")
    queues = [Queue(name, Exchange(name, type="direct"), routing_key=name) for name in names]
    sent = [  # (label, queue, priority), queued in the worst order
        ("bulk render", "propagate-bulk", priorities.BULK_SYNC),
        ("bulk write", "propagate-bulk", priorities.BULK),
        ("event render", "propagate", priorities.SYNC),
        ("event write", "propagate", None),
    ]
    with Connection(
        redis_db(os.environ["REDIS_URL"], 9), transport_options=settings.CELERY_BROKER_TRANSPORT_OPTIONS
    ) as conn:
        for queue in queues:
            queue(conn.default_channel).declare()
            queue(conn.default_channel).purge()
        producer = Producer(conn)
        for label, name, priority in sent * 2:
            options = {} if priority is None else {"priority": priority}
            queue = queues[names.index(name)]
            producer.publish(
                {"label": label}, exchange=queue.exchange, routing_key=name, declare=[queue], **options
            )
        taken: list[str] = []

        def take(body, message):
            taken.append(body["label"])
            message.ack()

        with Consumer(conn, queues, callbacks=[take], accept=["json"], prefetch_count=1):
            while len(taken) < len(sent) * 2:
                conn.drain_events(timeout=5)
    assert taken == [label for label, _, _ in reversed(sent) for _ in range(2)]


@pytest.mark.django_db
def test_renders_are_queued_at_their_priority(django_capture_on_commit_callbacks, monkeypatch):
    options: list[dict] = []
    monkeypatch.setattr(tasks.sync_bindings, "apply_async", lambda *a, **kw: options.append(kw))
    with django_capture_on_commit_callbacks(execute=True):
        tasks.queue_sync([1])
        tasks.queue_sync([3], bulk=True)
    assert [o.get("priority") for o in options] == [priorities.SYNC, priorities.BULK_SYNC]
