"""The production stack outside Docker: every service of docker-compose.yml started as Compose starts it.

The commands, environment and health checks are read from the compose file; only what a container
provides is put in its place: the secrets' files, the state directory, this machine's PostgreSQL and
Redis instead of the `postgres` and `redis` services, and a free port instead of 8000. Then a member
cluster is joined over TLS (token and client key) and a workload applied, through the web server and
a worker per queue, and no log of any process holds the token or the key.
"""

from __future__ import annotations

import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
import requests
import yaml
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from clusters.k8s import ClusterConnection, objects
from membersim import ClusterSpec, Simulator
from tests.support.databases import fresh_database
from tests.support.secrets import client_certificate, leaks, with_client_key

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
IMAGE_STATE = "/var/lib/karmada-ui"  # KARMADA_UI_VAR_DIR in the Dockerfile
# A Redis database of its own, so leftover messages of other runs never meet this one; runs side by
# side (several checkouts on one Redis) each name their own with STACK_REDIS_DB.
REDIS_DB = int(os.environ.get("STACK_REDIS_DB", "12"))
DEADLINE_S = 120
APPLY = """apiVersion: apps/v1
kind: Deployment
metadata: {name: shop, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec: {containers: [{name: shop, image: "nginx:1.27"}]}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: shop, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: shop}]
  placement: {clusterAffinity: {clusterNames: [beijing]}}
"""

pytestmark = pytest.mark.skipif(
    not os.environ.get("REDIS_URL"), reason="needs Redis (REDIS_URL, set by scripts/run-tests)"
)


def interpolate(value: str, env: dict[str, str]) -> str:
    """Compose's `${NAME:-default}` and `${NAME}` from the environment; `$$` stays a literal `$`."""

    def replace(match: re.Match) -> str:
        name, default = match.group(1), match.group(3) or ""
        return env.get(name) or default

    text = re.sub(r"\$\{(\w+)(:-([^}]*))?\}", replace, value.replace("$$", "\0"))
    return text.replace("\0", "$")


def app_services(compose: dict) -> tuple[list[str], list[str]]:
    """(one-shot, long-running) services of the app image that run without a profile."""
    image = compose["x-app"]["image"]
    names = [
        name
        for name, service in compose["services"].items()
        if service.get("image") == image and not service.get("profiles")
    ]
    one_shot = [name for name in names if compose["services"][name].get("restart") == "no"]
    return one_shot, [name for name in names if name not in one_shot]


class Stack:
    """The processes of the compose services, with the container's paths and hosts mapped to this machine."""

    def __init__(self, tmp: Path, database_url: str, port: int) -> None:
        self.tmp, self.port = tmp, port
        self.compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
        self.state = tmp / "state"
        (self.state / "beat").mkdir(parents=True)
        self.secrets_dir = tmp / "secrets"
        self.secrets_dir.mkdir()
        files = {
            "secret_key": secrets.token_urlsafe(48),
            "encryption_key": secrets.token_urlsafe(32),
            "database_url": database_url,
        }
        for name, value in files.items():
            (self.secrets_dir / name).write_text(value + "\n")
        redis = urlsplit(os.environ["REDIS_URL"])
        self.broker = urlunsplit((redis.scheme, redis.netloc, f"/{REDIS_DB}", "", ""))
        self.processes: dict[str, subprocess.Popen] = {}

    def translate(self, text: str) -> str:
        text = text.replace(IMAGE_STATE, str(self.state)).replace("/run/secrets/", f"{self.secrets_dir}/")
        text = text.replace("0.0.0.0:8000", f"127.0.0.1:{self.port}")
        return text.replace("127.0.0.1:8000", f"127.0.0.1:{self.port}")

    def env(self, name: str) -> dict[str, str]:
        declared = self.compose["services"][name].get("environment", {})
        env = {key: self.translate(interpolate(str(value), {})) for key, value in declared.items()}
        for key in ("REDIS_URL", "CELERY_BROKER_URL"):
            if key in env:
                env[key] = self.broker  # the `redis` service
        return {
            "PATH": f"{BIN}:/usr/bin:/bin",
            "HOME": str(self.tmp),
            "HOSTNAME": socket.gethostname(),  # as a container has it, for the health checks
            "PYTHONUNBUFFERED": "1",  # the image's ENV
            "KARMADA_UI_VAR_DIR": str(self.state),
            "STATIC_ROOT": str(self.tmp / "static"),
            **env,
        }

    def argv(self, name: str) -> list[str]:
        # Compose interpolates `${NAME:-default}` in commands too (the watcher's shard).
        argv = [self.translate(interpolate(part, {})) for part in self.compose["services"][name]["command"]]
        return [sys.executable if argv[0] == "python" else str(BIN / argv[0]), *argv[1:]]

    def run(self, name: str, argv: list[str]) -> subprocess.CompletedProcess:
        return subprocess.run(argv, cwd=ROOT, env=self.env(name), capture_output=True, text=True, timeout=120)

    def start(self, name: str) -> None:
        log = open(self.tmp / f"{name}.log", "w")
        self.processes[name] = subprocess.Popen(
            self.argv(name),
            cwd=ROOT,
            env=self.env(name),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def healthy(self, name: str) -> bool:
        """Run the service's health check the way Docker does (CMD or CMD-SHELL)."""
        test = [
            self.translate(interpolate(part, {}))
            for part in self.compose["services"][name]["healthcheck"]["test"]
        ]
        if test[0] == "CMD-SHELL":
            argv = ["sh", "-c", test[1]]
        else:
            argv = [sys.executable if test[1] == "python" else test[1], *test[2:]]
        return (
            subprocess.run(argv, cwd=ROOT, env=self.env(name), capture_output=True, timeout=60).returncode
            == 0
        )

    def logs(self) -> dict[str, str]:
        return {path.stem: path.read_text(errors="replace") for path in self.tmp.glob("*.log")}

    def stop(self) -> None:
        for process in self.processes.values():
            with_group(process, signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                with_group(process, signal.SIGKILL)
                process.wait(timeout=10)


def with_group(process: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        pass


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def client() -> requests.Session:
    """A session that, as a browser does, sends a GET again once when the server closed the kept-alive
    connection just as the request went out (gunicorn closes an idle one after 2 s; the waits between
    two requests here are of that order): a reset, not an answer."""
    session = requests.Session()
    retry = Retry(total=1, connect=1, read=1, status=0, allowed_methods={"GET", "HEAD"})
    session.mount("http://", HTTPAdapter(max_retries=retry))
    return session


def wait_for(what: str, check, deadline: float) -> object:
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(1)
    raise AssertionError(f"timed out waiting for {what}")


def secrets_of(sim: Simulator, key_pem: bytes) -> dict[str, str | bytes]:
    return {"token": sim.token("beijing"), "client key": key_pem}


def ran(log: str, task: str) -> bool:
    """Whether a worker's log (at INFO) says the task succeeded at least once."""
    return re.search(re.escape(task) + r"\[[0-9a-f-]+\] succeeded", log) is not None


def test_every_compose_service_runs_outside_docker_against_postgresql_and_redis(tmp_path):
    cert_pem, key_pem = client_certificate()
    with (
        fresh_database(tmp_path, "stack") as database_url,
        Simulator([ClusterSpec(name="beijing", nodes=2)], tls=True) as sim,
    ):
        stack = Stack(tmp_path, database_url, free_port())
        one_shot, long_running = app_services(stack.compose)
        assert one_shot == ["migrate"] and {"web", "beat"} <= set(long_running)
        assert all(stack.compose["services"][name].get("healthcheck") for name in long_running)

        # What the image build and the operator do before the stack starts.
        for name in one_shot:
            done = stack.run(name, stack.argv(name))
            (tmp_path / f"{name}.log").write_text(done.stdout + done.stderr)
            assert done.returncode == 0, (name, done.stderr)
        collect = stack.run("web", [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"])
        assert collect.returncode == 0, collect.stderr
        admin_env = {**stack.env("web"), "DJANGO_SUPERUSER_PASSWORD": "stack-admin-password-1"}
        created = subprocess.run(
            [
                sys.executable,
                "manage.py",
                "createsuperuser",
                "--noinput",
                "--username",
                "ada",
                "--email",
                "ada@example.com",
            ],
            cwd=ROOT,
            env=admin_env,
            capture_output=True,
            text=True,
        )
        assert created.returncode == 0, created.stderr
        purge = stack.run("beat", [str(BIN / "celery"), "-A", "karmada_ui", "purge", "-f"])
        assert purge.returncode == 0, purge.stderr

        try:
            for name in long_running:
                stack.start(name)
            deadline = time.monotonic() + DEADLINE_S
            for name in long_running:
                wait_for(f"{name} to pass its health check", lambda name=name: stack.healthy(name), deadline)
                assert stack.processes[name].poll() is None, (name, stack.logs()[name])

            base = f"http://127.0.0.1:{stack.port}"
            assert requests.get(f"{base}/healthz", timeout=10).text == "ok"
            browser = client()
            login = browser.get(f"{base}/accounts/login/", timeout=10)
            assert login.status_code == 200
            # The production static storage serves the hashed names collectstatic wrote.
            stylesheet = re.search(r'href="(/static/[^"]+\.[0-9a-f]{12}\.css)"', login.text)
            assert stylesheet, login.text[:2000]
            assert browser.get(base + stylesheet.group(1), timeout=10).status_code == 200
            signed_in = browser.post(
                f"{base}/accounts/login/",
                data={
                    "username": "ada",
                    "password": "stack-admin-password-1",
                    "csrfmiddlewaretoken": browser.cookies["csrftoken"],
                },
                timeout=10,
            )
            assert signed_in.status_code == 200 and "ada" in signed_in.text
            assert browser.get(f"{base}/clusters/", timeout=10).status_code == 200

            token = requests.post(
                f"{base}/api/v1/auth/token/",
                data={"username": "ada", "password": "stack-admin-password-1"},
                timeout=10,
            ).json()["token"]
            api = client()
            api.headers["Authorization"] = f"Token {token}"

            # Join over TLS with a token and a client key: the health worker collects it.
            kubeconfig = with_client_key(sim.kubeconfig(), "beijing", cert_pem, key_pem)
            joined = api.post(
                f"{base}/api/v1/clusters/",
                json={"name": "beijing", "kubeconfig": yaml.safe_dump(kubeconfig), "context": "beijing"},
                timeout=30,
            )
            assert joined.status_code == 201, joined.text
            wait_for(
                "the health worker to report beijing Ready",
                lambda: api.get(f"{base}/api/v1/clusters/beijing/", timeout=10).json().get("ready") == "True",
                deadline + 60,
            )

            # Apply: the schedule and propagate workers bring the Deployment to the member cluster.
            applied = api.post(
                f"{base}/api/v1/apply/", data=APPLY, headers={"Content-Type": "application/yaml"}, timeout=30
            )
            assert applied.status_code == 200, applied.text
            member = ClusterConnection(
                name="beijing",
                server=sim.endpoint("beijing"),
                token=sim.token("beijing"),
                ca_data=sim.ca_pem().encode(),
            )
            wait_for(
                "the Deployment in beijing",
                lambda: [
                    o
                    for o in objects.list_objects(member, "apps/v1", "Deployment", "default")
                    if o["metadata"]["name"] == "shop"
                ],
                deadline + 90,
            )
            # A policy change re-plans every binding on the bulk lane, which the propagate worker serves.
            relabelled = APPLY.replace(
                "name: shop, namespace: default}\nspec:\n  resourceSelectors",
                "name: shop, namespace: default, labels: {revision: '2'}}\nspec:\n  resourceSelectors",
            )
            assert relabelled != APPLY
            changed = api.post(
                f"{base}/api/v1/apply/",
                data=relabelled,
                headers={"Content-Type": "application/yaml"},
                timeout=30,
            )
            assert changed.status_code == 200, changed.text
            wait_for(
                "the policy change's re-plan on the propagate worker",
                lambda: ran(stack.logs().get("worker-propagate", ""), "scheduling.tasks.detect_all"),
                deadline + 90,
            )
            # Beat sends the periodic tasks and the default queue's worker runs the alert evaluation.
            wait_for(
                "beat's alert evaluation to run on the default worker",
                lambda: ran(stack.logs().get("worker-default", ""), "observability.tasks.evaluate_alerts"),
                deadline + 90,
            )
            # What the workers stored as task results, as the admin shows it, holds no secret either.
            results = browser.get(f"{base}/admin/django_celery_results/taskresult/", timeout=10)
            assert results.status_code == 200
            pages = {"task results": results.text}
            for link in sorted(
                set(re.findall(r'href="(/admin/django_celery_results/taskresult/\d+/change/)', results.text))
            )[:20]:
                pages[link] = browser.get(base + link, timeout=10).text
            assert len(pages) > 1
            assert {
                where: hits
                for where, text in pages.items()
                if (hits := leaks(text, secrets_of(sim, key_pem)))
            } == {}
        finally:
            stack.stop()

        logs = stack.logs()
        assert set(long_running) <= set(logs)
        # Each queue's tasks ran in the service of that queue, and nowhere else.
        ran_where = {
            task: sorted(name for name, text in logs.items() if ran(text, task))
            for task in (
                "clusters.tasks.collect_cluster_task",
                "scheduling.tasks.schedule_detected",
                "scheduling.tasks.apply_works",
                "scheduling.tasks.detect_all",
                "observability.tasks.evaluate_alerts",
            )
        }
        assert ran_where == {
            "clusters.tasks.collect_cluster_task": ["worker-health"],
            "scheduling.tasks.schedule_detected": ["worker-schedule"],
            "scheduling.tasks.apply_works": ["worker-propagate"],
            "scheduling.tasks.detect_all": ["worker-propagate"],
            "observability.tasks.evaluate_alerts": ["worker-default"],
        }
        for name, text in logs.items():
            assert "Traceback" not in text, (name, text[-3000:])
        found = {
            name: leaks(text, {"token": sim.token("beijing"), "client key": key_pem})
            for name, text in logs.items()
        }
        assert found == {name: [] for name in logs}, found
