"""Credentials under rotated keys: new and old both decrypt; reencrypt_credentials moves them to the new."""

from __future__ import annotations

import pytest
from django.test import override_settings

from clusters.credentials import CredentialsUnreadable
from clusters.k8s import ClusterConnection
from clusters.models import Cluster
from core.models import AuditEntry
from tests.support.commands import run_command

pytestmark = pytest.mark.django_db

OLD, NEW, STRANGER = "old-key-7f3a", "new-key-91bc", "someone-elses-key"


def connection_of(name: str) -> ClusterConnection:
    return ClusterConnection(
        name=name,
        server=f"https://{name}.example:6443",
        token=f"token-of-{name}",
        ca_data=b"CA PEM",
        client_cert_data=b"CERT PEM",
        client_key_data=f"KEY PEM of {name}".encode(),
    )


def joined_under(key: str, *names: str) -> None:
    with override_settings(KARMADA_UI_ENCRYPTION_KEY=key):
        for name in names:
            cluster = Cluster(name=name)
            cluster.set_connection(connection_of(name))
            cluster.save()


def stored() -> dict[str, str]:
    return dict(Cluster.objects.values_list("name", "credentials"))


def readable_with(key: str) -> dict[str, bool]:
    result = {}
    with override_settings(KARMADA_UI_ENCRYPTION_KEY=key):
        for cluster in Cluster.objects.exclude(credentials=""):
            try:
                result[cluster.name] = cluster.connection() == connection_of(cluster.name)
            except CredentialsUnreadable:
                result[cluster.name] = False
    return result


def test_with_the_new_key_prepended_old_and_new_credentials_both_decrypt():
    joined_under(OLD, "beijing")
    joined_under(f"{NEW},{OLD}", "shanghai")  # joined after the restart: encrypted with the new key
    assert readable_with(f"{NEW},{OLD}") == {"beijing": True, "shanghai": True}
    assert readable_with(NEW) == {"beijing": False, "shanghai": True}


def test_a_key_file_may_hold_one_key_a_line(tmp_path, monkeypatch):
    from core.env import env_str

    joined_under(OLD, "beijing")
    key_file = tmp_path / "encryption_key"
    key_file.write_text(f"{NEW}\n{OLD}\n")
    monkeypatch.setenv("KARMADA_UI_ENCRYPTION_KEY_FILE", str(key_file))
    assert readable_with(env_str("KARMADA_UI_ENCRYPTION_KEY")) == {"beijing": True}


def test_reencrypt_moves_every_credential_to_the_first_key_and_says_how_many():
    joined_under(OLD, "beijing", "shanghai")
    joined_under(f"{NEW},{OLD}", "guangzhou")
    Cluster.objects.create(name="bare", api_endpoint="https://bare.example")  # no credentials at all
    before = stored()
    with override_settings(KARMADA_UI_ENCRYPTION_KEY=f"{NEW},{OLD}"):
        status, out, err = run_command("reencrypt_credentials")
    assert (status, err) == (0, "")
    assert out.strip() == (
        "re-encrypted 2 clusters; 1 cluster already under the first key; 1 cluster without credentials"
    )
    after = stored()
    assert after["guangzhou"] == before["guangzhou"] and after["bare"] == ""
    assert after["beijing"] != before["beijing"] and after["shanghai"] != before["shanghai"]
    # The old key can now be dropped: everything reads with the new key alone, nothing with the old one.
    assert readable_with(NEW) == {"beijing": True, "shanghai": True, "guangzhou": True}
    assert readable_with(OLD) == {"beijing": False, "shanghai": False, "guangzhou": False}
    assert sorted(
        AuditEntry.objects.filter(action="CredentialsReencrypted").values_list("object_name", flat=True)
    ) == ["beijing", "shanghai"]


def test_reencrypt_run_again_changes_nothing():
    joined_under(OLD, "beijing", "shanghai")
    with override_settings(KARMADA_UI_ENCRYPTION_KEY=f"{NEW},{OLD}"):
        assert run_command("reencrypt_credentials")[0] == 0
        once = stored()
        status, out, _ = run_command("reencrypt_credentials")
    assert status == 0
    assert out.strip() == (
        "re-encrypted 0 clusters; 2 clusters already under the first key; 0 clusters without credentials"
    )
    assert stored() == once


def test_a_dry_run_reports_and_writes_nothing():
    joined_under(OLD, "beijing")
    before = stored()
    with override_settings(KARMADA_UI_ENCRYPTION_KEY=f"{NEW},{OLD}"):
        status, out, _ = run_command("reencrypt_credentials", "--dry-run")
    assert status == 0 and out.startswith("would re-encrypt 1 cluster;")
    assert stored() == before
    assert not AuditEntry.objects.filter(action="CredentialsReencrypted").exists()


def test_a_row_no_key_decrypts_stops_the_run_with_one_line_and_changes_nothing():
    joined_under(OLD, "beijing", "shanghai")
    joined_under(STRANGER, "guangzhou")
    before = stored()
    with override_settings(KARMADA_UI_ENCRYPTION_KEY=f"{NEW},{OLD}"):
        status, out, err = run_command("reencrypt_credentials")
    assert status != 0 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "guangzhou" in lines[0] and "beijing" not in lines[0] and "nothing was re-encrypted" in lines[0]
    assert "Traceback" not in err
    assert stored() == before  # beijing and shanghai were readable, and still were not touched
    assert not AuditEntry.objects.filter(action="CredentialsReencrypted").exists()
