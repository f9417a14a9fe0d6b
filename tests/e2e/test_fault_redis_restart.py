"""Fault: the broker's Redis stopped and started again mid-propagation of 200 workloads, its queued and
unacknowledged messages gone with it; the safety net re-drives them and every Work is applied once."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.fault_stack import fault_stack, free_port

WORKLOADS = 200
DEADLINE_S = 90  # measured ~55 s on a loaded 2-core machine


class ThrowawayRedis:
    """A redis-server of the test's own on a free port, without persistence: a restart loses every message."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.folder = folder
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        argv = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        argv += ["--appendonly", "no", "--dir", str(self.folder)]
        self.process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as probe:
                    probe.sendall(b"PING\r\n")
                    if probe.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            assert time.monotonic() < deadline, "redis-server did not answer"
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()  # as a crash: nothing saved, nothing handed over
            self.process.wait(timeout=10)
            self.process = None


@pytest.mark.skipif(
    shutil.which("redis-server") is None, reason="needs redis-server (apt-get install redis-server)"
)
def test_redis_restarted_mid_propagation_loses_and_duplicates_nothing(tmp_path):
    redis = ThrowawayRedis(tmp_path)
    redis.start()
    try:
        with fault_stack(tmp_path, redis.url) as stack:
            # Supervised as compose runs it: a worker that exits on losing its broker is started again.
            stack.start_worker("worker", restart_on_exit=True)
            stack.apply(WORKLOADS)
            started = time.monotonic()
            stack.wait_for_copies(40, DEADLINE_S)
            redis.stop()
            at_stop = stack.copies_held()
            assert at_stop < WORKLOADS * 2, "stopped too late to prove anything"
            time.sleep(2)  # the worker and its beat find the broker gone
            redis.start()
            stack.settle(WORKLOADS, started, DEADLINE_S)
            print(f"worker restarts: {stack.restarts}")
    finally:
        redis.stop()
