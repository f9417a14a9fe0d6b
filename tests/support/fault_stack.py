"""Real processes for the fault tests: simulated members, a database they share, workers, the end check."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg

from clusters.k8s import ClusterConnection, KubeError, objects
from karmada_ui.celery import ONE_WORKER_QUEUES
from membersim import ClusterSpec, Simulator
from scheduling.karmada import names

ROOT = Path(__file__).resolve().parents[2]
CLUSTERS = ("east", "west")
NAMESPACE = "load"
ALL_QUEUES = ONE_WORKER_QUEUES

REGISTER = """
import json, os
from clusters.k8s import ClusterConnection
from clusters.models import Cluster
for name, (server, token) in json.loads(os.environ["MEMBERS"]).items():
    cluster = Cluster(name=name, ready="True")
    cluster.set_connection(ClusterConnection(name=name, server=server, token=token))
    cluster.save()
"""


def workloads_yaml(count: int, clusters: tuple[str, ...] = CLUSTERS) -> str:
    """One PropagationPolicy sending `count` Deployments to every cluster named."""
    documents = [
        f"""apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {{name: everywhere, namespace: {NAMESPACE}}}
spec:
  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment}}]
  placement: {{clusterAffinity: {{clusterNames: [{", ".join(clusters)}]}}}}
"""
    ]
    for i in range(count):
        documents.append(
            f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: w-{i:03d}, namespace: {NAMESPACE}, labels: {{app: w-{i:03d}}}}}
spec:
  replicas: 1
  selector: {{matchLabels: {{app: w-{i:03d}}}}}
  template:
    metadata: {{labels: {{app: w-{i:03d}}}}}
    spec: {{containers: [{{name: app, image: "nginx:1.27"}}]}}
"""
        )
    return "---\n".join(documents)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def redis_db(url: str, index: int) -> str:
    """The same Redis server, another database, so leftover messages of other runs never meet this one."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{index}", "", ""))


def kill_group(process: subprocess.Popen, sig: int) -> None:
    """Signal a process started in its own session together with its children (a worker's pool)."""
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        return
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


class Database:
    """The database the processes share: a SQLite file, or a fresh PostgreSQL database made for the test."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.postgres = url.startswith(("postgres://", "postgresql://"))

    def _dsn(self, database: str | None = None) -> str:
        parts = urlsplit(self.url)
        return urlunsplit(("postgresql", parts.netloc, f"/{database or parts.path.lstrip('/')}", "", ""))

    def recreate(self) -> None:
        if not self.postgres:
            return
        name = urlsplit(self.url).path.lstrip("/")
        with psycopg.connect(self._dsn("postgres"), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            admin.execute(f'CREATE DATABASE "{name}"')

    def drop(self) -> None:
        if not self.postgres:
            return
        name = urlsplit(self.url).path.lstrip("/")
        with psycopg.connect(self._dsn("postgres"), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        """Every row of a read-only query."""
        if self.postgres:
            with psycopg.connect(self._dsn(), autocommit=True) as db:
                return [tuple(row) for row in db.execute(sql).fetchall()]
        with sqlite3.connect(urlsplit(self.url).path) as lite:
            return [tuple(row) for row in lite.execute(sql).fetchall()]

    def one(self, sql: str) -> tuple[Any, ...]:
        """The first row of a read-only query."""
        if self.postgres:
            with psycopg.connect(self._dsn(), autocommit=True) as db:
                row = db.execute(sql).fetchone()
        else:
            with sqlite3.connect(urlsplit(self.url).path) as lite:
                row = lite.execute(sql).fetchone()
        assert row is not None
        return tuple(row)


@dataclass
class Stack:
    """Members, a migrated database with them registered, a purged broker; start workers on it."""

    sim: Simulator
    env: dict[str, str]
    tmp: Path
    db: Database
    workers: list[subprocess.Popen] = field(default_factory=list)
    restarts: int = 0
    _supervised: dict[str, tuple[list[str], subprocess.Popen]] = field(default_factory=dict)
    _supervisor: threading.Thread | None = None
    _stopping: threading.Event = field(default_factory=threading.Event)

    def manage(self, *args: str, **kwargs: Any) -> subprocess.CompletedProcess:
        kwargs.setdefault("check", True)
        return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, **kwargs)

    def start_worker(
        self,
        log: str,
        queues: str = ALL_QUEUES,
        beat: bool = True,
        concurrency: int = 2,
        restart_on_exit: bool = False,
    ) -> subprocess.Popen:
        """A Celery worker; with `restart_on_exit` it is started again whenever it exits, as compose's
        `restart: unless-stopped` does in production."""
        argv = [sys.executable, "-m", "celery", "-A", "karmada_ui", "worker", "-n", f"{log}@%h"]
        if beat:
            argv += ["-B", "-s", str(self.tmp / "beat")]
        argv += [
            "-Q",
            queues,
            "-c",
            str(concurrency),
            "--without-gossip",
            "--without-mingle",
            "-l",
            "WARNING",
        ]
        process = self.start(log, argv)
        if restart_on_exit:
            self._supervised[log] = (argv, process)
            if self._supervisor is None:
                self._supervisor = threading.Thread(target=self._supervise, daemon=True)
                self._supervisor.start()
        return process

    def _supervise(self) -> None:
        while not self._stopping.wait(0.2):
            for log, (argv, process) in list(self._supervised.items()):
                if process.poll() is not None and not self._stopping.is_set():
                    self.restarts += 1
                    self._supervised[log] = (argv, self.start(log, argv, append=True))

    def stop_supervising(self) -> None:
        self._stopping.set()
        if self._supervisor is not None:
            self._supervisor.join(timeout=5)

    def start_watcher(self) -> subprocess.Popen:
        """The member watcher (`manage.py watch_members`), stopped with the workers."""
        return self.start("watcher", [sys.executable, "manage.py", "watch_members"])

    def start(self, log: str, argv: list[str], append: bool = False) -> subprocess.Popen:
        with open(self.tmp / f"{log}.log", "a" if append else "w") as out:
            process = subprocess.Popen(
                argv, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        self.workers.append(process)
        return process

    def apply(self, count: int) -> None:
        path = self.tmp / "workloads.yaml"
        path.write_text(workloads_yaml(count))
        self.manage("apply", "-f", str(path), stdout=subprocess.DEVNULL)

    def copies(self, cluster: str) -> list[dict[str, Any]]:
        conn = ClusterConnection(
            name=cluster, server=self.sim.endpoint(cluster), token=self.sim.token(cluster)
        )
        return objects.list_objects(conn, "apps/v1", "Deployment", namespace=NAMESPACE)

    def copies_held(self) -> int:
        return sum(len(self.copies(cluster)) for cluster in CLUSTERS)

    def wait_for_copies(self, at_least: int, deadline_s: float) -> None:
        started = time.monotonic()
        while self.copies_held() < at_least:
            assert time.monotonic() - started < deadline_s, f"fewer than {at_least} copies propagated"
            time.sleep(0.05)

    def planned_state(self, count: int) -> dict[str, Any]:
        """What differs from the plan (empty when reached): member copies, Works, dirty marks."""
        wanted = sorted(f"w-{i:03d}" for i in range(count))
        problems: dict[str, Any] = {}
        for cluster in CLUSTERS:
            try:
                copies = self.copies(cluster)
            except KubeError as exc:
                problems[cluster] = f"unreachable: {exc}"
                continue
            held = sorted(c["metadata"]["name"] for c in copies)
            if held != wanted:
                problems[cluster] = f"{len(held)} of {len(wanted)} copies"
                continue
            # Created once, never written again: a copy applied twice over a changed body has generation 2.
            rewritten = [c["metadata"]["name"] for c in copies if c["metadata"].get("generation") != 1]
            foreign = [c for c in copies if c["metadata"]["labels"].get(names.MANAGED_LABEL) != "true"]
            if rewritten or foreign:
                problems[cluster] = {"rewritten": rewritten[:5], "unmanaged": len(foreign)}
        works = self.db.one(
            "SELECT count(*), coalesce(sum(CASE WHEN applied AND applied_hash = desired_hash"
            " THEN 1 ELSE 0 END), 0) FROM scheduling_work"
        )
        if tuple(works) != (count * len(CLUSTERS),) * 2:
            problems["works (all, in sync)"] = works
        templates = self.db.one("SELECT count(*) FROM scheduling_resourcetemplate")
        bindings = self.db.one(
            "SELECT count(*), coalesce(sum(CASE WHEN dirty_since IS NULL THEN 0 ELSE 1 END), 0)"
            " FROM scheduling_resourcebinding"
        )
        if templates[0] != count or tuple(bindings) != (count, 0):
            problems["templates, bindings (all, dirty)"] = (templates[0], *bindings)
        return problems

    def settle(self, count: int, started: float, deadline_s: float) -> None:
        """Wait until the plan is reached, then hold it a moment (nothing late arrives twice)."""
        while problems := self.planned_state(count):
            assert time.monotonic() - started < deadline_s, problems
            time.sleep(0.5)
        print(f"planned state after {time.monotonic() - started:.1f} s")
        time.sleep(1.0)
        late = self.planned_state(count)
        assert late == {}, f"left the planned state again: {late}"


@contextmanager
def fault_stack(tmp: Path, broker: str, database_url: str | None = None, **settings: str) -> Iterator[Stack]:
    """Two simulated members registered in a fresh database, `broker` purged; workers killed at the end."""
    db = Database(database_url or f"sqlite:///{tmp / 'db.sqlite3'}")
    env = {
        **os.environ,
        "DATABASE_URL": db.url,
        "KARMADA_UI_VAR_DIR": str(tmp),
        "CELERY_BROKER_URL": broker,
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "SCHEDULING_RECONCILE_INTERVAL": "10",
        "SCHEDULING_LOST_MARK_AFTER": "10",
        "DJANGO_SETTINGS_MODULE": "karmada_ui.settings",
        **settings,
    }
    db.recreate()
    with Simulator([ClusterSpec(name=name, nodes=2, node_pods=500) for name in CLUSTERS]) as sim:
        env["MEMBERS"] = json.dumps({name: [sim.endpoint(name), sim.token(name)] for name in CLUSTERS})
        stack = Stack(sim=sim, env=env, tmp=tmp, db=db)
        stack.manage("migrate", "-v0")
        stack.manage("shell", "-c", REGISTER)
        purge = [sys.executable, "-m", "celery", "-A", "karmada_ui", "purge", "-f"]
        subprocess.run(purge, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
        try:
            yield stack
        finally:
            stack.stop_supervising()
            for worker in stack.workers:
                kill_group(worker, signal.SIGTERM)
            db.drop()
