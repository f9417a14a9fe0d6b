"""A WorkloadRebalancer with ttlSecondsAfterFinished goes that long after it finished, leaving a
deletion record for watches; one without a TTL stays."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from kubeapi.models import Tombstone
from scheduling import services, tasks
from scheduling.controllers.rebalancing import expire_rebalancers
from scheduling.models import WorkloadRebalancer

pytestmark = pytest.mark.django_db

MISSING = [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "gone", "namespace": "default"}]


def rebalancer(name: str, ttl: int | None) -> WorkloadRebalancer:
    spec: dict = {"workloads": MISSING}
    if ttl is not None:
        spec["ttlSecondsAfterFinished"] = ttl
    return services.save_rebalancer({"metadata": {"name": name}, "spec": spec})


def test_a_rebalancer_goes_once_its_ttl_after_finishing_has_passed():
    finished = rebalancer("short", 60).finish_time
    rebalancer("kept", None)
    assert expire_rebalancers(finished + timedelta(seconds=59)) == []
    assert expire_rebalancers(finished + timedelta(seconds=60)) == ["short"]
    assert list(WorkloadRebalancer.objects.values_list("name", flat=True)) == ["kept"]
    gone = Tombstone.objects.get(name="short")
    assert gone.kind_key == "apps.karmada.io/WorkloadRebalancer"


def test_the_periodic_task_expires_them():
    rebalancer("now", 0)
    WorkloadRebalancer.objects.update(finish_time=timezone.now() - timedelta(seconds=1))
    tasks.expire_rebalancers()
    assert not WorkloadRebalancer.objects.exists()
