"""`manage.py watch_members`: bad options are one-line refusals; it runs until SIGINT and then stops."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"shard": "2/2"}, "--shard 2/2: need 0 <= i < n"),
        ({"shard": "one"}, "--shard must be i/n"),
        ({"resync": 0.0}, "--resync must be a positive number"),
        ({"heartbeat": "/no/such/dir/alive"}, "no directory /no/such/dir"),
    ],
)
def test_bad_options_are_refused_in_one_line(db, options, message):
    with pytest.raises(CommandError, match=message):
        call_command("watch_members", **options)


def test_it_beats_until_interrupted_and_then_stops_cleanly(tmp_path):
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "KARMADA_UI_VAR_DIR": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "karmada_ui.settings",
    }
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    alive = tmp_path / "alive"
    argv = [*manage, "watch_members", "--shard", "0/2", "--refresh", "0.2", "--heartbeat", str(alive)]
    process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while not alive.exists():
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        first = alive.stat().st_mtime_ns
        while alive.stat().st_mtime_ns == first:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0
    assert "watching shard 0/2" in out and out.rstrip().endswith("stopped")
