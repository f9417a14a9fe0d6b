"""Benchmark: the member watcher's client-side CPU per listed object and per watch event, in-process.

One membersim process serves one cluster holding N managed one-replica Deployments (N pods). This
process measures its own thread's CPU (time.thread_time, so membersim's is not counted) for:
- the resync listing of the Deployments as the watcher's reflector takes it (list_kind, selector);
- the pod inventory's listing as its reflector keeps it, first listing and resync (unchanged pods);
- watch events: a thread consumes the Deployment and pod watches while the Deployments are scaled,
  its CPU divided by the events it received.

python bench/bench_watch_decode.py [--deployments 2000]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]
TMP = Path(tempfile.mkdtemp(prefix="bench-watch-decode-"))
os.environ.setdefault("DATABASE_URL", f"sqlite:///{TMP / 'bench.sqlite3'}")
os.environ.update({"DJANGO_SETTINGS_MODULE": "karmada_ui.settings", "KARMADA_UI_VAR_DIR": str(TMP)})

import django  # noqa: E402

django.setup()

from bench_membersim_fleet import Fleet, create_all  # noqa: E402

from clusters.inventory import Inventory, InventoryReflector  # noqa: E402
from clusters.k8s import ClusterConnection  # noqa: E402
from clusters.k8s.watch import list_kind, watch_kind  # noqa: E402
from scheduling.member_watch import SELECTOR  # noqa: E402


def cpu_of(work, repeat: int = 3) -> float:
    """The best of `repeat` runs of work(), this thread's CPU seconds."""
    best = float("inf")
    for _ in range(repeat):
        started = time.thread_time()
        work()
        best = min(best, time.thread_time() - started)
    return best


def watched_events(conn: ClusterConnection, api_version: str, kind: str, version: str, stop, out) -> None:
    selector = SELECTOR if kind == "Deployment" else ""
    started, count = time.thread_time(), 0
    for event in watch_kind(conn, api_version, kind, version, selector, timeout_seconds=60):
        if event.type != "BOOKMARK":
            count += 1
            if kind == "Pod":
                out["inventory"].apply("pods", event.type, event.object)
        if stop.is_set():
            break
    out[kind] = (time.thread_time() - started, count)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--deployments", type=int, default=2000)
    parser.add_argument("--profile", action="store_true", help="print where the listings' CPU went")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        fleet = Fleet(1, Path(workdir))
        try:
            name = fleet.names[0]
            conn = ClusterConnection(name=name, server=fleet.servers[name])
            apps = fleet.apps(name)
            names = [f"app-{i}" for i in range(options.deployments)]
            with ThreadPoolExecutor(max_workers=4) as pool:
                list(
                    pool.map(
                        lambda share: create_all(fleet.apps(name), share), [names[i::4] for i in range(4)]
                    )
                )
            time.sleep(2)  # the pods are scheduled and running
            n = options.deployments
            if options.profile:
                import cProfile
                import pstats

                profile = cProfile.Profile()
                profile.runcall(list_kind, conn, "apps/v1", "Deployment", SELECTOR)
                profile.runcall(InventoryReflector(conn, "pods", Inventory(name), 300.0)._list)
                pstats.Stats(profile).sort_stats("tottime").print_stats(18)
            deployments = cpu_of(lambda: list_kind(conn, "apps/v1", "Deployment", SELECTOR))
            inventory = Inventory(name)
            pods = InventoryReflector(conn, "pods", inventory, 300.0)
            first = cpu_of(pods._list, repeat=1)
            resync = cpu_of(pods._list)
            print(f"deployment listing: {deployments * 1e6 / n:.0f} us per Deployment ({n})")
            print(f"pod listing: first {first * 1e6 / n:.0f} us, resync {resync * 1e6 / n:.0f} us per pod")
            out: dict = {"inventory": inventory}
            stop = threading.Event()
            threads = [
                threading.Thread(
                    daemon=True,
                    target=watched_events,
                    args=(
                        conn,
                        api_version,
                        kind,
                        list_kind(conn, api_version, kind).resource_version,
                        stop,
                        out,
                    ),
                )
                for api_version, kind in (("apps/v1", "Deployment"), ("v1", "Pod"))
            ]
            for thread in threads:
                thread.start()
            time.sleep(0.5)

            def scale(share: list[str]) -> None:
                for each in share:
                    apps.patch_namespaced_deployment(each, "default", {"spec": {"replicas": 2}})

            with ThreadPoolExecutor(max_workers=4) as pool:
                list(pool.map(scale, [names[i::4] for i in range(4)]))
            time.sleep(3)
            stop.set()
            apps.patch_namespaced_deployment(names[0], "default", {"spec": {"replicas": 1}})
            for thread in threads:
                thread.join(70)
            for kind in ("Deployment", "Pod"):
                spent, count = out.get(kind, (0.0, 0))
                print(f"{kind} watch: {count} events, {spent * 1e6 / max(1, count):.0f} us per event")
        finally:
            fleet.stop()


if __name__ == "__main__":
    main()
