"""Deletion records for watches: every delete records one, and prunes expired ones a batch at a time."""

from __future__ import annotations

import pytest

from clusters.models import Cluster
from kubeapi import tombstones, versions
from kubeapi.models import ManagedFields, Tombstone

pytestmark = pytest.mark.django_db


def expired(count: int) -> None:
    old = versions.oldest_watchable() - 1_000_000
    Tombstone.objects.bulk_create(
        Tombstone(kind_key="x/Old", name=f"old-{i}", resource_version=old - i, document={})
        for i in range(count)
    )


def test_a_delete_records_a_tombstone_and_forgets_the_objects_managers():
    cluster = Cluster.objects.create(name="beijing", api_endpoint="https://b.example:6443")
    ManagedFields.objects.create(
        kind_key="cluster.karmada.io/Cluster", name="beijing", entries=[{"manager": "m"}]
    )
    cluster.delete()
    gone = Tombstone.objects.get(name="beijing")
    assert gone.kind_key == "cluster.karmada.io/Cluster"
    assert gone.document["metadata"]["resourceVersion"] == str(gone.resource_version)
    assert not ManagedFields.objects.exists()


def test_each_delete_prunes_at_most_one_batch_of_expired_records():
    expired(tombstones.PRUNE_BATCH + 5)
    Cluster.objects.create(name="beijing", api_endpoint="https://b.example:6443").delete()
    assert Tombstone.objects.filter(kind_key="x/Old").count() == 5
    assert Tombstone.objects.filter(name="beijing").exists()
    Cluster.objects.create(name="shanghai", api_endpoint="https://s.example:6443").delete()
    assert not Tombstone.objects.filter(kind_key="x/Old").exists()
    assert Tombstone.objects.count() == 2
