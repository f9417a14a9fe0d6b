"""The Celery application: queues `health`, `schedule` and `propagate` (each engine queue with a bulk lane),
results in the database."""

from __future__ import annotations

import os

from celery import Celery
from celery.app.routes import MapRoute
from celery.signals import celeryd_init, task_postrun, task_prerun
from kombu import Exchange, Queue

from core import priorities

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "karmada_ui.settings")

app = Celery("karmada_ui")
app.config_from_object("django.conf:settings", namespace="CELERY")

# Event-driven work (a template applied, a member copy repaired, the few bindings a cluster change
# affects, an operator's action) goes on `schedule` and `propagate`; bulk work (the re-plan of every
# binding after a policy change or an event that marks the fleet, the periodic safety net) on their bulk
# lanes. The same workers consume both, the
# event-driven queue first (see WORKER_QUEUES and the broker's queue_order_strategy in settings), so a
# queued re-plan of every binding delays a new workload only until a worker process ends its current task.
BULK_LANES = {"schedule": "schedule-bulk", "propagate": "propagate-bulk"}
QUEUES = ("health", "schedule", "propagate", *BULK_LANES.values())
# What each worker consumes, in the order it takes them (`celery worker -Q ...`).
WORKER_QUEUES = {
    "health": "health",
    "schedule": "schedule,schedule-bulk",
    "propagate": "propagate,propagate-bulk",
    "celery": "celery",
}
# One worker for every queue (the demo): each event-driven queue before the bulk lanes.
ONE_WORKER_QUEUES = ",".join(("health", "schedule", "propagate", "celery", *BULK_LANES.values()))
# Each queue gets its own exchange and routing key: with the defaults every queue would be bound to
# exchange "celery" with key "celery", and one task message would be delivered to all of them.
app.conf.task_queues = [
    Queue(name, Exchange(name, type="direct"), routing_key=name) for name in (*QUEUES, "celery")
]
app.conf.task_default_queue = "celery"
# By module, the safety net and the detector over every template (a policy changed) bulk from the start.
ROUTES = MapRoute(
    {
        "clusters.tasks.*": {"queue": "health"},
        "scheduling.tasks.reconcile": {"queue": "propagate-bulk"},
        "scheduling.tasks.detect_all": {"queue": "propagate-bulk"},
        "scheduling.tasks.schedule_*": {"queue": "schedule"},
        "scheduling.tasks.*": {"queue": "propagate"},
    }
)


def route_task(name, args, kwargs, options, task=None, **kw):
    """A task's queue by its module; for a task called with `bulk=True`, that queue's bulk lane (the
    steps of a bulk re-plan queue each other there). Bulk work is sent at core.priorities.BULK unless
    the caller gave a priority."""
    route = ROUTES(name)
    if route and (kwargs or {}).get("bulk"):
        route["queue"] = BULK_LANES.get(route["queue"], route["queue"])
    if route and route["queue"] in BULK_LANES.values():
        route = {**route, "priority": priorities.BULK}
    return route


app.conf.task_routes = (route_task,)

ENGINE_QUEUES = frozenset({"schedule", "propagate", *BULK_LANES.values()})
SCHEDULE_QUEUES = frozenset({"schedule", BULK_LANES["schedule"]})


@celeryd_init.connect
def yield_to_liveness(options: dict | None = None, **_: object) -> None:
    """Before the pool starts (its processes and threads inherit it): a worker that consumes only engine
    queues lowers its CPU priority, by SCHEDULE_NICENESS when it only schedules (the decisions: small,
    and every step after them waits on them), by ENGINE_NICENESS otherwise (the bulk of member writes
    and renders). A worker of every queue (the demo's) keeps it."""
    from django.conf import settings

    queues = set((options or {}).get("queues") or ())
    if not queues or not queues <= ENGINE_QUEUES:
        return
    niceness = settings.SCHEDULE_NICENESS if queues <= SCHEDULE_QUEUES else settings.ENGINE_NICENESS
    if niceness:
        os.nice(niceness)


@celeryd_init.connect
def keep_database_sessions(**_: object) -> None:
    """In a worker (not in a caller running tasks eagerly): Celery's Django fixup closes the database
    connection before and after each task unless CELERY_DB_REUSE_MAX says to reuse it (settings sets it
    when DATABASE_CONN_MAX_AGE does); then each task checks its connection as Django does between two
    requests: closed when unusable or older than CONN_MAX_AGE, kept otherwise."""
    from django.conf import settings

    if settings.CELERY_DB_REUSE_MAX:
        task_prerun.connect(_recycle_connections, weak=False)
        task_postrun.connect(_recycle_connections, weak=False)


def _recycle_connections(**_: object) -> None:
    from django.db import close_old_connections

    close_old_connections()


app.conf.beat_schedule = {}


def _alerting_schedule() -> dict:
    from django.conf import settings

    interval = settings.ALERT_EVALUATION_INTERVAL
    return {
        "observability.evaluate-alerts": {
            "task": "observability.tasks.evaluate_alerts",
            "schedule": interval,
            "options": {"expires": interval},  # a backlog must not replay stale evaluations
        }
    }


app.conf.beat_schedule.update(_alerting_schedule())


def health_beat_schedule() -> dict:
    """Health collection every HEALTH_PROBE_INTERVAL, and the time-series compaction every 5 minutes."""
    from django.conf import settings

    return {
        "clusters-collect-all": {
            "task": "clusters.tasks.collect_all",
            "schedule": settings.HEALTH_PROBE_INTERVAL,
            "options": {"expires": settings.HEALTH_PROBE_INTERVAL},
        },
        "clusters-compact-samples": {"task": "clusters.tasks.compact_samples_task", "schedule": 300.0},
    }


app.conf.beat_schedule.update(health_beat_schedule())


def _scheduling_schedule() -> dict:
    """The safety net of scheduling/ (re-drives whatever a lost task or dead worker missed) and failover."""
    from django.conf import settings

    interval = settings.SCHEDULING_RECONCILE_INTERVAL
    failover = settings.SCHEDULING_FAILOVER_INTERVAL
    return {
        "scheduling.controllers.reconcile": {
            "task": "scheduling.tasks.reconcile",
            "schedule": interval,
            "options": {"expires": interval},
        },
        "scheduling.controllers.failover": {
            "task": "scheduling.tasks.failover",
            "schedule": failover,
            "options": {"expires": failover},
        },
        # WorkloadRebalancers' ttlSecondsAfterFinished: checked as often as failover (seconds matter)
        "scheduling.expire-rebalancers": {
            "task": "scheduling.tasks.expire_rebalancers",
            "schedule": failover,
            "options": {"expires": failover},
        },
    }


app.conf.beat_schedule.update(_scheduling_schedule())


def _rollout_schedule() -> dict:
    """Staged rollouts move on as their clusters' status arrives; this pass catches soak times ending."""
    from django.conf import settings

    interval = settings.ROLLOUT_ADVANCE_INTERVAL
    return {
        "scheduling.advance-rollouts": {
            "task": "scheduling.tasks.advance_rollouts",
            "schedule": interval,
            "options": {"expires": interval},
        }
    }


app.conf.beat_schedule.update(_rollout_schedule())


def prepare_folder_broker() -> None:
    """Create the folders of the local folder broker; the transport expects them to exist."""
    from django.conf import settings

    options = getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {})
    for key in ("data_folder_in", "data_folder_out", "processed_folder", "control_folder"):
        if options.get(key):
            os.makedirs(options[key], exist_ok=True)


app.autodiscover_tasks()
