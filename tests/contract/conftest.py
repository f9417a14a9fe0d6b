"""Fixtures for the contract suite: simulated clusters and a kubectl runner with fresh caches."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from membersim import ClusterSpec, Simulator

KUBECTL = shutil.which("kubectl")
# The oldest and newest minors the preinstalled kubectl dispatcher bundles; the server's /version
# picks which one runs, so each simulated cluster reports one of them.
KUBECTL_MINORS = {"1.27": "1.27.16", "1.33": "1.33.1"}


@dataclass
class Kubectl:
    """Runs the real kubectl against one simulated cluster, each call with a fresh --cache-dir."""

    kubeconfig: Path
    context: str
    workdir: Path

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
        env["HOME"] = str(self.workdir)
        return env

    def args(self, *args: str) -> list[str]:
        cache = self.workdir / f"cache-{len(list(self.workdir.iterdir()))}"
        cache.mkdir(exist_ok=True)
        base = [
            KUBECTL,
            "--kubeconfig",
            str(self.kubeconfig),
            "--context",
            self.context,
            "--cache-dir",
            str(cache),
        ]
        return base + list(args)

    def run(
        self, *args: str, input: str | None = None, check: bool = True, timeout: float = 30
    ) -> subprocess.CompletedProcess:
        result = subprocess.run(
            self.args(*args), input=input, capture_output=True, text=True, timeout=timeout, env=self.env()
        )
        if check and result.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed ({result.returncode}): {result.stderr}")
        return result

    def json(self, *args: str) -> dict:
        return json.loads(self.run(*args, "-o", "json").stdout)

    def popen(self, *args: str) -> subprocess.Popen:
        return subprocess.Popen(
            self.args(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env()
        )


@pytest.fixture(scope="module", params=sorted(KUBECTL_MINORS))
def kubectl(request, tmp_path_factory):
    """kubectl (of the parametrized minor) against a fresh TLS cluster that reports that minor."""
    if KUBECTL is None:
        pytest.skip("kubectl is not installed, so the kubectl contract cannot be checked here")
    minor = request.param
    spec = ClusterSpec(
        name="member",
        nodes=3,
        node_cpu="4",
        node_memory="16Gi",
        region="cn-north",
        zones=["a", "b"],
        version=KUBECTL_MINORS[minor],
    )
    workdir = tmp_path_factory.mktemp(f"kubectl-{minor}")
    with Simulator([spec], tls=True) as simulator:
        kubeconfig = simulator.write_kubeconfig(workdir / "kubeconfig")
        runner = Kubectl(kubeconfig, "member", workdir / "home")
        runner.workdir.mkdir()
        runner.minor = minor  # type: ignore[attr-defined]
        runner.simulator = simulator  # type: ignore[attr-defined]
        yield runner


@pytest.fixture(scope="module")
def tls_members(tmp_path_factory):
    """Two TLS clusters for the official client, with a kubeconfig holding one context each."""
    specs = [
        ClusterSpec(
            name="beijing",
            nodes=3,
            node_cpu="4",
            node_memory="16Gi",
            region="cn-north",
            zones=["cn-north-a"],
            provider="aliyun",
            ssd_nodes=1,
        ),
        ClusterSpec(name="shanghai", nodes=2, region="cn-east", version="1.30.2"),
    ]
    with Simulator(specs, tls=True) as simulator:
        simulator.kubeconfig_path = simulator.write_kubeconfig(
            tmp_path_factory.mktemp("members") / "kubeconfig"
        )  # type: ignore[attr-defined]
        yield simulator
