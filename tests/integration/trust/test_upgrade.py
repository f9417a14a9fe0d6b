"""Upgrading from the previous release: its database migrates forward and the app reads every row back."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support import upgrade

ROOT = Path(__file__).resolve().parents[3]


def step(name: str, env: dict[str, str]) -> object:
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.upgrade", name],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_released_migrations_are_unchanged_since_the_release():
    record = json.loads(upgrade.RECORD.read_text())
    for app, entry in record["project"].items():
        for name, digest in entry["files"].items():
            text = (ROOT / entry["path"] / f"{name}.py").read_bytes()
            assert hashlib.sha256(text).hexdigest() == digest, f"{app}.{name} was edited after its release"


def test_a_database_of_the_previous_release_migrates_forward_and_reads_back(tmp_path, fresh_database_url):
    env = {
        **os.environ,
        "DATABASE_URL": fresh_database_url,
        "KARMADA_UI_VAR_DIR": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "karmada_ui.settings",
    }
    assert step("old-schema", env) == upgrade.recorded_state()  # exactly the release: nothing newer
    step("old-rows", env)

    migrate = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert migrate.returncode == 0, migrate.stderr
    for moved in ("core.0001_initial", "karmada_ui.0002_audit_entry_moved_to_core", "metrics.0001_initial"):
        assert f"Applying {moved}... OK" in migrate.stdout

    seen = step("read", env)
    assert seen["applied"]["core"] and seen["applied"]["metrics"]
    assert seen["credentials"] == [upgrade.TOKEN, upgrade.CLIENT_KEY.decode()]
    assert seen["binding"] == ["web", "web", [{"name": "beijing", "replicas": 2}]]
    assert seen["works"] == [["beijing", True, "Healthy"]]
    # The audit log and the tallies were tables of other apps in that release; the rows are all there.
    assert seen["audit"] == [["ada", "apply:created", "web", {"beijing": {"before": 0, "after": 2}}]]
    assert seen["tally"] == [[upgrade.TALLY[0], upgrade.TALLY[1], 3.0]]
    assert {
        "Cluster/beijing",
        "PropagationPolicy/web",
        "Deployment/web",
        "ResourceBinding/web-deployment",
    } <= set(seen["export"])

    pages = seen["pages"]
    assert {path: page["status"] for path, page in pages.items()} == dict.fromkeys(pages, 200)
    assert "beijing" in pages["/clusters/"]["text"] and "v1.31.4" in pages["/clusters/c/beijing/"]["text"]
    assert "web-deployment" in pages[next(p for p in pages if p.startswith("/workloads/"))]["text"]
    assert "apply:created" in pages["/audit/"]["text"]
    assert json.loads(pages["/api/v1/audit/"]["text"])["results"][0]["action"] == "apply:created"
    assert (
        'karmada_scheduler_schedule_attempts_total{result="scheduled",schedule_type="ReconcileSchedule"} 3.0'
        in pages["/metrics"]["text"]
    )
