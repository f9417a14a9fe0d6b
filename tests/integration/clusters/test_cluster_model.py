"""Cluster credentials are encrypted at rest and come back as the same connection."""

import pytest
from django.db import connection as db
from django.test import override_settings

from clusters.credentials import CredentialsUnreadable
from clusters.k8s import ClusterConnection
from clusters.models import Cluster

pytestmark = pytest.mark.django_db

CONN = ClusterConnection(
    name="beijing",
    server="https://10.0.0.1:6443",
    token="very-secret-token",
    ca_data=b"CA PEM",
    client_cert_data=b"CERT PEM",
    client_key_data=b"KEY PEM",
)


def saved_cluster() -> Cluster:
    cluster = Cluster(name="beijing")
    cluster.set_connection(CONN)
    cluster.full_clean()
    cluster.save()
    return cluster


def test_the_connection_round_trips_through_the_database():
    saved_cluster()
    assert Cluster.objects.get(name="beijing").connection() == CONN


def test_no_secret_is_stored_in_clear_text():
    saved_cluster()
    with db.cursor() as cursor:
        cursor.execute("SELECT * FROM clusters_cluster")
        row = " ".join(str(value) for value in cursor.fetchone())
    for secret in ("very-secret-token", "CERT PEM", "KEY PEM", "Q0VSVCBQRU0"):
        assert secret not in row


def test_a_changed_key_makes_the_credentials_unreadable_with_a_clear_message():
    saved_cluster()
    with override_settings(KARMADA_UI_ENCRYPTION_KEY="another-key"):
        with pytest.raises(CredentialsUnreadable, match="KARMADA_UI_ENCRYPTION_KEY"):
            Cluster.objects.get(name="beijing").connection()


def test_keys_rotate_when_the_old_key_is_kept_after_the_new_one(settings):
    old = settings.KARMADA_UI_ENCRYPTION_KEY
    saved_cluster()
    with override_settings(KARMADA_UI_ENCRYPTION_KEY=f"new-key,{old}"):
        assert Cluster.objects.get(name="beijing").connection() == CONN


def test_bump_raises_the_resource_version_with_the_change():
    cluster = saved_cluster()
    Cluster.objects.filter(pk=cluster.pk).bump(labels={"env": "prod"})
    cluster.refresh_from_db()
    assert (cluster.resource_version, cluster.labels) == (2, {"env": "prod"})


def test_the_fleet_summary_counts_clusters_by_ready_status():
    from karmada_ui.header import fleet_summary

    for name, ready in (("a", "True"), ("b", "True"), ("c", "False"), ("d", "Unknown")):
        Cluster.objects.create(name=name, api_endpoint="https://h", ready=ready)
    assert fleet_summary() == "4 clusters · 2 Ready · 1 NotReady · 1 Unknown"


def test_a_ready_cluster_nobody_probed_lately_says_so_in_its_reasons(settings):
    from datetime import timedelta

    from django.utils import timezone

    from clusters.summary import reasons

    now = timezone.now()
    cluster = Cluster(name="quiet", ready="True", last_probe_at=now - timedelta(seconds=90))
    assert reasons(cluster, now) == ["no health probe for 90 s"]
    cluster.last_probe_at = now - timedelta(seconds=5)
    assert reasons(cluster, now) == []
