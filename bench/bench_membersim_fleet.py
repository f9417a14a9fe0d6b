"""Benchmark: membersim as part of the fleet rig, against the targets, as ratios (<= 1.0 is within).

One membersim process serves the fleet, as the demo and the scale benchmark run it; the official
client drives it from this process:
- creates per second of Deployments (1 replica: each brings a ReplicaSet, a pod and their events)
  against one cluster (one client, then four at once), and by a client per cluster against every
  cluster at once;
- membersim's own CPU per create (the part of the rig that is membersim's);
- list with labelSelector=karmada.io/managed=true at 1,000 Deployments in a cluster, p95;
- watch delivery: from a write's request to its event on a watch open per cluster, p95;
- membersim's CPU per watch event delivered (eight watches on one cluster against none) and per pod
  listed as the health collector lists them (every cluster, pages of 500, the encodings cached);
- resident memory of membersim with every cluster full;
- start of 1,000 clusters in single-port mode, until the kubeconfig is written.

python bench/bench_membersim_fleet.py [--clusters 100] [--deployments 1000] [--start-clusters 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml
from kubernetes import client, watch

ROOT = Path(__file__).resolve().parents[1]
MANAGED = "karmada.io/managed=true"
# Targets: what the control plane's scale benchmark needs of membersim (issue 15's rig) so that
# membersim is not what limits it.
TARGETS = {
    "creates_per_s_one_cluster": 150.0,  # at least
    "creates_per_s_fleet": 300.0,  # at least, every cluster at once
    "cpu_ms_per_create": 3.0,  # at most, membersim's own
    "list_p95_s": 0.25,  # at most, 1,000 Deployments
    "watch_p95_s": 0.1,  # at most
    "rss_mib": 1536.0,  # at most ("well under 2 GiB")
    "start_1000_s": 30.0,  # at most
}
AT_LEAST = {"creates_per_s_one_cluster", "creates_per_s_fleet"}
PER_CLUSTER = 4  # concurrent writes to one cluster


def deployment(name: str) -> dict:
    labels = {"app": name}
    container = {
        "name": "app",
        "image": "nginx:1.27",
        "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}},
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": {"karmada.io/managed": "true", **labels}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [container]}},
        },
    }


class Fleet:
    """A membersim process serving ``count`` clusters, and an official client for each."""

    def __init__(self, count: int, workdir: Path, single_port: bool = False) -> None:
        self.kubeconfig = workdir / "kubeconfig"
        argv = [sys.executable, "-m", "membersim", "--kubeconfig", str(self.kubeconfig)]
        if single_port:
            argv.append("--single-port")
        for index in range(count):
            # Ten nodes of 110 pods hold 1,000 one-replica Deployments with room to spare.
            argv += ["--cluster", f"member-{index:04d}:nodes=10,cpu=16,memory=64Gi"]
        started = time.perf_counter()
        self.process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        while not self.kubeconfig.exists():
            if self.process.poll() is not None:
                raise RuntimeError(f"membersim exited: {self.process.stderr.read().decode()}")
            time.sleep(0.05)
        self.start_seconds = time.perf_counter() - started
        config = yaml.safe_load(self.kubeconfig.read_text())
        self.servers = {c["name"]: c["cluster"]["server"] for c in config["clusters"]}
        self.names = sorted(self.servers)

    def apps(self, name: str) -> client.AppsV1Api:
        configuration = client.Configuration()
        configuration.host = self.servers[name]
        configuration.connection_pool_maxsize = 4
        return client.AppsV1Api(client.ApiClient(configuration))

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_mib(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError("VmRSS not found")

    def stop(self) -> float:
        """Stop membersim as Ctrl-C does; the seconds it took."""
        started = time.perf_counter()
        self.process.terminate()
        try:
            self.process.wait(120)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return time.perf_counter() - started


def create_all(apps: client.AppsV1Api, names: list[str]) -> None:
    for name in names:
        apps.create_namespaced_deployment("default", deployment(name), _preload_content=False).read()


def fill(fleet: Fleet, deployments: int, results: dict) -> None:
    """One cluster alone first (one client, then four at once as the control plane bounds its
    writes per cluster), then every other cluster at once, a client each."""
    first, rest = fleet.names[0], fleet.names[1:]
    alone = min(deployments, 200)
    started = time.perf_counter()
    create_all(fleet.apps(first), [f"app-{i}" for i in range(alone)])
    results["creates_per_s_one_client"] = alone / (time.perf_counter() - started)
    names = [f"app-{i}" for i in range(alone, deployments)]
    if names:
        shares = [names[i::PER_CLUSTER] for i in range(PER_CLUSTER)]
        clients = [fleet.apps(first) for _ in shares]
        cpu, started = fleet.cpu_seconds(), time.perf_counter()
        with ThreadPoolExecutor(max_workers=PER_CLUSTER) as pool:
            list(pool.map(create_all, clients, shares))
        elapsed = time.perf_counter() - started
        results["creates_per_s_one_cluster"] = len(names) / elapsed
        results["cpu_ms_per_create_one_cluster"] = (fleet.cpu_seconds() - cpu) * 1000 / len(names)
    if not rest:
        return
    clients = {name: fleet.apps(name) for name in rest}
    cpu, started = fleet.cpu_seconds(), time.perf_counter()
    with ThreadPoolExecutor(max_workers=min(len(rest), 64)) as pool:
        done = pool.map(lambda n: create_all(clients[n], [f"app-{i}" for i in range(deployments)]), rest)
        list(done)
    elapsed = time.perf_counter() - started
    results["creates_per_s_fleet"] = len(rest) * deployments / elapsed
    results["cpu_ms_per_create"] = (fleet.cpu_seconds() - cpu) * 1000 / (len(rest) * deployments)


def list_p95(fleet: Fleet, results: dict) -> None:
    apps = fleet.apps(fleet.names[-1])
    samples = []
    for _ in range(20):
        started = time.perf_counter()
        body = apps.list_namespaced_deployment(
            "default", label_selector=MANAGED, _preload_content=False
        ).read()
        samples.append(time.perf_counter() - started)
    results["list_items"] = len(json.loads(body)["items"])
    results["list_p95_s"] = sorted(samples)[int(len(samples) * 0.95) - 1]


def watch_p95(fleet: Fleet, results: dict, writes: int = 40) -> None:
    """A watch per cluster (as the control plane keeps them); writes to one cluster, timed to their event."""
    seen: dict[str, float] = {}
    ready = threading.Barrier(len(fleet.names) + 1)
    stop = threading.Event()

    def follow(name: str) -> None:
        apps = fleet.apps(name)
        rv = apps.list_namespaced_deployment(
            "default", label_selector=MANAGED, limit=1
        ).metadata.resource_version
        ready.wait()
        try:
            for event in watch.Watch().stream(
                apps.list_namespaced_deployment,
                "default",
                label_selector=MANAGED,
                resource_version=rv,
                timeout_seconds=60,
                _request_timeout=70,
            ):
                marker = (event["object"].metadata.annotations or {}).get("bench/marker")
                if marker and marker not in seen:
                    seen[marker] = time.perf_counter()
                if stop.is_set():
                    return
        except Exception:
            if not stop.is_set():  # the fleet stopping under an open watch is expected
                raise

    threads = [threading.Thread(target=follow, args=(n,), daemon=True) for n in fleet.names]
    for thread in threads:
        thread.start()
    ready.wait()
    time.sleep(0.5)
    apps = fleet.apps(fleet.names[0])
    sent: dict[str, float] = {}
    for index in range(writes):
        marker = f"m{index}"
        patch = {"metadata": {"annotations": {"bench/marker": marker}}}
        sent[marker] = time.perf_counter()
        apps.patch_namespaced_deployment("app-0", "default", patch, _preload_content=False).read()
        time.sleep(0.05)
    deadline = time.monotonic() + 10
    while len(seen) < writes and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    latencies = sorted(seen[m] - sent[m] for m in sent if m in seen)
    results["watch_events"] = f"{len(latencies)}/{writes}"
    results["watch_p95_s"] = (
        latencies[int(len(latencies) * 0.95) - 1] if len(latencies) == writes else float("inf")
    )
    results["watch_p50_s"] = statistics.median(latencies) if latencies else float("inf")


def watch_cpu(fleet: Fleet, results: dict, watchers: int = 8, writes: int = 200) -> None:
    """membersim's CPU per watch event delivered: the same patches with ``watchers`` watches open on the
    cluster against none, the difference shared over the events the watches received."""
    name = fleet.names[0]
    apps = fleet.apps(name)

    def patch_all(tag: str) -> float:
        cpu = fleet.cpu_seconds()
        for index in range(writes):
            patch = {"metadata": {"annotations": {"bench/cpu": f"{tag}-{index}"}}}
            apps.patch_namespaced_deployment("app-0", "default", patch, _preload_content=False).read()
        time.sleep(1.0)  # the watches drain what was written
        return fleet.cpu_seconds() - cpu

    alone = patch_all("alone")
    received = [0] * watchers
    ready = threading.Barrier(watchers + 1)

    def follow(slot: int) -> None:
        watcher = fleet.apps(name)
        rv = watcher.list_namespaced_deployment("default", limit=1).metadata.resource_version
        ready.wait()
        response = watcher.list_namespaced_deployment(
            "default",
            watch=True,
            resource_version=rv,
            allow_watch_bookmarks=True,
            timeout_seconds=30,
            _preload_content=False,
            _request_timeout=40,
        )
        for line in response:
            if b"bench/cpu" in line and b'"watched-' in line:
                received[slot] += 1

    threads = [threading.Thread(target=follow, args=(i,), daemon=True) for i in range(watchers)]
    for thread in threads:
        thread.start()
    ready.wait()
    time.sleep(0.5)
    watched = patch_all("watched")
    events = sum(received)
    results["watch_events_cpu"] = f"{events}/{watchers * writes}"
    results["cpu_us_per_watch_event"] = (watched - alone) * 1e6 / max(events, 1)


def list_cpu(fleet: Fleet, results: dict) -> None:
    """membersim's CPU per pod listed as the health collector lists them (every namespace, pages of
    500, non-terminal pods), over every cluster twice: the second pass is what each cycle costs."""
    core = {name: client.CoreV1Api(fleet.apps(name).api_client) for name in fleet.names}
    pods = 0
    for _pass in range(2):
        cpu = fleet.cpu_seconds()
        pods = 0
        for api in core.values():
            token = None
            while True:
                page = api.list_pod_for_all_namespaces(
                    limit=500,
                    _continue=token,
                    field_selector="status.phase!=Succeeded,status.phase!=Failed",
                    _preload_content=False,
                )
                body = json.loads(page.read())
                pods += len(body["items"])
                token = body["metadata"].get("continue")
                if not token:
                    break
        spent = fleet.cpu_seconds() - cpu
    results["pods_listed"] = pods
    results["cpu_us_per_pod_listed"] = spent * 1e6 / max(pods, 1)


def ratio(key: str, value: float) -> float:
    target = TARGETS[key]
    return target / value if key in AT_LEAST else value / target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clusters", type=int, default=100)
    parser.add_argument("--deployments", type=int, default=1000)
    parser.add_argument("--start-clusters", type=int, default=1000)
    options = parser.parse_args()
    if options.clusters < 1 or options.deployments < 1 or options.start_clusters < 1:
        print("bench_membersim_fleet: --clusters, --deployments and --start-clusters must be positive")
        return 2
    results: dict = {}
    with tempfile.TemporaryDirectory() as workdir:
        fleet = Fleet(options.clusters, Path(workdir) / "fleet")
        try:
            fill(fleet, options.deployments, results)
            results["rss_mib"] = fleet.rss_mib()
            print(f"filled: {results}", flush=True)
            list_p95(fleet, results)
            list_cpu(fleet, results)
            watch_p95(fleet, results)
            watch_cpu(fleet, results)
        finally:
            results["stop_s"] = fleet.stop()
        big = Fleet(options.start_clusters, Path(workdir) / "start", single_port=True)
        results["start_1000_s"] = big.start_seconds
        results["start_rss_mib"] = big.rss_mib()
        big.stop()
    print(f"membersim fleet: {options.clusters} clusters x {options.deployments} Deployments (1 replica)")
    for key, value in results.items():
        line = f"  {key:28} {value:10.3f}" if isinstance(value, float) else f"  {key:28} {value!s:>10}"
        if key in TARGETS:
            line += (
                f"   target {'>=' if key in AT_LEAST else '<='} {TARGETS[key]:g}: {ratio(key, value):.2f}x"
            )
        print(line)
    over = [k for k in TARGETS if k in results and ratio(k, results[k]) > 1.0]
    print("within targets" if not over else f"OUTSIDE TARGETS: {', '.join(over)}")
    return 0 if not over else 1


if __name__ == "__main__":
    raise SystemExit(main())
