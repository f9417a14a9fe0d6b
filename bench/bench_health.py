"""Benchmark: health collection of 1,000 simulated clusters by two workers, against the 10 s probe interval.

Membersim serves the clusters from its own process (one port, a path per cluster), as real API servers
would be. Each health worker is one process running batches of collections on a pool of threads (what
`celery worker -Q health -P threads -c N` does with the tasks collect_all sends, COLLECT_BATCH
clusters each), with its share of the clusters, as the tasks spread over the workers. Prints, as ratios to the
targets: a full cycle against the interval, a cycle with clusters hanging (down), and, with cycles
started every interval as beat starts them, the time from a cluster ceasing to answer until it is
NotReady (p99 against 15 s). The member watcher runs beside them as the product runs it (`manage.py
watch_members`, its node and pod inventory read by the collection instead of a list per probe);
--no-watcher measures the collection listing nodes and pods itself. DATABASE_URL may name a PostgreSQL
database (emptied first); by default a fresh SQLite file (the watcher wants PostgreSQL: it writes
beside the workers).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from multiprocessing.connection import Connection
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

NOT_READY_TARGET = 15.0


def setup_django(var_dir: Path) -> str:
    os.environ["KARMADA_UI_VAR_DIR"] = str(var_dir)
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        url = f"sqlite:///{var_dir / 'bench.sqlite3'}"
        os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "karmada_ui.settings")
    os.environ["LOG_LEVEL"] = "ERROR"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    if url.startswith("postgres"):
        call_command("flush", interactive=False, verbosity=0)
    return "PostgreSQL" if url.startswith("postgres") else "SQLite"


def start_membersim(var_dir: Path, clusters: int, nodes: int) -> tuple[subprocess.Popen, Path]:
    kubeconfig = var_dir / "kubeconfig"
    argv = [sys.executable, "-m", "membersim", "--single-port", "--kubeconfig", str(kubeconfig)]
    for index in range(clusters):
        argv += ["--cluster", f"member-{index:04d}:nodes={nodes},region=region-{index % 5},zones=a|b"]
    process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not (kubeconfig.exists() and kubeconfig.stat().st_size):
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"membersim did not start: {process.stderr.read().decode()[-500:]}")
        time.sleep(0.1)
    return process, kubeconfig


def start_watcher(var_dir: Path, clusters: int) -> subprocess.Popen:
    """`manage.py watch_members` as deployed, once it has confirmed every cluster's inventory."""
    from django.utils import timezone

    from clusters.inventory_watch import CONFIRMED_WITHIN
    from clusters.models import ClusterInventory

    log = open(var_dir / "watcher.log", "wb")  # the watcher's log, open while it runs
    process = subprocess.Popen(
        [sys.executable, "manage.py", "watch_members"], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
    )
    deadline = time.monotonic() + 300
    while True:
        since = timezone.now() - timedelta(seconds=CONFIRMED_WITHIN)
        confirmed = ClusterInventory.objects.filter(confirmed_at__gte=since).count()
        if confirmed >= clusters:
            return process
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            tail = (var_dir / "watcher.log").read_text(errors="replace")[-1000:]
            raise SystemExit(f"the watcher confirmed {confirmed} of {clusters} inventories: {tail}")
        time.sleep(0.5)


def control(kubeconfig: Path, name: str, action: str) -> None:
    from membersim.cli import ctl

    with contextlib.redirect_stdout(io.StringIO()):
        if ctl([name, action, "--kubeconfig", str(kubeconfig)]) != 0:
            raise SystemExit(f"membersim ctl {name} {action} failed")


def batches(ids: list[int]) -> list[list[int]]:
    """The clusters as collect_all hands them to the tasks: COLLECT_BATCH to a task."""
    from clusters.tasks import COLLECT_BATCH

    return [ids[start : start + COLLECT_BATCH] for start in range(0, len(ids), COLLECT_BATCH)]


def cycle(ids: list[int], threads: int, start_at: float) -> tuple[float, dict[int, float], dict[int, str]]:
    """One collection of every cluster from start_at; (wall time, finish time per cluster, Ready)."""
    from clusters.collector import collect_clusters

    time.sleep(max(0.0, start_at - time.monotonic()))
    finished: dict[int, float] = {}
    ready: dict[int, str] = {}

    def one(batch: list[int]) -> None:
        results = collect_clusters(batch)
        for cluster_id in batch:
            finished[cluster_id] = time.monotonic() - start_at
            ready[cluster_id] = results[cluster_id].ready if cluster_id in results else "busy"

    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(one, batches(ids)))
    return time.monotonic() - start_at, finished, ready


def periodic(ids: list[int], threads: int, interval: float, rounds: int, start_at: float) -> list[float]:
    """Start a cycle every interval from start_at, as beat does, on one shared pool; each cycle's wall."""
    from clusters.collector import collect_clusters

    walls: list[float] = []
    finishers = []
    with ThreadPoolExecutor(max_workers=threads) as pool:
        for round_ in range(rounds):
            tick = start_at + round_ * interval
            time.sleep(max(0.0, tick - time.monotonic()))
            futures = [pool.submit(collect_clusters, batch) for batch in batches(ids)]

            def done(futures=futures, tick=tick) -> None:
                for future in futures:
                    future.result()
                walls.append(time.monotonic() - tick)

            finishers.append(threading.Thread(target=done))
            finishers[-1].start()
        for finisher in finishers:
            finisher.join()
    return walls


def open_sockets() -> int:
    """Sockets this process holds open (its kept-alive connections to the members among them)."""
    fds = Path("/proc/self/fd")
    count = 0
    for fd in fds.iterdir():
        with contextlib.suppress(OSError):
            count += os.readlink(fd).startswith("socket:")
    return count


def shard(pipe: Connection, ids: list[int], threads: int) -> None:
    """One health worker process: runs what the benchmark asks on its share of the clusters."""
    from django.db import connections

    connections.close_all()  # never share the parent's database connection across the fork
    while True:
        command, *options = pipe.recv()
        if command == "stop":
            return
        cpu = time.process_time()
        if command == "sockets":
            result: object = open_sockets()
        elif command == "cycle":
            result = cycle(ids, threads, *options)
        else:
            result = periodic(ids, threads, *options)
        pipe.send((result, time.process_time() - cpu))


class Workers:
    """N forked health worker processes, each collecting its shard of the clusters (ids[i::n])."""

    def __init__(self, ids: list[int], count: int, threads: int) -> None:
        from django.db import connections

        connections.close_all()
        context = multiprocessing.get_context("fork")
        self.pipes, self.processes = [], []
        for index in range(count):
            parent, child = context.Pipe()
            process = context.Process(target=shard, args=(child, ids[index::count], threads), daemon=True)
            process.start()
            self.pipes.append(parent)
            self.processes.append(process)

    def run(self, *command: object) -> tuple[list, float]:
        """Every shard's answer, and the CPU seconds they spent together."""
        for pipe in self.pipes:
            pipe.send(command)
        answers = [pipe.recv() for pipe in self.pipes]
        return [result for result, _ in answers], sum(cpu for _, cpu in answers)

    def cycle(self) -> tuple[float, dict[int, float], dict[int, str], float]:
        results, cpu = self.run("cycle", time.monotonic() + 0.2)
        finished: dict[int, float] = {}
        ready: dict[int, str] = {}
        for _, shard_finished, shard_ready in results:
            finished.update(shard_finished)
            ready.update(shard_ready)
        return max(wall for wall, _, _ in results), finished, ready, cpu

    def stop(self) -> None:
        for pipe in self.pipes:
            pipe.send(("stop",))
        for process in self.processes:
            process.join(30)


def cpu_seconds(pid: int | None = None) -> float:
    """User + system CPU seconds of a process (this one by default)."""
    if pid is None:
        return time.process_time()
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clusters", type=int, default=1000)
    parser.add_argument("--nodes", type=int, default=5)
    parser.add_argument("--threads", type=int, default=16, help="threads per worker process")
    parser.add_argument("--workers", type=int, default=2, help="health worker processes (shards)")
    parser.add_argument("--down", type=int, default=10)
    parser.add_argument("--stop", type=int, default=20, help="clusters that stop answering, one by one")
    parser.add_argument(
        "--no-watcher", action="store_true", help="no member watcher: every probe lists nodes and pods"
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-health-") as tmp:
        var_dir = Path(tmp)
        database = setup_django(var_dir)
        from django.conf import settings

        from clusters.health import FALSE
        from clusters.joining import JoinRequest
        from clusters.k8s.connection import from_kubeconfig, load_kubeconfig
        from clusters.models import Cluster
        from clusters.services import join_many

        interval = settings.HEALTH_PROBE_INTERVAL
        process, kubeconfig = start_membersim(var_dir, args.clusters, args.nodes)
        watcher: subprocess.Popen | None = None
        try:
            parsed = load_kubeconfig(kubeconfig.read_text())  # once: a thousand contexts in one file
            started = time.perf_counter()
            join_many(
                [
                    JoinRequest(name, from_kubeconfig(parsed, name, files=False), labels={"env": "prod"})
                    for name in (f"member-{index:04d}" for index in range(args.clusters))
                ]
            )
            joined = time.perf_counter() - started
            ids = list(Cluster.objects.order_by("name").values_list("id", flat=True))
            watcher = None if args.no_watcher else start_watcher(var_dir, len(ids))
            inventories = (
                "no watcher: each probe lists nodes and pods"
                if watcher is None
                else "the watcher running, its node and pod inventory used"
            )
            print(
                f"clusters: {len(ids)} x {args.nodes} nodes on {database}; {args.workers} workers of "
                f"{args.threads} threads; joined in {joined:.1f} s (manage.py join --all-contexts' path); "
                f"{inventories}"
            )
            print(
                f"probe interval {interval:.0f} s, call timeout {settings.HEALTH_CALL_TIMEOUT:.1f} s, "
                f"failure threshold {settings.HEALTH_FAILURE_THRESHOLD:.1f} s"
            )
            rows = []
            names = dict(Cluster.objects.filter(id__in=ids).values_list("id", "name"))
            workers = Workers(ids, args.workers, args.threads)
            try:
                first, _, _, _ = workers.cycle()
                rows.append(("first cycle (with API discovery and version)", first, interval))
                steady, worker_cpu, sim_cpu = [], 0.0, cpu_seconds(process.pid)
                watcher_cpu = cpu_seconds(watcher.pid) if watcher else 0.0
                for _ in range(3):
                    wall, _, ready, cpu = workers.cycle()
                    steady.append(wall)
                    worker_cpu += cpu
                worker_cpu = worker_cpu / 3 / len(ids) * 1000
                sim_cpu = (cpu_seconds(process.pid) - sim_cpu) / 3 / len(ids) * 1000
                if watcher is not None:
                    watcher_cpu = (cpu_seconds(watcher.pid) - watcher_cpu) / 3 / len(ids) * 1000
                sockets, _ = workers.run("sockets")
                steady_ready = sum(1 for r in ready.values() if r == "True")
                rows.append(
                    (f"steady cycle, median of 3 ({steady_ready} Ready)", statistics.median(steady), interval)
                )

                down = ids[: args.down]
                for cluster_id in down:
                    control(kubeconfig, names[cluster_id], "down")
                wall, finished, ready, _ = workers.cycle()
                healthy = [finished[i] for i in ids if i not in down]
                rows.append((f"cycle with {len(down)} clusters hanging", wall, interval))
                rows.append(("  the healthy ones done by", max(healthy), interval))
                not_ready_once = sum(1 for i in down if ready[i] == FALSE)
                for cluster_id in down:
                    control(kubeconfig, names[cluster_id], "up")

                # Cycles every interval; two clusters stop answering at random moments in each.
                victims = random.Random(7).sample(ids[args.down :], args.stop)
                went_down: dict[int, float] = {}
                rounds = args.stop // 2 + 3
                start_at = time.monotonic() + 1.0
                jitter = random.Random(11)

                def stop_answering() -> None:
                    for index, victim in enumerate(victims):
                        moment = start_at + (index // 2) * interval + jitter.uniform(0, interval)
                        time.sleep(max(0.0, moment - time.monotonic()))
                        control(kubeconfig, names[victim], "down")
                        went_down[victim] = time.monotonic()

                seen_false: dict[int, float] = {}

                def watch_ready(until: float) -> None:
                    while time.monotonic() < until:
                        for cluster_id in Cluster.objects.filter(id__in=victims, ready=FALSE).values_list(
                            "id", flat=True
                        ):
                            seen_false.setdefault(cluster_id, time.monotonic())
                        time.sleep(0.2)

                helpers = [
                    threading.Thread(target=stop_answering),
                    threading.Thread(target=watch_ready, args=(start_at + (rounds + 1) * interval,)),
                ]
                for helper in helpers:
                    helper.start()
                results, _ = workers.run("periodic", interval, rounds, start_at)
                for helper in helpers:
                    helper.join()
            finally:
                workers.stop()
            walls = [max(shard_walls[i] for shard_walls in results) for i in range(rounds)]
            delays = [seen_false[v] - went_down[v] for v in went_down if v in seen_false]
            missed = len(went_down) - len(delays)
            rows.append((f"cycles started every interval, worst of {len(walls)}", max(walls), interval))
            worst = p99(delays) if delays and not missed else float("inf")
            rows.append(
                (
                    f"stopped answering -> NotReady, p99 of {len(went_down)} "
                    f"(median {statistics.median(delays or [0]):.1f} s)",
                    worst,
                    NOT_READY_TARGET,
                )
            )

            print(f"{'figure':<72} {'seconds':>8} {'target':>7} {'ratio':>6}")
            for label, value, target in rows:
                print(f"{label:<72} {value:8.2f} {target:7.0f} {value / target:6.2f}")
            print(
                f"CPU per cluster and steady cycle: worker {worker_cpu:.1f} ms, membersim {sim_cpu:.1f} ms"
                + (f", watcher {watcher_cpu:.1f} ms" if watcher is not None else "")
            )
            print(
                "sockets open in each health worker after the steady cycles: "
                + ", ".join(f"{n} ({len(ids[i :: args.workers])} clusters)" for i, n in enumerate(sockets))
            )
            print(
                f"NotReady after one cycle while hanging: {not_ready_once} of {len(down)}; missed: {missed}"
            )
            ok = all(value < target for label, value, target in rows) and not_ready_once == len(down)
            print("result:", "within every target" if ok else "OVER TARGET")
            return 0 if ok else 1
        finally:
            if watcher is not None:
                watcher.terminate()
                try:
                    watcher.wait(30)
                except subprocess.TimeoutExpired:
                    watcher.kill()
                    watcher.wait()
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:  # hanging connections of "down" clusters hold it up
                process.kill()
                process.wait()


if __name__ == "__main__":
    raise SystemExit(main())
