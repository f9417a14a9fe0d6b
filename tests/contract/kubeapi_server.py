"""A TLS server of the Django app in the test process, and kubectl pointed at its /k8s as a user."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import yaml
from django.core.handlers.wsgi import WSGIHandler
from rest_framework.authtoken.models import Token

from kubeapi.management.commands.kubeconfig import kubeconfig
from kubeapi.tls import ensure_certificates, https_server, serve_in_thread


@dataclass
class KubeApiServer:
    url: str
    ca: Path
    workdir: Path

    def kubectl_as(self, user) -> KubectlAs:
        token, _ = Token.objects.get_or_create(user=user)
        path = self.workdir / f"kubeconfig-{user.get_username()}"
        path.write_text(yaml.safe_dump(kubeconfig(self.url, token.key, self.ca.read_bytes(), user.username)))
        home = self.workdir / f"home-{user.get_username()}"
        home.mkdir(exist_ok=True)
        return KubectlAs(path, home)


@dataclass
class KubectlAs:
    kubeconfig: Path
    home: Path

    def run(self, *args: str, input: str | None = None, check: bool = True) -> subprocess.CompletedProcess:
        cache = self.home / f"cache-{len(list(self.home.iterdir()))}"
        env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
        env["HOME"] = str(self.home)
        argv = ["kubectl", "--kubeconfig", str(self.kubeconfig), "--cache-dir", str(cache), *args]
        result = subprocess.run(argv, input=input, capture_output=True, text=True, timeout=60, env=env)
        if check and result.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed ({result.returncode}): {result.stderr}")
        return result

    def json(self, *args: str) -> dict:
        return json.loads(self.run(*args, "-o", "json").stdout)


def start(workdir: Path) -> tuple[KubeApiServer, object]:
    certificates = ensure_certificates(workdir / "tls")
    server = https_server(WSGIHandler(), "127.0.0.1", 0, certificates)
    serve_in_thread(server)
    port = server.server_address[1]
    return KubeApiServer(f"https://127.0.0.1:{port}/k8s", certificates.ca, workdir), server


def served(tmp_path_factory, label: str):
    """A module fixture's body: the server while the module runs, shut down after; skips without kubectl
    (the TLS helper writes kubeconfigs the way kubectl reads them)."""
    import shutil

    import pytest

    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not installed, so the kubectl contract cannot be checked here")
    api, httpd = start(tmp_path_factory.mktemp(label))
    yield api
    httpd.shutdown()
    httpd.server_close()
