"""Controllers' bulk writes move the change time the Kubernetes API's resourceVersion and watches read:
a member's status change does, a steady probe does not; a rebalance moves its binding's."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from clusters.collector import collect_cluster
from clusters.models import Cluster
from kubeapi.stores.bindings import BindingStore
from kubeapi.stores.clusters import ClusterStore
from membersim import ClusterSpec
from scheduling import services
from scheduling.models import ResourceBinding, ResourceTemplate

pytestmark = pytest.mark.django_db


def version() -> int:
    return ClusterStore().version(Cluster.objects.get(name="beijing"))


def test_a_members_status_change_moves_the_clusters_resource_version_a_steady_probe_does_not(
    simulate, member_kubeconfig, settings
):
    settings.HEALTH_CALL_TIMEOUT = 0.5
    sim = simulate(ClusterSpec(name="beijing", nodes=2))
    call_command("join", "beijing", kubeconfig=str(member_kubeconfig(sim)), context="beijing")
    collect_cluster(Cluster.objects.get(name="beijing").pk)
    steady = version()
    collect_cluster(Cluster.objects.get(name="beijing").pk)
    assert version() == steady
    sim.control("beijing", "node-notready", "beijing-node-1")
    collect_cluster(Cluster.objects.get(name="beijing").pk)
    assert Cluster.objects.get(name="beijing").status["nodeSummary"]["readyNum"] == 1
    assert version() > steady


def test_a_rebalance_moves_its_bindings_resource_version():
    template = ResourceTemplate.objects.create(
        api_version="v1", kind="ConfigMap", namespace="default", name="web", manifest={}
    )
    binding = ResourceBinding.objects.create(template=template, namespace="default", name="web-configmap")
    store = BindingStore("ResourceBinding")
    before = store.version(store.rows().get(pk=binding.pk))
    services.rebalance([binding])
    after = store.rows().get(pk=binding.pk)
    assert store.version(after) > before
    assert store.document(after)["spec"]["rescheduleTriggeredAt"]
