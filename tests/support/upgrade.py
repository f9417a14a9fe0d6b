"""The steps of an upgrade test, each run in its own process: `python -m tests.support.upgrade STEP`.

`old-schema` migrates the database of DATABASE_URL to exactly the recorded previous release, `old-rows`
writes a representative fleet through that release's models (the historical ones, as a data migration
would), and `read` answers, as JSON on stdout, what the current code reads back after `migrate`.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import django

RECORD = Path(__file__).resolve().parents[1] / "data" / "schema-9b1fc28.json"
TOKEN = "upgrade-token-5c2d8e"
CLIENT_KEY = b"-----BEGIN PRIVATE KEY-----\nupgrade-client-key\n-----END PRIVATE KEY-----\n"
CLIENT_CERT = b"-----BEGIN CERTIFICATE-----\nupgrade-client-cert\n-----END CERTIFICATE-----\n"
TALLY = (
    "karmada_scheduler_schedule_attempts_total",
    '[["result","scheduled"],["schedule_type","ReconcileSchedule"]]',
)


def recorded_state() -> dict[str, list[str]]:
    """Every app's applied migrations at the previous release, dependencies first."""
    record = json.loads(RECORD.read_text())
    state = {app: list(names) for app, names in record["dependencies"].items()}
    state.update({app: list(entry["files"]) for app, entry in record["project"].items()})
    return state


def applied() -> dict[str, list[str]]:
    from django.db import connection
    from django.db.migrations.recorder import MigrationRecorder

    result: dict[str, list[str]] = {}
    for app, name in sorted(MigrationRecorder(connection).applied_migrations()):
        result.setdefault(app, []).append(name)
    return result


def old_schema() -> dict[str, list[str]]:
    from django.core.management import call_command

    for app, names in recorded_state().items():
        call_command("migrate", app, names[-1], verbosity=0, interactive=False)
    return applied()


def old_rows() -> dict[str, int]:
    """The fleet of a previous-release user, written with that release's models."""
    from django.db import connection, transaction
    from django.db.migrations.loader import MigrationLoader
    from django.utils import timezone

    from clusters.credentials import encrypt_connection
    from clusters.k8s import ClusterConnection

    leaves = [(app, names[-1]) for app, names in recorded_state().items()]
    old = MigrationLoader(connection).project_state(leaves, at_end=True).apps
    secret = encrypt_connection(
        ClusterConnection(
            name="beijing",
            server="https://beijing.example:6443",
            token=TOKEN,
            ca_data=b"CA PEM",
            client_cert_data=CLIENT_CERT,
            client_key_data=CLIENT_KEY,
        )
    )
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
            },
        },
    }
    with transaction.atomic():
        user = old.get_model("auth", "User").objects.create(username="ada", is_staff=True, is_superuser=True)
        old.get_model("clusters", "Cluster").objects.create(
            name="beijing",
            api_endpoint="https://beijing.example:6443",
            credentials=secret,
            labels={"env": "prod", "location/region": "cn-north"},
            ready="True",
            kubernetes_version="v1.31.4",
        )
        policy = old.get_model("scheduling", "PropagationPolicy").objects.create(
            kind="PropagationPolicy",
            namespace="default",
            name="web",
            spec={
                "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
                "placement": {"clusterAffinity": {"clusterNames": ["beijing"]}},
            },
        )
        template = old.get_model("scheduling", "ResourceTemplate").objects.create(
            api_version="apps/v1",
            api_group="apps",
            kind="Deployment",
            namespace="default",
            name="web",
            manifest=deployment,
            policy=policy,
        )
        binding = old.get_model("scheduling", "ResourceBinding").objects.create(
            namespace="default",
            name="web-deployment",
            template=template,
            policy=policy,
            replicas=2,
            clusters=[{"name": "beijing", "replicas": 2}],
        )
        old.get_model("scheduling", "Work").objects.create(
            binding=binding,
            cluster_name="beijing",
            namespace="karmada-es-beijing",
            name="web-deployment-7c9f",
            manifest=deployment,
            desired_hash="d" * 64,
            applied_hash="d" * 64,
            applied=True,
            health="Healthy",
        )
        # Before the move to core and metrics these tables belonged to karmada_ui and observability.
        old.get_model("karmada_ui", "AuditEntry").objects.create(
            user=user,
            username="ada",
            action="apply:created",
            object_kind="PropagationPolicy",
            object_namespace="default",
            object_name="web",
            placement_delta={"beijing": {"before": 0, "after": 2}},
        )
        old.get_model("observability", "Tally").objects.create(
            name=TALLY[0],
            labels=TALLY[1],
            le="",
            window=timezone.now().replace(second=0, microsecond=0),
            count=3,
        )
    return {"users": 1, "clusters": 1}


def read() -> dict[str, object]:
    """What the current code makes of the upgraded database: rows, pages, the API, export and /metrics."""
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.test.utils import setup_test_environment

    from clusters.models import Cluster
    from core.models import AuditEntry
    from metrics.models import Tally
    from scheduling.controllers.export import export_documents
    from scheduling.models import ResourceBinding, Work

    setup_test_environment()
    connection = Cluster.objects.get(name="beijing").connection()
    binding = ResourceBinding.objects.select_related("template", "policy").get(name="web-deployment")
    client = Client()
    client.force_login(get_user_model().objects.get(username="ada"))

    def page(path: str) -> dict[str, object]:
        response = client.get(path)
        return {"status": response.status_code, "text": response.content.decode()}

    return {
        "applied": applied(),
        "credentials": [
            connection.token,
            connection.client_key_data.decode() if connection.client_key_data else None,
        ],
        "binding": [binding.template.name, binding.policy.name if binding.policy else None, binding.clusters],
        "works": list(Work.objects.values_list("cluster_name", "applied", "health")),
        "audit": list(AuditEntry.objects.values_list("username", "action", "object_name", "placement_delta")),
        "tally": list(Tally.objects.values_list("name", "labels", "count")),
        "export": sorted(f"{doc['kind']}/{doc['metadata']['name']}" for doc in export_documents()),
        "pages": {
            path: page(path)
            for path in (
                "/clusters/",
                "/clusters/c/beijing/",
                f"/workloads/{binding.template_id}/",
                "/audit/",
                "/api/v1/audit/",
                "/metrics",
            )
        },
    }


STEPS = {"old-schema": old_schema, "old-rows": old_rows, "read": read}

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "karmada_ui.settings")
    django.setup()
    json.dump(STEPS[sys.argv[1]](), sys.stdout, default=str)
