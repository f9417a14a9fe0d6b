"""Backup and restore as the README says: pg_dump of the database, the encryption key kept apart."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.databases import fresh_database

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "backup-token-31f9a0"
REGISTER = f"""
from clusters.k8s import ClusterConnection
from clusters.models import Cluster
cluster = Cluster(name="beijing", ready="True", labels={{"env": "prod"}})
conn = ClusterConnection(name="beijing", server="https://beijing.example:6443", token="{TOKEN}")
cluster.set_connection(conn)
cluster.save()
"""
READ_TOKEN = (
    "from clusters.models import Cluster; print(Cluster.objects.get(name='beijing').connection().token)"
)
APP = """apiVersion: apps/v1
kind: Deployment
metadata: {name: shop, namespace: default}
spec:
  replicas: 3
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec: {containers: [{name: shop, image: "nginx:1.27"}]}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: shop, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: shop}]
  placement: {clusterAffinity: {clusterNames: [beijing]}}
"""

pytestmark = pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))
    or not (shutil.which("pg_dump") and shutil.which("pg_restore")),
    reason="needs PostgreSQL (DATABASE_URL) and its pg_dump and pg_restore",
)


def manage(env: dict[str, str], *argv: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *argv], cwd=ROOT, env=env, input=stdin, capture_output=True, text=True
    )


def test_a_dump_restored_with_the_same_key_is_the_same_fleet_and_without_it_the_credentials_are_lost(
    tmp_path,
):
    base = {**os.environ, "KARMADA_UI_VAR_DIR": str(tmp_path), "CELERY_TASK_ALWAYS_EAGER": "0"}
    base["KARMADA_UI_ENCRYPTION_KEY"] = "the-key-kept-apart"
    with fresh_database(tmp_path, "backup") as original, fresh_database(tmp_path, "restored") as restored:
        before = {**base, "DATABASE_URL": original}
        for step in (("migrate", "-v0"), ("shell", "-c", REGISTER)):
            done = manage(before, *step)
            assert done.returncode == 0, done.stderr
        # apply enqueues the detector on commit; with no worker the message simply waits in the broker.
        done = manage(
            {**before, "CELERY_BROKER_URL": f"filesystem://{tmp_path}/broker"}, "apply", "-f", "-", stdin=APP
        )
        assert done.returncode == 0, done.stderr
        exported = manage(before, "export")
        assert exported.returncode == 0 and "name: shop" in exported.stdout

        dump = tmp_path / "karmada.dump"
        with open(dump, "wb") as out:
            subprocess.run(["pg_dump", "-Fc", "--no-owner", original], stdout=out, check=True)
        restore = subprocess.run(
            ["pg_restore", "--clean", "--if-exists", "--no-owner", "-d", restored, str(dump)],
            capture_output=True,
            text=True,
        )
        assert restore.returncode == 0, restore.stderr

        after = {**base, "DATABASE_URL": restored}
        assert manage(after, "migrate", "--check").returncode == 0  # nothing left to migrate
        assert manage(after, "export").stdout == exported.stdout
        assert manage(after, "shell", "-c", READ_TOKEN).stdout.strip().splitlines()[-1] == TOKEN
        lost = manage({**after, "KARMADA_UI_ENCRYPTION_KEY": "a-new-key"}, "shell", "-c", READ_TOKEN)
        assert lost.returncode != 0 and "cannot be decrypted" in lost.stderr
