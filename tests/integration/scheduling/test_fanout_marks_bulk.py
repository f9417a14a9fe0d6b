"""An event that marks the fleet (a cluster's readiness changing under every Duplicated binding) queues
its passes on the bulk lane, so a workload applied meanwhile is scheduled ahead of them; an event that
marks a few bindings stays on the event-driven queue."""

from __future__ import annotations

import pytest

from clusters import signals
from clusters.models import Cluster
from core import priorities
from karmada_ui.celery import route_task
from scheduling import tasks
from scheduling.models import PropagationPolicy, ResourceBinding
from tests.support.clusters import make_cluster
from tests.support.templates import deployment_templates

pytestmark = pytest.mark.django_db


def add_bindings(count: int) -> list[int]:
    policy = PropagationPolicy.objects.create(
        kind="PropagationPolicy", namespace="default", name="everywhere", spec={"placement": {}}
    )
    templates = deployment_templates(policy, (f"web-{i:03d}" for i in range(count)))
    bindings = ResourceBinding.objects.bulk_create(
        ResourceBinding(
            namespace="default", name=f"{t.name}-deployment", template=t, policy=policy, placement={}
        )
        for t in templates
    )
    return sorted(b.pk for b in bindings)


@pytest.fixture
def queued(monkeypatch):
    """The routes (queue, priority) of the schedule passes queued, as the Celery app routes them."""
    routes: list[tuple[str, int | None, int]] = []

    def apply_async(args, kwargs, **options):
        route = route_task(tasks.schedule_dirty_batch.name, args, kwargs, options)
        routes.append((route["queue"], options.get("priority", route.get("priority")), len(args[0])))

    monkeypatch.setattr(tasks.schedule_dirty_batch, "apply_async", apply_async)
    return routes


def test_marking_more_than_one_pass_of_bindings_queues_bulk_passes(
    django_capture_on_commit_callbacks, queued
):
    ids = add_bindings(tasks.FANOUT + 1)
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.mark_bindings(ids) == ids
    assert {(queue, priority) for queue, priority, _ in queued} == {("schedule-bulk", priorities.BULK)}
    assert sum(size for *_, size in queued) == len(ids)
    # each bulk pass is a bulk batch: a new workload waits at most one of them on the worker
    assert max(size for *_, size in queued) == tasks.BULK_DIRTY_BATCH


def test_marking_a_few_bindings_stays_event_driven(django_capture_on_commit_callbacks, queued):
    ids = add_bindings(tasks.FANOUT)
    with django_capture_on_commit_callbacks(execute=True):
        tasks.mark_bindings(ids)
    assert queued == [("schedule", None, tasks.FANOUT)]


def test_a_cluster_going_not_ready_under_the_fleet_re_plans_it_in_bulk(
    django_capture_on_commit_callbacks, queued
):
    make_cluster("member-1")
    ids = add_bindings(tasks.FANOUT * 2)
    with django_capture_on_commit_callbacks(execute=True):
        signals.ready_changed.send(sender=Cluster, cluster="member-1", ready="False")
    assert ResourceBinding.objects.filter(dirty_since__isnull=False).count() == len(ids)
    assert {queue for queue, *_ in queued} == {"schedule-bulk"}
