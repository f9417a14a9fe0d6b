"""docker-compose.yml and the Dockerfile describe services whose commands exist in this project."""

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def compose():
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_has_the_production_services_and_a_demo_profile():
    services = compose()["services"]
    assert {"postgres", "redis", "web", "worker", "beat", "membersim"} <= set(services)
    assert services["membersim"]["profiles"] == ["demo"]
    assert "demo" not in services["web"].get("profiles", [])


def test_every_compose_command_names_something_this_project_runs():
    services = compose()["services"]
    for name in ("migrate", "web", "worker", "beat", "membersim"):
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


def test_the_worker_listens_on_every_queue_the_tasks_are_routed_to():
    from karmada_ui.celery import QUEUES

    worker = compose()["services"]["worker"]["command"]
    queues = worker[worker.index("-Q") + 1].split(",")
    assert set(QUEUES) <= set(queues)


def test_production_settings_come_from_files_not_from_the_compose_file():
    env = compose()["x-app"]["environment"]
    assert env["DJANGO_DEBUG"] == "0"
    assert "SECRET_KEY" not in env and env["SECRET_KEY_FILE"].startswith("/run/secrets/")
