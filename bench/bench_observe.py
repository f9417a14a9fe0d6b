"""Benchmark: seeing into 100 simulated member clusters — a workload's pods and events from all of them,
fleet search by label with 5 clusters hanging, and the first lines of a pod's log."""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TMP = Path(tempfile.mkdtemp(prefix="bench-observe-"))
os.environ.update(
    {
        "DJANGO_SETTINGS_MODULE": "karmada_ui.settings",
        "DATABASE_URL": f"sqlite:///{TMP / 'bench.sqlite3'}",
        "KARMADA_UI_VAR_DIR": str(TMP),
        "CELERY_TASK_ALWAYS_EAGER": "1",
        "LOG_LEVEL": "WARNING",
    }
)

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

from clusters.k8s import contexts, from_kubeconfig  # noqa: E402
from clusters.models import Cluster  # noqa: E402
from scheduling.members import logs, search  # noqa: E402
from scheduling.members.across import workload_across  # noqa: E402
from scheduling.models import ResourceTemplate  # noqa: E402
from scheduling.services import apply_yaml  # noqa: E402

CLUSTERS = 100
HANGING = 5
SAMPLES = 20
ACROSS_TARGET_S = 1.0
SEARCH_TARGET_S = 2.0
FIRST_LOG_TARGET_S = 0.5

WORKLOADS = """
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: everywhere, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement:
    clusterAffinity: {labelSelector: {matchLabels: {bench: "yes"}}}
    replicaScheduling: {replicaSchedulingType: Duplicated}
""" + "".join(
    f"""---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: default, labels: {{app: {name}}}}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers:
      - {{name: web, image: "nginx:1.27"}}
      - {{name: sidecar, image: "envoy:1.30"}}
"""
    for name in ("shop", "cart", "search")
)


def start_members() -> tuple[subprocess.Popen, Path]:
    kubeconfig = TMP / "members.yaml"
    argv = [sys.executable, "-m", "membersim", "--kubeconfig", str(kubeconfig)]
    for i in range(CLUSTERS):
        argv += ["--cluster", f"member-{i:03d}:nodes=2"]
    process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):
        if kubeconfig.exists() and kubeconfig.stat().st_size > 0:
            return process, kubeconfig
        time.sleep(0.1)
    process.kill()
    raise SystemExit("membersim did not write its kubeconfig in 30 s")


def register(kubeconfig: Path) -> list[str]:
    text = kubeconfig.read_text()
    names = contexts(text)
    for name in names:
        cluster = Cluster(name=name, labels={"bench": "yes"}, ready="True")
        cluster.set_connection(from_kubeconfig(text, name))
        cluster.save()
    return names


def hang(kubeconfig: Path, name: str, action: str = "down") -> None:
    subprocess.run(
        [sys.executable, "-m", "membersim", "ctl", "--kubeconfig", str(kubeconfig), name, action],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def timed(call, samples: int = SAMPLES) -> tuple[list[float], object]:
    seconds, result = [], None
    for _ in range(samples):
        started = time.perf_counter()
        result = call()
        seconds.append(time.perf_counter() - started)
    return seconds, result


def main() -> int:
    call_command("migrate", verbosity=0)
    members, kubeconfig = start_members()
    try:
        names = register(kubeconfig)
        apply_yaml(WORKLOADS)  # eager tasks: every copy is applied when this returns
        shop = ResourceTemplate.objects.get(name="shop")
        time.sleep(2)  # the members' controllers start the pods

        across_s, view = timed(lambda: workload_across(shop))
        pods = sum(len(m.pods) for m in view.members)  # type: ignore[attr-defined]
        events = len(view.events)  # type: ignore[attr-defined]

        pod = view.members[0].pods[0].name  # type: ignore[attr-defined]
        query = logs.LogQuery(cluster=names[0], pod=pod, container="web", tail=100)
        log_s, text = timed(lambda: logs.read_logs(shop, query))

        def first_followed_line() -> str:
            stream = logs.follow_logs(shop, query)
            line = next(iter(stream))
            stream.close()  # type: ignore[attr-defined]
            return line

        follow_s, _ = timed(first_followed_line)

        for name in names[-HANGING:]:
            hang(kubeconfig, name)
        label = search.SearchQuery(selector="app=shop")
        search_s, answers = timed(lambda: list(search.search_fleet(label)), samples=10)
        document = search.search_document(answers)  # type: ignore[arg-type]
        by_kind = search.SearchQuery(kind="Deployment", selector="app=shop")
        kind_s, _ = timed(lambda: list(search.search_fleet(by_kind)), samples=10)
        for name in names[-HANGING:]:
            hang(kubeconfig, name, "up")
    finally:
        members.terminate()
        members.wait(timeout=20)

    rows = [
        ("workload pods + events, 100 clusters, p95", p95(across_s), ACROSS_TARGET_S),
        ("search app=shop (6 kinds), 5 hanging, p95", p95(search_s), SEARCH_TARGET_S),
        ("search kind=Deployment app=shop, 5 hanging, p95", p95(kind_s), SEARCH_TARGET_S),
        ("first log lines (tail 100), p95", p95(log_s), FIRST_LOG_TARGET_S),
        ("first followed log line, p95", p95(follow_s), FIRST_LOG_TARGET_S),
    ]
    print(f"seeing into {CLUSTERS} clusters (membersim in its own process) on {platform.node()}")
    print(f"{'figure':52}{'measured':>10}{'target':>10}{'ratio':>8}")
    for label_text, value, target in rows:
        print(f"{label_text:52}{value:>9.3f}s{target:>9.1f}s{value / target:>8.2f}")
    print(
        f"pods seen {pods}, events {events}, log lines {len(str(text).splitlines())}; search: "
        f"{len(document['results'])} results, timed out {len(document['timedOut'])} "
        f"({', '.join(document['timedOut'])}); medians: across {statistics.median(across_s):.3f} s, "
        f"search {statistics.median(search_s):.3f} s"
    )
    ok = all(value <= target for _, value, target in rows) and len(document["timedOut"]) == HANGING
    print("within targets" if ok else "OUTSIDE TARGETS")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
