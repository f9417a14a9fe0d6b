"""Benchmark: health collection of 100 simulated clusters by one worker, against the 10 s probe interval.

Membersim serves the clusters from its own process, as real API servers would be. One worker is one
process running collections on a pool of threads (what `celery worker -Q health -P threads -c N`
does with the per-cluster tasks). Prints the time of a full cycle against the interval, then a cycle
with 5 clusters hanging (down) to show they do not delay the others.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def setup_django(var_dir: Path) -> None:
    os.environ["KARMADA_UI_VAR_DIR"] = str(var_dir)
    os.environ["DATABASE_URL"] = f"sqlite:///{var_dir / 'bench.sqlite3'}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "karmada_ui.settings")
    os.environ["LOG_LEVEL"] = "ERROR"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def start_membersim(var_dir: Path, clusters: int, nodes: int) -> tuple[subprocess.Popen, Path]:
    kubeconfig = var_dir / "kubeconfig"
    argv = [sys.executable, "-m", "membersim", "--kubeconfig", str(kubeconfig)]
    for index in range(clusters):
        argv += ["--cluster", f"member-{index:03d}:nodes={nodes},region=region-{index % 5},zones=a|b"]
    process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not (kubeconfig.exists() and kubeconfig.stat().st_size):
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"membersim did not start: {process.stderr.read().decode()[-500:]}")
        time.sleep(0.1)
    return process, kubeconfig


def control(kubeconfig: Path, name: str, action: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "membersim", "ctl", "--kubeconfig", str(kubeconfig), name, action],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def cycle(ids: list[int], threads: int) -> tuple[float, dict[int, float], dict[int, str]]:
    """One collection of every cluster; (wall time, finish time per cluster, Ready per cluster)."""
    from clusters.collector import collect_cluster

    started = time.perf_counter()
    finished: dict[int, float] = {}
    ready: dict[int, str] = {}

    def one(cluster_id: int) -> None:
        result = collect_cluster(cluster_id)
        finished[cluster_id] = time.perf_counter() - started
        ready[cluster_id] = result.ready if result else "busy"

    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(one, ids))
    return time.perf_counter() - started, finished, ready


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clusters", type=int, default=100)
    parser.add_argument("--nodes", type=int, default=5)
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--down", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-health-") as tmp:
        var_dir = Path(tmp)
        setup_django(var_dir)
        from django.conf import settings

        from clusters.joining import connection_from_kubeconfig
        from clusters.models import Cluster
        from clusters.services import join as join_cluster

        interval = settings.HEALTH_PROBE_INTERVAL
        process, kubeconfig = start_membersim(var_dir, args.clusters, args.nodes)
        try:
            text = kubeconfig.read_text()
            started = time.perf_counter()
            for index in range(args.clusters):
                name = f"member-{index:03d}"
                join_cluster(name, connection_from_kubeconfig(text, name), labels={"env": "prod"})
            joined = time.perf_counter() - started
            ids = list(Cluster.objects.order_by("name").values_list("id", flat=True))
            print(f"clusters: {len(ids)} x {args.nodes} nodes; one worker with {args.threads} threads")
            print(f"join of {len(ids)} clusters: {joined:.1f} s")
            print(
                f"probe interval {interval:.0f} s, call timeout {settings.HEALTH_CALL_TIMEOUT:.1f} s, "
                f"failure threshold {settings.HEALTH_FAILURE_THRESHOLD:.1f} s"
            )

            first, _, _ = cycle(ids, args.threads)
            print(f"first cycle (with API discovery): {first:.2f} s = {first / interval:.2f} x interval")
            steady = []
            for _ in range(3):
                wall, _, ready = cycle(ids, args.threads)
                steady.append(wall)
            print(
                f"steady cycle: {statistics.median(steady):.2f} s median of 3 "
                f"= {statistics.median(steady) / interval:.2f} x interval "
                f"({sum(1 for r in ready.values() if r == 'True')} of {len(ids)} Ready)"
            )

            down = ids[: args.down]
            names = dict(Cluster.objects.filter(id__in=down).values_list("id", "name"))
            for name in names.values():
                control(kubeconfig, name, "down")
            wall, finished, ready = cycle(ids, args.threads)
            healthy = [finished[i] for i in ids if i not in down]
            hanging = [finished[i] for i in down]
            print(
                f"cycle with {len(down)} clusters down (hanging): {wall:.2f} s "
                f"= {wall / interval:.2f} x interval; healthy {len(healthy)} done by {max(healthy):.2f} s "
                f"(median {statistics.median(healthy):.2f} s); hanging ones done by {max(hanging):.2f} s"
            )
            not_ready = sorted(names[i] for i in down if ready[i] == "False")
            print(f"NotReady after that one cycle: {len(not_ready)} of {len(down)} ({', '.join(not_ready)})")
            for name in names.values():
                control(kubeconfig, name, "up")
            ok = wall < interval and len(not_ready) == len(down) and statistics.median(steady) < interval
            print("result:", "keeps up with the interval" if ok else "FALLS BEHIND the interval")
            return 0 if ok else 1
        finally:
            process.terminate()
            process.wait(10)


if __name__ == "__main__":
    raise SystemExit(main())
