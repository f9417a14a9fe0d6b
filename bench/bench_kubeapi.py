"""Benchmark: the Kubernetes API (/k8s) beside the REST API (/api/v1), one namespace of 10,000 templates.

Kubernetes' API SLOs as targets: mutating calls p99 <= 1 s, LIST of one namespace p99 <= 5 s. Both doors
run the same work over HTTP against one threaded server of the app: create, update and delete a
Deployment template, and list the namespace whole and in pages of 500. Run it on PostgreSQL:
DATABASE_URL=postgres://postgres@127.0.0.1:5432/NAME python bench/bench_kubeapi.py (SQLite otherwise).
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TMP = Path(tempfile.mkdtemp(prefix="bench-kubeapi-"))
os.environ.setdefault("DATABASE_URL", f"sqlite:///{TMP / 'bench.sqlite3'}")
os.environ.update(
    {
        "DJANGO_SETTINGS_MODULE": "karmada_ui.settings",
        "KARMADA_UI_VAR_DIR": str(TMP),
        "CELERY_TASK_ALWAYS_EAGER": "1",
        "LOG_LEVEL": "WARNING",
        "API_THROTTLE_USER": "1000000/min",  # the bench measures the doors, not the throttle
    }
)

import django  # noqa: E402

django.setup()

import urllib3  # noqa: E402
import yaml  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.handlers.wsgi import WSGIHandler  # noqa: E402
from django.core.management import call_command  # noqa: E402
from rest_framework.authtoken.models import Token  # noqa: E402

from core.roles import ADMIN, grant  # noqa: E402
from scheduling.models import ResourceTemplate  # noqa: E402

NAMESPACE = "bench"
TEMPLATES = int(os.environ.get("BENCH_TEMPLATES", "10000"))
MUTATIONS = int(os.environ.get("BENCH_MUTATIONS", "60"))  # per verb and door
LISTS = int(os.environ.get("BENCH_LISTS", "5"))  # per door and list form
MUTATING_P99_S = 1.0
LIST_P99_S = 5.0
RESULTS = ROOT / "bench" / "results.md"
KUBE = "/k8s/apis/apps/v1/namespaces/" + NAMESPACE + "/deployments"


def deployment(name: str, image: str = "nginx:1.27") -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": {"app": name}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "app", "image": image}]},
            },
        },
    }


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def serve() -> tuple[_Server, str]:
    server = make_server("127.0.0.1", 0, WSGIHandler(), server_class=_Server, handler_class=_Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def seed() -> str:
    """10,000 Deployment templates in one namespace (bulk rows: the setup, not what is measured)."""
    ResourceTemplate.objects.filter(namespace=NAMESPACE).delete()
    rows = [
        ResourceTemplate(
            api_version="apps/v1",
            api_group="apps",
            kind="Deployment",
            namespace=NAMESPACE,
            name=f"seed-{i:05d}",
            manifest=deployment(f"seed-{i:05d}"),
        )
        for i in range(TEMPLATES)
    ]
    ResourceTemplate.objects.bulk_create(rows, batch_size=1000)
    user = get_user_model().objects.filter(username="bench-admin").first()
    if user is None:
        user = get_user_model().objects.create_user("bench-admin", password=uuid.uuid4().hex)
    grant(user, ADMIN)
    token, _ = Token.objects.get_or_create(user=user)
    return token.key


class Door:
    """One API over HTTP, timing each call and refusing any answer other than the expected codes."""

    def __init__(self, base: str, authorization: str) -> None:
        self.base = base
        self.http = urllib3.PoolManager(maxsize=4)
        self.headers = {"Authorization": authorization, "Accept": "application/json"}

    def call(self, method: str, path: str, expect: tuple[int, ...], body=None, **headers: str) -> tuple:
        started = time.perf_counter()
        response = self.http.request(
            method, self.base + path, body=body, headers={**self.headers, **headers}, timeout=120
        )
        elapsed = time.perf_counter() - started
        if response.status not in expect:
            raise SystemExit(f"{method} {path}: {response.status} {response.data[:300]!r}")
        return elapsed, response


def kube_mutations(door: Door, run: str, count: int = MUTATIONS) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"create": [], "update": [], "delete": []}
    names = [f"kube-{run}-{i}" for i in range(count)]
    for name in names:
        elapsed, _ = door.call(
            "POST", KUBE, (201,), json.dumps(deployment(name)), **{"Content-Type": "application/json"}
        )
        times["create"].append(elapsed)
    for name in names:
        patch = {"spec": {"template": {"spec": {"containers": [{"name": "app", "image": "nginx:1.28"}]}}}}
        elapsed, _ = door.call(
            "PATCH",
            f"{KUBE}/{name}",
            (200,),
            json.dumps(patch),
            **{"Content-Type": "application/strategic-merge-patch+json"},
        )
        times["update"].append(elapsed)
    for name in names:
        elapsed, _ = door.call("DELETE", f"{KUBE}/{name}", (200, 202))
        times["delete"].append(elapsed)
    return times


def rest_mutations(door: Door, run: str, count: int = MUTATIONS) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"create": [], "update": [], "delete": []}
    names = [f"rest-{run}-{i}" for i in range(count)]
    yaml_type = {"Content-Type": "application/yaml"}
    for name in names:
        elapsed, _ = door.call(
            "POST", "/api/v1/apply/", (200,), yaml.safe_dump(deployment(name)), **yaml_type
        )
        times["create"].append(elapsed)
    for name in names:
        text = yaml.safe_dump(deployment(name, "nginx:1.28"))
        elapsed, _ = door.call("POST", "/api/v1/apply/", (200,), text, **yaml_type)
        times["update"].append(elapsed)
    ids = dict(ResourceTemplate.objects.filter(namespace=NAMESPACE, name__in=names).values_list("name", "pk"))
    for name in names:
        elapsed, _ = door.call("DELETE", f"/api/v1/workloads/{ids[name]}/", (202,))
        times["delete"].append(elapsed)
    return times


def warm_up(kube: Door, rest: Door) -> None:
    """One unmeasured call of each kind per door: first-request costs (imports, schemas) are not the SLO's."""
    kube_mutations(kube, "warm", 1)
    rest_mutations(rest, "warm", 1)
    kube_lists(kube, 1)
    rest_lists(rest, 1)


def kube_lists(door: Door, count: int = LISTS) -> dict[str, list[float]]:
    whole, paged = [], []
    for _ in range(count):
        elapsed, response = door.call("GET", KUBE, (200,))
        assert len(json.loads(response.data)["items"]) >= TEMPLATES
        whole.append(elapsed)
        total, token, count = 0.0, "", 0
        while True:
            query = "?limit=500" + (f"&continue={token}" if token else "")
            elapsed, response = door.call("GET", KUBE + query, (200,))
            page = json.loads(response.data)
            total, count = total + elapsed, count + len(page["items"])
            token = page["metadata"].get("continue") or ""
            if not token:
                break
        assert count >= TEMPLATES
        paged.append(total)
    return {"list whole": whole, "list in pages of 500": paged}


def rest_lists(door: Door, count: int = LISTS) -> dict[str, list[float]]:
    """The REST API pages by 500 at most, so its whole list is the walk of its pages."""
    paged = []
    where = f"/api/v1/workloads/?q=namespace%3D{NAMESPACE}"
    for _ in range(count):
        total, offset, count_seen = 0.0, 0, 0
        while True:
            elapsed, response = door.call("GET", f"{where}&limit=500&offset={offset}", (200,))
            page = json.loads(response.data)
            total, count_seen, offset = total + elapsed, count_seen + len(page["results"]), offset + 500
            if not page.get("next"):
                break
        assert count_seen >= TEMPLATES
        paged.append(total)
    return {"list whole": paged, "list in pages of 500": paged}


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def main() -> int:
    call_command("migrate", verbosity=0)
    database = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    started = time.perf_counter()
    key = seed()
    seeded = time.perf_counter() - started
    server, base = serve()
    kube, rest = Door(base, f"Bearer {key}"), Door(base, f"Token {key}")
    run = uuid.uuid4().hex[:6]
    try:
        warm_up(kube, rest)
        figures = {
            "kube": {**kube_mutations(kube, run), **kube_lists(kube)},
            "rest": {**rest_mutations(rest, run), **rest_lists(rest)},
        }
    finally:
        server.shutdown()
    rows = []
    ok = True
    print(f"{TEMPLATES} Deployment templates in one namespace on {database} (seeded in {seeded:.1f} s);")
    print(f"{MUTATIONS} calls per mutating verb, {LISTS} lists per form; p99 seconds and ratio to target")
    print("(/api/v1 pages by 500 at most: its whole list is the walk of its pages)")
    print(f"{'':26}{'/k8s p99':>10}{'ratio':>8}{'/api/v1 p99':>13}{'ratio':>8}{'target':>9}   medians")
    for verb in ("create", "update", "delete", "list whole", "list in pages of 500"):
        target = LIST_P99_S if verb.startswith("list") else MUTATING_P99_S
        k, r = p99(figures["kube"][verb]), p99(figures["rest"][verb])
        ok = ok and k <= target and r <= target
        median_k, median_r = (
            statistics.median(figures["kube"][verb]),
            statistics.median(figures["rest"][verb]),
        )
        print(
            f"{verb:26}{k:>10.3f}{k / target:>8.2f}{r:>13.3f}{r / target:>8.2f}{'<= ' + str(target):>9}"
            f"   {median_k:.3f} / {median_r:.3f}"
        )
        rows.append(
            f"| {verb} | {k:.3f} s ({k / target:.2f}x) | {r:.3f} s ({r / target:.2f}x) | ≤ {target:g} s |"
        )
    print("within targets" if ok else "OUTSIDE TARGETS")
    record(rows, database)
    return 0 if ok else 1


def record(rows: list[str], database: str) -> None:
    when = datetime.now(UTC).strftime("%Y-%m-%d")
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    lines = [
        "",
        f"## bench_kubeapi: /k8s beside /api/v1, {TEMPLATES} templates in one namespace ({when})",
        "",
        f"{machine}, {database}; {MUTATIONS} calls per mutating verb, {LISTS} lists per form, "
        "one client at a time, after one unmeasured call of each kind per door.",
        "/api/v1 pages by 500 at most, so its whole list is the walk of its pages.",
        "",
        "| call | /k8s p99 (ratio to target) | /api/v1 p99 (ratio) | target |",
        "|---|---|---|---|",
        *rows,
        "",
    ]
    with RESULTS.open("a") as handle:
        handle.write("\n".join(lines))


if __name__ == "__main__":
    raise SystemExit(main())
