"""The built-in evaluator moves alerts pending → firing → resolved and notifies the receivers."""

from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from clusters.models import Cluster, ReadyState
from metrics import recording
from observability import engine
from observability.models import Alert, AlertState, Delivery, DeliveryState, Receiver, Silence


def firing(rule="ClusterUnhealthy"):
    return list(Alert.objects.filter(rule=rule, state=AlertState.FIRING))


@pytest.mark.django_db
def test_a_not_ready_cluster_fires_at_once_with_for_zero_and_the_webhook_gets_alertmanagers_payload(
    settings, make_cluster, webhook, eager_celery, django_capture_on_commit_callbacks
):
    settings.ALERT_CLUSTER_UNHEALTHY_FOR = 0
    make_cluster("beijing")
    make_cluster("shanghai", ready=ReadyState.FALSE)
    Receiver.objects.create(name="ops-hook", kind="webhook", url=webhook.url)

    with django_capture_on_commit_callbacks(execute=True):
        outcome = engine.evaluate()

    [alert] = firing()
    assert outcome.fired == [alert.pk]
    assert alert.labels == {
        "alertname": "ClusterUnhealthy",
        "severity": "critical",
        "member_cluster": "shanghai",
    }
    assert alert.annotations["summary"] == "Cluster shanghai is not Ready"
    [body] = webhook.bodies
    assert body["version"] == "4"
    assert body["status"] == "firing"
    assert body["receiver"] == "ops-hook"
    assert body["groupLabels"] == {"alertname": "ClusterUnhealthy"}
    [entry] = body["alerts"]
    assert entry["labels"]["member_cluster"] == "shanghai"
    assert entry["endsAt"] == "0001-01-01T00:00:00Z"
    assert entry["startsAt"].endswith("Z")
    assert entry["fingerprint"] == alert.fingerprint
    delivery = Delivery.objects.get()
    assert (delivery.state, delivery.attempts, delivery.response_code) == (DeliveryState.SENT, 1, 200)


@pytest.mark.django_db
def test_an_alert_waits_out_its_for_duration_then_fires_then_resolves_once(
    settings, make_cluster, webhook, eager_celery, django_capture_on_commit_callbacks
):
    settings.ALERT_CLUSTER_UNHEALTHY_FOR = 300
    cluster = make_cluster("guangzhou", ready=ReadyState.UNKNOWN)
    Receiver.objects.create(name="hook", kind="webhook", url=webhook.url)
    start = timezone.now()

    with django_capture_on_commit_callbacks(execute=True):
        assert engine.evaluate(start).pending
        assert engine.evaluate(start + timedelta(seconds=299)).fired == []
        assert Alert.objects.get().state == AlertState.PENDING
        assert len(engine.evaluate(start + timedelta(seconds=300)).fired) == 1
        assert engine.evaluate(start + timedelta(seconds=310)).fired == []

    Cluster.objects.filter(pk=cluster.pk).update(ready=ReadyState.TRUE)
    with django_capture_on_commit_callbacks(execute=True):
        assert len(engine.evaluate(start + timedelta(seconds=320)).resolved) == 1
        assert engine.evaluate(start + timedelta(seconds=330)).resolved == []

    alert = Alert.objects.get()
    assert alert.state == AlertState.RESOLVED
    assert [body["status"] for body in webhook.bodies] == ["firing", "resolved"]
    assert webhook.bodies[1]["alerts"][0]["endsAt"] != "0001-01-01T00:00:00Z"


@pytest.mark.django_db
def test_a_pending_alert_whose_condition_clears_goes_away_without_a_word(settings, make_cluster, webhook):
    settings.ALERT_CLUSTER_UNHEALTHY_FOR = 300
    cluster = make_cluster("beijing", ready=ReadyState.FALSE)
    Receiver.objects.create(name="hook", kind="webhook", url=webhook.url)
    engine.evaluate()
    Cluster.objects.filter(pk=cluster.pk).update(ready=ReadyState.TRUE)
    engine.evaluate()
    assert not Alert.objects.exists()
    assert not Delivery.objects.exists()


@pytest.mark.django_db
def test_a_matching_silence_mutes_the_notification_but_not_the_alert(settings, make_cluster, webhook):
    settings.ALERT_CLUSTER_UNHEALTHY_FOR = 0
    make_cluster("beijing", ready=ReadyState.FALSE)
    make_cluster("shanghai", ready=ReadyState.FALSE)
    Receiver.objects.create(name="hook", kind="webhook", url=webhook.url)
    now = timezone.now()
    Silence.objects.create(
        matchers={"alertname": "ClusterUnhealthy", "member_cluster": "beijing"},
        comment="maintenance",
        created_by="otto",
        starts_at=now - timedelta(minutes=1),
        ends_at=now + timedelta(hours=1),
    )
    engine.evaluate(now)
    assert len(firing()) == 2
    assert [d.alert.labels["member_cluster"] for d in Delivery.objects.all()] == ["shanghai"]


@pytest.mark.django_db
def test_cpu_allocation_above_the_threshold_fires_after_its_for(settings, make_cluster):
    settings.ALERT_CLUSTER_CPU_THRESHOLD = 80
    settings.ALERT_CLUSTER_CPU_FOR = 60
    make_cluster("hot", cpu_allocatable=10_000, cpu_allocated=8_500)
    make_cluster("cool", cpu_allocatable=10_000, cpu_allocated=8_000)
    start = timezone.now()
    engine.evaluate(start)
    engine.evaluate(start + timedelta(seconds=60))
    [alert] = firing("ClusterCPUHigh")
    assert alert.labels["member_cluster"] == "hot"
    assert alert.value == pytest.approx(85)
    assert alert.annotations["summary"] == "Cluster hot has 85% of its CPU allocated"


@pytest.mark.django_db
def test_scheduling_and_apply_failures_recorded_by_the_workers_raise_their_alerts(db):
    recording.count(
        "karmada_scheduler_schedule_attempts_total", {"result": "error", "schedule_type": "ScaleSchedule"}
    )
    recording.count(
        "karmada_scheduler_schedule_attempts_total",
        {"result": "scheduled", "schedule_type": "ReconcileSchedule"},
    )
    recording.observe(
        "work_sync_workload_duration_seconds", 0.2, {"result": "error", "member_cluster": "beijing"}
    )
    recording.observe(
        "work_sync_workload_duration_seconds", 0.1, {"result": "success", "member_cluster": "shanghai"}
    )
    start = timezone.now()
    engine.evaluate(start)
    engine.evaluate(start + timedelta(seconds=300))
    [scheduling] = firing("SchedulingFailures")
    assert scheduling.labels["schedule_type"] == "ScaleSchedule"
    [works] = firing("WorksFailingToApply")
    assert works.labels["member_cluster"] == "beijing"


@pytest.mark.django_db
def test_a_webhook_answering_500_is_retried_and_the_attempts_are_recorded(
    settings, make_cluster, webhook, eager_celery, django_capture_on_commit_callbacks
):
    settings.ALERT_CLUSTER_UNHEALTHY_FOR = 0
    make_cluster("beijing", ready=ReadyState.FALSE)
    Receiver.objects.create(name="hook", kind="webhook", url=webhook.url)
    webhook.statuses = [500, 503]
    with django_capture_on_commit_callbacks(execute=True):
        engine.evaluate()
    delivery = Delivery.objects.get()
    assert (delivery.state, delivery.attempts, delivery.response_code) == (DeliveryState.SENT, 3, 200)
    assert len(webhook.bodies) == 3


@pytest.mark.django_db
def test_a_webhook_answering_400_fails_at_once_and_says_why(
    settings, make_cluster, webhook, eager_celery, django_capture_on_commit_callbacks
):
    settings.ALERT_CLUSTER_UNHEALTHY_FOR = 0
    make_cluster("beijing", ready=ReadyState.FALSE)
    Receiver.objects.create(name="hook", kind="webhook", url=webhook.url)
    webhook.statuses = [400]
    with django_capture_on_commit_callbacks(execute=True):
        engine.evaluate()
    delivery = Delivery.objects.get()
    assert (delivery.state, delivery.attempts, delivery.response_code) == (DeliveryState.FAILED, 1, 400)
    assert "HTTP 400" in delivery.last_error


@pytest.mark.django_db
def test_an_unreachable_webhook_ends_failed_after_its_retries(
    settings, make_cluster, webhook, eager_celery, django_capture_on_commit_callbacks
):
    settings.ALERT_CLUSTER_UNHEALTHY_FOR = 0
    settings.ALERT_WEBHOOK_TIMEOUT = 0.5
    make_cluster("beijing", ready=ReadyState.FALSE)
    webhook.close()  # nothing listens there any more
    Receiver.objects.create(name="hook", kind="webhook", url=webhook.url)
    with django_capture_on_commit_callbacks(execute=True):
        engine.evaluate()
    delivery = Delivery.objects.get()
    assert delivery.state == DeliveryState.FAILED
    assert delivery.attempts == 5
    assert "could not reach 127.0.0.1" in delivery.last_error


@pytest.mark.django_db
def test_an_email_receiver_gets_a_message_naming_the_alert_and_cluster(
    settings, make_cluster, eager_celery, django_capture_on_commit_callbacks
):
    settings.ALERT_CLUSTER_UNHEALTHY_FOR = 0
    make_cluster("beijing", ready=ReadyState.FALSE)
    Receiver.objects.create(name="oncall", kind="email", emails=["oncall@example.com"])
    with django_capture_on_commit_callbacks(execute=True):
        engine.evaluate()
    [message] = mail.outbox
    assert message.to == ["oncall@example.com"]
    assert message.subject == "[FIRING] ClusterUnhealthy: Cluster beijing is not Ready"
    assert "member_cluster = beijing" in message.body
    assert Delivery.objects.get().state == DeliveryState.SENT


@pytest.mark.django_db
def test_a_lost_delivery_task_is_sent_again_by_a_later_evaluation(
    settings, make_cluster, webhook, eager_celery, django_capture_on_commit_callbacks
):
    settings.ALERT_CLUSTER_UNHEALTHY_FOR = 0
    make_cluster("beijing", ready=ReadyState.FALSE)
    Receiver.objects.create(name="hook", kind="webhook", url=webhook.url)
    engine.evaluate()  # the on-commit enqueue never runs: as if the broker lost the task
    assert Delivery.objects.get().state == DeliveryState.PENDING
    with django_capture_on_commit_callbacks(execute=True):
        engine.evaluate(timezone.now() + timedelta(minutes=3))
    assert Delivery.objects.get().state == DeliveryState.SENT
    assert len(webhook.bodies) == 1
