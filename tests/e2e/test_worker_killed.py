"""A real Celery worker SIGKILLed while propagating 200 workloads: after a restart, none missing or twice."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clusters.k8s import ClusterConnection, objects
from membersim import ClusterSpec, Simulator
from scheduling.karmada import names
from tests.support.fault_stack import ALL_QUEUES, CLUSTERS, REGISTER, kill_group, redis_db, workloads_yaml

ROOT = Path(__file__).resolve().parents[2]
WORKLOADS = 200
DEADLINE_S = 150


def member_deployments(sim: Simulator, cluster: str) -> list[dict]:
    conn = ClusterConnection(name=cluster, server=sim.endpoint(cluster), token=sim.token(cluster))
    return objects.list_objects(conn, "apps/v1", "Deployment", namespace="load")


def start_worker(env: dict[str, str], tmp: Path, log: str) -> subprocess.Popen:
    argv = [sys.executable, "-m", "celery", "-A", "karmada_ui", "worker", "-B", "-s", str(tmp / "beat")]
    argv += ["-Q", ALL_QUEUES, "-c", "2", "--without-gossip", "--without-mingle"]
    argv += ["-l", "WARNING"]
    with open(tmp / log, "w") as out:
        return subprocess.Popen(
            argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )


@pytest.mark.skipif(
    not os.environ.get("REDIS_URL"), reason="needs Redis (REDIS_URL, set by scripts/run-tests)"
)
def test_a_worker_killed_mid_propagation_loses_and_duplicates_nothing(tmp_path):
    # A file database both processes reach (the suite's own test database may be in memory).
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "KARMADA_UI_VAR_DIR": str(tmp_path),
        "CELERY_BROKER_URL": redis_db(os.environ["REDIS_URL"], 14),
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "SCHEDULING_RECONCILE_INTERVAL": "10",
        "SCHEDULING_LOST_MARK_AFTER": "10",
        "DJANGO_SETTINGS_MODULE": "karmada_ui.settings",
    }
    manage = [sys.executable, "manage.py"]
    with Simulator([ClusterSpec(name=name, nodes=2, node_pods=500) for name in CLUSTERS]) as sim:
        env["MEMBERS"] = json.dumps({name: [sim.endpoint(name), sim.token(name)] for name in CLUSTERS})
        subprocess.run([*manage, "migrate", "-v0"], cwd=ROOT, env=env, check=True)
        subprocess.run([*manage, "shell", "-c", REGISTER], cwd=ROOT, env=env, check=True)
        subprocess.run(
            [sys.executable, "-m", "celery", "-A", "karmada_ui", "purge", "-f"], cwd=ROOT, env=env, check=True
        )
        (tmp_path / "workloads.yaml").write_text(workloads_yaml(WORKLOADS))
        worker = start_worker(env, tmp_path, "worker-1.log")
        try:
            subprocess.run(
                [*manage, "apply", "-f", str(tmp_path / "workloads.yaml")], cwd=ROOT, env=env, check=True
            )
            started = time.monotonic()
            while sum(len(member_deployments(sim, c)) for c in CLUSTERS) < 40:
                assert time.monotonic() - started < DEADLINE_S, "the first worker propagated nothing"
                time.sleep(0.05)
            kill_group(worker, signal.SIGKILL)  # the worker and its pool die mid-work, unacknowledged
            at_kill = sum(len(member_deployments(sim, c)) for c in CLUSTERS)
            assert at_kill < WORKLOADS * len(CLUSTERS), "killed too late to prove anything"
            worker = start_worker(env, tmp_path, "worker-2.log")
            wanted = {f"w-{i:03d}" for i in range(WORKLOADS)}
            while True:
                held = {c: [d["metadata"]["name"] for d in member_deployments(sim, c)] for c in CLUSTERS}
                if all(sorted(held[c]) == sorted(wanted) for c in CLUSTERS):
                    break
                assert time.monotonic() - started < DEADLINE_S, {c: len(v) for c, v in held.items()}
                time.sleep(0.5)
            for cluster in CLUSTERS:
                copies = member_deployments(sim, cluster)
                assert len(copies) == WORKLOADS  # none twice
                assert all(d["metadata"]["labels"][names.MANAGED_LABEL] == "true" for d in copies)
                assert all(d["spec"]["replicas"] == 1 for d in copies)
            while True:  # the database agrees: every Work applied at its desired hash, one per cluster
                with sqlite3.connect(tmp_path / "db.sqlite3") as db:
                    works = db.execute(
                        "select count(*), sum(applied_hash = desired_hash) from scheduling_work"
                    ).fetchone()
                if works == (WORKLOADS * len(CLUSTERS), WORKLOADS * len(CLUSTERS)):
                    break
                assert time.monotonic() - started < DEADLINE_S, works
                time.sleep(0.5)
        finally:
            kill_group(worker, signal.SIGTERM)
