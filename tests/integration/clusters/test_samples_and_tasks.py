"""The health time series stays bounded (raw → 1-minute → 10-minute averages → dropped), and the beat
fan-out collects every cluster through the Celery tasks."""

from datetime import timedelta

import pytest
from django.utils import timezone

from clusters.models import Cluster, ClusterSample
from clusters.samples import compact_samples, series

pytestmark = pytest.mark.django_db


def add_samples(cluster, start, count, step, resolution=ClusterSample.RAW, ready=1.0, cpu_usage=1000.0):
    ClusterSample.objects.bulk_create(
        ClusterSample(
            cluster=cluster,
            at=start + timedelta(seconds=i * step),
            resolution=resolution,
            ready=ready,
            latency_ms=10.0 + i,
            cpu_allocatable=8000,
            cpu_usage=cpu_usage,
        )
        for i in range(count)
    )


@pytest.fixture
def cluster():
    return Cluster.objects.create(name="beijing", api_endpoint="https://h")


def test_raw_samples_older_than_an_hour_become_one_minute_averages(cluster):
    now = timezone.now().replace(second=0, microsecond=0)
    old = now - timedelta(hours=2)
    add_samples(cluster, old, 12, 10)  # two minutes of 10 s samples
    add_samples(cluster, now - timedelta(minutes=5), 6, 10)
    compact_samples(now)
    minutes = list(ClusterSample.objects.filter(resolution=ClusterSample.MINUTE).order_by("at"))
    assert [m.count for m in minutes] == [6, 6]
    assert minutes[0].latency_ms == pytest.approx(sum(range(10, 16)) / 6)
    assert ClusterSample.objects.filter(resolution=ClusterSample.RAW).count() == 6
    assert compact_samples(now) == 0  # idempotent


def test_minute_averages_older_than_a_day_become_ten_minute_averages_and_a_week_is_kept(cluster):
    now = timezone.now().replace(minute=0, second=0, microsecond=0)
    add_samples(cluster, now - timedelta(days=2), 20, 60, ClusterSample.MINUTE, ready=0.5)
    add_samples(cluster, now - timedelta(days=9), 3, 600, ClusterSample.TEN_MINUTES)
    compact_samples(now)
    tens = ClusterSample.objects.filter(resolution=ClusterSample.TEN_MINUTES)
    assert tens.count() == 2 and all(t.ready == 0.5 for t in tens)
    assert not ClusterSample.objects.filter(at__lt=now - timedelta(days=7)).exists()


def test_missing_usage_stays_missing_in_averages(cluster):
    now = timezone.now().replace(second=0, microsecond=0)
    add_samples(cluster, now - timedelta(hours=2), 6, 10, cpu_usage=None)
    compact_samples(now)
    assert ClusterSample.objects.get().cpu_usage is None


def test_the_series_for_charts_is_oldest_first_within_the_window(cluster):
    now = timezone.now()
    add_samples(cluster, now - timedelta(minutes=90), 3, 1800)
    points = series(cluster.pk, timedelta(hours=1), now)
    assert [p["at"] for p in points] == sorted(p["at"] for p in points)
    assert len(points) == 2


def test_the_fan_out_collects_every_cluster_through_the_tasks(simulate, member_kubeconfig, settings):
    from django.core.management import call_command

    from clusters.tasks import collect_all
    from membersim import ClusterSpec
    from tests.support.eager import eager_tasks

    settings.HEALTH_CALL_TIMEOUT = 1.0
    sim = simulate(ClusterSpec(name="beijing", nodes=2), ClusterSpec(name="shanghai", nodes=3))
    path = member_kubeconfig(sim)
    for name in ("beijing", "shanghai"):
        call_command("join", name, kubeconfig=str(path), context=name)
    with eager_tasks(propagate=False):
        assert collect_all() == 2
    assert ClusterSample.objects.count() == 2
    assert dict(Cluster.objects.values_list("name", "nodes_total")) == {"beijing": 2, "shanghai": 3}
    assert all(Cluster.objects.values_list("last_collected_at", flat=True))


def test_beat_runs_the_fan_out_every_probe_interval():
    from django.conf import settings

    from karmada_ui.celery import app

    entry = app.conf.beat_schedule["clusters-collect-all"]
    assert entry["task"] == "clusters.tasks.collect_all"
    assert entry["schedule"] == settings.HEALTH_PROBE_INTERVAL
    assert app.amqp.router.route({}, "clusters.tasks.collect_cluster_task")["queue"].name == "health"


def test_the_fan_out_sends_the_longest_unprobed_clusters_first(monkeypatch):
    from clusters import tasks
    from tests.support.eager import eager_tasks

    now = timezone.now()
    for name, ago in (("fresh", 1), ("never", None), ("stale", 30)):
        Cluster.objects.create(
            name=name,
            api_endpoint="https://127.0.0.1:1",
            last_probe_at=None if ago is None else now - timedelta(seconds=ago),
        )
    sent = []
    monkeypatch.setattr(tasks, "COLLECT_BATCH", 2)
    monkeypatch.setattr(tasks, "collect_clusters", lambda ids: sent.append(ids) or {})
    with eager_tasks(propagate=False):
        assert tasks.collect_all() == 3
    names = dict(Cluster.objects.values_list("id", "name"))
    assert [[names[pk] for pk in batch] for batch in sent] == [["never", "stale"], ["fresh"]]
