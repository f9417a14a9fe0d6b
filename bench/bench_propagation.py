"""Benchmark: propagation throughput against the raw kubernetes client; p99 apply-to-running, 100 clusters.

python bench/bench_propagation.py [--database NAME]
On SQLite by default; with --database on PostgreSQL (DATABASE_ADMIN_URL, default
postgres://postgres@127.0.0.1:5432/postgres), in a database the benchmark creates and drops.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from workloads import deployment  # noqa: E402  (bench/workloads.py)

TMP = Path(tempfile.mkdtemp(prefix="bench-propagation-"))


def database_url() -> str:
    """SQLite in the run's folder, or a fresh PostgreSQL database when --database names one."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default="", help="run on PostgreSQL in this (new) database")
    name = parser.parse_args().database
    if not name:
        return f"sqlite:///{TMP / 'bench.sqlite3'}"
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", name):
        parser.error("--database must be a plain PostgreSQL name (lower case, digits, _)")
    admin_url = os.environ.get("DATABASE_ADMIN_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    try:
        import psycopg

        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            admin.execute(f'CREATE DATABASE "{name}"')
    except Exception as exc:  # one clear line: the rig is missing, not a benchmark result
        raise SystemExit(f"bench_propagation: needs PostgreSQL at {admin_url}: {exc}") from None
    return admin_url.rsplit("/", 1)[0] + "/" + name


DATABASE_URL = database_url()
os.environ.update(
    {
        "DJANGO_SETTINGS_MODULE": "karmada_ui.settings",
        "DATABASE_URL": DATABASE_URL,
        "KARMADA_UI_VAR_DIR": str(TMP),
        "CELERY_TASK_ALWAYS_EAGER": "1",
        "LOG_LEVEL": "WARNING",
    }
)

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from kubernetes import client as k8s_client  # noqa: E402

from clusters.k8s import (  # noqa: E402
    contexts,
    from_kubeconfig,
    objects,
)
from clusters.models import Cluster  # noqa: E402
from scheduling.services import apply_yaml  # noqa: E402

CLUSTERS = 100
THROUGHPUT_WORKLOADS = 10  # x 100 clusters = 1,000 objects each way
LATENCY_WORKLOADS = 30
RATIO_TARGET = 0.7
P99_TARGET_S = 2.0


def policy_yaml(namespace: str) -> str:
    return f"""
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {{name: everywhere, namespace: {namespace}}}
spec:
  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment}}]
  placement: {{clusterAffinity: {{labelSelector: {{matchLabels: {{bench: "yes"}}}}}}}}
"""


def workload_yaml(name: str, namespace: str) -> str:
    import yaml

    return yaml.safe_dump(deployment(name, namespace))


def start_members() -> tuple[subprocess.Popen, str]:
    kubeconfig = TMP / "members.yaml"
    argv = [sys.executable, "-m", "membersim", "--kubeconfig", str(kubeconfig)]
    for i in range(CLUSTERS):
        argv += ["--cluster", f"member-{i:03d}:nodes=2"]
    process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):
        if kubeconfig.exists() and kubeconfig.stat().st_size > 0:
            return process, kubeconfig.read_text()
        time.sleep(0.1)
    process.kill()
    raise SystemExit("membersim did not write its kubeconfig in 30 s")


def register(kubeconfig: str) -> list:
    conns = []
    for name in contexts(kubeconfig):
        conn = from_kubeconfig(kubeconfig, name)
        cluster = Cluster(name=name, labels={"bench": "yes"}, ready="True")
        cluster.set_connection(conn)
        cluster.save()
        conns.append(conn)
    return conns


def raw_client_rate(conns: list, namespace: str) -> tuple[float, int]:
    """Objects per second for the official client creating the same Deployments one by one."""
    apis = []
    for conn in conns:
        config = k8s_client.Configuration(host=conn.server)
        if conn.token:
            config.api_key = {"BearerToken": conn.token}
            config.api_key_prefix = {"BearerToken": "Bearer"}
        apis.append(
            (
                k8s_client.CoreV1Api(k8s_client.ApiClient(config)),
                k8s_client.AppsV1Api(k8s_client.ApiClient(config)),
            )
        )
    started = time.perf_counter()
    count = 0
    for core, apps in apis:
        core.create_namespace({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
        for i in range(THROUGHPUT_WORKLOADS):
            apps.create_namespaced_deployment(namespace, deployment(f"app-{i}", namespace))
            count += 1
    return count / (time.perf_counter() - started), count


def propagation_rate(namespace: str) -> tuple[float, int]:
    """Objects per second from one apply of the templates and policy to every member copy created."""
    text = policy_yaml(namespace) + "".join(
        "---\n" + workload_yaml(f"app-{i}", namespace) for i in range(THROUGHPUT_WORKLOADS)
    )
    started = time.perf_counter()
    apply_yaml(text)  # tasks run eagerly: when this returns, every Work has been applied
    elapsed = time.perf_counter() - started
    return THROUGHPUT_WORKLOADS * CLUSTERS / elapsed, THROUGHPUT_WORKLOADS * CLUSTERS


def running_everywhere(conns: list, name: str, namespace: str) -> bool:
    """Every member copy reports all its replicas available (read in parallel, as a watcher would)."""

    def running(conn) -> bool:
        try:
            live = objects.get_object(conn, "apps/v1", "Deployment", name, namespace)
        except objects.NotFound:
            return False
        return (live.get("status") or {}).get("availableReplicas", 0) >= live["spec"]["replicas"]

    with ThreadPoolExecutor(max_workers=16) as pool:
        return all(pool.map(running, conns))


def apply_to_running(conns: list, namespace: str) -> list[float]:
    """Seconds from applying one workload to its copy running in all 100 clusters, per workload."""
    apply_yaml(policy_yaml(namespace))
    samples = []
    for i in range(LATENCY_WORKLOADS):
        name = f"latency-{i}"
        started = time.perf_counter()
        apply_yaml(workload_yaml(name, namespace))
        while not running_everywhere(conns, name, namespace):
            time.sleep(0.01)
        samples.append(time.perf_counter() - started)
    return samples


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def main() -> int:
    call_command("migrate", verbosity=0)
    members, kubeconfig = start_members()
    try:
        conns = register(kubeconfig)
        # the raw client before and after ours, as the members fill: each side meets members as full
        raw_before, raw_count = raw_client_rate(conns, "bench-raw")
        ours_rate, ours_count = propagation_rate("bench-ours")
        raw_after, _ = raw_client_rate(conns, "bench-raw-after")
        latencies = apply_to_running(conns, "bench-latency")
    finally:
        members.terminate()
        members.wait(timeout=10)
    raw_rate = (raw_before + raw_after) / 2
    ratio = ours_rate / raw_rate
    worst = p99(latencies)
    where = "PostgreSQL" if DATABASE_URL.startswith("postgres") else "SQLite"
    print(f"propagation at {CLUSTERS} clusters, {where} (membersim in its own process, one client process)")
    print(f"{'':34}{'karmada-ui':>14}{'raw client':>14}{'target':>12}")
    print(f"{'throughput (objects/s)':34}{ours_rate:>14.0f}{raw_rate:>14.0f}{'':>12}")
    both = f"{raw_before:.0f} / {raw_after:.0f}"
    print(f"{'  raw client before / after ours':34}{'':>14}{both:>14}{'':>12}")
    print(f"{'objects created (each raw run)':34}{ours_count:>14}{raw_count:>14}{'':>12}")
    print(f"{'throughput ratio':34}{ratio:>14.2f}{'1.00':>14}{'>= ' + str(RATIO_TARGET):>12}")
    print(
        f"{'apply -> running, p99 (s)':34}{worst:>14.2f}{'':>14}{'< ' + str(P99_TARGET_S):>12}"
        f"   median {statistics.median(latencies):.2f} s over {len(latencies)} workloads"
    )
    ok = ratio >= RATIO_TARGET and worst < P99_TARGET_S
    print("within targets" if ok else "OUTSIDE TARGETS")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
