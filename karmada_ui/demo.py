"""The zero-setup demo: three simulated member clusters, a worker with beat, the member watcher and the
web server."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command, get_commands

from core.roles import ADMIN, grant
from karmada_ui.celery import ONE_WORKER_QUEUES

DEMO_CLUSTERS = (
    # name, membersim options, cluster labels given at join
    (
        "beijing",
        "region=cn-north,zones=cn-north-a|cn-north-b,provider=aliyun,nodes=5,ssd=2,cpu=8,memory=32Gi,"
        "pod-cidr=10.1.0.0/16,service-cidr=10.96.0.0/16,version=1.31.4",
        {"env": "prod", "location/region": "cn-north", "location/zone": "cn-north-a", "provider": "aliyun"},
    ),
    (
        "shanghai",
        "region=cn-east,zones=cn-east-a,provider=aliyun,nodes=4,ssd=1,cpu=8,memory=32Gi,"
        "pod-cidr=10.2.0.0/16,service-cidr=10.97.0.0/16,version=1.30.2",
        {"env": "prod", "location/region": "cn-east", "location/zone": "cn-east-a", "provider": "aliyun"},
    ),
    (
        "guangzhou",
        "region=cn-south,zones=cn-south-a,provider=tencent,nodes=3,ssd=0,cpu=4,memory=16Gi,"
        "pod-cidr=10.3.0.0/16,service-cidr=10.98.0.0/16,version=1.31.4",
        {
            "env": "staging",
            "location/region": "cn-south",
            "location/zone": "cn-south-a",
            "provider": "tencent",
        },
    ),
)
DEMO_WORKLOAD = Path(__file__).resolve().parent.parent / "examples" / "shop.yaml"
MEMBERSIM_FIRST_PORT = 18081
ADMIN_USERNAME = "admin"


@dataclass
class Supervisor:
    """Starts child processes in their own process groups and stops them all together."""

    children: list[tuple[str, subprocess.Popen]] = field(default_factory=list)

    def start(self, name: str, argv: list[str], env: dict[str, str] | None = None) -> subprocess.Popen:
        process = subprocess.Popen(argv, env={**os.environ, **(env or {})}, start_new_session=True)
        self.children.append((name, process))
        return process

    def first_exited(self) -> tuple[str, int] | None:
        for name, process in self.children:
            code = process.poll()
            if code is not None:
                return name, code
        return None

    def stop_all(self, grace: float = 8.0) -> None:
        # Ask each leader to shut down cleanly (celery drains its pool); its whole group is killed only
        # if it is still there after the grace period.
        for _, process in reversed(self.children):
            if process.poll() is None:
                process.terminate()
        deadline = time.monotonic() + grace
        for _, process in self.children:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def ensure_admin(stdout) -> None:
    """Create the admin user once; the password comes from the environment or is generated and shown once."""
    users = get_user_model().objects
    wanted = os.environ.get("KARMADA_UI_ADMIN_PASSWORD", "")
    user = users.filter(username=ADMIN_USERNAME).first()
    if user is None:
        password = wanted or secrets.token_urlsafe(12)
        user = users.create_superuser(ADMIN_USERNAME, password=password)
        grant(user, ADMIN)
        source = "from KARMADA_UI_ADMIN_PASSWORD" if wanted else "generated; shown only this once"
        stdout.write(f"Admin user: {ADMIN_USERNAME} / {password}   ({source})")
    elif wanted and not user.check_password(wanted):
        user.set_password(wanted)
        user.save(update_fields=["password"])
        stdout.write(f"Admin user: {ADMIN_USERNAME} (password reset from KARMADA_UI_ADMIN_PASSWORD)")
    else:
        stdout.write(
            f"Admin user: {ADMIN_USERNAME} (already exists; set KARMADA_UI_ADMIN_PASSWORD to reset it)"
        )


def wait_for_file(path: Path, process: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.stat().st_size > 0:
            return
        if process.poll() is not None:
            raise RuntimeError(f"membersim exited with code {process.returncode} before writing {path}")
        time.sleep(0.1)
    raise RuntimeError(f"membersim did not write {path} within {timeout:.0f} s")


def join_demo_clusters(kubeconfig: Path, stdout) -> None:
    """Register the simulated clusters exactly as a user registers real ones, through `join`."""
    if "join" not in get_commands():
        stdout.write("Cluster registration is not available yet; the simulated clusters are not joined.")
        return
    for name, _, labels in DEMO_CLUSTERS:
        label_args = [f"{key}={value}" for key, value in labels.items()]
        call_command(
            "join",
            name,
            kubeconfig=str(kubeconfig),
            context=name,
            label=label_args,
            update=True,
            stdout=stdout,
        )


def ctl_hint(kubeconfig: Path) -> str:
    """The `membersim ctl` command line for this demo: membersim finds var/demo/kubeconfig by itself
    when run from the directory above var/, and is told where it is otherwise."""
    try:
        default = kubeconfig.resolve() == (Path.cwd() / "var" / "demo" / "kubeconfig").resolve()
    except OSError:
        default = False
    prefix = "" if default else f"MEMBERSIM_KUBECONFIG={kubeconfig} "
    return f"{prefix}python -m membersim ctl"


def seed_demo_workload(stdout) -> None:
    """Apply the shop Deployment once, so the policy editor has a workload to place from the start."""
    from scheduling.models import ResourceTemplate
    from scheduling.services import apply_yaml

    if not ResourceTemplate.objects.filter(kind="Deployment", namespace="default", name="shop").exists():
        apply_yaml(DEMO_WORKLOAD.read_text())
    stdout.write(
        "Demo workload: Deployment default/shop, 10 replicas, waiting for a policy (Policies → New policy)."
    )


# The Kubernetes API over TLS (kubectl sends tokens only over https); KUBEAPI_SERVER_URL names it.
KUBEAPI_PORT = 8443


def run(stdout, port: int) -> int:
    demo_dir = settings.VAR_DIR / "demo"
    demo_dir.mkdir(parents=True, exist_ok=True)
    kubeconfig = demo_dir / "kubeconfig"
    kubeconfig.unlink(missing_ok=True)
    python = sys.executable
    supervisor = Supervisor()
    stop = {"requested": False}

    def request_stop(signum, frame):
        stop["requested"] = True

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    try:
        call_command("migrate", interactive=False, verbosity=0)
        ensure_admin(stdout)
        argv = [
            python,
            "-m",
            "membersim",
            "--tls",
            "--require-token",
            "--kubeconfig",
            str(kubeconfig),
            "--port",
            str(MEMBERSIM_FIRST_PORT),
        ]
        for name, options, _ in DEMO_CLUSTERS:
            argv += ["--cluster", f"{name}:{options}"]
        membersim = supervisor.start("membersim", argv)
        wait_for_file(kubeconfig, membersim, timeout=30)
        join_demo_clusters(kubeconfig, stdout)
        seed_demo_workload(stdout)
        supervisor.start(
            "worker",
            [
                python,
                "-m",
                "celery",
                "--quiet",
                "-A",
                "karmada_ui",
                "worker",
                "--beat",
                "--schedule",
                str(settings.VAR_DIR / "celerybeat-schedule"),
                "-Q",
                ONE_WORKER_QUEUES,
                "--concurrency",
                "2",
                "--loglevel",
                "WARNING",
            ],
        )
        # Member state by watch: status, health and hand edits reach the Works as they happen.
        supervisor.start("watcher", [python, "manage.py", "watch_members"])
        supervisor.start(
            "web", [python, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload", "--skip-checks"]
        )
        supervisor.start("kubeapi", [python, "manage.py", "serve_kubeapi", "--port", str(KUBEAPI_PORT)])
        stdout.write(f"\nkarmada-ui is running on http://127.0.0.1:{port}/  (Ctrl-C stops everything)")
        stdout.write(
            "kubectl: python manage.py kubeconfig --user admin > var/kubeconfig-karmada-ui && "
            "kubectl --kubeconfig var/kubeconfig-karmada-ui get clusters"
        )
        stdout.write(f"Member clusters: kubectl --kubeconfig {kubeconfig} --context beijing get nodes")
        stdout.write(f"Faults: {ctl_hint(kubeconfig)} beijing down   (and: up, slow 3, errors, refuse)\n")
        while not stop["requested"]:
            exited = supervisor.first_exited()
            if exited:
                stdout.write(f"{exited[0]} stopped with exit code {exited[1]}; stopping the demo.")
                return 1
            time.sleep(0.5)
        stdout.write("Stopping…")
        return 0
    finally:
        supervisor.stop_all()
