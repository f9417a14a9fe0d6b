"""Benchmark: one schedule pass and one apply chunk in-process on PostgreSQL against 20 simulated clusters.

Seeds a Duplicated fleet through `apply_yaml` (tasks eager), then times, in this process:
- schedule passes: every binding marked dirty, then `scheduler.dirty_pass`'s work (take the mark, schedule)
  for each: bindings per second, against issue 15's 500/s for one worker;
- apply chunks: `dispatch.apply_works` over chunks of the Works already applied (a member call each, the
  outcome written back): Works per second, against the raw official client creating the same objects.

python bench/bench_passes.py [--clusters 20] [--workloads 200] [--database bench_passes] [--profile]
Needs PostgreSQL (DATABASE_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres); the
benchmark creates and drops its own database. --profile prints a cProfile of each measure.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import re
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from workloads import deployment  # noqa: E402  (bench/workloads.py)

RESULTS = ROOT / "bench" / "results.md"
SCHEDULED_TARGET = 500.0
APPLY_RATIO_TARGET = 0.7


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clusters", type=int, default=20)
    parser.add_argument("--workloads", type=int, default=200)
    parser.add_argument("--database", default="bench_passes")
    parser.add_argument("--profile", action="store_true")
    options = parser.parse_args()
    if min(options.clusters, options.workloads) <= 0:
        parser.error("--clusters and --workloads must be positive")
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", options.database):
        parser.error("--database must be a plain PostgreSQL name (lower case, digits, _)")
    return options


OPTIONS = parse_args()
ADMIN_URL = os.environ.get("DATABASE_ADMIN_URL", "postgres://postgres@127.0.0.1:5432/postgres")
TMP = Path(tempfile.mkdtemp(prefix="bench-passes-"))

try:
    import psycopg

    with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{OPTIONS.database}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{OPTIONS.database}"')
except Exception as exc:  # one clear line: the rig is missing, not a benchmark result
    raise SystemExit(f"bench_passes: needs PostgreSQL at {ADMIN_URL}: {exc}") from None

os.environ.update(
    {
        "DJANGO_SETTINGS_MODULE": "karmada_ui.settings",
        "DATABASE_URL": ADMIN_URL.rsplit("/", 1)[0] + "/" + OPTIONS.database,
        "DATABASE_CONN_MAX_AGE": "60",
        "KARMADA_UI_VAR_DIR": str(TMP),
        "CELERY_TASK_ALWAYS_EAGER": "1",
        "LOG_LEVEL": "WARNING",
    }
)

import django  # noqa: E402

django.setup()

import yaml  # noqa: E402
from django.core.management import call_command  # noqa: E402
from kubernetes import client as k8s_client  # noqa: E402

from clusters.k8s import contexts, from_kubeconfig  # noqa: E402
from clusters.models import Cluster  # noqa: E402
from scheduling.controllers import dispatch, marking, scheduler  # noqa: E402
from scheduling.models import ResourceBinding, Work  # noqa: E402
from scheduling.services import apply_yaml  # noqa: E402
from scheduling.tasks import CHUNK, DIRTY_BATCH  # noqa: E402


def seed_yaml(namespace: str, count: int) -> str:
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": "everywhere", "namespace": namespace},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
            "placement": {
                "clusterAffinity": {"labelSelector": {"matchLabels": {"bench": "yes"}}},
                "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
            },
        },
    }
    docs = [policy] + [deployment(f"app-{i}", namespace) for i in range(count)]
    return "".join("---\n" + yaml.safe_dump(doc) for doc in docs)


def start_members() -> tuple[subprocess.Popen, list]:
    kubeconfig = TMP / "members.yaml"
    argv = [sys.executable, "-m", "membersim", "--kubeconfig", str(kubeconfig), "--single-port"]
    for i in range(OPTIONS.clusters):
        argv += ["--cluster", f"member-{i:03d}:nodes=2,cpu=64,pods=2000"]
    process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(600):
        if kubeconfig.exists() and kubeconfig.stat().st_size > 0:
            text = kubeconfig.read_text()
            conns = []
            for name in contexts(text):
                conn = from_kubeconfig(text, name)
                cluster = Cluster(name=name, labels={"bench": "yes"})
                cluster.ready, cluster.ready_reason = "True", "ClusterReady"
                cluster.set_connection(conn)
                cluster.save()
                conns.append(conn)
            return process, conns
        time.sleep(0.1)
    process.kill()
    raise SystemExit("bench_passes: membersim did not write its kubeconfig in 60 s")


def raw_client_rate(conns: list, namespace: str, count: int) -> float:
    """Objects per second for the official client creating Deployments one by one, over the fleet."""
    apis = []
    for conn in conns:
        config = k8s_client.Configuration(host=conn.server)
        config.verify_ssl = False
        if conn.token:
            config.api_key = {"BearerToken": conn.token}
            config.api_key_prefix = {"BearerToken": "Bearer"}
        api = k8s_client.ApiClient(config)
        apis.append((k8s_client.CoreV1Api(api), k8s_client.AppsV1Api(api)))
    for core, _ in apis:
        core.create_namespace({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    started = time.perf_counter()
    made = 0
    for i in range(count):
        core, apps = apis[i % len(apis)]
        apps.create_namespaced_deployment(namespace, deployment(f"raw-{i}", namespace))
        made += 1
    return made / (time.perf_counter() - started)


def measured(label: str, work):
    """Run `work`, profiled when asked; its result."""
    if not OPTIONS.profile:
        return work()
    profile = cProfile.Profile()
    result = profile.runcall(work)
    print(f"--- profile: {label}")
    pstats.Stats(profile).sort_stats("cumulative").print_stats(35)
    return result


def schedule_pass(ids: list[int]) -> float:
    """Bindings per second through schedule_dirty_batch's work: take the marks, schedule the bindings."""
    marking.mark(ids)
    started = time.perf_counter()
    for start in range(0, len(ids), DIRTY_BATCH):
        scheduler.dirty_pass(ids[start : start + DIRTY_BATCH])
    return len(ids) / (time.perf_counter() - started)


def apply_chunks(work_ids: list[int]) -> float:
    """Works per second through apply_works, one chunk as the propagate queue's task takes it."""
    started = time.perf_counter()
    for start in range(0, len(work_ids), CHUNK):
        dispatch.apply_works(work_ids[start : start + CHUNK])
    return len(work_ids) / (time.perf_counter() - started)


def main() -> int:
    call_command("migrate", verbosity=0)
    members, conns = start_members()
    try:
        raw = raw_client_rate(conns, "bench-raw", 10 * OPTIONS.clusters * 2)
        seeded = time.perf_counter()
        apply_yaml(seed_yaml("bench", OPTIONS.workloads))
        seed_rate = Work.objects.filter(applied=True).count() / (time.perf_counter() - seeded)
        ids = list(
            ResourceBinding.objects.filter(namespace="bench").order_by("pk").values_list("pk", flat=True)
        )
        scheduled = measured("schedule pass", lambda: schedule_pass(ids))
        work_ids = list(Work.objects.order_by("binding_id", "pk").values_list("pk", flat=True))
        applied = measured("apply chunks", lambda: apply_chunks(work_ids))
    finally:
        members.terminate()
        members.wait(timeout=10)
    rows = [
        (
            "bindings scheduled per second (one process)",
            f"{scheduled:.0f}",
            f">= {SCHEDULED_TARGET:.0f}",
            scheduled / SCHEDULED_TARGET,
        ),
        (
            "apply_works Works/s / raw client objects/s",
            f"{applied:.0f} / {raw:.0f}",
            f">= {APPLY_RATIO_TARGET}",
            applied / raw / APPLY_RATIO_TARGET,
        ),
        ("seeding Works/s (eager, apply_yaml → applied)", f"{seed_rate:.0f}", "", 0.0),
    ]
    print(
        f"schedule and apply passes, {OPTIONS.clusters} clusters x {OPTIONS.workloads} workloads, PostgreSQL"
    )
    for label, value, target, share in rows:
        print(f"{label:48}{value:>14}{target:>10}" + (f"   {share:.2f} of target" if share else ""))
    ok = scheduled >= SCHEDULED_TARGET and applied / raw >= APPLY_RATIO_TARGET
    print("within targets" if ok else "OUTSIDE TARGETS")
    if not OPTIONS.profile:  # a profiled run's figures are the profiler's, not the code's
        record(scheduled, applied, raw, seed_rate)
    return 0 if ok else 1


def record(scheduled: float, applied: float, raw: float, seed_rate: float) -> None:
    when = datetime.now(UTC).strftime("%Y-%m-%d")
    where = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    with RESULTS.open("a") as out:
        out.write(
            f"\n## bench_passes ({when}, {where}, {OPTIONS.clusters} clusters x {OPTIONS.workloads} "
            "workloads, PostgreSQL)\n\n"
            f"- bindings scheduled per second in one process: {scheduled:.0f} "
            f"(target >= {SCHEDULED_TARGET:.0f})\n"
            f"- apply_works {applied:.0f} Works/s against the raw client's {raw:.0f} objects/s: "
            f"{applied / raw:.2f} (target >= {APPLY_RATIO_TARGET})\n"
            f"- seeding through apply_yaml, tasks eager: {seed_rate:.0f} Works/s\n"
        )


if __name__ == "__main__":
    sys.exit(main())
