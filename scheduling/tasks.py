"""Celery tasks: take ids, call one service, enqueue the next step after commit. All idempotent."""

from __future__ import annotations

from celery import shared_task
from django.db import transaction

from clusters.k8s import ClusterUnreachable, ServerError
from scheduling import detector, propagation, scheduler
from scheduling import reconcile as reconciling

RETRY = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": (ClusterUnreachable, ServerError),
    "retry_backoff": 2,
    "retry_backoff_max": 60,
    "max_retries": 6,
    "soft_time_limit": 120,
    "time_limit": 150,
}
ONCE = {"acks_late": True, "reject_on_worker_lost": True, "soft_time_limit": 300, "time_limit": 330}


def after_commit(task, *args) -> None:
    """Enqueue a task once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: task.delay(*args))


@shared_task(name="scheduling.tasks.detect_template", **ONCE)
def detect_template(template_id: int) -> None:
    binding = detector.detect_template(template_id)
    if binding is not None:
        after_commit(schedule_binding, binding.pk)


@shared_task(name="scheduling.tasks.detect_all", **ONCE)
def detect_all() -> None:
    for binding_id in reconciling.detect_all():
        after_commit(schedule_binding, binding_id)


@shared_task(name="scheduling.tasks.schedule_binding", **ONCE)
def schedule_binding(binding_id: int, force: str = "") -> None:
    scheduler.schedule_binding(binding_id, force=force)
    after_commit(sync_binding, binding_id)


@shared_task(name="scheduling.tasks.sync_binding", **ONCE)
def sync_binding(binding_id: int) -> None:
    for work_id in propagation.sync_binding(binding_id):
        after_commit(apply_work, work_id)


@shared_task(name="scheduling.tasks.apply_work", **RETRY)
def apply_work(work_id: int) -> None:
    binding_id = propagation.binding_of(work_id)
    if propagation.apply_work(work_id) in ("deleted", "released") and binding_id is not None:
        after_commit(sync_binding, binding_id)


@shared_task(name="scheduling.tasks.reconcile", **ONCE)
def reconcile() -> None:
    """The periodic level-triggered pass: re-drive whatever a lost task or a dead worker missed."""
    plan = reconciling.reconcile()
    for binding_id in plan.schedule:
        after_commit(schedule_binding, binding_id)
    for work_id in plan.apply:
        after_commit(apply_work, work_id)
