"""Benchmark: list and detail pages at fleet size, seeded straight through the ORM, timed in-process.

100 clusters, 100 Deployments claimed by one policy, each with a binding scheduled to every cluster
(100-entry spec.clusters and aggregatedStatus) and a Work per cluster: 10,000 Works; and an hour of
history (health samples, events, metric tallies, audit entries, resolved alerts). Each page is
requested through django.test.Client; printed is its p95 over the samples, as a
ratio to issue 15's 300 ms page target (bench_scale.py measures the same pages over gunicorn).

python bench/bench_pages.py [--clusters 100] [--workloads 100] [--samples 10]
DATABASE_URL picks the database (SQLite by default; migrated, then emptied of these rows).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TARGET_S = 0.3

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--clusters", type=int, default=100)
parser.add_argument("--workloads", type=int, default=100)
parser.add_argument("--samples", type=int, default=10)
OPTIONS = parser.parse_args()
if min(OPTIONS.clusters, OPTIONS.workloads, OPTIONS.samples) <= 0:
    parser.error("--clusters, --workloads and --samples must be positive")

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "karmada_ui.settings")
os.environ.setdefault("LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.db.models.signals import post_delete  # noqa: E402
from django.test import Client  # noqa: E402
from django.utils import timezone  # noqa: E402

from clusters.models import Cluster, ClusterEvent, ClusterSample  # noqa: E402
from core import audit  # noqa: E402
from core.models import AuditEntry  # noqa: E402
from kubeapi import tombstones  # noqa: E402
from kubeapi.models import Tombstone  # noqa: E402
from metrics.models import Tally  # noqa: E402
from metrics.recording import labels_key  # noqa: E402
from observability.models import Alert  # noqa: E402
from scheduling.models import PropagationPolicy, ResourceBinding, ResourceTemplate, Work  # noqa: E402


def deployment(name: str) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "bench", "labels": {"app": name}},
        "spec": {
            "replicas": OPTIONS.clusters,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "containers": [{"name": "web", "image": "nginx:1.27", "ports": [{"containerPort": 80}]}]
                },
            },
        },
    }


def member_status() -> dict:
    return {
        "replicas": 1,
        "readyReplicas": 1,
        "availableReplicas": 1,
        "updatedReplicas": 1,
        "observedGeneration": 1,
        "conditions": [
            {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable", "message": "ok"},
            {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable", "message": "ok"},
        ],
    }


def seed_history(names: list[str], now: datetime) -> None:
    """What an hour of a running fleet leaves behind: health samples every 10 s, readiness events,
    per-cluster metric tallies every minute, an audit entry per apply and per placement, resolved alerts."""
    with (
        connection.cursor() as cursor
    ):  # the log refuses deletes (on PostgreSQL a trigger); a bench may empty it
        cursor.execute(
            f"{'DELETE FROM' if connection.vendor == 'sqlite' else 'TRUNCATE'} {AuditEntry._meta.db_table}"
        )
    ClusterEvent.objects.all().delete()
    Tally.objects.all().delete()
    Alert.objects.all().delete()
    clusters = list(Cluster.objects.filter(name__in=names))
    ClusterSample.objects.bulk_create(
        (
            ClusterSample(
                cluster=c,
                at=now - timedelta(seconds=10 * i),
                ready=1.0,
                latency_ms=12.0,
                nodes_total=3,
                nodes_ready=3,
                pods=40,
                cpu_allocatable=12000,
                cpu_allocated=4000,
                memory_allocatable=4.8e10,
                memory_allocated=1.2e10,
            )
            for c in clusters
            for i in range(360)
        ),
        batch_size=5000,
    )
    ClusterEvent.objects.bulk_create(
        ClusterEvent(cluster=c, at=now - timedelta(minutes=i), reason="Ready", message="ok", ready="True")
        for c in clusters
        for i in range(3)
    )
    minutes = [now.replace(second=0, microsecond=0) - timedelta(minutes=m) for m in range(60)]
    Tally.objects.bulk_create(
        (
            Tally(name=metric, labels=labels_key(labels), le=le, window=window, count=6, total=0.05)
            for n in names
            for window in minutes
            for metric, labels, le in (
                ("cluster_sync_status_duration_seconds", {"member_cluster": n}, "0.05"),
                ("cluster_health_probe_duration_seconds", {"member_cluster": n}, "0.025"),
                ("work_sync_workload_duration_seconds", {"result": "success", "member_cluster": n}, "0.016"),
            )
        ),
        batch_size=5000,
    )
    entries = []
    for w in range(OPTIONS.workloads):
        name = f"web-{w:04d}"
        entries.append(
            AuditEntry(
                action="create",
                object_kind="Deployment",
                object_namespace="bench",
                object_name=name,
                summary="applied",
                changes=audit.diff(None, deployment(name), secret_kind=False),
            )
        )
        entries.append(
            AuditEntry(
                action="schedule",
                object_kind="ResourceBinding",
                object_namespace="bench",
                object_name=f"{name}-deployment",
                summary="scheduled",
                changes=audit.diff({"replicas": {}}, {"replicas": {n: 1 for n in names}}, secret_kind=False),
                placement_delta=audit.placement_delta({}, {n: 1 for n in names}),
            )
        )
    AuditEntry.objects.bulk_create(entries, batch_size=500)
    Alert.objects.bulk_create(
        Alert(
            rule="ClusterNotReady",
            fingerprint=f"{i:032d}",
            labels={"member_cluster": n, "severity": "critical"},
            annotations={"summary": f"{n} not ready"},
            state="resolved",
            value=0.0,
            active_since=now,
            fired_at=now,
            resolved_at=now,
            last_evaluated=now,
        )
        for i, n in enumerate(names[:20])
    )


@contextlib.contextmanager
def without_tombstones() -> Iterator[None]:
    """The bench's own rows deleted without a watch tombstone each (four queries per Work otherwise)."""
    models = (*tombstones.WATCHED, ResourceTemplate)
    for model in models:
        post_delete.disconnect(sender=model, dispatch_uid=f"kubeapi-tombstone-{model.__name__}")
    try:
        yield
    finally:
        tombstones.connect()
        Tombstone.objects.all()._raw_delete(Tombstone.objects.db)


def seed() -> int:
    """Empty the rows this benchmark owns and write the fleet; returns the policy's id."""
    with without_tombstones():
        Work.objects.all().delete()
        ResourceBinding.objects.all().delete()
        ResourceTemplate.objects.all().delete()
        PropagationPolicy.objects.all().delete()
        Cluster.objects.all().delete()
    names = [f"member-{i:04d}" for i in range(OPTIONS.clusters)]
    Cluster.objects.bulk_create(Cluster(name=n, api_endpoint=f"https://{n}.example:6443") for n in names)
    selectors = [{"apiVersion": "apps/v1", "kind": "Deployment"}]
    placement = {
        "clusterAffinity": {"clusterNames": names},
        "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
    }
    policy = PropagationPolicy.objects.create(
        kind="PropagationPolicy",
        namespace="bench",
        name="everywhere",
        spec={"resourceSelectors": selectors, "placement": placement},
    )
    now = timezone.now()
    for w in range(OPTIONS.workloads):
        name = f"web-{w:04d}"
        manifest = deployment(name)
        template = ResourceTemplate.objects.create(
            api_version="apps/v1",
            api_group="apps",
            kind="Deployment",
            namespace="bench",
            name=name,
            manifest=manifest,
            policy=policy,
            status={"replicas": OPTIONS.clusters, "readyReplicas": OPTIONS.clusters},
        )
        binding = ResourceBinding.objects.create(
            namespace="bench",
            name=f"{name}-deployment",
            template=template,
            policy=policy,
            replicas=1,
            placement=placement,
            applied_placement=placement,
            clusters=[{"name": n, "replicas": 1} for n in names],
            conditions=[
                {
                    "type": "Scheduled",
                    "status": "True",
                    "reason": "Success",
                    "message": "Binding has been scheduled",
                },
                {"type": "FullyApplied", "status": "True", "reason": "FullyAppliedSuccess", "message": "ok"},
            ],
            aggregated_status=[
                {"clusterName": n, "applied": True, "health": "Healthy", "status": member_status()}
                for n in names
            ],
        )
        Work.objects.bulk_create(
            Work(
                binding=binding,
                cluster_name=n,
                namespace=f"karmada-es-{n}",
                name=f"{name}-{w}",
                manifest=manifest,
                desired_hash="h",
                applied_hash="h",
                applied=True,
                health="Healthy",
                status=member_status(),
                status_at=now,
            )
            for n in names
        )
    seed_history(names, now)
    return policy.pk


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> None:
    call_command("migrate", verbosity=0)
    started = time.monotonic()
    policy_id = seed()
    print(
        f"seeded {OPTIONS.clusters} clusters, {OPTIONS.workloads} workloads, "
        f"{Work.objects.count()} Works in {time.monotonic() - started:.1f} s"
    )
    user_model = get_user_model()
    user_model.objects.filter(username="bench-pages").delete()
    user = user_model.objects.create_superuser("bench-pages", "bench@example.com", "bench-password-1")
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    first = ResourceTemplate.objects.order_by("id").first()
    paths = [
        "/workloads/",
        "/api/v1/workloads/",
        f"/policies/{policy_id}/",
        f"/workloads/{first.pk if first else 0}/",
        f"/api/v1/workloads/{first.pk if first else 0}/",
        "/policies/",
        "/api/v1/policies/",
        "/drill/",
        "/clusters/",
        f"/clusters/c/{Cluster.objects.order_by('name').first().name}/",
        f"/workloads/on/{Cluster.objects.order_by('name').first().name}/",
        "/audit/",
        "/clusters/fleet/",
        "/alerts/",
        "/metrics",
        "/api/v1/audit/",
        "/api/v1/clusters/",
    ]
    lines = []
    for path in paths:
        response = client.get(path)
        if response.status_code != 200:
            lines.append(f"| {path} | HTTP {response.status_code} | | |")
            continue
        samples = []
        for _ in range(OPTIONS.samples):
            began = time.monotonic()
            client.get(path)
            samples.append(time.monotonic() - began)
        worst = p95(samples)
        lines.append(f"| {path} | {worst * 1000:.0f} ms | {worst / TARGET_S:.2f} |")
    print("| page | p95 | ratio to 300 ms |\n|---|---|---|")
    print("\n".join(lines))
    print(f"{platform.node()} {platform.python_version()} {connection.vendor} {datetime.now(UTC):%Y-%m-%d}")


if __name__ == "__main__":
    main()
