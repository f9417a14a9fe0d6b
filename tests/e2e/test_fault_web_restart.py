"""Fault: the web server (gunicorn) killed while it applies 60 workloads posted to /api/v1/apply/;
the apply committed entirely or not at all, and the client's retry against the restarted server
completes it: every Work applied once."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from urllib.parse import urlsplit

import pytest
import requests

from tests.support.fault_stack import (
    ROOT,
    Stack,
    fault_stack,
    free_port,
    kill_group,
    redis_db,
    workloads_yaml,
)

WORKLOADS = 60
DEADLINE_S = 60
TOKEN = "f" * 40

OPERATOR = f"""
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from core.roles import OPERATOR, grant
user = get_user_model().objects.create_user("olga", password="fault-test-password-1")
grant(user, OPERATOR)
Token.objects.create(user=user, key="{TOKEN}")
"""


def start_web(stack: Stack, port: int, log: str) -> subprocess.Popen:
    argv = [sys.executable, "-m", "gunicorn", "karmada_ui.wsgi:application", "--bind", f"127.0.0.1:{port}"]
    argv += ["--workers", "1", "--timeout", "120"]
    with open(stack.tmp / log, "w") as out:
        web = subprocess.Popen(
            argv, cwd=ROOT, env=stack.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    deadline = time.monotonic() + 30
    while True:
        try:
            if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=2).text == "ok":
                return web
        except requests.RequestException:
            pass
        assert web.poll() is None and time.monotonic() < deadline, (stack.tmp / log).read_text()
        time.sleep(0.1)


def write_locked(stack: Stack) -> bool:
    """Whether another connection holds the SQLite database's write lock right now."""
    probe = sqlite3.connect(urlsplit(stack.db.url).path, timeout=0, isolation_level=None)
    try:
        probe.execute("BEGIN IMMEDIATE")
        probe.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError:
        return True
    finally:
        probe.close()


@pytest.mark.skipif(
    not os.environ.get("REDIS_URL"), reason="needs Redis (REDIS_URL, set by scripts/run-tests)"
)
def test_the_web_server_killed_during_an_apply_commits_all_or_nothing_and_a_retry_completes_it(tmp_path):
    with fault_stack(tmp_path, redis_db(os.environ["REDIS_URL"], 11)) as stack:
        stack.manage("shell", "-c", OPERATOR)
        port = free_port()
        web = start_web(stack, port, "web-1.log")
        url = f"http://127.0.0.1:{port}/api/v1/apply/"
        headers = {"Authorization": f"Token {TOKEN}", "Content-Type": "application/yaml"}
        body = workloads_yaml(WORKLOADS)
        answer: dict[str, object] = {}

        def post() -> None:
            try:
                answer["status"] = requests.post(url, data=body, headers=headers, timeout=60).status_code
            except requests.RequestException as exc:
                answer["error"] = exc

        started = time.monotonic()
        client = threading.Thread(target=post)
        client.start()
        try:
            # Only the web server writes yet (the worker starts later): a held write lock is the apply's
            # transaction, under way and uncommitted.
            while not write_locked(stack):
                assert client.is_alive() and time.monotonic() - started < 20, f"no apply seen ({answer})"
                time.sleep(0.01)
            kill_group(web, signal.SIGKILL)
            client.join(30)
            assert "error" in answer, f"the apply finished before the kill ({answer}): nothing proven"
            templates = stack.db.one("SELECT count(*) FROM scheduling_resourcetemplate")[0]
            policies = stack.db.one("SELECT count(*) FROM scheduling_propagationpolicy")[0]
            assert (templates, policies) in ((0, 0), (WORKLOADS, 1)), "a half-applied file"

            stack.start_worker("worker")
            web = start_web(stack, port, "web-2.log")
            retried = requests.post(url, data=body, headers=headers, timeout=60)
            assert retried.status_code == 200, retried.text[:2000]
            stack.settle(WORKLOADS, started, DEADLINE_S)
        finally:
            kill_group(web, signal.SIGTERM)
