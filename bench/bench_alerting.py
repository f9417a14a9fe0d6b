"""Benchmark: time from a member cluster failing to a firing ClusterUnhealthy alert (`for: 0`), end to end.

Everything runs as in the demo: simulated clusters in their own process, a real Celery worker with beat
on the demo's folder broker (health collection every HEALTH_PROBE_INTERVAL, rule evaluation every
ALERT_EVALUATION_INTERVAL), the demo's health thresholds, and a webhook receiver on 127.0.0.1. Each trial
stops one cluster (`membersim ctl NAME down`) at a random point of the probe cycle and clocks when the
alert fires and when its webhook arrives. Prints both beside the 20 s target as a ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TARGET = 20.0
CLUSTERS = ("beijing", "shanghai", "guangzhou")


def environment(var_dir: Path) -> dict[str, str]:
    return {
        "KARMADA_UI_VAR_DIR": str(var_dir),
        "DATABASE_URL": f"sqlite:///{var_dir / 'bench.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "karmada_ui.settings",
        "CELERY_BROKER_URL": "filesystem://",
        "ALERT_CLUSTER_UNHEALTHY_FOR": "0",
        "LOG_LEVEL": "ERROR",
    }


class Webhook:
    """Records when each firing notification for a cluster arrives."""

    def __init__(self) -> None:
        self.arrived: dict[str, float] = {}
        webhook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                for alert in body["alerts"]:
                    if body["status"] == "firing":
                        webhook.arrived.setdefault(
                            alert["labels"].get("member_cluster", ""), time.monotonic()
                        )
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/alerts"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def start_membersim(var_dir: Path) -> tuple[subprocess.Popen, Path]:
    kubeconfig = var_dir / "kubeconfig"
    argv = [sys.executable, "-m", "membersim", "--kubeconfig", str(kubeconfig)]
    for name in CLUSTERS:
        argv += ["--cluster", f"{name}:nodes=3"]
    process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not (kubeconfig.exists() and kubeconfig.stat().st_size):
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"membersim did not start: {process.stderr.read().decode()[-500:]}")
        time.sleep(0.1)
    return process, kubeconfig


def start_worker(var_dir: Path) -> subprocess.Popen:
    argv = [
        sys.executable, "-m", "celery", "-A", "karmada_ui", "worker", "--beat",
        "--schedule", str(var_dir / "celerybeat-schedule"),
        "-Q", "health,schedule,propagate,celery,schedule-bulk,propagate-bulk",
        "--concurrency", "2", "--loglevel", "ERROR",
    ]  # fmt: skip
    return subprocess.Popen(argv, cwd=ROOT, env=os.environ.copy(), stdout=subprocess.DEVNULL)


def control(kubeconfig: Path, name: str, action: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "membersim", "ctl", "--kubeconfig", str(kubeconfig), name, action],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def wait_for(condition, timeout: float, what: str) -> float:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return time.monotonic()
        time.sleep(0.05)
    raise SystemExit(f"timed out after {timeout:.0f} s waiting for {what}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=6)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    with tempfile.TemporaryDirectory(prefix="bench-alerting-") as tmp:
        var_dir = Path(tmp)
        os.environ.update(environment(var_dir))
        import django

        django.setup()
        from django.conf import settings
        from django.core.management import call_command

        from clusters.models import Cluster
        from karmada_ui.celery import prepare_folder_broker
        from observability.models import Alert, AlertState, Receiver

        call_command("migrate", verbosity=0)
        prepare_folder_broker()
        membersim, kubeconfig = start_membersim(var_dir)
        worker = None
        try:
            for name in CLUSTERS:
                call_command(
                    "join", name, kubeconfig=str(kubeconfig), context=name, stdout=open(os.devnull, "w")
                )
            webhook = Webhook()
            Receiver.objects.create(name="bench", kind="webhook", url=webhook.url)
            worker = start_worker(var_dir)
            wait_for(
                lambda: Cluster.objects.filter(last_collected_at__isnull=False).count() == len(CLUSTERS),
                90,
                "the worker's first health collection",
            )
            print(
                f"probe interval {settings.HEALTH_PROBE_INTERVAL:g} s, "
                f"call timeout {settings.HEALTH_CALL_TIMEOUT:g} s, "
                f"failure threshold {settings.HEALTH_FAILURE_THRESHOLD:g} s, rule evaluation every "
                f"{settings.ALERT_EVALUATION_INTERVAL:g} s; ClusterUnhealthy with for: 0"
            )
            to_fire, to_webhook = [], []
            for trial in range(args.trials):
                name = CLUSTERS[trial % len(CLUSTERS)]
                time.sleep(rng.uniform(0, settings.HEALTH_PROBE_INTERVAL))  # land anywhere in the cycle
                webhook.arrived.pop(name, None)
                started = time.monotonic()
                control(kubeconfig, name, "down")
                firing = Alert.objects.filter(
                    rule="ClusterUnhealthy", labels__member_cluster=name, state=AlertState.FIRING
                )
                fired = wait_for(firing.exists, 120, f"ClusterUnhealthy for {name}")
                wait_for(lambda name=name: name in webhook.arrived, 60, f"the webhook for {name}")
                delivered = webhook.arrived[name]
                to_fire.append(fired - started)
                to_webhook.append(delivered - started)
                print(
                    f"trial {trial + 1}: {name} down → firing {fired - started:5.1f} s, "
                    f"webhook {delivered - started:5.1f} s"
                )
                control(kubeconfig, name, "up")
                resolved = Alert.objects.filter(
                    rule="ClusterUnhealthy", labels__member_cluster=name, state=AlertState.RESOLVED
                )
                wait_for(resolved.exists, 120, f"ClusterUnhealthy for {name} to resolve")
                Alert.objects.filter(rule="ClusterUnhealthy", state=AlertState.RESOLVED).delete()

            worst = max(to_fire)
            print(
                f"cluster failing → firing alert: median {statistics.median(to_fire):.1f} s, "
                f"max {worst:.1f} s over {len(to_fire)} trials; "
                f"target {TARGET:.0f} s → max/target = {worst / TARGET:.2f}"
            )
            print(
                f"cluster failing → webhook received: median {statistics.median(to_webhook):.1f} s, "
                f"max {max(to_webhook):.1f} s; max/target = {max(to_webhook) / TARGET:.2f}"
            )
            ok = worst < TARGET
            print("result:", "within the target" if ok else "OVER the target")
            return 0 if ok else 1
        finally:
            if worker is not None:
                worker.terminate()
                worker.wait(20)
            membersim.terminate()
            membersim.wait(10)


if __name__ == "__main__":
    raise SystemExit(main())
