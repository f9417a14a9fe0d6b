"""Benchmark: membersim's CPU for what the control plane adds to a create, and when nothing changes.

One membersim process (single port, clusters as bench_scale makes them). Half the clusters get the
watches the control plane keeps on each member (Deployments with the managed-label selector, every
pod, every node; bookmarks on), the other half none. The same Deployments are created in both halves
by plain POSTs, one client per cluster; membersim's CPU per create is compared. Then, with every
cluster full, membersim's CPU over a quiet spell while a health collector reads each cluster every
10 s (/readyz and node metrics) and the watches stay open, in s/min; and the CPU per object of the
watcher's resync (its re-list of the watched Deployments and pods) in the watched half.

With --growth 10,100,1000 it measures instead how the cost of a create grows with the fleet: every
cluster watched as above, the clusters filled step by step (a pool of 16 clients, as the propagate
workers' bounded concurrency writes), membersim's CPU per create over each step (from the previous
step's count to this one) and over the last tenth of each step.

python bench/bench_membersim_watched.py [--clusters 10] [--deployments 200] [--quiet 30]
python bench/bench_membersim_watched.py --clusters 100 --growth 10,100,1000
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import yaml

ROOT = Path(__file__).resolve().parents[1]
MANAGED = "karmada.io%2Fmanaged%3Dtrue"
HEALTH_EVERY = 10.0


def deployment(name: str) -> bytes:
    labels = {"app": name}
    container = {
        "name": "app",
        "image": "nginx:1.27",
        "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}},
    }
    body = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": {"karmada.io/managed": "true", **labels}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [container]}},
        },
    }
    return json.dumps(body).encode()


class Members:
    """A membersim process serving ``count`` clusters on one port."""

    def __init__(self, count: int, workdir: Path) -> None:
        kubeconfig = workdir / "kubeconfig"
        argv = [sys.executable, "-m", "membersim", "--kubeconfig", str(kubeconfig), "--single-port"]
        for index in range(count):
            argv += ["--cluster", f"w{count}-{index:04d}:nodes=2,cpu=64,pods=2000"]
        self.process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        while not (kubeconfig.exists() and kubeconfig.stat().st_size):
            if self.process.poll() is not None:
                raise RuntimeError(f"membersim exited: {self.process.stderr.read().decode()}")  # type: ignore[union-attr]
            time.sleep(0.05)
        config = yaml.safe_load(kubeconfig.read_text())
        self.servers = {c["name"]: c["cluster"]["server"] for c in config["clusters"]}
        self.names = sorted(self.servers)

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def thread_cpu(self) -> dict[str, int]:
        """CPU nanoseconds of each thread alive now (a quiet spell's measure: to the nanosecond, where
        the process's own counter moves in 10 ms ticks)."""
        spent = {}
        for task in Path(f"/proc/{self.process.pid}/task").iterdir():
            try:
                spent[task.name] = int((task / "schedstat").read_text().split()[0])
            except (OSError, ValueError, IndexError):
                pass  # the thread ended meanwhile
        return spent

    def connect(self, name: str, timeout: float = 60) -> tuple[http.client.HTTPConnection, str]:
        url = urlsplit(self.servers[name])
        return http.client.HTTPConnection(url.hostname, url.port, timeout=timeout), url.path

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(60)


def request(conn: http.client.HTTPConnection, method: str, path: str, body: bytes | None = None) -> bytes:
    headers = {"Content-Type": "application/json"} if body is not None else {}
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    data = response.read()
    if response.status >= 300:
        raise RuntimeError(f"{method} {path}: {response.status} {data[:200]!r}")
    return data


def watch_forever(members: Members, name: str, path: str, stop: threading.Event, events: list[int]) -> None:
    """List, then watch from the list's resourceVersion, again whenever the server ends the watch."""
    # A quiet watch (the nodes') hears a bookmark once a minute: wait past that.
    conn, prefix = members.connect(name, timeout=600)
    while not stop.is_set():
        listing = json.loads(request(conn, "GET", f"{prefix}{path}{'&' if '?' in path else '?'}limit=500"))
        version = listing["metadata"]["resourceVersion"]
        sep = "&" if "?" in path else "?"
        query = f"{sep}watch=true&allowWatchBookmarks=true&resourceVersion={version}&timeoutSeconds=300"
        conn.request("GET", f"{prefix}{path}{query}")
        response = conn.getresponse()
        while not stop.is_set():
            line = response.readline()
            if not line:
                break
            events[0] += 1
        response.close()
        conn.close()
        conn, prefix = members.connect(name, timeout=600)


WATCHED = (
    f"/apis/apps/v1/deployments?labelSelector={MANAGED}",
    "/api/v1/pods",
    "/api/v1/nodes",
)


def fill(
    members: Members, names: list[str], start: int, stop: int, writers: int = 0, drain: float = 1.0
) -> float:
    """Create Deployments ``app-{start}`` to ``app-{stop - 1}`` in each of ``names``, a client a cluster
    (``writers`` of them at once: all when 0); membersim CPU s spent, the watches' draining included."""

    def create_range(name: str) -> None:
        conn, prefix = members.connect(name)  # a connection a fill: one kept idle for minutes may go
        for index in range(start, stop):
            request(
                conn,
                "POST",
                f"{prefix}/apis/apps/v1/namespaces/default/deployments",
                deployment(f"app-{index}"),
            )
        conn.close()

    cpu = members.cpu_seconds()
    with ThreadPoolExecutor(max_workers=writers or len(names)) as pool:
        list(pool.map(create_range, names))
    time.sleep(drain)  # the watches drain what was written
    return members.cpu_seconds() - cpu


def resync(members: Members, names: list[str]) -> tuple[float, int]:
    """The watcher's periodic re-list of what it watches (pages of 500); membersim CPU s, objects."""
    cpu, count = members.cpu_seconds(), 0
    for name in names:
        conn, prefix = members.connect(name)
        for path in WATCHED[:2]:
            token = ""
            while True:
                sep = "&" if "?" in path else "?"
                page = json.loads(request(conn, "GET", f"{prefix}{path}{sep}limit=500&continue={token}"))
                count += len(page["items"])
                token = page["metadata"].get("continue") or ""
                if not token:
                    break
        conn.close()
    return members.cpu_seconds() - cpu, count


def health_loop(members: Members, stop: threading.Event) -> None:
    """What the health collector reads of each cluster every 10 s while the watcher holds its inventory."""
    conns = {name: members.connect(name) for name in members.names}
    while not stop.is_set():
        for conn, prefix in conns.values():
            request(conn, "GET", f"{prefix}/readyz")
            request(conn, "GET", f"{prefix}/apis/metrics.k8s.io/v1beta1/nodes")
        stop.wait(HEALTH_EVERY)


def growth(members: Members, steps: list[int], writers: int = 16) -> list[tuple[int, int, float, float]]:
    """Fill every cluster to each of ``steps`` Deployments in turn; per step (from, to, membersim CPU ms
    per create over the step, over its last tenth)."""
    rows, count = [], 0
    for step in steps:
        tail_from = max(count, step - max(1, (step - count) // 10))
        body = fill(members, members.names, count, tail_from, writers, drain=0.5)
        tail = fill(members, members.names, tail_from, step, writers, drain=0.5)
        creates, tail_creates = (step - count) * len(members.names), (step - tail_from) * len(members.names)
        rows.append((count, step, (body + tail) * 1000 / creates, tail * 1000 / tail_creates))
        print(
            f"  {count:5d} -> {step:5d} per cluster: {rows[-1][2]:6.3f} ms per create, "
            f"last tenth {rows[-1][3]:6.3f} ms",
            flush=True,
        )
        count = step
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clusters", type=int, default=10)
    parser.add_argument("--deployments", type=int, default=200)
    parser.add_argument("--quiet", type=float, default=30.0)
    parser.add_argument("--growth", default="", help="steps of Deployments per cluster, e.g. 10,100,1000")
    options = parser.parse_args()
    if options.growth:
        steps = [int(s) for s in options.growth.split(",")]
        if options.clusters < 1 or not steps or steps != sorted(set(steps)) or steps[0] < 1:
            print("bench_membersim_watched: --growth takes increasing positive counts")
            return 2
        stop = threading.Event()
        with tempfile.TemporaryDirectory() as workdir:
            members = Members(options.clusters, Path(workdir))
            try:
                events = [0]
                for name in members.names:
                    for path in WATCHED:
                        threading.Thread(
                            target=watch_forever, args=(members, name, path, stop, events), daemon=True
                        ).start()
                time.sleep(1.0)
                print(
                    f"membersim growth: {options.clusters} clusters, every one with the watcher's three "
                    f"watches (pid {members.process.pid})",
                    flush=True,
                )
                growth(members, steps)
                pages = int(Path(f"/proc/{members.process.pid}/statm").read_text().split()[1])
                rss = pages * os.sysconf("SC_PAGE_SIZE") >> 20
                print(f"  watch lines {events[0]}; membersim RSS {rss} MiB")
            finally:
                stop.set()
                members.stop()
        return 0
    if options.clusters < 2 or options.deployments < 1 or options.quiet <= 0:
        print("bench_membersim_watched: --clusters at least 2, --deployments and --quiet positive")
        return 2
    stop = threading.Event()
    with tempfile.TemporaryDirectory() as workdir:
        members = Members(options.clusters, Path(workdir))
        try:
            half = len(members.names) // 2
            plain, watched = members.names[:half], members.names[half:]
            events = [0]
            for name in watched:
                for path in WATCHED:
                    threading.Thread(
                        target=watch_forever, args=(members, name, path, stop, events), daemon=True
                    ).start()
            time.sleep(1.0)
            spent_plain = fill(members, plain, 0, options.deployments)
            spent_watched = fill(members, watched, 0, options.deployments)
            creates = half * options.deployments
            relisted, listed = resync(members, watched)
            before = events[0]
            threading.Thread(target=health_loop, args=(members, stop), daemon=True).start()
            time.sleep(0.5)  # the health collector's connections are open
            before_quiet = members.thread_cpu()
            time.sleep(options.quiet)
            after_quiet = members.thread_cpu()
            # Threads that started or ended in between count what they spent while measured.
            quiet = sum(ns - before_quiet.get(tid, 0) for tid, ns in after_quiet.items()) / 1e9
        finally:
            stop.set()
            members.stop()
    plain_ms = spent_plain * 1000 / creates
    watched_ms = spent_watched * 1000 / (len(watched) * options.deployments)
    print(f"membersim watched: {options.clusters} clusters x {options.deployments} Deployments (1 replica)")
    print(f"  CPU per create, no watches          {plain_ms:7.3f} ms")
    print(f"  CPU per create, the watcher's three {watched_ms:7.3f} ms ({watched_ms - plain_ms:+.3f} ms)")
    print(
        f"  CPU per object re-listed (resync)   {relisted * 1e6 / max(listed, 1):7.1f} us ({listed} objects)"
    )
    print(f"  watch lines while quiet             {events[0] - before}")
    print(f"  CPU when quiet (health every 10 s)  {quiet * 60 / options.quiet:7.3f} s/min")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
