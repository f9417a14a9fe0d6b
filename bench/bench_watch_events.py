"""Benchmark: the member watcher's database-side CPU per status event, in-process.

Simulated clusters (in this process) hold the copies of Duplicated workloads; a listing judges every
copy in step (as the watcher's first listing does), then each copy's status moves (readyReplicas, a new
resourceVersion, the spec untouched: what a seeding fleet's Deployments send after their ADDED) and
the events go through member_state.observe_cluster_events in batches of 500, as the watcher's loop
hands them over. CPU is this thread's (time.thread_time): the reads, the comparisons and the status
writes, not the decoding of the streams.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/DB python bench/bench_watch_events.py [--clusters 5]
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TMP = Path(tempfile.mkdtemp(prefix="bench-watch-events-"))
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
from workloads import duplicated_fleet_yaml  # noqa: E402  (bench/workloads.py)

from clusters.k8s import ClusterConnection, objects  # noqa: E402
from clusters.models import Cluster  # noqa: E402
from membersim import ClusterSpec, Simulator  # noqa: E402
from scheduling.controllers import member_state  # noqa: E402
from scheduling.karmada import names  # noqa: E402
from scheduling.karmada.manifests import retain_member_fields  # noqa: E402
from scheduling.member_watch import SELECTOR  # noqa: E402
from scheduling.models import Work  # noqa: E402
from scheduling.services import apply_yaml  # noqa: E402

BATCH = 500


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clusters", type=int, default=5)
    parser.add_argument("--workloads", type=int, default=200)
    options = parser.parse_args()
    call_command("migrate", verbosity=0)
    if Work.objects.exists():
        print("the database already holds Works; use an empty one", file=sys.stderr)
        return 1
    specs = [ClusterSpec(name=f"m-{i:02d}", nodes=2, node_pods=1000) for i in range(options.clusters)]
    with Simulator(specs) as sim:
        for spec in specs:
            cluster = Cluster(name=spec.name, ready="True", labels={"bench": "yes"})
            cluster.set_connection(
                ClusterConnection(name=spec.name, server=sim.endpoint(spec.name), token=sim.token(spec.name))
            )
            cluster.save()
        apply_yaml(duplicated_fleet_yaml(options.workloads))
        time.sleep(2)  # the copies' first status settles
        judged = member_state.Judged()
        live: dict[str, list[dict]] = {}
        for spec in specs:
            conn = Cluster.objects.get(name=spec.name).connection()
            items = list(objects.list_objects(conn, "apps/v1", "Deployment", label_selector=SELECTOR))
            member_state.observe_listing(spec.name, "apps/v1", "Deployment", items, judged=judged)
            live[spec.name] = items
    events = [(name, obj) for name, items in live.items() for obj in items]
    started = time.thread_time()
    for name, items in live.items():  # a quiet resync: every copy as last judged
        seen = member_state.observe_listing(name, "apps/v1", "Deployment", items, judged=judged)
        assert not seen.repair and not seen.changed
    resync = time.thread_time() - started
    works = {w.permanent_id.hex: w for w in Work.objects.all()}
    pairs = [
        (works[uuid.UUID(obj["metadata"]["labels"][names.WORK_PERMANENT_ID]).hex], obj) for _, obj in events
    ]
    started = time.thread_time()
    for work, obj in pairs:
        assert objects.is_subset(retain_member_fields(obj, work.manifest), obj)
    compared = time.thread_time() - started
    print(f"a copy compared with its Work's manifest: {compared * 1e6 / len(pairs):.0f} us CPU")
    print(f"quiet resync of {len(events)} copies: {resync * 1e6 / len(events):.0f} us CPU per copy")
    spent, count = 0.0, 0
    for round_ in range(4):
        for start in range(0, len(events), BATCH):
            batch: dict[str, list] = {}
            for name, obj in events[start : start + BATCH]:
                moved = copy.deepcopy(obj)
                moved["metadata"]["resourceVersion"] = f"{obj['metadata']['resourceVersion']}{round_}"
                moved.setdefault("status", {})["readyReplicas"] = round_ % 2
                batch.setdefault(name, []).append(("MODIFIED", moved))
            started = time.thread_time()
            seen = member_state.observe_cluster_events(batch, judged=judged)
            spent += time.thread_time() - started
            count += sum(len(each) for each in batch.values())
            assert not seen.repair, "a status-only event was taken for drift"
    print(f"{len(events)} Works in sync, {count} status events: {spent * 1e6 / count:.0f} us CPU per event")
    return 0


if __name__ == "__main__":
    sys.exit(main())
