"""The newer placement features in the planner: quota at scheduling, workload affinity groups, split cost."""

import json
from fractions import Fraction

import pytest

from kubesyntax.quantities import quantity_amount
from scheduling.planner import (
    QUOTA_EXCEEDED,
    Binding,
    ClusterSnapshot,
    Placement,
    QuotaSnapshot,
    ReplicaRequirements,
    ResourceSummary,
    TargetCluster,
    WorkloadPeer,
    describe,
    plan,
    split_cost,
)
from scheduling.planner.cost import parse_price

STATIC_7_3 = {
    "replicaScheduling": {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {
            "staticWeightList": [
                {"targetCluster": {"clusterNames": ["beijing"]}, "weight": 7},
                {"targetCluster": {"clusterNames": ["shanghai"]}, "weight": 3},
            ]
        },
    }
}
HALF_CPU = ReplicaRequirements(resource_request={"cpu": Fraction(1, 2), "memory": Fraction(2**30)})


def cluster(name, labels=None):
    summary = ResourceSummary(
        allocatable={"pods": Fraction(100), "cpu": Fraction(64), "memory": Fraction(2**40)}
    )
    return ClusterSnapshot(name=name, labels=labels or {}, resource_summary=summary)


def quota(cpu, used_cpu, memory="100Gi", used_memory="0"):
    return QuotaSnapshot(
        namespace="shop",
        name="team",
        overall={"cpu": quantity_amount(cpu), "memory": quantity_amount(memory)},
        used={"cpu": quantity_amount(used_cpu), "memory": quantity_amount(used_memory)},
    )


def shop(replicas, previous=()):
    return Binding(replicas=replicas, requirements=HALF_CPU, previous=previous, namespace="shop", name="web")


CLUSTERS = [cluster("beijing"), cluster("shanghai")]


def test_a_new_binding_within_the_quota_is_scheduled_and_the_check_is_explained():
    result = plan(CLUSTERS, Placement.from_dict(STATIC_7_3), shop(10), quotas=[quota("6", "0")])
    assert result.ok
    assert result.replicas() == {"beijing": 7, "shanghai": 3}
    check = result.explanation["quota"]
    assert check["exceeded"] is False
    assert check["after"] == {"cpu": "5", "memory": "10Gi"}
    assert check["quotas"][0]["resources"][0] == {
        "resource": "cpu",
        "limit": "6",
        "used": "0",
        "change": "+5",
        "projected": "5",
        "over": None,
    }


def test_a_scale_up_over_the_quota_is_refused_and_the_previous_split_kept():
    previous = (TargetCluster("beijing", 7), TargetCluster("shanghai", 3))
    # the namespace uses 5 cores already, this workload's 5 among them; 12 replicas would need 6
    result = plan(CLUSTERS, Placement.from_dict(STATIC_7_3), shop(12, previous), quotas=[quota("5500m", "5")])
    assert result.error.reason == QUOTA_EXCEEDED
    assert result.error.message == (
        "FederatedResourceQuota(shop/team) exceeded for resource cpu: requested sum 6, limit 5500m. "
        "Over by 500m."
    )
    assert result.clusters == previous
    assert result.explanation["quota"]["proposed"] == [
        {"name": "beijing", "replicas": 8},
        {"name": "shanghai", "replicas": 4},
    ]
    assert any("500m over" in line for line in describe(result.explanation))
    json.dumps(result.as_dict())


def test_a_scale_down_while_still_over_a_lowered_quota_is_refused_as_karmada_does():
    previous = (TargetCluster("beijing", 7), TargetCluster("shanghai", 3))
    result = plan(CLUSTERS, Placement.from_dict(STATIC_7_3), shop(8, previous), quotas=[quota("3", "5")])
    assert result.error.reason == QUOTA_EXCEEDED
    assert result.clusters == previous


def test_moving_replicas_without_changing_their_number_passes_an_exceeded_quota():
    previous = (TargetCluster("beijing", 5), TargetCluster("shanghai", 5))
    result = plan(CLUSTERS, Placement.from_dict(STATIC_7_3), shop(10, previous), quotas=[quota("1", "5")])
    assert result.ok
    assert result.explanation["quota"]["quotas"][0]["unchanged"] is True


def test_a_resource_the_quota_does_not_name_is_not_counted():
    only_memory = QuotaSnapshot(namespace="shop", name="mem", overall={"memory": Fraction(20 * 2**30)})
    result = plan(CLUSTERS, Placement.from_dict(STATIC_7_3), shop(10), quotas=[only_memory])
    assert result.ok
    assert [r["resource"] for r in result.explanation["quota"]["quotas"][0]["resources"]] == ["memory"]


def test_quotas_of_another_namespace_do_not_apply():
    other = QuotaSnapshot(namespace="billing", name="tiny", overall={"cpu": Fraction(0)})
    assert plan(CLUSTERS, Placement.from_dict(STATIC_7_3), shop(10), quotas=[other]).ok


def test_a_workload_without_requests_uses_no_quota():
    binding = Binding(replicas=10, namespace="shop", name="web")
    assert plan(CLUSTERS, Placement.from_dict(STATIC_7_3), binding, quotas=[quota("0", "0")]).ok


ANTI = {"workloadAffinity": {"antiAffinity": {"groupByLabelKey": "app.group"}}}


def test_an_anti_affinity_peer_keeps_the_workload_off_its_clusters_with_a_reason_per_cluster():
    peer = WorkloadPeer("shop", "api-deployment", anti_affinity_group="app.group=ha", clusters=("beijing",))
    binding = Binding(replicas=2, namespace="shop", name="web", anti_affinity_group="app.group=ha")
    result = plan(CLUSTERS, Placement.from_dict(ANTI), binding, peers=[peer])
    assert result.replicas() == {"shanghai": 2}
    beijing = next(c for c in result.explanation["clusters"] if c["name"] == "beijing")
    assert beijing["outcome"] == "excluded"
    assert beijing["reasons"][0]["filter"] == "WorkloadAntiAffinity"
    assert beijing["reasons"][0]["message"] == (
        "shop/api-deployment of workload anti-affinity group app.group=ha already runs here"
    )


def test_an_affinity_group_follows_its_scheduled_peer():
    peer = WorkloadPeer("shop", "api-deployment", affinity_group="app.group=ha", clusters=("shanghai",))
    binding = Binding(replicas=2, namespace="shop", name="web", affinity_group="app.group=ha")
    placement = Placement.from_dict({"workloadAffinity": {"affinity": {"groupByLabelKey": "app.group"}}})
    assert plan(CLUSTERS, placement, binding, peers=[peer]).replicas() == {"shanghai": 2}


def test_the_group_key_is_parsed_from_the_placement():
    affinity = Placement.from_dict(ANTI).workload_affinity
    assert affinity is not None and affinity.anti_affinity_key == "app.group"


PRICED = [
    cluster(
        "beijing", {"cost.karmada-ui.io/cpu-hour": "0.04", "cost.karmada-ui.io/memory-gib-hour": "0.005"}
    ),
    cluster("shanghai", {"cost.karmada-ui.io/cpu-hour": "0.031"}),
    cluster("guangzhou"),
]


def test_the_cost_of_a_split_is_requests_times_the_cluster_prices_beside_the_current_split():
    cost = split_cost(PRICED, HALF_CPU, {"beijing": 7, "shanghai": 3}, {"beijing": 5, "shanghai": 5})
    rows = {row["cluster"]: row for row in cost["clusters"]}
    assert rows["beijing"]["per_replica_hour"] == pytest.approx(0.5 * 0.04 + 1 * 0.005)
    assert rows["beijing"]["hour"] == pytest.approx(7 * 0.025)
    assert rows["shanghai"]["hour"] == pytest.approx(3 * 0.0155)
    assert cost["hour"] == pytest.approx(0.175 + 0.0465)
    assert cost["current_hour"] == pytest.approx(5 * 0.025 + 5 * 0.0155)
    assert cost["difference_hour"] == pytest.approx(0.2215 - 0.2025)
    assert cost["month"] == pytest.approx(0.2215 * 730)
    assert cost["unpriced"] == []


def test_clusters_without_a_price_are_named_and_left_out_of_the_total():
    cost = split_cost(PRICED, HALF_CPU, {"beijing": 1, "guangzhou": 4})
    assert cost["unpriced"] == ["guangzhou"]
    assert cost["hour"] == pytest.approx(0.025)
    assert cost["difference_hour"] is None


def test_no_cost_is_estimated_when_no_cluster_carries_a_price():
    assert split_cost([cluster("a"), cluster("b")], HALF_CPU, {"a": 3}) is None


@pytest.mark.parametrize("text", ["abc", "-1", "1e3", "", "0.0000000001"])
def test_a_malformed_price_counts_as_no_price(text):
    assert parse_price(text) is None
