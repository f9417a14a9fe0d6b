"""Quick engine figures: apply -> applied Works/s, and what a quiet fleet costs per pass, at 200
Duplicated workloads x 20 simulated clusters, on the database DATABASE_URL names (PostgreSQL here).

Everything runs in this process as in the issue's first measurement (tasks eager: one in-process
worker). Prints each figure beside the "before" figure measured the same way.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench python bench/measure_engine.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TMP = Path(tempfile.mkdtemp(prefix="measure-engine-"))
os.environ.setdefault("DATABASE_URL", f"sqlite:///{TMP / 'bench.sqlite3'}")
os.environ.update(
    {
        "DJANGO_SETTINGS_MODULE": "karmada_ui.settings",
        "KARMADA_UI_VAR_DIR": str(TMP),
        "CELERY_TASK_ALWAYS_EAGER": "1",
        "LOG_LEVEL": "WARNING",
    }
)

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from workloads import duplicated_fleet_yaml  # noqa: E402  (bench/workloads.py)

from clusters.k8s import ClusterConnection  # noqa: E402
from clusters.models import Cluster  # noqa: E402
from membersim import ClusterSpec, Simulator  # noqa: E402
from scheduling.controllers import reconcile as reconciling  # noqa: E402
from scheduling.member_watch import Watcher  # noqa: E402
from scheduling.models import Work  # noqa: E402
from scheduling.services import apply_yaml  # noqa: E402

CLUSTERS, WORKLOADS = 20, 200
# The same measurement of the engine before work keyed by object (the 10 s reconcile did everything),
# on this machine in the same hour (bench/results.md); issue 15 measured 116 Works/s and 4.7 s on a
# quieter one.
BEFORE_WORKS_PER_S, BEFORE_IDLE_PASS_S = 58.0, 7.13


def timed(call) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def main() -> int:
    call_command("migrate", verbosity=0)
    if Work.objects.exists():
        print("the database already holds Works; use an empty one", file=sys.stderr)
        return 1
    specs = [ClusterSpec(name=f"m-{i:02d}", nodes=2, node_pods=1000) for i in range(CLUSTERS)]
    with Simulator(specs) as sim:
        for spec in specs:
            cluster = Cluster(name=spec.name, ready="True", labels={"bench": "yes"})
            cluster.set_connection(
                ClusterConnection(name=spec.name, server=sim.endpoint(spec.name), token=sim.token(spec.name))
            )
            cluster.save()
        text = duplicated_fleet_yaml(WORKLOADS)
        seconds = timed(lambda: apply_yaml(text))
        applied = Work.objects.filter(applied=True).count()
        works_per_s = applied / seconds
        failover = min(timed(reconciling.failover_pass) for _ in range(3))
        safety_net = min(timed(reconciling.reconcile) for _ in range(2))
        watcher = Watcher()
        watcher.refresh_reflectors()
        deadline = time.monotonic() + 60
        while watcher.counters.lists < CLUSTERS and time.monotonic() < deadline:
            watcher.drain(timeout=0.2)
        idle_cpu = time.process_time()
        idle_wall = time.monotonic()
        while time.monotonic() - idle_wall < 20:
            watcher.drain(timeout=0.5)
        idle_share = (time.process_time() - idle_cpu) / (time.monotonic() - idle_wall)
        for reflector, _ in watcher.reflectors.values():
            reflector.stop()
    print(f"database: {connection.vendor}; {WORKLOADS} workloads x {CLUSTERS} clusters = {applied} Works")
    print(
        f"apply -> applied: {seconds:.1f} s, {works_per_s:.0f} Works/s "
        f"(before {BEFORE_WORKS_PER_S:.0f}: {works_per_s / BEFORE_WORKS_PER_S:.2f}x)"
    )
    print(
        f"quiet fleet, the 10 s pass (failover only now): {failover:.3f} s "
        f"(before, the full 10 s reconcile {BEFORE_IDLE_PASS_S:.2f} s: {failover / BEFORE_IDLE_PASS_S:.3f}x)"
    )
    before_share, after_share = BEFORE_IDLE_PASS_S / 10.0, failover / 10.0 + safety_net / 300.0
    print(
        f"quiet fleet, the 5-minute safety net (full reconcile): {safety_net:.2f} s; periodic passes take "
        f"{after_share * 60:.2f} s/min (before {before_share * 60:.1f}: {after_share / before_share:.3f}x)"
    )
    print(
        f"quiet fleet, the watcher's {len(watcher.reflectors)} watches: {idle_share * 60:.2f} CPU s/min "
        "(this process, whose other threads also run membersim)"
    )
    return 0 if applied == WORKLOADS * CLUSTERS else 1


if __name__ == "__main__":
    sys.exit(main())
